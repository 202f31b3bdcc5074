//! async-openai's own client under a `Retrier`: its `OpenAIError` is classified by status,
//! error code and transport, so a rate limit is retried and a spent quota is not. A fake
//! OpenAI server on 127.0.0.1 (axum) answers 429 `rate_limit_exceeded`, then 200, then 429
//! `insufficient_quota`.
//!
//! async-openai retries 429s by itself in the client it builds; the client here is built
//! with `agent_error::openai::client`, which gives it the plain transport, so that the
//! retrier alone decides.
//!
//! `cargo run --example openai_sdk --features async-openai,tokio`

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use agent_error::retry::{Retrier, tokio_sleep};
use async_openai::config::OpenAIConfig;
use async_openai::types::chat::{ChatCompletionRequestMessage, CreateChatCompletionRequestArgs};
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;

async fn completions(State(calls): State<Arc<AtomicU32>>) -> (StatusCode, &'static str) {
    match calls.fetch_add(1, Ordering::SeqCst) {
        0 => (
            StatusCode::TOO_MANY_REQUESTS,
            r#"{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}"#,
        ),
        1 => (
            StatusCode::OK,
            r#"{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"Hello!"},"finish_reason":"stop","logprobs":null}]}"#,
        ),
        _ => (
            StatusCode::TOO_MANY_REQUESTS,
            r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#,
        ),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let calls = Arc::new(AtomicU32::new(0));
    let app = axum::Router::new()
        .route("/v1/chat/completions", post(completions))
        .with_state(calls.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let server = tokio::spawn(async move { axum::serve(listener, app).await });

    let http = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(10))
        .build()?;
    let client = agent_error::openai::client(
        OpenAIConfig::new()
            .with_api_base(format!("http://{addr}/v1"))
            .with_api_key("sk-example"),
        http,
    );
    let request = CreateChatCompletionRequestArgs::default()
        .model("gpt-4o-mini")
        .messages([ChatCompletionRequestMessage::User("Hi".into())])
        .build()?;

    let retrier = Retrier::new()
        .max_attempts(4)
        .seed(7)
        .on_retry(|e, retry, _| println!("retry {retry} after {}", e.code()));
    for _ in 0..2 {
        let outcome = retrier
            .run_async(
                |_| {
                    let (client, request) = (client.clone(), request.clone());
                    async move { client.chat().create(request).await }
                },
                tokio_sleep,
            )
            .await;
        match outcome {
            Ok(response) => println!(
                "answer: {}",
                response.choices[0].message.content.as_deref().unwrap_or("")
            ),
            Err(err) => {
                let c = agent_error::classify(&err).expect("classified");
                println!(
                    "gave up: code={} retryable={} recovery={}",
                    c.code(),
                    c.is_retryable(),
                    c.recovery()
                );
            }
        }
    }
    println!("requests sent: {}", calls.load(Ordering::SeqCst));
    server.abort();
    Ok(())
}
