use std::convert::Infallible;

use ::axum::response::IntoResponse;
use ::axum::response::sse::Sse;
use agent_error::stream::{StreamError, Watch};
use agent_error::{AgentError, Error, Recovery, codes};
use futures_util::StreamExt;

use super::*;

const PROVIDERS: [Provider; 4] = [
    Provider::OpenAiChat,
    Provider::OpenAiResponses,
    Provider::Anthropic,
    Provider::Gemini,
];

/// The bytes an `Sse` response of `events` sends.
async fn render(events: Vec<Event>) -> String {
    let sse = Sse::new(futures_util::stream::iter(
        events.into_iter().map(Ok::<_, Infallible>),
    ));
    let body = ::axum::body::to_bytes(sse.into_response().into_body(), usize::MAX)
        .await
        .unwrap();
    String::from_utf8(body.to_vec()).unwrap()
}

/// `bytes` read by a watch of `provider` up to its failure.
async fn read_back(bytes: String, provider: Provider) -> StreamError {
    let body = futures_util::stream::iter([Ok::<_, std::io::Error>(bytes)]);
    let mut watch = Watch::new(body).provider(provider);
    loop {
        match watch.next().await {
            Some(Ok(_)) => {}
            Some(Err(e)) => return e,
            None => panic!("{provider}: the stream ended without a failure"),
        }
    }
}

/// What each code of the shared vocabulary reads back as, per provider (see `error_event`).
fn read_as(code: &'static str, provider: Provider) -> &'static str {
    use Provider::*;
    match (code, provider) {
        (codes::TOOL_FAILED, _) => codes::INVALID_INPUT,
        (codes::GUARD_BLOCKED, OpenAiChat | OpenAiResponses) => codes::CONTENT_FILTERED,
        (codes::GUARD_BLOCKED, _) => codes::INVALID_INPUT,
        (codes::OUTPUT_TRUNCATED | codes::INVALID_OUTPUT, OpenAiChat | OpenAiResponses) => {
            codes::STREAM_INTERRUPTED
        }
        (codes::OUTPUT_TRUNCATED | codes::INVALID_OUTPUT, _) => codes::PROVIDER_UNAVAILABLE,
        (codes::STREAM_INTERRUPTED, Anthropic | Gemini) => codes::PROVIDER_UNAVAILABLE,
        (codes::CONTENT_FILTERED, Anthropic | Gemini) => codes::INVALID_INPUT,
        (codes::BUDGET_EXHAUSTED, Gemini) => codes::RATE_LIMIT,
        (codes::CONTEXT_OVERFLOW, Gemini) => codes::INVALID_INPUT,
        (codes::CONTEXT_OVERFLOW, Anthropic) => codes::REQUEST_TOO_LARGE,
        (code, _) => code,
    }
}

#[tokio::test]
async fn every_shared_code_is_read_back_by_a_watch_as_documented() {
    let mut round_trips = 0;
    for provider in PROVIDERS {
        for code in codes::ALL {
            let e = Error::new("svc.chat", code, "the service failed");
            let bytes = render(vec![error_event(&e, provider)]).await;
            let read = read_back(bytes.clone(), provider).await;
            assert_eq!(
                read.code(),
                read_as(code, provider),
                "{provider} {code}: {bytes}"
            );
            assert_eq!(read.peer_message(), Some("the service failed"), "{bytes}");
            round_trips += usize::from(read.code() == code);
        }
    }
    assert_eq!(round_trips, 4 * 15 - 23);
}

/// Codes of a service's own, with and without a status.
#[derive(Debug, agent_error::AgentError)]
#[agent(op = "orders.get")]
enum Orders {
    #[agent(code = "orders.e1", status = 429)]
    #[error("the order is locked")]
    S429,
    #[agent(code = "orders.e2", status = 401)]
    #[error("the order is locked")]
    S401,
    #[agent(code = "orders.e3", status = 403)]
    #[error("the order is locked")]
    S403,
    #[agent(code = "orders.e4", status = 404)]
    #[error("the order is locked")]
    S404,
    #[agent(code = "orders.e5", status = 504)]
    #[error("the order is locked")]
    S504,
    #[agent(code = "orders.e6", status = 422)]
    #[error("the order is locked")]
    S422,
    #[agent(code = "orders.e7", status = 502)]
    #[error("the order is locked")]
    S502,
    #[agent(code = "orders.e8")]
    #[error("the order is locked")]
    NoStatus,
}

#[tokio::test]
async fn any_other_code_is_written_as_its_status() {
    let cases = [
        (Orders::S429, codes::RATE_LIMIT),
        (Orders::S401, codes::AUTH),
        (Orders::S403, codes::AUTH),
        (Orders::S404, codes::NOT_FOUND),
        (Orders::S504, codes::TIMEOUT),
        (Orders::S422, codes::INVALID_INPUT),
        (Orders::S502, codes::PROVIDER_UNAVAILABLE),
        (Orders::NoStatus, codes::PROVIDER_UNAVAILABLE),
    ];
    for provider in PROVIDERS {
        for (e, expected) in &cases {
            let bytes = render(vec![error_event(e, provider)]).await;
            let read = read_back(bytes.clone(), provider).await;
            assert_eq!(read.code(), *expected, "{provider} {e:?}: {bytes}");
        }
    }
}

#[tokio::test]
async fn each_provider_shape_is_written_byte_for_byte() {
    let e = Error::new("llm.chat", codes::RATE_LIMIT, "slow\ndown \"now\"")
        .with_retry_after(Duration::from_millis(1500));
    let mut written = Vec::new();
    for provider in PROVIDERS {
        written.push(render(vec![error_event(&e, provider)]).await);
    }
    assert_eq!(
        written,
        [
            "data: {\"error\":{\"message\":\"slow down \\\"now\\\"\",\"type\":\"requests\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}\n\n",
            "event: error\ndata: {\"type\":\"error\",\"code\":\"rate_limit_exceeded\",\"message\":\"slow down \\\"now\\\"\",\"param\":null}\n\n",
            "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"slow down \\\"now\\\"\"}}\n\n",
            "data: {\"error\":{\"code\":429,\"message\":\"slow down \\\"now\\\"\",\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"1.5s\"}]}}\n\n",
        ]
    );
    assert_eq!(render(vec![done_event()]).await, "data: [DONE]\n\n");
}

#[tokio::test]
async fn gemini_carries_the_delay_back() {
    let e = Error::new("llm.chat", codes::RATE_LIMIT, "slow down")
        .with_retry_after(Duration::from_secs(7));
    let bytes = render(vec![error_event(&e, Provider::Gemini)]).await;
    let read = read_back(bytes, Provider::Gemini).await;
    assert_eq!(read.retry_after(), Some(Duration::from_secs(7)));
}

#[derive(Debug, agent_error::AgentError)]
#[agent(op = "llm.chat", code = "provider_unavailable")]
#[error("upstream {host} failed")]
struct Upstream {
    #[redact]
    host: String,
    source: std::io::Error,
}

#[tokio::test]
async fn only_the_public_message_is_written() {
    let e = Upstream {
        host: "10.0.0.7".into(),
        source: std::io::Error::other("/srv/keys/sk-live-123"),
    };
    let foreign = std::io::Error::other("SELECT * FROM users");
    for provider in PROVIDERS {
        let bytes = render(vec![error_event(&e, provider)]).await;
        assert!(bytes.contains("upstream [redacted] failed"), "{bytes}");
        assert!(
            !bytes.contains("10.0.0.7") && !bytes.contains("sk-live"),
            "{bytes}"
        );
        let bytes = render(vec![error_event(&foreign, provider)]).await;
        assert!(bytes.contains("internal error"), "{bytes}");
        assert!(!bytes.contains("SELECT"), "{bytes}");
    }
}

#[tokio::test]
async fn a_failure_after_text_is_continued_not_retried() {
    let text = [
        Event::default().data(r#"{"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}"#),
        Event::default().event("content_block_delta").data(r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}"#),
    ];
    let e = Error::new("llm.chat", codes::PROVIDER_UNAVAILABLE, "overloaded");
    for (provider, text) in [Provider::OpenAiChat, Provider::Anthropic]
        .into_iter()
        .zip(text)
    {
        let bytes = render(vec![text, error_event(&e, provider), done_event()]).await;
        let read = read_back(bytes, provider).await;
        assert_eq!(read.code(), codes::PROVIDER_UNAVAILABLE);
        assert!(!read.is_retryable());
        assert_eq!(read.recovery(), Recovery::Continue);
        assert_eq!(read.delivered().text_bytes(), 3);
    }
}

#[test]
fn a_delay_is_written_as_protobuf_does() {
    assert_eq!(protobuf_duration(Duration::from_secs(30)), "30s");
    assert_eq!(protobuf_duration(Duration::from_millis(1500)), "1.5s");
    assert_eq!(protobuf_duration(Duration::from_nanos(1)), "0.000000001s");
}
