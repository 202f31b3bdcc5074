//! The genai integration (feature `genai`): every error genai returns to a caller is
//! classified with no glue, so that a [`Retrier`](agent_error_runtime::retry::Retrier) around
//! `client.exec_chat(..)` retries what waiting helps and gives up at once on the rest.
//!
//! | `genai::Error` | classification |
//! |---|---|
//! | `HttpError`, `WebModelCall` / `WebAdapterCall` with `ResponseFailedStatus` (status, headers, body) | as [`StatusError::from_parts`] reads a response: `Retry-After`, `retry-after-ms` and `x-should-retry` from the headers genai keeps, then the order of evidence over the status and the body (429 `rate_limit` with its wait, `insufficient_quota` → `budget_exhausted`, a context overflow → `context_overflow`, 529 → `provider_unavailable`, …) |
//! | `WebModelCall` / `WebAdapterCall` with `Reqwest` | as `reqwest` classifies the transport error: a timeout `timeout`, a refused connection `provider_unavailable`, both retried |
//! | `ResponseFailedNotJson`, `ResponseFailedInvalidJson` (a success status whose body is not JSON, or is broken JSON) | `invalid_output` (retried once): a 200 is not an error body, and its text (the model's own) is never read for phrases |
//! | `ChatResponse` (a stream's error event) | its body read as an error body, else `stream_interrupted` |
//! | `WebStream` (the stream's transport) | its cause: a failed response as above, genai's header or read timeout `timeout`, a `reqwest::Error` as `reqwest` classifies it, anything else `stream_interrupted` |
//! | `StreamParse`, `NoChatResponse`, `InvalidJsonResponseElement`, `ChatResponseGeneration`, `SerdeJson`, `JsonValueExt` | `invalid_output`: the provider's output could not be read (retried once) |
//! | `RequiresApiKey`, `NoAuthResolver`, `NoAuthData` | `auth_error` |
//! | the request's and the client's configuration (`ChatReqHasNoMessages`, `MessageRoleNotSupported`, `AdapterNotSupported`, `AdapterKindMismatch`, `Resolver`, `ModelMapperFailed`, `ClientBuildFail`, the option parsers, …) | `invalid_input` |
//! | `Internal` | unclassified, not retried |
//!
//! Each classification's op is [`OP`] and its public message this crate's fixed text: the
//! provider's body and genai's own text stay out of tool text, text for people and the wire.
//!
//! **A stream that ends without genai's `End` event ends `Ok`** in genai: a cut connection
//! looks like a short answer. With the feature `stream`, [`watch`] yields genai's events
//! unchanged and ends such a stream in `stream_interrupted`, and classifies every failure
//! by what was delivered (see [`watch`]).
//!
//! **One retry loop.** genai sends each call once: it has no retry loop of its own, so a
//! `Retrier` around its calls is the only one (a test counts exactly the retrier's attempts).
//!
//! Supported: genai 0.7 (the version this crate is built and tested with).
//!
//! ```
//! use agent_error::AgentError;
//!
//! // What genai returns for a spent quota: classified, and not retried.
//! let mut headers = http::HeaderMap::new();
//! headers.insert("x-request-id", http::HeaderValue::from_static("req_1"));
//! let spent = genai::Error::HttpError {
//!     status: http::StatusCode::TOO_MANY_REQUESTS,
//!     canonical_reason: "Too Many Requests".into(),
//!     body: r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#.into(),
//!     headers: Box::new(headers),
//! };
//! let c = agent_error::classify(&spent).unwrap();
//! assert_eq!((c.code(), c.is_retryable()), ("budget_exhausted", false));
//! ```

#![forbid(unsafe_code)]
// On docs.rs (nightly, `--cfg docsrs`): each item says which feature brings it.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

/// Streams: genai's `ChatStream` with its failures classified (feature `stream`).
#[cfg(feature = "stream")]
mod stream;
#[cfg(feature = "stream")]
pub use stream::{Watched, watch};

use agent_error_runtime::Error as Classification;
use agent_error_runtime::codes::{
    AUTH, INVALID_INPUT, INVALID_OUTPUT, STREAM_INTERRUPTED, TIMEOUT,
};
use agent_error_runtime::http::{StatusError, classify_body};
use genai::Error;

/// The op of every `genai::Error` classification.
pub const OP: &str = "genai";

/// A failed response genai kept (status, headers, body) as a [`StatusError`], read by the
/// order of evidence.
///
/// ```
/// use agent_error::{AgentError, Recovery};
///
/// let e = agent_error::genai::status_error(
///     http::StatusCode::BAD_REQUEST,
///     &http::HeaderMap::new(),
///     r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#,
/// );
/// assert_eq!((e.code(), e.recovery()), ("context_overflow", Recovery::Compact));
/// ```
pub fn status_error(
    status: http::StatusCode,
    headers: &http::HeaderMap,
    body: &str,
) -> StatusError {
    StatusError::from_parts(status, headers, body).with_op(OP)
}

/// The classification of a genai error: see the crate's table.
fn classify(e: &Error) -> Option<Classification> {
    let fixed =
        |code: &'static str, message: &'static str| Some(Classification::new(OP, code, message));
    match e {
        Error::HttpError {
            status,
            headers,
            body,
            ..
        } => Some(Classification::classification_of(&status_error(
            *status, headers, body,
        ))),
        Error::WebModelCall { webc_error, .. } | Error::WebAdapterCall { webc_error, .. } => {
            classify_web(webc_error)
        }
        Error::ChatResponse { body, .. } => Some(body_or(
            &body.to_string(),
            STREAM_INTERRUPTED,
            "the stream sent an error event",
        )),
        Error::WebStream { error, .. } => Some(classify_stream_cause(error.as_ref())),
        Error::StreamParse { .. }
        | Error::NoChatResponse { .. }
        | Error::InvalidJsonResponseElement { .. }
        | Error::ChatResponseGeneration { .. }
        | Error::SerdeJson(_)
        | Error::JsonValueExt(_) => fixed(INVALID_OUTPUT, "the response could not be read"),
        Error::RequiresApiKey { .. } | Error::NoAuthResolver { .. } | Error::NoAuthData { .. } => {
            fixed(AUTH, "no credentials for the model")
        }
        Error::Internal(_) => None,
        // The request's and the client's configuration.
        _ => fixed(
            INVALID_INPUT,
            "the request or the client is not valid for the model",
        ),
    }
}

/// A web call's failure: a response (status, headers, body), a body genai could not read, or
/// the transport.
fn classify_web(e: &genai::webc::Error) -> Option<Classification> {
    use genai::webc::Error as Web;
    match e {
        Web::ResponseFailedStatus {
            status,
            body,
            headers,
        } => Some(Classification::classification_of(&status_error(
            *status, headers, body,
        ))),
        // genai raises these only on a success status (a failed one is
        // `ResponseFailedStatus`): a 200 is not an error body, and the model's own text is
        // never read for phrases.
        Web::ResponseFailedNotJson { .. }
        | Web::ResponseFailedInvalidJson { .. }
        | Web::JsonValueExt(_) => Some(Classification::new(
            OP,
            INVALID_OUTPUT,
            "the response could not be read",
        )),
        Web::Reqwest(transport) => {
            agent_error_runtime::classify(transport).map(|c| Classification::classification_of(&*c))
        }
    }
}

/// What broke a stream: a failed response, genai's timeout, the transport, or else an
/// interruption.
fn classify_stream_cause(
    cause: &(dyn std::error::Error + Send + Sync + 'static),
) -> Classification {
    if let Some(genai) = cause.downcast_ref::<Error>()
        && !matches!(genai, Error::WebStream { .. })
        && let Some(c) = classify(genai)
    {
        return c;
    }
    if cause.is::<genai::webc::StreamTimeout>() {
        return Classification::new(OP, TIMEOUT, "the model did not answer in time");
    }
    match agent_error_runtime::classify(cause) {
        Some(c) => Classification::classification_of(&*c),
        None => Classification::new(OP, STREAM_INTERRUPTED, "the stream broke before its end"),
    }
}

/// A body read as an error body without a status, else `code` with `message`.
fn body_or(body: &str, code: &'static str, message: &'static str) -> Classification {
    match classify_body(body) {
        Some(e) => Classification::classification_of(&e.with_op(OP)),
        None => Classification::new(OP, code, message),
    }
}

agent_error_runtime::extend::builtin_classifier!(Error, |e: &Error| classify(e).map(Into::into));
