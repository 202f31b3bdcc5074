//! A tower HTTP client (hyper-util's) under `RetryLayer`: a loopback server (axum) answers
//! 503 twice with `Retry-After: 0`, then 200; the layer classifies each error status from
//! its headers and retries until the answer. A 404 is returned at once.
//!
//! `cargo run --example tower_retry --features tower`

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use agent_error::retry::Retrier;
use agent_error::tower::RetryLayer;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use tower::{Service, ServiceBuilder, ServiceExt};

async fn answer(State(calls): State<Arc<AtomicU32>>, uri: axum::http::Uri) -> Response {
    if uri.path() == "/missing" {
        return StatusCode::NOT_FOUND.into_response();
    }
    match calls.fetch_add(1, Ordering::SeqCst) {
        0 | 1 => (StatusCode::SERVICE_UNAVAILABLE, [("retry-after", "0")]).into_response(),
        _ => (StatusCode::OK, "pong").into_response(),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let calls = Arc::new(AtomicU32::new(0));
    let app = axum::Router::new()
        .fallback(answer)
        .with_state(calls.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, app).await });

    let retrier = Retrier::new().on_retry(|e, retry, delay| {
        println!("retry {retry} in {delay:?} after {}", e.code());
    });
    let mut client = ServiceBuilder::new()
        .layer(RetryLayer::new(retrier))
        .service(Client::builder(TokioExecutor::new()).build_http::<Full<Bytes>>());

    for path in ["/ping", "/missing"] {
        let request = http::Request::get(format!("{base}{path}")).body(Full::default())?;
        let response = client.ready().await?.call(request).await?;
        let status = response.status();
        let body = response.into_body().collect().await?.to_bytes();
        println!("GET {path}: {status} {:?}", String::from_utf8_lossy(&body));
    }
    println!("server calls for /ping: {}", calls.load(Ordering::SeqCst));
    Ok(())
}
