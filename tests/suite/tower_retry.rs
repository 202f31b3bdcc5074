//! `tower::RetryLayer` around a real tower HTTP client (hyper-util's) against a real axum
//! server on 127.0.0.1, and around a plain `service_fn` (SPEC §8): each test counts the
//! calls the far side received, so it fails if the classification is ignored. Every run is
//! bounded in attempts and in time.
#![cfg(feature = "tower")]

use crate::support::scripted;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use agent_error::retry::{Retrier, RetryBudget};
use agent_error::tower::RetryLayer;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use scripted::{Recorder, Reply, Server, bounded, refused_url, serve};
use tower::{BoxError, Service, ServiceBuilder, ServiceExt};

type Http = Client<HttpConnector, Full<Bytes>>;

fn http_client() -> Http {
    Client::builder(TokioExecutor::new()).build_http()
}

/// A layer whose retries `recorder` records, with `retrier`.
fn recorded<M>(recorder: &Recorder, retrier: Retrier) -> RetryLayer<M> {
    RetryLayer::new(retrier).with_sleep(recorder.sleep())
}

/// GET `server`, through `layer` over hyper-util's client: the status and the body.
async fn get(layer: RetryLayer, url: &str) -> Result<(u16, String), BoxError> {
    let mut client = ServiceBuilder::new().layer(layer).service(http_client());
    let request = http::Request::get(url).body(Full::default())?;
    let response = bounded(client.ready().await?.call(request)).await?;
    let status = response.status().as_u16();
    let body = response.into_body().collect().await?.to_bytes();
    Ok((status, String::from_utf8(body.to_vec())?))
}

async fn get_ok(layer: RetryLayer, server: &Server) -> (u16, String) {
    get(layer, &server.url).await.expect("a response")
}

#[tokio::test]
async fn two_503s_then_a_200_make_three_attempts() {
    let server = serve(vec![
        Reply::new(503),
        Reply::new(503),
        Reply::new(200).body("ok"),
    ])
    .await;
    let recorder = Recorder::default();
    let answer = get_ok(recorded(&recorder, recorder.retrier()), &server).await;
    assert_eq!(answer, (200, "ok".to_string()));
    assert_eq!(server.hits(), 3);
    assert_eq!(recorder.codes(), ["provider_unavailable"; 2]);
    let slept = recorder.slept();
    assert!(slept[0] <= Duration::from_millis(200) && slept[1] <= Duration::from_millis(400));
}

#[tokio::test]
async fn a_429_with_retry_after_ms_is_waited_for_real_then_retried() {
    let server = serve(vec![
        Reply::new(429).header("retry-after-ms", "120"),
        Reply::new(200).body("ok"),
    ])
    .await;
    let answer = get_ok(RetryLayer::new(Retrier::new()), &server).await;
    assert_eq!(answer, (200, "ok".to_string()));
    assert_eq!(server.hits(), 2);
    let times = server.times();
    assert!(times[1] - times[0] >= Duration::from_millis(120));
}

#[tokio::test]
async fn a_400_is_returned_at_once_with_its_body() {
    let server = serve(vec![Reply::new(400).body("bad field"), Reply::new(200)]).await;
    let recorder = Recorder::default();
    let answer = get_ok(recorded(&recorder, recorder.retrier()), &server).await;
    assert_eq!(answer, (400, "bad field".to_string()));
    assert_eq!(server.hits(), 1);
    assert!(recorder.slept().is_empty());
}

#[tokio::test]
async fn a_503_the_server_says_not_to_retry_is_returned_at_once() {
    let server = serve(vec![
        Reply::new(503).header("x-should-retry", "false"),
        Reply::new(200),
    ])
    .await;
    let recorder = Recorder::default();
    let answer = get_ok(recorded(&recorder, recorder.retrier()), &server).await;
    assert_eq!(answer.0, 503);
    assert_eq!(server.hits(), 1);
}

#[tokio::test]
async fn an_empty_budget_stops_the_retries() {
    let server = serve(vec![Reply::new(503), Reply::new(200)]).await;
    let recorder = Recorder::default();
    let retrier = recorder.retrier().budget(RetryBudget::with_capacity(0));
    let answer = get_ok(recorded(&recorder, retrier), &server).await;
    assert_eq!(answer.0, 503);
    assert_eq!(server.hits(), 1);
    assert!(recorder.slept().is_empty());
}

#[tokio::test]
async fn calls_do_not_share_their_attempts() {
    // Each call may make 3 attempts: two calls through one service make 6, not 3.
    let server = serve(vec![Reply::new(503)]).await;
    let recorder = Recorder::default();
    let mut client = ServiceBuilder::new()
        .layer(recorded(&recorder, recorder.retrier()))
        .service(http_client());
    for _ in 0..2 {
        let request = http::Request::get(&server.url)
            .body(Full::default())
            .unwrap();
        let response = bounded(client.ready().await.unwrap().call(request))
            .await
            .unwrap();
        assert_eq!(response.status(), 503);
    }
    assert_eq!(server.hits(), 6);
}

#[tokio::test]
async fn a_refused_connection_is_retried_as_provider_unavailable() {
    let url = refused_url().await;
    let recorder = Recorder::default();
    let err = get(recorded(&recorder, recorder.retrier()), &url)
        .await
        .unwrap_err();
    // The default policy: 3 attempts in all, so 2 retries.
    assert_eq!(recorder.codes(), ["provider_unavailable"; 2]);
    let classified = agent_error::classify(&*err).expect("classified");
    assert_eq!(classified.code(), "provider_unavailable");
}

#[tokio::test]
async fn any_service_s_classified_errors_are_retried_and_others_are_not() {
    let calls = Arc::new(AtomicU32::new(0));
    let counter = calls.clone();
    // A service that is not HTTP, with tower's `BoxError`: a timeout, then the answer.
    let flaky = tower::service_fn(move |prompt: String| {
        let n = counter.fetch_add(1, Ordering::SeqCst);
        async move {
            match (n, prompt.as_str()) {
                (_, "missing") => Err(BoxError::from(std::io::Error::from(
                    std::io::ErrorKind::NotFound,
                ))),
                (0, _) => Err(std::io::Error::from(std::io::ErrorKind::TimedOut).into()),
                _ => Ok(format!("answer to {prompt}")),
            }
        }
    });
    let recorder = Recorder::default();
    let mut service = ServiceBuilder::new()
        .layer(recorded(&recorder, recorder.retrier()))
        .service(flaky);
    let answer = bounded(service.ready().await.unwrap().call("hi".into())).await;
    assert_eq!(answer.unwrap(), "answer to hi");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(recorder.codes(), ["timeout"]);

    let err = bounded(service.ready().await.unwrap().call("missing".into()))
        .await
        .unwrap_err();
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    assert_eq!(
        agent_error::classify(&*err).map(|c| c.code().to_string()),
        Some("not_found".to_string())
    );
}

#[tokio::test]
async fn a_service_answering_u32_is_served_without_a_newtype() {
    let calls = Arc::new(AtomicU32::new(0));
    let seen = calls.clone();
    let counter = tower::service_fn(move |prompt: &'static str| {
        let n = seen.fetch_add(1, Ordering::SeqCst);
        async move {
            if n == 0 {
                Err(std::io::Error::from(std::io::ErrorKind::TimedOut))
            } else {
                Ok::<u32, std::io::Error>(prompt.len() as u32)
            }
        }
    });
    let service = ServiceBuilder::new()
        .layer(
            RetryLayer::new(Retrier::new().seed(1))
                .any_response()
                .with_sleep(|_| async {}),
        )
        .service(counter);
    assert_eq!(bounded(service.oneshot("hello")).await.unwrap(), 5);
    assert_eq!(calls.load(Ordering::SeqCst), 2, "the timeout was retried");
}

#[tokio::test]
async fn a_function_classifies_responses_of_any_type() {
    use agent_error::{AgentError, Error, codes};
    let calls = Arc::new(AtomicU32::new(0));
    let seen = calls.clone();
    // Answers 0 ("overloaded") twice, then 42.
    let counter = tower::service_fn(move |_: ()| {
        let n = seen.fetch_add(1, Ordering::SeqCst);
        async move { Ok::<u32, std::io::Error>(if n < 2 { 0 } else { 42 }) }
    });
    let layer = RetryLayer::new(Retrier::new().seed(1))
        .classify_responses(|n: &u32| {
            (*n == 0).then(|| {
                Box::new(Error::new(
                    "count",
                    codes::PROVIDER_UNAVAILABLE,
                    "overloaded",
                )) as Box<dyn AgentError + Send + Sync>
            })
        })
        .with_sleep(|_| async {});
    let service = ServiceBuilder::new().layer(layer).service(counter);
    assert_eq!(bounded(service.oneshot(())).await.unwrap(), 42);
    assert_eq!(calls.load(Ordering::SeqCst), 3);
}
