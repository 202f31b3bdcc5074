//! The rig integration (feature `rig`): every error rig-core returns to a caller
//! (`rig_core::ProviderError`, from `Model::call`, `Model::stream` and a stream's items) is
//! classified with no glue, so that a [`Retrier`](agent_error_runtime::retry::Retrier)
//! around a rig call retries what waiting helps and gives up at once on the rest.
//!
//! rig keeps a failed reply whole (status, headers, body, request id) but ends the error's
//! chain at the first link (`source()` is `None` for a transport error and a reply), so a
//! chain walk alone learns nothing: the classifier reads the variants.
//!
//! | `ProviderError` | classification |
//! |---|---|
//! | `ProviderResponse`, `InvalidAuthentication`, `CacheExpired` with a failed status | as [`StatusError::from_parts`] reads a response: `Retry-After`, `retry-after-ms` and `x-should-retry` from the headers rig keeps, the order of evidence over the status and the body, the provider's request id |
//! | the same without a status (an error event in a stream) or with a 2xx (an error envelope: JSON that rig recognised as an error by its shape) | the body read as an error body without a status ([`classify_body`]): Anthropic's `overloaded_error` → `provider_unavailable`, OpenAI's `server_error` → `provider_unavailable`, … (rig itself calls these not retryable); a body that says nothing known → `stream_interrupted` |
//! | a reply rig marks as a refusal | `content_filtered` |
//! | `Http` (the transport) | its `reqwest::Error` as `reqwest` classifies it (a timeout `timeout`, a refused connection `provider_unavailable`); a reply kept in it as above; a content type that is not an event stream `invalid_output`; a request that could not be sent `invalid_input` |
//! | `Truncated` (the reply stopped before the provider ended it) | `stream_interrupted` (retried) |
//! | `Json`, `Response`, `MismatchedDimensions` | `invalid_output` (the provider's output could not be read: retried once); a 200 whose body is no JSON or broken JSON, or a chunk cut short, is one of these, and its text (the model's own) is never read for phrases |
//! | `Url`, `Request`, `UnsupportedOption` | `invalid_input` |
//! | `Provider` (a message without the reply) | its message read as an error body, else unclassified |
//! | `Relayed` (a report relayed over rig's effect bus) | the reply it kept, else its status, else its own `retryable` |
//!
//! Each classification's op is [`OP`] and its public message this crate's fixed text: the
//! provider's body stays out of tool text, text for people and the wire.
//!
//! **A stream's failure** is classified without knowing what the stream had delivered: a
//! `Truncated` after text was shown is `stream_interrupted`, retried as a call would be, so a
//! caller that already showed text continues from `Streamed::partial()` instead of calling
//! again.
//!
//! **One retry loop.** rig-core, rig-http and rig-reqwest send each call once: there is no
//! retry loop of their own to turn off, so a `Retrier` is the only one (a test counts exactly
//! the retrier's attempts). reqwest underneath resends a request an HTTP/2 server refused
//! before reading it (`REFUSED_STREAM`, `GOAWAY`), at most twice; `.retry(reqwest::retry::never())`
//! on the `reqwest::ClientBuilder` given to rig turns that off too.
//!
//! Not covered: rig-agent's `PromptError` (a separate crate), whose `Provider` variant holds
//! the `ProviderError` but does not show it as a `source()`.
//!
//! Supported: rig-core 0.44 (newer rig needs a newer Rust than this project's).
//!
//! ```
//! use agent_error::AgentError;
//!
//! // A reply rig kept: a spent quota, classified and not retried.
//! let spent = rig_core::ProviderError::from_http_response(
//!     http::StatusCode::TOO_MANY_REQUESTS,
//!     r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#,
//! );
//! let c = agent_error::classify(&spent).unwrap();
//! assert_eq!((c.code(), c.is_retryable()), ("budget_exhausted", false));
//! ```

#![forbid(unsafe_code)]
// On docs.rs (nightly, `--cfg docsrs`): each item says which feature brings it.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

use agent_error_runtime::Error as Classification;
use agent_error_runtime::codes::{
    CONTENT_FILTERED, INVALID_INPUT, INVALID_OUTPUT, PROVIDER_UNAVAILABLE, STREAM_INTERRUPTED,
};
use agent_error_runtime::http::{StatusError, classify_body};
use rig_core::error::ErrorReport;
use rig_core::http_client;
use rig_core::{ProviderError, ProviderResponseError};

/// The op of every rig classification.
pub const OP: &str = "rig";

/// A reply rig kept, as a [`StatusError`] when it has a failed status; `None` for a reply
/// without one (an error event in a stream, a 2xx error envelope).
///
/// ```
/// use agent_error::{AgentError, Recovery};
///
/// let reply = rig_core::ProviderResponseError::new(
///     http::StatusCode::BAD_REQUEST,
///     r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#,
/// );
/// let e = agent_error::rig::status_error(&reply).unwrap();
/// assert_eq!((e.code(), e.recovery()), ("context_overflow", Recovery::Compact));
/// ```
pub fn status_error(reply: &ProviderResponseError) -> Option<StatusError> {
    let status = reply.status.filter(|status| !status.is_success())?;
    let empty = http::HeaderMap::new();
    let headers = reply.headers.as_ref().unwrap_or(&empty);
    let mut e = StatusError::from_parts(status, headers, &reply.body).with_op(OP);
    if e.request_id().is_none()
        && let Some(id) = &reply.provider_request_id
    {
        e = e.with_request_id(id);
    }
    Some(e)
}

/// A reply rig kept: by its status, headers and body, or by its body alone.
fn reply(reply: &ProviderResponseError) -> Classification {
    if reply.refusal {
        return fixed(CONTENT_FILTERED, "the provider refused the request");
    }
    match status_error(reply) {
        Some(e) => Classification::classification_of(&e),
        None => match classify_body(&reply.body) {
            Some(e) => Classification::classification_of(&e.with_op(OP)),
            None => fixed(STREAM_INTERRUPTED, "the provider sent an error"),
        },
    }
}

fn fixed(code: &'static str, message: &'static str) -> Classification {
    Classification::new(OP, code, message)
}

/// The classification of a rig error: see the crate's table.
fn classify(e: &ProviderError) -> Option<Classification> {
    Some(match e {
        ProviderError::ProviderResponse(r)
        | ProviderError::InvalidAuthentication(r)
        | ProviderError::CacheExpired { response: r, .. } => reply(r),
        ProviderError::Http(transport) => return classify_transport(transport),
        ProviderError::Truncated => fixed(
            STREAM_INTERRUPTED,
            "the reply stopped before the provider ended it",
        ),
        ProviderError::Json(_)
        | ProviderError::Response(_)
        | ProviderError::MismatchedDimensions { .. } => {
            fixed(INVALID_OUTPUT, "the reply could not be read")
        }
        ProviderError::Url(_) | ProviderError::Request(_) | ProviderError::UnsupportedOption(_) => {
            fixed(INVALID_INPUT, "the request could not be built")
        }
        ProviderError::Provider(message) => {
            let e = classify_body(message)?;
            Classification::classification_of(&e.with_op(OP))
        }
        ProviderError::Relayed(report) => return relayed(report),
        _ => return None,
    })
}

/// A transport failure: the `reqwest::Error` rig boxed, or what rig's own client said.
fn classify_transport(e: &http_client::Error) -> Option<Classification> {
    use http_client::Error as Http;
    Some(match e {
        Http::Instance(inner) => {
            let inner: &(dyn std::error::Error + 'static) = inner.as_ref();
            let c = agent_error_runtime::classify(inner)?;
            Classification::classification_of(&*c)
        }
        Http::InvalidStatusCodeWithDetails {
            status,
            body,
            headers,
        } => Classification::classification_of(
            &StatusError::from_parts(*status, headers, body).with_op(OP),
        ),
        Http::InvalidContentType(_) => {
            fixed(INVALID_OUTPUT, "the reply was not what was asked for")
        }
        Http::StreamEnded => fixed(
            STREAM_INTERRUPTED,
            "the reply stopped before the provider ended it",
        ),
        Http::Protocol(_) | Http::InvalidHeaderValue(_) | Http::NoHeaders => {
            fixed(INVALID_INPUT, "the request could not be sent")
        }
    })
}

/// A report relayed over rig's effect bus: the reply it kept, else its status, else its own
/// verdict.
fn relayed(report: &ErrorReport) -> Option<Classification> {
    if let Some(r) = &report.provider_response {
        return Some(reply(r));
    }
    if let Some(status) = report.http_status.filter(|status| *status >= 400) {
        return Some(Classification::classification_of(
            &StatusError::new(status).with_op(OP),
        ));
    }
    report
        .retryable
        .then(|| fixed(PROVIDER_UNAVAILABLE, "the provider failed"))
}

agent_error_runtime::extend::builtin_classifier!(ProviderError, |e: &ProviderError| classify(e)
    .map(Into::into));
