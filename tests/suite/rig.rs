//! rig-core's errors classified with no glue: rig's real OpenAI and Anthropic clients against
//! scripted providers on loopback — a 429 with `Retry-After`, a spent quota, an overload, a
//! context overflow, a bad key, a spent credit balance, a refused connection, a timeout, a
//! body that is no JSON, an error event mid-stream, a stream cut before its end — asserting
//! code, retrying, wait and recovery, and through the retrier and a fallback.
#![cfg(all(feature = "rig", feature = "tokio"))]

use std::time::Duration;

use agent_error::retry::{Retrier, tokio_sleep};
use agent_error::{Recovery, codes};
use futures_util::StreamExt;
use rig_core::ProviderError;
use rig_core::completion::CompletionRequest;
use rig_core::providers::anthropic::AnthropicConfig;
use rig_core::providers::openai::OpenAIConfig;

use crate::support::sse;

use crate::support::replies;

use replies::{
    BAD_KEY, COMPLETION, CREDIT, LIMITED, OVERFLOW, OVERLOADED, SERVER_ERROR, SPENT, verdict,
};
use sse::{Framing, Script};

fn http() -> rig_reqwest::ReqwestClient {
    rig_reqwest::ReqwestClient::from(
        reqwest::Client::builder()
            .no_proxy()
            .timeout(Duration::from_secs(2))
            .build()
            .unwrap(),
    )
}

/// The server's base URL (`http://127.0.0.1:PORT/v1`).
fn base(server: &sse::Server) -> String {
    server.url.trim_end_matches("/stream").to_string()
}

fn openai(base: &str) -> rig_core::Model<rig_core::providers::openai::wire::Chat> {
    OpenAIConfig::new("sk-test")
        .with_base_url(base)
        .connect(http())
        .chat("gpt-4o-mini")
}

/// One call through rig's OpenAI Chat client against `script`.
async fn openai_call(script: Script) -> ProviderError {
    let server = sse::serve(script).await;
    openai(&base(&server))
        .call(CompletionRequest::new("hi"))
        .await
        .expect_err("a failure")
}

#[tokio::test]
async fn failed_replies_are_read_with_their_headers_and_bodies() {
    let limited = LIMITED;
    let e = openai_call(Script::status(429, limited).header("retry-after", "2")).await;
    assert_eq!(
        verdict(&e),
        (
            "rate_limit".into(),
            true,
            Recovery::Retry,
            Some(Duration::from_secs(2))
        )
    );

    // rig alone calls a 429 retryable whatever its body says.
    let spent = SPENT;
    let e = openai_call(Script::status(429, spent).header("x-request-id", "req_7")).await;
    assert!(e.is_retryable(), "rig's own verdict");
    assert_eq!(
        verdict(&e),
        ("budget_exhausted".into(), false, Recovery::Escalate, None)
    );

    let overflow = OVERFLOW;
    let e = openai_call(Script::status(400, overflow)).await;
    assert_eq!(
        verdict(&e),
        ("context_overflow".into(), false, Recovery::Compact, None)
    );

    let key = BAD_KEY;
    let e = openai_call(Script::status(401, key)).await;
    assert_eq!(
        verdict(&e),
        ("auth_error".into(), false, Recovery::Escalate, None)
    );

    for status in [500, 503] {
        let e = openai_call(Script::status(status, SERVER_ERROR)).await;
        assert_eq!(
            (verdict(&e).0.as_str(), verdict(&e).1),
            ("provider_unavailable", true),
            "{status}"
        );
    }
    // The provider's text stays out of what people and the model read.
    let e = openai_call(Script::status(401, key)).await;
    let c = agent_error::classify(&e).unwrap();
    assert!(!agent_error::tool::render(&*c).contains("sk-test"));
}

#[tokio::test]
async fn anthropics_replies_are_read_the_same_way() {
    let call = |script: Script| async move {
        let server = sse::serve(script).await;
        AnthropicConfig::new("sk-ant-test")
            .with_base_url(base(&server))
            .connect(http())
            .completion("claude-sonnet-4-6")
            .call(CompletionRequest::new("hi").max_tokens(64))
            .await
            .expect_err("a failure")
    };
    let overloaded = OVERLOADED;
    let e = call(Script::status(529, overloaded)).await;
    assert_eq!(
        verdict(&e),
        ("provider_unavailable".into(), true, Recovery::Retry, None)
    );
    let credit = CREDIT;
    let e = call(Script::status(400, credit)).await;
    assert_eq!(
        verdict(&e),
        ("budget_exhausted".into(), false, Recovery::Escalate, None)
    );
}

#[tokio::test]
async fn transports_and_unreadable_replies() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let e = openai(&format!("http://127.0.0.1:{port}/v1"))
        .call(CompletionRequest::new("hi"))
        .await
        .unwrap_err();
    assert_eq!(
        (verdict(&e).0.as_str(), verdict(&e).1),
        ("provider_unavailable", true),
        "{e:?}"
    );
    let e = openai_call(Script::ok(Framing::Close).hold()).await;
    assert_eq!(verdict(&e).0, "timeout", "{e:?}");
    let e = openai_call(Script::status(200, "<html>a proxy's page</html>")).await;
    assert_eq!(
        (verdict(&e).0.as_str(), verdict(&e).1),
        ("invalid_output", true),
        "{e:?}"
    );
}

/// A 200 is not an error body: a reply rig could not read is output that could not be read,
/// whatever the model's text in it says, and so is a chunk cut short.
#[tokio::test]
async fn a_success_whose_body_cannot_be_read_is_never_read_for_phrases() {
    let bodies = [
        "rate limit exceeded",
        "Error: insufficient_quota, you exceeded your current quota",
        "The model is overloaded. Please try again in 30s.",
        r#"{"error":{"type":"insufficient_quota","message":"rate limit exceeded""#,
    ];
    for body in bodies {
        for content_type in ["application/json", "text/plain"] {
            let e = openai_call(Script::status(200, body).content_type(content_type)).await;
            assert_eq!(
                verdict(&e),
                ("invalid_output".into(), true, Recovery::Retry, None),
                "{content_type} {body}: {e:?}"
            );
        }
    }
    let broken = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"rate limit exceeded, insufficient_quota\"}\n\n";
    let (_, e) =
        stream_failure(Script::ok(Framing::Chunked).send_all([text("Hel"), broken.into()])).await;
    assert_eq!(verdict(&e).0, "invalid_output", "{e:?}");
}

#[test]
fn what_the_request_and_a_relay_say() {
    let e = ProviderError::request("no model");
    assert_eq!(
        verdict(&e),
        ("invalid_input".into(), false, Recovery::Replan, None)
    );
    assert_eq!(verdict(&ProviderError::Truncated).0, "stream_interrupted");
    let relayed = ProviderError::Relayed(Box::new(
        ProviderError::from_http_response(http::StatusCode::SERVICE_UNAVAILABLE, "down").report(),
    ));
    assert_eq!(verdict(&relayed).0, "provider_unavailable");
}

/// A chat chunk of OpenAI's stream.
fn chunk(delta: &str, finish: &str) -> String {
    format!(
        "data: {{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o-mini\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"finish_reason\":{finish}}}]}}\n\n"
    )
}

fn text(text: &str) -> String {
    chunk(&format!(r#"{{"content":"{text}"}}"#), "null")
}

/// The first failure of rig's stream for `script`, after the items before it.
async fn stream_failure(script: Script) -> (usize, ProviderError) {
    let server = sse::serve(script).await;
    let mut stream = openai(&base(&server))
        .stream(CompletionRequest::new("hi"))
        .expect("the stream opens");
    tokio::time::timeout(Duration::from_secs(5), async {
        let mut items = 0;
        while let Some(item) = stream.next().await {
            match item {
                Ok(_) => items += 1,
                Err(e) => return (items, e),
            }
        }
        panic!("the stream ended without a failure");
    })
    .await
    .expect("within 5 s")
}

#[tokio::test]
async fn a_streams_failures_are_classified() {
    // Cut before the provider's end: rig says `Truncated`.
    let (items, e) = stream_failure(
        Script::ok(Framing::Close)
            .send_all([text("Hel"), text("lo")])
            .cut(),
    )
    .await;
    assert!(items > 0);
    assert!(matches!(e, ProviderError::Truncated), "{e:?}");
    assert_eq!(
        (verdict(&e).0.as_str(), verdict(&e).1),
        (codes::STREAM_INTERRUPTED, true)
    );
    // An error event: rig calls it not retryable (no status); its body says the server failed.
    let error = "data: {\"error\":{\"message\":\"The server had an error while processing your request.\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n";
    let (_, e) = stream_failure(Script::ok(Framing::Chunked).send(error)).await;
    assert!(!e.is_retryable(), "rig's own verdict");
    assert_eq!(
        (verdict(&e).0.as_str(), verdict(&e).1),
        (codes::PROVIDER_UNAVAILABLE, true)
    );
    // Anthropic's overload mid-stream: rig calls it not retryable; it is retried.
    let server = sse::serve(Script::ok(Framing::Chunked).send(
        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
    ))
    .await;
    let mut stream = AnthropicConfig::new("sk-ant-test")
        .with_base_url(base(&server))
        .connect(http())
        .completion("claude-sonnet-4-6")
        .stream(CompletionRequest::new("hi").max_tokens(64))
        .expect("the stream opens");
    let e = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match stream.next().await {
                Some(Err(e)) => return e,
                Some(Ok(_)) => continue,
                None => panic!("no failure"),
            }
        }
    })
    .await
    .unwrap();
    assert!(!e.is_retryable(), "rig's own verdict");
    assert_eq!(
        (verdict(&e).0.as_str(), verdict(&e).1),
        (codes::PROVIDER_UNAVAILABLE, true)
    );
    // A rate limit in the stream waits what its message says.
    let limited = "data: {\"error\":{\"message\":\"Rate limit reached. Please try again in 1.5s.\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}\n\n";
    let (_, e) = stream_failure(Script::ok(Framing::Chunked).send(limited)).await;
    assert_eq!(
        verdict(&e),
        (
            "rate_limit".into(),
            true,
            Recovery::Retry,
            Some(Duration::from_millis(1500))
        )
    );
}

#[tokio::test]
async fn the_retrier_is_the_only_retry_loop_and_waits_what_the_header_said() {
    let limited =
        r#"{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}"#;
    let server = sse::serve_each([
        Script::status(429, limited).header("retry-after-ms", "150"),
        Script::status(200, COMPLETION),
    ])
    .await;
    let model = openai(&base(&server));
    let waits = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = waits.clone();
    let answer = Retrier::new()
        .seed(7)
        .on_retry(move |_, _, delay| seen.lock().unwrap().push(delay))
        .run_async(|_| model.call(CompletionRequest::new("hi")), tokio_sleep)
        .await
        .unwrap();
    assert_eq!(answer.text(), "hello");
    assert_eq!(*waits.lock().unwrap(), [Duration::from_millis(150)]);
    assert_eq!(server.connections(), 2, "one request an attempt");
    let down = sse::serve(Script::status(
        503,
        r#"{"error":{"message":"down","type":"server_error"}}"#,
    ))
    .await;
    let model = openai(&base(&down));
    let err = Retrier::new()
        .max_attempts(3)
        .seed(7)
        .run_async(|_| model.call(CompletionRequest::new("hi")), tokio_sleep)
        .await
        .unwrap_err();
    assert_eq!(verdict(&err).0, "provider_unavailable");
    assert_eq!(down.connections(), 3, "rig adds no attempt of its own");
}

#[cfg(feature = "recover")]
#[tokio::test]
async fn a_fallback_moves_on_from_a_spent_account_without_retrying_it() {
    use agent_error::recover::Fallback;
    let spent = sse::serve(Script::status(
        429,
        r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#,
    ))
    .await;
    let healthy = sse::serve(Script::status(200, COMPLETION)).await;
    let accounts = Fallback::named([
        ("account-a", openai(&base(&spent))),
        ("account-b", openai(&base(&healthy))),
    ]);
    let answer = accounts
        .run_async(
            async |model: &_, _| model.call(CompletionRequest::new("hi")).await,
            tokio_sleep,
        )
        .await
        .unwrap();
    assert_eq!(
        (answer.name(), answer.value.text().as_str()),
        ("account-b", "hello")
    );
    assert_eq!((spent.connections(), healthy.connections()), (1, 1));
}
