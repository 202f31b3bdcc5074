//! A service that streams to agents fails as providers do (SPEC §8, §11): a real axum server
//! answers with an `Sse` response of a provider's events, then `axum::error_event`; the real
//! reqwest client reads it through `agent_error::reqwest::watch`, which classifies the
//! failure back to the service's code.
#![cfg(all(
    feature = "stream",
    feature = "axum",
    feature = "reqwest",
    feature = "tokio"
))]

use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::Duration;

use agent_error::axum::{done_event, error_event};
use agent_error::stream::{Provider, StreamError};
use agent_error::{AgentError, Error, Recovery, codes};
use axum::extract::Path;
use axum::response::sse::{Event, Sse};
use axum::routing::get;
use futures_util::StreamExt;

const PROVIDERS: [Provider; 4] = [
    Provider::OpenAiChat,
    Provider::OpenAiResponses,
    Provider::Anthropic,
    Provider::Gemini,
];

fn provider(name: &str) -> Provider {
    PROVIDERS
        .into_iter()
        .find(|p| p.as_str() == name)
        .expect("a provider")
}

/// `provider`'s events that deliver the text "Hel", after its metadata events.
fn text_events(provider: Provider) -> Vec<Event> {
    match provider {
        Provider::OpenAiResponses => vec![
            Event::default()
                .event("response.created")
                .data(r#"{"type":"response.created","response":{"id":"resp_1","status":"in_progress"}}"#),
            Event::default()
                .event("response.output_text.delta")
                .data(r#"{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hel"}"#),
        ],
        Provider::Anthropic => vec![
            Event::default()
                .event("message_start")
                .data(r#"{"type":"message_start","message":{"id":"msg_1","role":"assistant","content":[]}}"#),
            Event::default()
                .event("content_block_delta")
                .data(r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}"#),
        ],
        Provider::Gemini => vec![Event::default().data(
            r#"{"candidates":[{"content":{"parts":[{"text":"Hel"}],"role":"model"},"index":0}]}"#,
        )],
        _ => vec![
            Event::default().data(r#"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#),
            Event::default().data(r#"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}"#),
        ],
    }
}

/// The service's own failure of `code`, whose public message hides a redacted field and
/// whose cause's text never leaves the process.
#[derive(Debug, AgentError)]
#[agent(op = "svc.chat", code = "provider_unavailable")]
#[error("the upstream model {model} is overloaded")]
struct Overloaded {
    #[redact]
    model: String,
    source: std::io::Error,
}

/// `GET /{provider}/{text|silent}/{code}`: the provider's events (with text, or without),
/// then the failure of `code` as the provider's error event, then `[DONE]` for Chat.
async fn stream(
    Path((name, text, code)): Path<(String, String, String)>,
) -> Sse<impl futures_util::Stream<Item = Result<Event, Infallible>>> {
    let provider = provider(&name);
    let mut events = if text == "text" {
        text_events(provider)
    } else {
        Vec::new()
    };
    let failure = if code == "overloaded" {
        error_event(
            &Overloaded {
                model: "internal-gpu-7".into(),
                source: std::io::Error::other("10.1.2.3:8000 refused"),
            },
            provider,
        )
    } else {
        let code = codes::ALL.into_iter().find(|c| *c == code).unwrap();
        let e = Error::new("svc.chat", code, "the service failed")
            .with_retry_after(Duration::from_secs(3));
        error_event(&e, provider)
    };
    events.push(failure);
    if provider == Provider::OpenAiChat {
        events.push(done_event());
    }
    Sse::new(futures_util::stream::iter(events.into_iter().map(Ok)))
}

async fn serve() -> (SocketAddr, tokio::task::JoinHandle<()>) {
    let app = axum::Router::new().route("/{provider}/{text}/{code}", get(stream));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (addr, server)
}

/// What the client read: the events yielded before the failure, and the failure.
struct Read {
    events: usize,
    failure: StreamError,
}

/// Reads `/{provider}/{text}/{code}` through `reqwest::watch`, naming the provider or not.
async fn read(addr: SocketAddr, provider: Provider, text: &str, code: &str, named: bool) -> Read {
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let url = format!("http://{addr}/{provider}/{text}/{code}");
    let response = client.get(url).send().await.unwrap();
    let watch = agent_error::reqwest::watch(response).await.unwrap();
    let mut watch = if named {
        watch.provider(provider)
    } else {
        watch
    }
    .keep_text(1024);
    let mut events = 0;
    let failure = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match watch.next().await {
                Some(Ok(_)) => events += 1,
                Some(Err(e)) => break e,
                None => panic!("{provider} {code}: the stream ended cleanly"),
            }
        }
    })
    .await
    .expect("the stream ends within 5 s");
    Read { events, failure }
}

#[tokio::test]
async fn a_failure_after_text_reads_back_as_its_code_and_is_continued() {
    let (addr, _server) = serve().await;
    for provider in PROVIDERS {
        let read = read(addr, provider, "text", "overloaded", true).await;
        let e = &read.failure;
        assert_eq!(read.events, text_events(provider).len(), "{provider}");
        assert_eq!(e.code(), codes::PROVIDER_UNAVAILABLE, "{provider}");
        assert_eq!(e.provider(), Some(provider));
        assert!(!e.is_retryable(), "{provider}: text was already delivered");
        assert_eq!(e.recovery(), Recovery::Continue);
        assert_eq!(e.partial_text(), Some("Hel"));
        assert_eq!(e.delivered().text_bytes(), 3);
        // The service's public message, and nothing it keeps to itself.
        assert_eq!(
            e.peer_message(),
            Some("the upstream model [redacted] is overloaded"),
            "{provider}"
        );
    }
}

#[tokio::test]
async fn every_code_of_a_provider_with_a_name_for_it_reads_back_as_itself() {
    let (addr, _server) = serve().await;
    let cases = [
        (Provider::OpenAiChat, codes::RATE_LIMIT),
        (Provider::OpenAiChat, codes::CONTEXT_OVERFLOW),
        (Provider::OpenAiChat, codes::NOT_FOUND),
        (Provider::OpenAiChat, codes::STREAM_INTERRUPTED),
        (Provider::OpenAiResponses, codes::BUDGET_EXHAUSTED),
        (Provider::OpenAiResponses, codes::TIMEOUT),
        (Provider::OpenAiResponses, codes::CONTENT_FILTERED),
        (Provider::Anthropic, codes::RATE_LIMIT),
        (Provider::Anthropic, codes::AUTH),
        (Provider::Anthropic, codes::REQUEST_TOO_LARGE),
        (Provider::Anthropic, codes::INVALID_INPUT),
        (Provider::Gemini, codes::TIMEOUT),
        (Provider::Gemini, codes::NOT_FOUND),
        (Provider::Gemini, codes::PROVIDER_UNAVAILABLE),
    ];
    for (provider, code) in cases {
        let read = read(addr, provider, "silent", code, true).await;
        let e = &read.failure;
        assert_eq!(read.events, 0);
        assert_eq!(e.code(), code, "{provider}");
        // Nothing was delivered: the code's own retry stands.
        assert_eq!(
            e.is_retryable(),
            codes::default_policy(code).is_retryable(),
            "{provider} {code}"
        );
    }
}

#[tokio::test]
async fn an_error_as_the_first_event_is_read_whoever_sent_it() {
    let (addr, _server) = serve().await;
    for provider in PROVIDERS {
        let read = read(addr, provider, "silent", codes::RATE_LIMIT, false).await;
        assert_eq!(read.failure.code(), codes::RATE_LIMIT, "{provider}");
        assert!(read.failure.is_rate_limited());
    }
}

#[tokio::test]
async fn a_gemini_failure_carries_its_delay() {
    let (addr, _server) = serve().await;
    let read = read(addr, Provider::Gemini, "silent", codes::RATE_LIMIT, true).await;
    assert_eq!(read.failure.retry_after(), Some(Duration::from_secs(3)));
}
