//! The async-openai integration (feature `async-openai`): its `OpenAIError` classified
//! so that a [`Retrier`](agent_error_runtime::retry::Retrier) around an async-openai call
//! retries a rate limit and gives up at once on a spent quota.
//!
//! | `OpenAIError` | classification |
//! |---|---|
//! | `ApiError` (status and error body) | as [`StatusError`] reads them: 429 `rate_limit` (retried); 429 `insufficient_quota` → `budget_exhausted` (not retried); 400 `context_length_exceeded` → `context_overflow`, recovery `compact`; 401 / `invalid_api_key` → `auth_error`; 5xx → `provider_unavailable` (retried); … |
//! | `Reqwest` | left to its cause, the `reqwest::Error` (feature `reqwest`): timeout → `timeout`, connect → `provider_unavailable`, both retried |
//! | `InvalidArgument` | `invalid_input`: the request could not be built |
//! | `Boxed` (from a tower middleware) | the boxed error's own classification |
//! | `JSONDeserialize(_, data)`: a stream's error event (`data: {"error": …}`) or a body async-openai could not read | data that is whole JSON read as an error body without a status ([`classify_body`]): `server_error` → `provider_unavailable`, `rate_limit_exceeded` → `rate_limit`, …; anything else → `invalid_output` (the provider's output could not be read: retried once). Data that is not JSON (a 200's body that is no JSON or broken JSON, a chunk cut short) is never read for phrases: async-openai drops the status, and a success's text is the model's own |
//! | `StreamError(EventStream)`: the stream's transport failed or its bytes broke | `stream_interrupted` (retried) |
//! | `StreamError(UnknownEvent)` | its data read as an error body when it is whole JSON, else `invalid_output` |
//! | file errors | unclassified, not retried |
//!
//! A stream's failure classified on its own does not know what the stream had delivered:
//! with the feature `stream`, [`watch_chat`] reads a streaming call's chunks and classifies
//! its failures after `200 OK` (an error event mid-stream, a cut connection, a stream that
//! ends without its finish reason) as `stream::Watch` does, so that a stream that already
//! showed text is never re-run from the start.
//!
//! async-openai keeps only the status and the JSON error body of a failed response, not its
//! headers: a `Retry-After` (or `x-ratelimit-reset-*`) the server sent is not seen here. The
//! wait is read from the body instead, where OpenAI writes it in the message ("Please try
//! again in 1.5s"), and is the policy's backoff otherwise.
//!
//! **One retry loop.** async-openai's own client retries 429s, 5xx and refused connections
//! by itself (3 retries, its own backoff). Under a [`Retrier`](agent_error_runtime::retry::Retrier)
//! that multiplies the attempts (4 × the retrier's: a test counts 12 requests for a retrier
//! of 3), so build the client with [`client`], which gives async-openai the plain transport
//! (its `middleware` feature) and leaves the retrying to the retrier:
//!
//! ```no_run
//! # fn make() -> async_openai::Client<async_openai::config::OpenAIConfig> {
//! use async_openai::config::OpenAIConfig;
//!
//! let client = agent_error::openai::client(OpenAIConfig::new(), reqwest::Client::new());
//! # client }
//! ```
//!
//! Supported: async-openai 0.43 (the version this crate is built and tested with).

#![forbid(unsafe_code)]
// On docs.rs (nightly, `--cfg docsrs`): each item says which feature brings it.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

/// Streams: async-openai's streams with their failures classified (feature `stream`).
#[cfg(feature = "stream")]
mod stream;
#[cfg(feature = "stream")]
pub use stream::{Watched, watch, watch_chat};

use ::async_openai::config::Config;
use ::async_openai::error::{ApiErrorResponse, OpenAIError, StreamError as SseError, WrappedError};
use ::async_openai::middleware::ReqwestService;

use agent_error_runtime::codes::{INVALID_INPUT, INVALID_OUTPUT, STREAM_INTERRUPTED};
use agent_error_runtime::http::{StatusError, classify_body};

/// The op of every `OpenAIError` classification.
pub const OP: &str = "openai";

/// An API error response as [`StatusError`]: its status and its error body, which carries
/// the OpenAI `error.code` and `error.type` that `StatusError` reads.
///
/// ```
/// use agent_error::{openai, AgentError, Recovery};
/// use async_openai::error::{ApiError, ApiErrorResponse};
///
/// let response = ApiErrorResponse {
///     status_code: reqwest::StatusCode::BAD_REQUEST,
///     api_error: ApiError {
///         message: "This model's maximum context length is 128000 tokens.".into(),
///         r#type: Some("invalid_request_error".into()),
///         code: Some("context_length_exceeded".into()),
///         ..Default::default()
///     },
/// };
/// let e = openai::status_error(&response);
/// assert_eq!(e.code(), "context_overflow");
/// assert_eq!(e.recovery(), Recovery::Compact);
/// ```
pub fn status_error(response: &ApiErrorResponse) -> StatusError {
    let body = serde_json::to_string(&WrappedError {
        error: response.api_error.clone(),
    })
    .unwrap_or_default();
    StatusError::new(response.status_code.as_u16())
        .with_body(body)
        .with_op(OP)
}

/// async-openai's client with `config`, sending its requests through `http` once each:
/// without async-openai's own retry layer, so that a
/// [`Retrier`](agent_error_runtime::retry::Retrier) around its calls is the only loop and
/// attempts never multiply.
///
/// ```
/// use async_openai::config::OpenAIConfig;
///
/// let http = reqwest::Client::builder().timeout(std::time::Duration::from_secs(60)).build().unwrap();
/// let client = agent_error::openai::client(OpenAIConfig::new().with_api_key("sk-…"), http);
/// # let _ = client;
/// ```
pub fn client<C: Config>(config: C, http: reqwest::Client) -> ::async_openai::Client<C> {
    ::async_openai::Client::with_config(config).with_http_service(ReqwestService::new(http))
}

/// Data async-openai could not read, read as the error document it may be: only when it is
/// whole JSON. async-openai drops the status, and data that is not JSON may be a success's
/// body or a chunk cut short, the model's own text: a 200 is not an error body, and such text
/// is never read for phrases.
pub(crate) fn error_document(data: &str) -> Option<StatusError> {
    serde_json::from_str::<serde_json::Value>(data).ok()?;
    classify_body(data)
}

/// Data async-openai could not read, classified as the error document it may be, else as
/// output that could not be read.
fn unreadable(data: &str, what: &'static str) -> agent_error_runtime::Error {
    match error_document(data) {
        Some(e) => agent_error_runtime::Error::classification_of(&e.with_op(OP)),
        None => agent_error_runtime::Error::new(OP, INVALID_OUTPUT, what),
    }
}

fn classify(e: &OpenAIError) -> Option<agent_error_runtime::Error> {
    match e {
        OpenAIError::ApiError(response) => Some(agent_error_runtime::Error::classification_of(
            &status_error(response),
        )),
        OpenAIError::InvalidArgument(_) => Some(agent_error_runtime::Error::new(
            OP,
            INVALID_INPUT,
            "the request could not be built",
        )),
        // `#[error(transparent)]`: its `source()` skips the boxed error, so look at it here.
        OpenAIError::Boxed(inner) => agent_error_runtime::classify(inner.as_ref())
            .map(|c| agent_error_runtime::Error::classification_of(&*c)),
        // A stream's error event comes as data async-openai could not read as a chunk.
        OpenAIError::JSONDeserialize(_, data) => {
            Some(unreadable(data, "the response could not be read"))
        }
        OpenAIError::StreamError(inner) => Some(match inner.as_ref() {
            SseError::EventStream(_) => agent_error_runtime::Error::new(
                OP,
                STREAM_INTERRUPTED,
                "the stream broke before its last event",
            ),
            SseError::UnknownEvent(event) => unreadable(
                &event.data,
                "the stream sent an event that could not be read",
            ),
        }),
        // `Reqwest` is left to the `reqwest::Error` below it in the chain; the rest say
        // nothing about whether trying again can help.
        _ => None,
    }
}

agent_error_runtime::extend::builtin_classifier!(OpenAIError, |e: &OpenAIError| classify(e)
    .map(Into::into));
