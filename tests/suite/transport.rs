//! Raw transport failures and provider responses over loopback, retried by their
//! classification (SPEC §7): a reqwest timeout against a server that never answers, a
//! refused connection on a closed port, and a 429 with `retry-after-ms`. Binds 127.0.0.1
//! only; every loop is bounded in attempts and in time.
#![cfg(all(feature = "reqwest", feature = "tokio", feature = "anyhow"))]

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use agent_error::retry::{Outcome, Retrier, Stop, tokio_sleep};
use agent_error::{AgentError, classify};

#[path = "../../examples/openai_client.rs"]
#[allow(dead_code)]
mod openai_client;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn client(timeout: Duration) -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(timeout)
        .build()
        .unwrap()
}

/// The retrier's sleeps are skipped: the tests check decisions, not waiting.
async fn no_sleep(_: Duration) {}

/// GETs `url` with the default retrier, each attempt cut off after `timeout`, the whole
/// bounded in time.
async fn get_retried(url: &str, timeout: Duration) -> Outcome<reqwest::Response, reqwest::Error> {
    let client = client(timeout);
    tokio::time::timeout(
        Duration::from_secs(10),
        Retrier::new().run_async_detailed(|_| client.get(url).send(), no_sleep),
    )
    .await
    .expect("bounded in time")
}

#[test]
fn a_reqwest_timeout_is_retried_as_a_timeout() {
    runtime().block_on(async {
        // Accepts connections and never answers.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let accepted = Arc::new(AtomicU32::new(0));
        let counter = accepted.clone();
        tokio::spawn(async move {
            let mut open = Vec::new();
            while let Ok((socket, _)) = listener.accept().await {
                counter.fetch_add(1, Ordering::SeqCst);
                open.push(socket);
            }
        });
        let outcome = get_retried(&url, Duration::from_millis(100)).await;
        let err = outcome.result.unwrap_err();
        assert!(err.is_timeout());
        let c = classify(&err).unwrap();
        assert_eq!(c.code(), "timeout");
        assert_eq!(
            agent_error::display::public(&*c).to_string(),
            "the request timed out"
        );
        // `timeout`'s default policy: 3 attempts.
        assert_eq!(
            (outcome.stop, outcome.attempts),
            (Stop::AttemptsExhausted, 3)
        );
        assert_eq!(accepted.load(Ordering::SeqCst), 3);
    });
}

#[test]
fn a_refused_connection_is_retried_as_provider_unavailable() {
    runtime().block_on(async {
        // A port that was just free: nothing listens there now.
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let url = format!("http://127.0.0.1:{port}/");
        let outcome = get_retried(&url, Duration::from_secs(5)).await;
        let err = outcome.result.unwrap_err();
        assert!(err.is_connect());
        let c = classify(&err).unwrap();
        assert_eq!(c.code(), "provider_unavailable");
        assert!(c.is_retryable());
        assert_eq!(
            (outcome.stop, outcome.attempts),
            (Stop::AttemptsExhausted, 3)
        );
        // The same through anyhow, as a newcomer's client returns it.
        let wrapped = anyhow::Error::new(err).context("calling the model");
        assert!(agent_error::is_retryable(wrapped.as_ref()));
        assert_eq!(
            agent_error::tool::render_error(wrapped.as_ref()),
            "[error:provider_unavailable] could not connect to the server"
        );
    });
}

#[test]
fn a_429_with_retry_after_ms_then_a_503_are_retried_until_the_answer() {
    runtime().block_on(async {
        let (base, calls) = openai_client::serve().await;
        let client = client(Duration::from_secs(5));
        let delays = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = delays.clone();
        let retrier = Retrier::new().seed(7).on_retry(move |e, _, delay| {
            seen.lock().unwrap().push((e.code().to_string(), delay));
        });
        let started = Instant::now();
        let outcome = tokio::time::timeout(
            Duration::from_secs(10),
            retrier.run_async_detailed(|_| openai_client::complete(&client, &base), tokio_sleep),
        )
        .await
        .expect("bounded in time");
        let answer = outcome.result.expect("the third call answers");
        assert!(answer.contains("Hello!"), "{answer}");
        assert_eq!((outcome.stop, outcome.attempts), (Stop::Succeeded, 3));
        assert_eq!(calls.load(Ordering::SeqCst), 3);
        let delays = delays.lock().unwrap();
        // The server's 300 ms exactly, then the 503's jittered backoff (at most 200 ms).
        assert_eq!(
            delays[0],
            ("rate_limit".to_string(), Duration::from_millis(300))
        );
        assert_eq!(delays[1].0, "provider_unavailable");
        assert!(delays[1].1 <= Duration::from_millis(200));
        assert!(started.elapsed() >= Duration::from_millis(300));
    });
}

#[test]
fn check_lets_a_success_through_and_classifies_an_error_response() {
    runtime().block_on(async {
        let (base, _) = openai_client::serve().await;
        let client = client(Duration::from_secs(5));
        let url = format!("{base}/v1/chat/completions");
        let first = client.post(&url).send().await.unwrap();
        let err = agent_error::reqwest::check_as(first, "llm.generate")
            .await
            .unwrap_err();
        assert_eq!(err.code(), "rate_limit");
        assert_eq!(err.op(), "llm.generate");
        assert!(
            err.to_string().starts_with("llm.generate [rate_limit]: "),
            "{err}"
        );
        assert_eq!(err.retry_after(), Some(Duration::from_millis(300)));
        assert_eq!(err.status(), 429);
        let second = client.post(&url).send().await.unwrap();
        let err = agent_error::http::StatusError::from_reqwest(second).await;
        assert_eq!(err.code(), "provider_unavailable");
        assert_eq!(err.op(), "http");
        assert!(err.body().contains("overloaded"));
        let third = client.post(&url).send().await.unwrap();
        let ok = agent_error::reqwest::check(third).await.unwrap();
        assert_eq!(ok.status(), 200);
    });
}

#[test]
fn an_error_status_from_error_for_status_is_classified_as_the_status() {
    runtime().block_on(async {
        let (base, _) = openai_client::serve().await;
        let client = client(Duration::from_secs(5));
        let response = client
            .post(format!("{base}/v1/chat/completions"))
            .send()
            .await
            .unwrap();
        let err = response.error_for_status().unwrap_err();
        let c = classify(&err).unwrap();
        assert_eq!(c.code(), "rate_limit");
        assert!(c.is_rate_limited());
        assert_eq!(
            agent_error::display::public(&*c).to_string(),
            "HTTP 429 Too Many Requests"
        );
    });
}

#[test]
fn a_request_that_cannot_be_built_is_invalid_input() {
    let err = reqwest::Client::new().get("not a url").build().unwrap_err();
    let c = classify(&err).unwrap();
    assert_eq!(c.code(), "invalid_input");
    assert!(!c.is_retryable());
}
