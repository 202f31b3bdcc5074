//! A failure crossing a process boundary: a small model gateway (axum, on loopback) answers
//! with RFC 9457 problem+json, and a client (reqwest) turns each response back into a
//! classified error that the retrier obeys: a 429 with Retry-After, two 503s, then 200;
//! and a 429 whose quota is spent, which is not retried. Prints what crosses the wire.
//!
//! `cargo run --example remote --features serde,reqwest,tokio`

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use agent_error::http::StatusError;
use agent_error::report::Problem;
use agent_error::retry::{Retrier, tokio_sleep};
use agent_error::{AgentError, Report};
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

/// Whether to print what crosses the wire (the example does; the test that reuses this file does not).
static VERBOSE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn say(line: impl std::fmt::Display) {
    if VERBOSE.load(Ordering::Relaxed) {
        println!("{line}");
    }
}

/// The server side: an error becomes a problem+json response.
fn problem_response(report: &Report, retry_after: Option<&'static str>) -> Response {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(Problem::CONTENT_TYPE),
    );
    if let Some(value) = retry_after {
        headers.insert(header::RETRY_AFTER, HeaderValue::from_static(value));
    }
    let body = serde_json::to_string(&report.to_problem()).expect("a problem serializes");
    say(format_args!(
        "  server -> {} {}{}",
        report.http_status(),
        body,
        retry_after
            .map(|r| format!(" (Retry-After: {r})"))
            .unwrap_or_default()
    ));
    let status =
        StatusCode::from_u16(report.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, headers, body).into_response()
}

/// 429 (problem+json, Retry-After: 1), 503, 503, then 200.
async fn flaky(State(hits): State<Arc<AtomicU32>>) -> Response {
    match hits.fetch_add(1, Ordering::SeqCst) {
        0 => problem_response(
            &Report::capture(&StatusError::new(429).with_op("llm.generate")),
            Some("1"),
        ),
        1 | 2 => {
            say("  server -> 503 upstream overloaded (plain text)");
            (StatusCode::SERVICE_UNAVAILABLE, "upstream overloaded").into_response()
        }
        _ => {
            say("  server -> 200 hello");
            (StatusCode::OK, "hello").into_response()
        }
    }
}

/// A 429 whose problem says the quota is spent.
async fn quota(State(hits): State<Arc<AtomicU32>>) -> Response {
    hits.fetch_add(1, Ordering::SeqCst);
    let spent = StatusError::new(429)
        .with_op("llm.generate")
        .with_body("insufficient_quota");
    problem_response(&Report::capture(&spent), Some("1"))
}

/// Starts the gateway on an ephemeral loopback port: its base URL and the hit counters of
/// `/flaky` and `/quota`.
pub async fn serve() -> (String, Arc<AtomicU32>, Arc<AtomicU32>) {
    let (flaky_hits, quota_hits) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
    let app = Router::new()
        .route("/flaky", get(flaky).with_state(flaky_hits.clone()))
        .route("/quota", get(quota).with_state(quota_hits.clone()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let base = format!("http://{}", listener.local_addr().expect("a bound address"));
    tokio::spawn(async move { axum::serve(listener, app).await.expect("the gateway runs") });
    (base, flaky_hits, quota_hits)
}

/// The client side: a transport error keeps its own classification (a refused connection
/// is `provider_unavailable`, retried); a failed response becomes a classified [`Report`],
/// from its problem+json when it has one, else from its status, headers and body.
pub async fn call(client: &reqwest::Client, url: &str) -> Result<String, Report> {
    let response = client
        .get(url)
        .send()
        .await
        .map_err(|e| Report::capture(&e))?;
    if response.status().is_success() {
        return Ok(response.text().await.unwrap_or_default());
    }
    let is_problem = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(Problem::CONTENT_TYPE.as_bytes()));
    let status = StatusError::from_reqwest(response).await;
    let report = match serde_json::from_str::<Problem>(status.body()) {
        Ok(problem) if is_problem => {
            Report::from_problem(problem).or_retry_after(status.retry_after())
        }
        _ => Report::capture(&status),
    };
    say(format_args!(
        "  client <- {} (retryable: {}, retry-after: {:?}, recovery: {})",
        report,
        report.is_retryable(),
        report.retry_after(),
        report.recovery()
    ));
    Err(report)
}

/// The client's retrier: each error's own policy, within 5 attempts and 10 seconds.
pub fn retrier() -> Retrier {
    Retrier::new()
        .seed(11)
        .max_attempts(5)
        .max_elapsed(Duration::from_secs(10))
        .on_retry(|e, retry, delay| {
            say(format_args!("  retry {retry} in {delay:?} ({})", e.code()))
        })
}

#[allow(dead_code)]
#[tokio::main(flavor = "current_thread")]
async fn main() {
    VERBOSE.store(true, Ordering::Relaxed);
    let (base, _, _) = serve().await;
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("a client");

    println!("GET /flaky: 429 with Retry-After, 503, 503, 200");
    let url = format!("{base}/flaky");
    let outcome = retrier()
        .run_async_detailed(|_| call(&client, &url), tokio_sleep)
        .await;
    println!(
        "  => {:?} after {} attempts ({})\n",
        outcome.result, outcome.attempts, outcome.stop
    );

    println!("GET /quota: a 429 whose quota is spent");
    let url = format!("{base}/quota");
    let outcome = retrier()
        .run_async_detailed(|_| call(&client, &url), tokio_sleep)
        .await;
    let err = outcome.result.expect_err("the quota stays spent");
    println!(
        "  => {} after {} attempt ({}; recovery: {})",
        err.code(),
        outcome.attempts,
        outcome.stop,
        err.recovery()
    );
    println!(
        "  as JSON: {}",
        serde_json::to_string(&err).expect("a report serializes")
    );
}
