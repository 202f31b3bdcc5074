//! async-openai's streaming calls watched (SPEC §11): a real async-openai client reads a
//! scripted SSE server on loopback through `agent_error::openai::watch_chat`, which yields
//! its chunks and classifies how the stream fails: an error event after or before the text,
//! a cut connection, a stream that ends without its finish reason, a failing stop.
#![cfg(all(feature = "stream", feature = "async-openai", feature = "tokio"))]

use std::time::Duration;

use agent_error::stream::{FailureKind, StreamError};
use agent_error::{AgentError, Recovery, codes};
use async_openai::config::OpenAIConfig;
use async_openai::types::chat::{
    ChatCompletionRequestMessage, CreateChatCompletionRequest, CreateChatCompletionRequestArgs,
    CreateChatCompletionStreamResponse,
};
use futures_util::StreamExt;

use crate::support::sse;

use sse::{Framing, Script};

/// A Chat chunk event with this delta and finish reason, as OpenAI writes it.
fn chunk(delta: &str, finish: &str) -> String {
    format!(
        "data: {{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o-mini\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"logprobs\":null,\"finish_reason\":{finish}}}]}}\n\n"
    )
}

fn role() -> String {
    chunk(r#"{"role":"assistant","content":""}"#, "null")
}

fn text(text: &str) -> String {
    chunk(&format!(r#"{{"content":"{text}"}}"#), "null")
}

fn stop(reason: &str) -> String {
    chunk("{}", &format!("\"{reason}\""))
}

const DONE: &str = "data: [DONE]\n\n";

/// async-openai's client for the server, on the plain transport (no retry layer of its own).
fn client(server: &sse::Server) -> async_openai::Client<OpenAIConfig> {
    let http = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    let base = server.url.trim_end_matches("/stream");
    agent_error::openai::client(
        OpenAIConfig::new()
            .with_api_base(base)
            .with_api_key("sk-test"),
        http,
    )
}

fn request() -> CreateChatCompletionRequest {
    CreateChatCompletionRequestArgs::default()
        .model("gpt-4o-mini")
        .messages([ChatCompletionRequestMessage::User("hi".into())])
        .build()
        .unwrap()
}

/// What the watch yielded: the chunks' text, and how it ended.
struct Read {
    chunks: Vec<CreateChatCompletionStreamResponse>,
    text: String,
    end: Option<StreamError>,
}

/// Streams a chat completion from `script` through `watch_chat`, to its end.
async fn stream(script: Script) -> Read {
    let server = sse::serve(script).await;
    let stream = client(&server)
        .chat()
        .create_stream(request())
        .await
        .expect("the stream opens");
    let mut watched = agent_error::openai::watch_chat(stream).keep_text(1024);
    let mut read = Read {
        chunks: Vec::new(),
        text: String::new(),
        end: None,
    };
    tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(item) = watched.next().await {
            match item {
                Ok(chunk) => {
                    if let Some(text) = chunk
                        .choices
                        .first()
                        .and_then(|c| c.delta.content.as_deref())
                    {
                        read.text.push_str(text);
                    }
                    read.chunks.push(chunk);
                }
                Err(e) => {
                    assert!(read.end.is_none(), "one failure, then the end");
                    read.end = Some(e);
                }
            }
        }
    })
    .await
    .expect("the stream ends within 5 s");
    read
}

#[tokio::test]
async fn a_complete_stream_yields_every_chunk_and_ends_cleanly() {
    for framing in [Framing::Close, Framing::Chunked] {
        let read = stream(Script::ok(framing).send_all([
            role(),
            text("Hel"),
            text("lo"),
            stop("stop"),
            DONE.into(),
        ]))
        .await;
        assert_eq!(read.chunks.len(), 4);
        assert_eq!(read.text, "Hello");
        assert!(read.end.is_none(), "{:?}", read.end);
    }
}

#[tokio::test]
async fn an_error_event_after_text_is_classified_and_continued() {
    let error = r#"data: {"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}

"#;
    let read = stream(Script::ok(Framing::Chunked).send_all([
        role(),
        text("Hel"),
        error.into(),
        DONE.into(),
    ]))
    .await;
    assert_eq!(read.text, "Hel");
    let e = read.end.expect("a failure");
    assert_eq!(e.failure(), FailureKind::ErrorEvent);
    assert_eq!(e.code(), codes::PROVIDER_UNAVAILABLE);
    assert!(!e.is_retryable(), "text was already delivered");
    assert_eq!(e.recovery(), Recovery::Continue);
    assert_eq!(e.partial_text(), Some("Hel"));
    assert_eq!(e.delivered().text_bytes(), 3);
}

#[tokio::test]
async fn an_error_event_before_text_is_retried_as_its_code_says() {
    let error = r#"data: {"error":{"message":"Rate limit reached for gpt-4o-mini. Please try again in 1.5s.","type":"requests","param":null,"code":"rate_limit_exceeded"}}

"#;
    let read =
        stream(Script::ok(Framing::Chunked).send_all([role(), error.into(), DONE.into()])).await;
    assert_eq!(read.chunks.len(), 1);
    let e = read.end.expect("a failure");
    assert_eq!(e.code(), codes::RATE_LIMIT);
    assert!(e.is_retryable(), "the role chunk delivered nothing");
    assert_eq!(e.retry_after(), Some(Duration::from_millis(1500)));
}

#[tokio::test]
async fn a_cut_connection_is_interrupted_with_its_cause() {
    let read = stream(
        Script::ok(Framing::Chunked)
            .send_all([role(), text("Hel")])
            .cut_chunk(&text("lo").as_bytes()[..20]),
    )
    .await;
    assert_eq!(read.text, "Hel");
    let e = read.end.expect("a failure");
    assert_eq!(e.code(), codes::STREAM_INTERRUPTED);
    assert_eq!(e.recovery(), Recovery::Continue);
    let source = std::error::Error::source(&e)
        .expect("async-openai's error")
        .to_string();
    assert!(source.starts_with("stream failed"), "{source}");
}

#[tokio::test]
async fn a_stream_that_ends_before_its_finish_reason_is_interrupted() {
    // Close-delimited: the close looks like the end to async-openai.
    let read = stream(
        Script::ok(Framing::Close)
            .send_all([role(), text("Hel")])
            .cut(),
    )
    .await;
    let e = read.end.expect("a failure");
    assert_eq!(
        (e.failure(), e.code()),
        (FailureKind::Interrupted, codes::STREAM_INTERRUPTED)
    );
    assert!(!e.is_retryable());
    // Before any text, the same cut is retried.
    let read = stream(Script::ok(Framing::Close).send(role()).cut()).await;
    assert!(read.end.expect("a failure").is_retryable());
}

#[tokio::test]
async fn a_stop_at_the_token_limit_is_output_truncated() {
    let read = stream(Script::ok(Framing::Chunked).send_all([
        role(),
        text("Hel"),
        stop("length"),
        DONE.into(),
    ]))
    .await;
    assert_eq!(read.chunks.len(), 3, "the stop chunk is yielded too");
    let e = read.end.expect("a failure");
    assert_eq!(e.code(), codes::OUTPUT_TRUNCATED);
    assert_eq!(e.stop_reason(), Some("length"));
    assert_eq!(e.recovery(), Recovery::Continue);
}

#[tokio::test]
async fn an_error_status_is_the_opening_error_classified() {
    let body =
        r#"{"error":{"message":"Overloaded","type":"server_error","param":null,"code":null}}"#;
    let server = sse::serve(Script::status(503, body)).await;
    let err = match client(&server).chat().create_stream(request()).await {
        Err(err) => err,
        Ok(_) => panic!("a 503 does not open"),
    };
    let e = StreamError::opening(err);
    assert_eq!(
        (e.failure(), e.code()),
        (FailureKind::Opening, codes::PROVIDER_UNAVAILABLE)
    );
    assert!(e.is_retryable());
}

/// The first error async-openai's own stream yields for `script`, without a watch.
async fn first_error(script: Script) -> async_openai::error::OpenAIError {
    let server = sse::serve(script).await;
    let mut stream = client(&server)
        .chat()
        .create_stream(request())
        .await
        .expect("the stream opens");
    tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(item) = stream.next().await {
            if let Err(e) = item {
                return e;
            }
        }
        panic!("the stream ended without an error");
    })
    .await
    .expect("an error within 5 s")
}

#[tokio::test]
async fn without_a_watch_an_error_event_is_classified_as_its_body() {
    let overloaded = r#"data: {"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}

"#;
    let e = first_error(Script::ok(Framing::Chunked).send_all([role(), overloaded.into()])).await;
    assert!(matches!(
        e,
        async_openai::error::OpenAIError::JSONDeserialize(..)
    ));
    let c = agent_error::classify(&e).expect("classified");
    assert_eq!(
        (c.code(), c.is_retryable()),
        (codes::PROVIDER_UNAVAILABLE, true)
    );
    let limited = r#"data: {"error":{"message":"Rate limit reached for gpt-4o-mini. Please try again in 1.5s.","type":"requests","param":null,"code":"rate_limit_exceeded"}}

"#;
    let e = first_error(Script::ok(Framing::Chunked).send(limited)).await;
    let c = agent_error::classify(&e).expect("classified");
    assert_eq!(c.code(), codes::RATE_LIMIT);
    assert_eq!(c.retry_after(), Some(Duration::from_millis(1500)));
    // A chunk that is no error and cannot be read is output the model broke.
    let e = first_error(Script::ok(Framing::Chunked).send("data: {\"choices\": 7}\n\n")).await;
    let c = agent_error::classify(&e).expect("classified");
    assert_eq!(c.code(), codes::INVALID_OUTPUT);
}

/// A chunk that is not whole JSON is the model's output broken, never an error body: the
/// text in it is not read for phrases, watched or not.
#[tokio::test]
async fn a_broken_chunk_is_never_read_for_phrases() {
    let broken = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"rate limit exceeded, insufficient_quota\"}\n\n";
    let e = first_error(Script::ok(Framing::Chunked).send_all([role(), broken.into()])).await;
    let c = agent_error::classify(&e).expect("classified");
    assert_eq!(c.code(), codes::INVALID_OUTPUT, "{e:?}");
    let read =
        stream(Script::ok(Framing::Chunked).send_all([role(), broken.into(), DONE.into()])).await;
    let e = read.end.expect("a failure");
    assert_eq!(
        (e.code(), e.is_retryable()),
        (codes::STREAM_INTERRUPTED, true),
        "{e:?}"
    );
}

#[tokio::test]
async fn without_a_watch_a_cut_stream_is_interrupted() {
    let e = first_error(
        Script::ok(Framing::Chunked)
            .send_all([role(), text("Hel")])
            .cut_chunk(&text("lo").as_bytes()[..20]),
    )
    .await;
    assert!(
        matches!(e, async_openai::error::OpenAIError::StreamError(_)),
        "{e:?}"
    );
    let c = agent_error::classify(&e).expect("classified");
    assert_eq!(
        (c.code(), c.is_retryable()),
        (codes::STREAM_INTERRUPTED, true)
    );
}
