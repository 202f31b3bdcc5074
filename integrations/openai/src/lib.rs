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
//! | `JSONDeserialize`, `StreamError`, file errors | unclassified, not retried |
//!
//! With the feature `stream`, `watch_chat` reads a streaming call's chunks and classifies
//! its failures after `200 OK` (an error event mid-stream, a cut connection, a stream that
//! ends without its finish reason) as `stream::Watch` does.
//!
//! async-openai keeps only the status and the JSON error body of a failed response, not its
//! headers: a `Retry-After` (or `x-ratelimit-reset-*`) the server sent is not seen here, and
//! the wait is the policy's backoff.
//!
//! async-openai retries 429s and 5xx by itself (up to 3 times, its own backoff) in the
//! client it builds. Under a `Retrier` that would multiply attempts (4 × the retrier's), so
//! give the client the plain transport, without that layer (its `middleware` feature):
//!
//! ```no_run
//! # fn client() -> async_openai::Client<async_openai::config::OpenAIConfig> {
//! use async_openai::{config::OpenAIConfig, middleware::ReqwestService, Client};
//!
//! let client = Client::with_config(OpenAIConfig::new())
//!     .with_http_service(ReqwestService::new(reqwest::Client::new()));
//! # client }
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// Streams: async-openai's streams with their failures classified (feature `stream`).
#[cfg(feature = "stream")]
mod stream;
#[cfg(feature = "stream")]
pub use stream::{Watched, watch, watch_chat};

use ::async_openai::error::{ApiErrorResponse, OpenAIError, WrappedError};

use agent_error_runtime::codes::INVALID_INPUT;
use agent_error_runtime::http::StatusError;

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
        // `Reqwest` is left to the `reqwest::Error` below it in the chain; the rest say
        // nothing about whether trying again can help.
        _ => None,
    }
}

agent_error_runtime::extend::builtin_classifier!(OpenAIError, |e: &OpenAIError| classify(e)
    .map(Into::into));
