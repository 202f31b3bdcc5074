//! `reqwest::RetryMiddleware` in a real reqwest-middleware client against a real axum server
//! on 127.0.0.1 (SPEC §8): each test counts the requests the server received, so it fails if
//! the classification is ignored. Every run is bounded in attempts and in time.
#![cfg(feature = "reqwest-middleware")]

use crate::support::scripted;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agent_error::classify;
use agent_error::reqwest::RetryMiddleware;
use agent_error::retry::{Retrier, RetryBudget};
use reqwest_middleware::{ClientBuilder, ClientWithMiddleware};
use scripted::{Recorder, Reply, Server, bounded, refused_url, serve};

fn client(middleware: RetryMiddleware) -> ClientWithMiddleware {
    let inner = reqwest::Client::builder().no_proxy().build().unwrap();
    ClientBuilder::new(inner).with(middleware).build()
}

/// A client whose retries `recorder` records, with `retrier`.
fn recorded(recorder: &Recorder, retrier: Retrier) -> ClientWithMiddleware {
    client(RetryMiddleware::new(retrier).with_sleep(recorder.sleep()))
}

/// GETs a server that answers `replies`, through a client with the recorder's retrier.
async fn get(replies: Vec<Reply>) -> (Server, Recorder, reqwest::Response) {
    let server = serve(replies).await;
    let recorder = Recorder::default();
    let client = recorded(&recorder, recorder.retrier());
    let response = bounded(client.get(&server.url).send()).await.unwrap();
    (server, recorder, response)
}

#[tokio::test]
async fn a_429_with_retry_after_ms_is_waited_for_real_then_retried() {
    let server = serve(vec![
        Reply::new(429).header("retry-after-ms", "150"),
        Reply::new(200).body("ok"),
    ])
    .await;
    let hooked = Arc::new(Mutex::new(Vec::new()));
    let hook = hooked.clone();
    let retrier = Retrier::new().on_retry(move |e, retry, delay| {
        hook.lock()
            .unwrap()
            .push((e.code().to_string(), retry, delay));
    });
    let client = client(RetryMiddleware::new(retrier));
    let response = bounded(client.get(&server.url).send()).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), "ok");
    assert_eq!(server.hits(), 2);
    let times = server.times();
    assert!(times[1] - times[0] >= Duration::from_millis(150));
    assert_eq!(
        *hooked.lock().unwrap(),
        [("rate_limit".to_string(), 1, Duration::from_millis(150))]
    );
}

#[tokio::test]
async fn two_503s_then_a_200_make_three_attempts() {
    let (server, recorder, response) = get(vec![
        Reply::new(503),
        Reply::new(503),
        Reply::new(200).body("ok"),
    ])
    .await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), "ok");
    assert_eq!(server.hits(), 3);
    assert_eq!(recorder.codes(), ["provider_unavailable"; 2]);
    let slept = recorder.slept();
    assert_eq!(slept.len(), 2);
    // The default policy's full-jittered backoff: at most 200 ms, then 400 ms.
    assert!(slept[0] <= Duration::from_millis(200) && slept[1] <= Duration::from_millis(400));
}

#[tokio::test]
async fn a_400_is_sent_once_and_returned_whole() {
    let body = r#"{"error":{"message":"bad field","type":"invalid_request_error"}}"#;
    let (server, recorder, response) = get(vec![
        Reply::new(400).header("x-request-id", "r1").body(body),
        Reply::new(200),
    ])
    .await;
    assert_eq!(server.hits(), 1);
    assert_eq!(response.status(), 400);
    assert_eq!(response.headers()["x-request-id"], "r1");
    assert_eq!(response.content_length(), Some(body.len() as u64));
    assert_eq!(response.url().as_str(), server.url);
    assert_eq!(response.text().await.unwrap(), body);
    assert!(recorder.slept().is_empty());
}

#[tokio::test]
async fn a_429_whose_body_says_insufficient_quota_is_not_retried() {
    let body = r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#;
    let (server, recorder, response) = get(vec![
        Reply::new(429).header("retry-after", "1").body(body),
        Reply::new(200),
    ])
    .await;
    assert_eq!(server.hits(), 1);
    assert_eq!(response.status(), 429);
    assert_eq!(response.text().await.unwrap(), body);
    assert!(recorder.codes().is_empty());
}

#[tokio::test]
async fn an_error_body_longer_than_the_classified_part_is_given_back_whole() {
    let body = "x".repeat(200 * 1024);
    let (server, _, response) = get(vec![Reply::new(400).body(body.clone())]).await;
    assert_eq!(server.hits(), 1);
    assert_eq!(response.content_length(), Some(body.len() as u64));
    assert_eq!(response.text().await.unwrap(), body);
}

#[tokio::test]
async fn a_request_with_a_streaming_body_is_sent_once() {
    let server = serve(vec![Reply::new(503), Reply::new(503), Reply::new(200)]).await;
    let recorder = Recorder::default();
    let client = recorded(&recorder, recorder.retrier());
    let streaming = reqwest::Body::wrap(http_body_util::Full::new(bytes::Bytes::from("prompt")));
    let response = bounded(client.post(&server.url).body(streaming).send())
        .await
        .unwrap();
    assert_eq!(server.hits(), 1);
    assert_eq!(response.status(), 503);
    assert!(recorder.slept().is_empty());

    // The same request with a body that can be cloned is retried.
    let response = bounded(client.post(&server.url).body("prompt").send())
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(server.hits(), 3);
}

#[tokio::test]
async fn an_empty_budget_stops_the_retries() {
    let server = serve(vec![Reply::new(503), Reply::new(200)]).await;
    let recorder = Recorder::default();
    let budget = RetryBudget::with_capacity(0);
    let client = recorded(&recorder, recorder.retrier().budget(budget.clone()));
    let response = bounded(client.get(&server.url).send()).await.unwrap();
    assert_eq!(server.hits(), 1);
    assert_eq!(response.status(), 503);
    assert!(recorder.slept().is_empty());
}

#[tokio::test]
async fn retries_spend_the_shared_budget_and_a_success_gives_it_back() {
    let server = serve(vec![Reply::new(503), Reply::new(200)]).await;
    let recorder = Recorder::default();
    let budget = RetryBudget::with_capacity(10);
    let spent = Arc::new(Mutex::new(None));
    let seen = spent.clone();
    let watched = budget.clone();
    let retrier = Retrier::new()
        .budget(budget.clone())
        .on_retry(move |_, _, _| *seen.lock().unwrap() = Some(watched.available()));
    let client = recorded(&recorder, retrier);
    let response = bounded(client.get(&server.url).send()).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(server.hits(), 2);
    let before_success = spent.lock().unwrap().expect("one retry");
    assert!(before_success < 10);
    assert_eq!(budget.available(), 10);
}

#[tokio::test]
async fn a_refused_connection_is_retried_as_provider_unavailable() {
    let url = refused_url().await;
    let recorder = Recorder::default();
    let client = recorded(&recorder, recorder.retrier());
    let started = Instant::now();
    let err = bounded(client.get(&url).send()).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    // The default policy: 3 attempts in all, so 2 retries.
    assert_eq!(recorder.codes(), ["provider_unavailable"; 2]);
    assert!(err.is_connect());
    let classified = classify(&err).expect("classified");
    assert_eq!(classified.code(), "provider_unavailable");
    assert!(classified.is_retryable());
}
