//! async-openai's `OpenAIError` classified end to end: async-openai's own client against a
//! fake OpenAI server (axum on 127.0.0.1) that counts the requests it gets.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_error::retry::{Retrier, tokio_sleep};
use agent_error::{Recovery, classify, codes};
use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::types::chat::{
    ChatCompletionRequestMessage, CreateChatCompletionRequest, CreateChatCompletionRequestArgs,
};
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;

const COMPLETION: &str = r#"{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"hello"},"finish_reason":"stop","logprobs":null}]}"#;

fn openai_error(code: &str, kind: &str, message: &str) -> String {
    format!(r#"{{"error":{{"message":"{message}","type":"{kind}","param":null,"code":"{code}"}}}}"#)
}

#[derive(Clone, Default)]
struct Fake {
    hits: Arc<AtomicU32>,
    script: Arc<Mutex<VecDeque<(u16, String)>>>,
}

async fn completions(State(fake): State<Fake>) -> (StatusCode, String) {
    fake.hits.fetch_add(1, Ordering::SeqCst);
    let (status, body) = fake
        .script
        .lock()
        .unwrap()
        .pop_front()
        .unwrap_or((200, COMPLETION.to_string()));
    (StatusCode::from_u16(status).unwrap(), body)
}

/// A fake OpenAI on 127.0.0.1 that answers with `script`, then with a completion.
async fn serve(script: Vec<(u16, String)>) -> (SocketAddr, Fake, tokio::task::JoinHandle<()>) {
    let fake = Fake::default();
    fake.script.lock().unwrap().extend(script);
    let app = axum::Router::new()
        .route("/v1/chat/completions", post(completions))
        .with_state(fake.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (addr, fake, server)
}

fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap()
}

fn config(addr: SocketAddr) -> OpenAIConfig {
    OpenAIConfig::new()
        .with_api_base(format!("http://{addr}/v1"))
        .with_api_key("sk-test")
}

/// async-openai's client on the plain transport: without its own 429/5xx retry layer, so
/// that the `Retrier` alone decides.
fn client(addr: SocketAddr) -> async_openai::Client<OpenAIConfig> {
    agent_error::openai::client(config(addr), http())
}

fn request() -> CreateChatCompletionRequest {
    CreateChatCompletionRequestArgs::default()
        .model("gpt-4o-mini")
        .messages([ChatCompletionRequestMessage::User("hi".into())])
        .build()
        .unwrap()
}

fn retrier() -> Retrier {
    Retrier::new()
        .max_attempts(4)
        .max_elapsed(Duration::from_secs(10))
        .seed(7)
}

async fn chat(addr: SocketAddr) -> Result<String, OpenAIError> {
    let client = client(addr);
    retrier()
        .run_async(
            |_| {
                let client = client.clone();
                async move { client.chat().create(request()).await }
            },
            tokio_sleep,
        )
        .await
        .map(|r| r.choices[0].message.content.clone().unwrap_or_default())
}

#[tokio::test]
async fn insufficient_quota_is_budget_exhausted_and_not_retried() {
    let quota = openai_error(
        "insufficient_quota",
        "insufficient_quota",
        "You exceeded your current quota, please check your plan and billing details.",
    );
    let (addr, fake, server) = serve(vec![(429, quota)]).await;
    let err = chat(addr).await.unwrap_err();
    assert_eq!(fake.hits.load(Ordering::SeqCst), 1);
    assert!(matches!(err, OpenAIError::ApiError(_)));
    let c = classify(&err).unwrap();
    assert_eq!(c.code(), codes::BUDGET_EXHAUSTED);
    assert!(!c.is_retryable());
    assert_eq!(c.op(), agent_error::openai::OP);
    server.abort();
}

#[tokio::test]
async fn a_rate_limit_is_retried_until_the_server_answers() {
    let limited = openai_error(
        "rate_limit_exceeded",
        "requests",
        "Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 3.",
    );
    let (addr, fake, server) = serve(vec![(429, limited.clone())]).await;
    assert_eq!(chat(addr).await.unwrap(), "hello");
    assert_eq!(fake.hits.load(Ordering::SeqCst), 2);

    let c = classify(&OpenAIError::ApiError(
        async_openai::error::ApiErrorResponse {
            status_code: reqwest::StatusCode::TOO_MANY_REQUESTS,
            api_error: serde_json::from_str::<async_openai::error::WrappedError>(&limited)
                .unwrap()
                .error,
        },
    ))
    .map(|c| (c.code().to_string(), c.is_rate_limited()));
    assert_eq!(c, Some((codes::RATE_LIMIT.to_string(), true)));
    server.abort();
}

#[tokio::test]
async fn context_length_exceeded_is_context_overflow_with_recovery_compact() {
    let overflow = openai_error(
        "context_length_exceeded",
        "invalid_request_error",
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
    );
    let (addr, fake, server) = serve(vec![(400, overflow)]).await;
    let err = chat(addr).await.unwrap_err();
    assert_eq!(fake.hits.load(Ordering::SeqCst), 1);
    let c = classify(&err).unwrap();
    assert_eq!(c.code(), codes::CONTEXT_OVERFLOW);
    assert_eq!(c.recovery(), Recovery::Compact);
    assert!(!c.is_retryable());
    server.abort();
}

#[tokio::test]
async fn a_refused_connection_is_classified_as_reqwest_classifies_it() {
    // A port that was just free: nothing listens there.
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let attempts = Arc::new(AtomicU32::new(0));
    let client = client(addr);
    let outcome = Retrier::new()
        .max_attempts(2)
        .seed(7)
        .run_async(
            |_| {
                attempts.fetch_add(1, Ordering::SeqCst);
                let client = client.clone();
                async move { client.chat().create(request()).await }
            },
            tokio_sleep,
        )
        .await;
    let err = outcome.unwrap_err();
    assert!(matches!(err, OpenAIError::Reqwest(_)));
    let c = classify(&err).unwrap();
    assert_eq!(c.code(), codes::PROVIDER_UNAVAILABLE);
    assert!(c.is_retryable());
    assert_eq!(
        attempts.load(Ordering::SeqCst),
        2,
        "a refused connection is retried"
    );
}

#[test]
fn an_invalid_argument_is_invalid_input() {
    let err = OpenAIError::InvalidArgument("model is required".into());
    let c = classify(&err).unwrap();
    assert_eq!(c.code(), codes::INVALID_INPUT);
    assert_eq!(c.message(), "the request could not be built");
}

/// A server that always answers 503 with `retry-after: 0`, counting the requests.
async fn always_unavailable() -> (SocketAddr, Arc<AtomicU32>, tokio::task::JoinHandle<()>) {
    let hits = Arc::new(AtomicU32::new(0));
    let counted = hits.clone();
    let app = axum::Router::new().route(
        "/v1/chat/completions",
        post(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            async {
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    [("retry-after", "0")],
                    openai_error("server_error", "server_error", "The server is overloaded."),
                )
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (addr, hits, server)
}

/// A retrier of three attempts around `client`, against a provider that is down: how many
/// requests reached it.
async fn attempts_against_an_outage(
    client: async_openai::Client<OpenAIConfig>,
    hits: &AtomicU32,
) -> u32 {
    let err = Retrier::new()
        .max_attempts(3)
        .seed(7)
        .run_async(
            |_| {
                let client = client.clone();
                async move { client.chat().create(request()).await }
            },
            tokio_sleep,
        )
        .await
        .unwrap_err();
    assert_eq!(classify(&err).unwrap().code(), codes::PROVIDER_UNAVAILABLE);
    hits.load(Ordering::SeqCst)
}

#[tokio::test]
async fn the_retrier_is_the_only_retry_loop() {
    // async-openai's own client retries by itself: the attempts multiply.
    let (addr, hits, server) = always_unavailable().await;
    let own = async_openai::Client::build(http(), config(addr));
    assert_eq!(
        attempts_against_an_outage(own, &hits).await,
        12,
        "3 × (1 + 3)"
    );
    server.abort();
    // Built with `openai::client`, each of the retrier's attempts is one request.
    let (addr, hits, server) = always_unavailable().await;
    assert_eq!(attempts_against_an_outage(client(addr), &hits).await, 3);
    server.abort();
}

#[tokio::test]
async fn a_body_that_cannot_be_read_is_invalid_output_tried_once_more() {
    let (addr, fake, server) = serve(vec![
        (200, "{\"id\": \"chatcmpl-1\", \"choi".to_string()),
        (200, "<html>proxy page</html>".to_string()),
    ])
    .await;
    let err = chat(addr).await.unwrap_err();
    assert!(matches!(err, OpenAIError::JSONDeserialize(..)), "{err:?}");
    let c = classify(&err).unwrap();
    assert_eq!((c.code(), c.is_retryable()), (codes::INVALID_OUTPUT, true));
    assert_eq!(
        fake.hits.load(Ordering::SeqCst),
        2,
        "invalid output is tried once more"
    );
    server.abort();
}

/// A 200 is not an error body: whatever the text async-openai could not read says, it is
/// output that could not be read, tried once more, never a rate limit or a spent quota.
#[tokio::test]
async fn a_success_whose_body_cannot_be_read_is_never_read_for_phrases() {
    let bodies = [
        "rate limit exceeded",
        "Error: insufficient_quota, you exceeded your current quota",
        "The model is overloaded. Please try again in 30s.",
        r#"{"error":{"type":"insufficient_quota","message":"rate limit exceeded""#,
    ];
    for body in bodies {
        let (addr, fake, server) =
            serve(vec![(200, body.to_string()), (200, body.to_string())]).await;
        let err = chat(addr).await.unwrap_err();
        assert!(matches!(err, OpenAIError::JSONDeserialize(..)), "{err:?}");
        let c = classify(&err).unwrap();
        assert_eq!(
            (c.code(), c.is_retryable(), c.retry_after()),
            (codes::INVALID_OUTPUT, true, None),
            "{body}"
        );
        assert_eq!(fake.hits.load(Ordering::SeqCst), 2, "{body}");
        server.abort();
    }
}

#[tokio::test]
async fn a_rate_limit_without_its_header_waits_what_its_message_says() {
    let limited = openai_error(
        "rate_limit_exceeded",
        "requests",
        "Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 300ms.",
    );
    let (addr, fake, server) = serve(vec![(429, limited)]).await;
    let waits = Arc::new(Mutex::new(Vec::new()));
    let seen = waits.clone();
    let client = client(addr);
    let answer = retrier()
        .on_retry(move |_, _, delay| seen.lock().unwrap().push(delay))
        .run_async(
            |_| {
                let client = client.clone();
                async move { client.chat().create(request()).await }
            },
            tokio_sleep,
        )
        .await
        .unwrap();
    assert_eq!(answer.choices[0].message.content.as_deref(), Some("hello"));
    assert_eq!(fake.hits.load(Ordering::SeqCst), 2);
    assert_eq!(*waits.lock().unwrap(), [Duration::from_millis(300)]);
    server.abort();
}
