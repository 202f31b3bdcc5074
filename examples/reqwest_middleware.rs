//! A reqwest-middleware client that retries by classification: a small provider on loopback
//! (axum) answers 429 with `retry-after-ms`, then 503, then 200, and `RetryMiddleware` waits
//! the server's delay, backs off after the 503 and returns the answer. A second call gets a
//! 429 whose body says the quota is spent: it is not retried.
//!
//! `cargo run --example reqwest_middleware --features reqwest-middleware`

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use agent_error::reqwest::RetryMiddleware;
use agent_error::retry::Retrier;
use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;

/// Each call in turn: 429 asking for 50 ms, 503, 200, then a spent quota.
async fn completions(State(calls): State<Arc<AtomicU32>>) -> Response {
    match calls.fetch_add(1, Ordering::SeqCst) {
        0 => (StatusCode::TOO_MANY_REQUESTS, [("retry-after-ms", "50")], "slow down").into_response(),
        1 => (StatusCode::SERVICE_UNAVAILABLE, "overloaded").into_response(),
        2 => (StatusCode::OK, "Hello!").into_response(),
        _ => (
            StatusCode::TOO_MANY_REQUESTS,
            r#"{"error":{"message":"You exceeded your current quota","code":"insufficient_quota"}}"#,
        )
            .into_response(),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let calls = Arc::new(AtomicU32::new(0));
    let app = Router::new().route(
        "/v1/chat/completions",
        post(completions).with_state(calls.clone()),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/v1/chat/completions", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, app).await });

    let retrier = Retrier::new().seed(7).on_retry(|e, retry, _delay| {
        println!(
            "retry {retry} after {}: {}",
            e.code(),
            agent_error::display::public(e)
        );
    });
    let client =
        reqwest_middleware::ClientBuilder::new(reqwest::Client::builder().no_proxy().build()?)
            .with(RetryMiddleware::new(retrier))
            .build();

    let response = client.post(&url).body("Hi").send().await?;
    println!("{} {}", response.status(), response.text().await?);
    println!("server calls: {}", calls.load(Ordering::SeqCst));

    let response = client.post(&url).body("Hi").send().await?;
    let failure = agent_error::http::StatusError::from_reqwest(response).await;
    println!("not retried: {}", agent_error::tool::render(&failure));
    println!("server calls: {}", calls.load(Ordering::SeqCst));
    Ok(())
}
