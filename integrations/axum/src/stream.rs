//! Streams (feature `stream`): a failure written as the error event that a provider's
//! streaming clients already parse, so that a service streaming to agents fails as providers do.

use std::error::Error as StdError;
use std::fmt::Write as _;
use std::time::Duration;

use ::axum::response::sse::Event;
use agent_error_runtime::codes::{
    AUTH, BUDGET_EXHAUSTED, CONTENT_FILTERED, CONTEXT_OVERFLOW, GUARD_BLOCKED, INVALID_INPUT,
    INVALID_OUTPUT, NOT_FOUND, OUTPUT_TRUNCATED, PROVIDER_UNAVAILABLE, RATE_LIMIT,
    REQUEST_TOO_LARGE, STREAM_INTERRUPTED, TIMEOUT, TOOL_FAILED,
};
use agent_error_runtime::display::{MAX_SUMMARY_BYTES, one_line};
use agent_error_runtime::stream::Provider;
use agent_error_runtime::{AgentError, Report};
use serde_json::Value;

/// `err` as the error event of `provider`'s stream, for an [`Sse`](::axum::response::Sse)
/// response that fails after `200 OK`. The error is captured as [`ApiError`](crate::ApiError)
/// captures it ([`Report::capture`]): its code and status, and its public message folded to
/// one line (`#[redact]` fields as `[redacted]`, foreign causes' text never); a foreign error
/// is classified, and an unclassified one reads "internal error".
///
/// | provider | the event |
/// |---|---|
/// | [`Provider::OpenAiChat`] | `data: {"error":{"message":…,"type":…,"code":…}}`; send [`done_event`] after it |
/// | [`Provider::OpenAiResponses`] | `event: error`, `data: {"type":"error","code":…,"message":…,"param":null}` |
/// | [`Provider::Anthropic`] | `event: error`, `data: {"type":"error","error":{"type":…,"message":…}}` |
/// | [`Provider::Gemini`] | `data: {"error":{"code":<status>,"message":…,"status":…}}`, with Google's `RetryInfo` when the error has a delay |
///
/// The names are the provider's, chosen so that a client's
/// [`stream::Watch`](agent_error_runtime::stream::Watch) reads the event back as the same code:
///
/// | code | OpenAI Chat (`type`, `code`) | Responses (`code`) | Anthropic (`error.type`) | Gemini (`status`) |
/// |---|---|---|---|---|
/// | `rate_limit` | `requests`, `rate_limit_exceeded` | `rate_limit_exceeded` | `rate_limit_error` | 429 `RESOURCE_EXHAUSTED` |
/// | `auth_error` | `invalid_request_error`, `invalid_api_key` | `invalid_api_key` | `authentication_error` | 401 `UNAUTHENTICATED` |
/// | `timeout` | `timeout`, 504 | 504 | `timeout_error` | 504 `DEADLINE_EXCEEDED` |
/// | `invalid_input` | `invalid_request_error`, 400 | 400 | `invalid_request_error` | 400 `INVALID_ARGUMENT` |
/// | `provider_unavailable` | `server_error`, `server_error` | `server_error` | `overloaded_error` | 503 `UNAVAILABLE` |
/// | `budget_exhausted` | `insufficient_quota`, `insufficient_quota` | `insufficient_quota` | `billing_error` | 429 `RESOURCE_EXHAUSTED` |
/// | `not_found` | `invalid_request_error`, 404 | 404 | `not_found_error` | 404 `NOT_FOUND` |
/// | `context_overflow` | `invalid_request_error`, `context_length_exceeded` | `context_length_exceeded` | `request_too_large` | 400 `INVALID_ARGUMENT` |
/// | `request_too_large` | `invalid_request_error`, 413 | 413 | `request_too_large` | 413 `FAILED_PRECONDITION` |
/// | `content_filtered` | `invalid_request_error`, `content_filter` | `content_filter` | `invalid_request_error` | 400 `FAILED_PRECONDITION` |
/// | `tool_failed` | `invalid_request_error`, 400 | 400 | `invalid_request_error` | 400 `FAILED_PRECONDITION` |
/// | `guard_blocked` | `invalid_request_error`, `content_filter` | `content_filter` | `invalid_request_error` | 400 `FAILED_PRECONDITION` |
/// | `stream_interrupted` | `stream_interrupted`, `stream_interrupted` | `stream_interrupted` | `api_error` | 500 `INTERNAL` |
/// | `output_truncated` | `output_truncated`, `output_truncated` | `output_truncated` | `api_error` | 500 `INTERNAL` |
/// | `invalid_output` | `invalid_output`, `invalid_output` | `invalid_output` | `api_error` | 500 `INTERNAL` |
///
/// A number in an OpenAI `code` is the HTTP status, as vLLM and OpenRouter write it, where
/// OpenAI has no name for the failure. Any other code is written as its status
/// ([`Report::http_status`], the status [`ApiError`](crate::ApiError) answers with) in the
/// provider's names for that status.
///
/// **What does not come back as itself.** A provider with no name for a failure says the
/// nearest one that is handled alike (retried or not, the same recovery):
///
/// - everywhere: `tool_failed` and `guard_blocked` read as `invalid_input` (or
///   `content_filtered` for `guard_blocked` in OpenAI's shapes), and `output_truncated` and
///   `invalid_output` as `stream_interrupted` in OpenAI's shapes and `provider_unavailable`
///   in Anthropic's and Gemini's: none is an error event in a provider's stream;
/// - Anthropic: `stream_interrupted` reads as `provider_unavailable` (`api_error`),
///   `content_filtered` as `invalid_input`, and `context_overflow` as `request_too_large`
///   (Anthropic has no type of its own for an overflow; both compact, neither is retried);
/// - Gemini: `budget_exhausted` reads as `rate_limit` (Google says `RESOURCE_EXHAUSTED` for
///   both), `context_overflow` and `content_filtered` as `invalid_input`,
///   `stream_interrupted` as `provider_unavailable`.
///
/// A reader looks at an error's message when its names say nothing or only "invalid
/// request": a public message that reads as a context overflow ("maximum context length")
/// or a spent quota can turn `invalid_input` (or a status) into that.
///
/// The delay an error carries crosses only in Gemini's shape (`RetryInfo`); the others have
/// no field for it.
///
/// ```
/// use std::convert::Infallible;
///
/// use agent_error::{axum::{done_event, error_event}, stream::Provider, Error, codes};
/// use axum::response::sse::{Event, Sse};
/// use futures_util::stream;
///
/// async fn chat() -> Sse<impl futures_util::Stream<Item = Result<Event, Infallible>>> {
///     let overloaded = Error::new("llm.chat", codes::PROVIDER_UNAVAILABLE, "the model is overloaded");
///     Sse::new(stream::iter([
///         Event::default().data(r#"{"choices":[{"index":0,"delta":{"content":"Hel"}}]}"#),
///         error_event(&overloaded, Provider::OpenAiChat),
///         done_event(),
///     ].map(Ok)))
/// }
/// # let _ = chat;
/// ```
pub fn error_event(err: &(dyn StdError + 'static), provider: Provider) -> Event {
    report_event(&Report::capture(err), provider)
}

/// A [`Report`] as the error event of `provider`'s stream: [`error_event`] for an error
/// already captured, such as an [`ApiError`](crate::ApiError)'s
/// ([`report`](crate::ApiError::report)) or one relayed from another service.
///
/// ```
/// use agent_error::{axum::{ApiError, report_event}, stream::Provider, Error, codes};
///
/// let e = ApiError::from(Error::new("llm.chat", codes::RATE_LIMIT, "slow down"));
/// let event = report_event(e.report(), Provider::Anthropic);
/// # let _ = event;
/// ```
pub fn report_event(report: &Report, provider: Provider) -> Event {
    let (name, data) = event_parts(report, provider);
    // `event:` first, as the providers write it.
    match name {
        Some(name) => Event::default().event(name),
        None => Event::default(),
    }
    .data(data)
}

/// `data: [DONE]`, the last event of an OpenAI Chat Completions stream: send it after a
/// Chat [`error_event`], as OpenAI and the servers that speak its API do.
///
/// ```
/// let done = agent_error::axum::done_event();
/// # let _ = done;
/// ```
pub fn done_event() -> Event {
    Event::default().data("[DONE]")
}

/// A code or a status in an OpenAI `code` member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OpenAiCode<'a> {
    Name(&'a str),
    Status(u16),
}

/// The event's type (`event:`), if any, and its data: one line of JSON.
fn event_parts(report: &Report, provider: Provider) -> (Option<&'static str>, String) {
    let code = report.code();
    let status = report.http_status();
    let message = Value::from(one_line(report.message_text(), MAX_SUMMARY_BYTES));
    match provider {
        Provider::OpenAiResponses => {
            let (_, name) = openai_names(code, status);
            let data = format!(
                r#"{{"type":"error","code":{},"message":{message},"param":null}}"#,
                openai_code(name)
            );
            (Some("error"), data)
        }
        Provider::Anthropic => {
            let kind = Value::from(anthropic_type(code, status));
            let data =
                format!(r#"{{"type":"error","error":{{"type":{kind},"message":{message}}}}}"#);
            (Some("error"), data)
        }
        Provider::Gemini => {
            let (status, name) = google_status(code, status);
            let mut data =
                format!(r#"{{"error":{{"code":{status},"message":{message},"status":"{name}""#);
            if let Some(delay) = report.retry_after() {
                let _ = write!(
                    data,
                    r#","details":[{{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"{}"}}]"#,
                    protobuf_duration(delay)
                );
            }
            data.push_str("}}");
            (None, data)
        }
        // OpenAI Chat Completions, and the shape of any provider named later.
        _ => {
            let (kind, name) = openai_names(code, status);
            let data = format!(
                r#"{{"error":{{"message":{message},"type":{},"param":null,"code":{}}}}}"#,
                Value::from(kind),
                openai_code(name)
            );
            (None, data)
        }
    }
}

/// An OpenAI `code` as JSON.
fn openai_code(code: OpenAiCode<'_>) -> String {
    match code {
        OpenAiCode::Name(name) => Value::from(name).to_string(),
        OpenAiCode::Status(status) => status.to_string(),
    }
}

/// The OpenAI error `type` and `code` of a failure (the Responses API's `error` event has
/// only the `code`). Where OpenAI has no name, the code is the status, and the type one
/// that no reader takes for a failure of its own, so that the status decides.
fn openai_names(code: &str, status: u16) -> (&str, OpenAiCode<'_>) {
    use OpenAiCode::{Name, Status};
    match code {
        RATE_LIMIT => ("requests", Name("rate_limit_exceeded")),
        AUTH => ("invalid_request_error", Name("invalid_api_key")),
        TIMEOUT => ("timeout", Status(504)),
        INVALID_INPUT | TOOL_FAILED => ("invalid_request_error", Status(400)),
        PROVIDER_UNAVAILABLE => ("server_error", Name("server_error")),
        BUDGET_EXHAUSTED => ("insufficient_quota", Name("insufficient_quota")),
        NOT_FOUND => ("invalid_request_error", Status(404)),
        CONTEXT_OVERFLOW => ("invalid_request_error", Name("context_length_exceeded")),
        REQUEST_TOO_LARGE => ("invalid_request_error", Status(413)),
        CONTENT_FILTERED | GUARD_BLOCKED => ("invalid_request_error", Name("content_filter")),
        // Names no reader knows: read as `stream_interrupted`.
        STREAM_INTERRUPTED | OUTPUT_TRUNCATED | INVALID_OUTPUT => (code, Name(code)),
        _ => (
            match status {
                429 => "requests",
                408 | 504 => "timeout",
                500..=599 => "server_error",
                _ => "invalid_request_error",
            },
            Status(status),
        ),
    }
}

/// Anthropic's `error.type` for a failure.
fn anthropic_type(code: &str, status: u16) -> &'static str {
    match code {
        RATE_LIMIT => "rate_limit_error",
        AUTH => "authentication_error",
        TIMEOUT => "timeout_error",
        INVALID_INPUT | TOOL_FAILED | GUARD_BLOCKED | CONTENT_FILTERED => "invalid_request_error",
        PROVIDER_UNAVAILABLE => "overloaded_error",
        BUDGET_EXHAUSTED => "billing_error",
        NOT_FOUND => "not_found_error",
        CONTEXT_OVERFLOW | REQUEST_TOO_LARGE => "request_too_large",
        STREAM_INTERRUPTED | OUTPUT_TRUNCATED | INVALID_OUTPUT => "api_error",
        _ => match status {
            401 => "authentication_error",
            402 => "billing_error",
            403 => "permission_error",
            404 => "not_found_error",
            408 | 504 => "timeout_error",
            413 => "request_too_large",
            429 => "rate_limit_error",
            503 | 529 => "overloaded_error",
            500..=599 => "api_error",
            _ => "invalid_request_error",
        },
    }
}

/// Google's status (`google.rpc.Code`'s HTTP mapping) and its name for a failure.
fn google_status(code: &str, status: u16) -> (u16, &'static str) {
    match code {
        RATE_LIMIT | BUDGET_EXHAUSTED => (429, "RESOURCE_EXHAUSTED"),
        AUTH => (401, "UNAUTHENTICATED"),
        TIMEOUT => (504, "DEADLINE_EXCEEDED"),
        INVALID_INPUT | CONTEXT_OVERFLOW => (400, "INVALID_ARGUMENT"),
        TOOL_FAILED | GUARD_BLOCKED | CONTENT_FILTERED => (400, "FAILED_PRECONDITION"),
        PROVIDER_UNAVAILABLE => (503, "UNAVAILABLE"),
        NOT_FOUND => (404, "NOT_FOUND"),
        STREAM_INTERRUPTED | OUTPUT_TRUNCATED | INVALID_OUTPUT => (500, "INTERNAL"),
        _ => (
            status,
            match status {
                400 => "INVALID_ARGUMENT",
                401 => "UNAUTHENTICATED",
                403 => "PERMISSION_DENIED",
                404 => "NOT_FOUND",
                409 => "ABORTED",
                429 => "RESOURCE_EXHAUSTED",
                499 => "CANCELLED",
                501 => "UNIMPLEMENTED",
                503 => "UNAVAILABLE",
                504 => "DEADLINE_EXCEEDED",
                500..=599 => "INTERNAL",
                _ => "FAILED_PRECONDITION",
            },
        ),
    }
}

/// A delay as a protobuf `Duration` in JSON: seconds, with the fraction when there is one.
fn protobuf_duration(delay: Duration) -> String {
    match delay.subsec_nanos() {
        0 => format!("{}s", delay.as_secs()),
        nanos => {
            let fraction = format!("{nanos:09}");
            format!("{}.{}s", delay.as_secs(), fraction.trim_end_matches('0'))
        }
    }
}

#[cfg(test)]
mod tests;
