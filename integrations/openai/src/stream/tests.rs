use ::async_openai::error::ApiError;
use agent_error::{AgentError, Recovery, codes};
use futures_util::StreamExt;
use serde_json::{Value, json};

use super::*;

/// A Chat chunk with `content` and a finish reason.
fn chunk(content: &str, finish: Option<&str>) -> Value {
    json!({"object": "chat.completion.chunk", "choices": [
        {"index": 0, "delta": {"content": content}, "finish_reason": finish}
    ]})
}

/// What async-openai yields for an event it cannot read as a chunk.
fn unreadable(data: &str) -> OpenAIError {
    let e = serde_json::from_str::<u8>("{}").unwrap_err();
    OpenAIError::JSONDeserialize(e, data.to_owned())
}

/// What async-openai yields for a cut connection.
fn cut() -> OpenAIError {
    OpenAIError::StreamError(Box::new(SseError::EventStream(
        "Transport error: error decoding response body".into(),
    )))
}

/// The items a watch of `items` yields: how many were `Ok`, and the failure, if any.
async fn run(items: Vec<Result<Value, OpenAIError>>) -> (usize, Option<StreamError>) {
    let mut watched = watch_chat(futures_util::stream::iter(items)).keep_text(64);
    let mut ok = 0;
    while let Some(item) = watched.next().await {
        match item {
            Ok(_) => ok += 1,
            Err(e) => {
                assert!(
                    watched.next().await.is_none(),
                    "the watch ends after its failure"
                );
                return (ok, Some(e));
            }
        }
    }
    (ok, None)
}

#[tokio::test]
async fn a_stream_with_its_finish_reason_ends_cleanly() {
    let (ok, failure) = run(vec![Ok(chunk("Hi", None)), Ok(chunk("", Some("stop")))]).await;
    assert_eq!((ok, failure.map(|e| e.to_string())), (2, None));
}

#[tokio::test]
async fn a_stream_that_ends_without_a_finish_reason_was_interrupted() {
    let (ok, failure) = run(vec![Ok(chunk("Hel", None))]).await;
    let e = failure.unwrap();
    assert_eq!((ok, e.code()), (1, codes::STREAM_INTERRUPTED));
    assert!(!e.is_retryable());
    assert_eq!(e.recovery(), Recovery::Continue);
    assert_eq!(e.partial_text(), Some("Hel"));
}

#[tokio::test]
async fn a_cut_before_any_text_is_retried_and_keeps_its_cause() {
    let (ok, failure) = run(vec![Err(cut())]).await;
    let e = failure.unwrap();
    assert_eq!((ok, e.code()), (0, codes::STREAM_INTERRUPTED));
    assert!(e.is_retryable());
    let source = std::error::Error::source(&e).unwrap().to_string();
    assert!(source.contains("error decoding response body"), "{source}");
}

#[tokio::test]
async fn an_error_event_is_classified_as_its_body() {
    let cases = [
        (
            r#"{"error":{"message":"Rate limit reached. Please try again in 1.5s.","type":"requests","param":null,"code":"rate_limit_exceeded"}}"#,
            codes::RATE_LIMIT,
        ),
        (
            r#"{"error":{"message":"The server had an error","type":"server_error","param":null,"code":null}}"#,
            codes::PROVIDER_UNAVAILABLE,
        ),
        (
            r#"{"error":{"object":"error","message":"bad","type":"BadRequestError","code":400}}"#,
            codes::INVALID_INPUT,
        ),
        (
            r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#,
            codes::BUDGET_EXHAUSTED,
        ),
    ];
    for (data, code) in cases {
        let (ok, failure) = run(vec![Ok(chunk("", None)), Err(unreadable(data))]).await;
        let e = failure.unwrap();
        assert_eq!((ok, e.code()), (1, code), "{data}");
        // An empty delta delivered nothing: the code's own retry stands.
        assert_eq!(e.is_retryable(), codes::default_policy(code).is_retryable());
    }
    let (_, failure) = run(vec![Err(unreadable(cases[0].0))]).await;
    assert_eq!(
        failure.unwrap().retry_after(),
        Some(std::time::Duration::from_millis(1500))
    );
}

#[tokio::test]
async fn a_failing_stop_is_its_failure() {
    for (reason, code) in [
        ("length", codes::OUTPUT_TRUNCATED),
        ("content_filter", codes::CONTENT_FILTERED),
    ] {
        let (ok, failure) = run(vec![Ok(chunk("Hi", None)), Ok(chunk("", Some(reason)))]).await;
        assert_eq!((ok, failure.unwrap().code()), (2, code), "{reason}");
    }
}

#[tokio::test]
async fn a_chunk_that_async_openai_cannot_read_ends_the_stream() {
    // OpenRouter's `finish_reason: "error"`: no `FinishReason` of async-openai's.
    let openrouter = r#"{"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}"#;
    let (ok, failure) = run(vec![Ok(chunk("Hi", None)), Err(unreadable(openrouter))]).await;
    let e = failure.unwrap();
    assert_eq!(
        (ok, e.code(), e.stop_reason()),
        (1, codes::STREAM_INTERRUPTED, Some("error"))
    );
    // A chunk of a shape it does not know, with no error in it.
    let (ok, failure) = run(vec![Err(unreadable(r#"{"choices":[]}"#))]).await;
    let e = failure.unwrap();
    assert_eq!((ok, e.code()), (0, codes::STREAM_INTERRUPTED));
    assert!(std::error::Error::source(&e).is_some());
}

#[tokio::test]
async fn an_api_error_item_is_classified_by_its_body_then_its_status() {
    let api = |status: u16, code: Option<&str>| {
        OpenAIError::ApiError(ApiErrorResponse {
            status_code: reqwest::StatusCode::from_u16(status).unwrap(),
            api_error: ApiError {
                message: "failed".into(),
                code: code.map(str::to_owned),
                ..Default::default()
            },
        })
    };
    for (error, code) in [
        (
            api(400, Some("context_length_exceeded")),
            codes::CONTEXT_OVERFLOW,
        ),
        (api(429, None), codes::RATE_LIMIT),
        (api(503, None), codes::PROVIDER_UNAVAILABLE),
        (api(404, None), codes::NOT_FOUND),
    ] {
        let (_, failure) = run(vec![Err(error)]).await;
        assert_eq!(failure.unwrap().code(), code);
    }
}

#[tokio::test]
async fn other_errors_interrupt_the_stream() {
    let (_, failure) = run(vec![Err(OpenAIError::InvalidArgument("no".into()))]).await;
    assert_eq!(failure.unwrap().code(), codes::STREAM_INTERRUPTED);
}

/// A chunk async-openai could not read was never yielded: its text is not delivered, so a
/// failure before any yielded text is retried, and the kept text is what the caller saw.
#[tokio::test]
async fn text_async_openai_could_not_read_is_not_counted_as_delivered() {
    let weird = json!({"object": "chat.completion.chunk", "choices": [
        {"index": 0, "delta": {"content": "never shown"}, "finish_reason": "unheard_of"}
    ]});
    let (ok, failure) = run(vec![Err(unreadable(&weird.to_string()))]).await;
    let e = failure.unwrap();
    assert_eq!((ok, e.code()), (0, codes::STREAM_INTERRUPTED));
    assert!(e.delivered().is_empty(), "{:?}", e.delivered());
    assert!(e.is_retryable(), "nothing was shown");
    assert_eq!(e.partial_text().unwrap_or_default(), "");
    // After text the caller did see, only that text is kept.
    let (ok, failure) = run(vec![
        Ok(chunk("Hel", None)),
        Err(unreadable(&weird.to_string())),
    ])
    .await;
    let e = failure.unwrap();
    assert_eq!((ok, e.partial_text()), (1, Some("Hel")));
    assert_eq!(e.recovery(), Recovery::Continue);
}
