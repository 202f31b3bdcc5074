//! Calling a provider over HTTP with reqwest and anyhow, no glue: a small OpenAI-style
//! server on loopback (axum) answers 429 with `retry-after-ms`, then 503, then 200; the
//! client's errors are classified where they arise (transport errors by their kind, error
//! responses by status, headers and body) and the retrier obeys each one.
//!
//! `cargo run --example openai_client --features reqwest,tokio,anyhow`

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use agent_error::retry::{Retrier, tokio_sleep};
use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;

/// What the provider answers to each call in turn: 429 asking for 300 ms, 503, then 200.
async fn completions(State(calls): State<Arc<AtomicU32>>) -> Response {
    let json = [("content-type", "application/json")];
    match calls.fetch_add(1, Ordering::SeqCst) {
        0 => (
            StatusCode::TOO_MANY_REQUESTS,
            [("content-type", "application/json"), ("retry-after-ms", "300")],
            r#"{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}"#,
        )
            .into_response(),
        1 => (
            StatusCode::SERVICE_UNAVAILABLE,
            json,
            r#"{"error":{"message":"The server is overloaded","type":"server_error"}}"#,
        )
            .into_response(),
        _ => (
            StatusCode::OK,
            json,
            r#"{"choices":[{"message":{"role":"assistant","content":"Hello!"}}]}"#,
        )
            .into_response(),
    }
}

/// Starts the provider on an ephemeral loopback port: its base URL and its call counter.
pub async fn serve() -> (String, Arc<AtomicU32>) {
    let calls = Arc::new(AtomicU32::new(0));
    let app = Router::new().route(
        "/v1/chat/completions",
        post(completions).with_state(calls.clone()),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let base = format!("http://{}", listener.local_addr().expect("a bound address"));
    tokio::spawn(async move { axum::serve(listener, app).await.expect("the server runs") });
    (base, calls)
}

/// One call to the provider: every `?` keeps the error's classification.
pub async fn complete(client: &reqwest::Client, base: &str) -> anyhow::Result<String> {
    let response = client
        .post(format!("{base}/v1/chat/completions"))
        .body(r#"{"model":"small","messages":[{"role":"user","content":"Hi"}]}"#)
        .send()
        .await?;
    let response = agent_error::reqwest::check_as(response, "llm.generate").await?;
    Ok(response.text().await?)
}

#[allow(dead_code)]
#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let (base, _) = serve().await;
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(10))
        .build()?;
    let retrier = Retrier::new().seed(7).on_retry(|e, retry, delay| {
        println!(
            "retry {retry} in {} ms after {}: {}",
            delay.as_millis(),
            e.code(),
            agent_error::display::public(e)
        );
    });
    let answer = retrier
        .run_async(|_| complete(&client, &base), tokio_sleep)
        .await?;
    println!("answer: {answer}");
    Ok(())
}
