//! The reqwest integration of agent-error (the facade's feature `reqwest`, re-exported as
//! `agent_error::reqwest`): `reqwest::Error` classified (a timeout, a failed connection, an
//! error status, a request that could not be built), and [`check`], which turns an error
//! response into a classified [`StatusError`]. With the facade's feature
//! `reqwest-middleware` (this crate's `middleware`), [`RetryMiddleware`] retries by
//! classification.

#![forbid(unsafe_code)]
// On docs.rs (nightly, `--cfg docsrs`): each item says which feature brings it.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

use std::borrow::Cow;

use ::reqwest::{Error as ReqwestError, Response};

use agent_error_runtime::codes::{INVALID_INPUT, PROVIDER_UNAVAILABLE, TIMEOUT};
use agent_error_runtime::extend::{Classification, FixedClassification};
use agent_error_runtime::http::StatusError;

#[cfg(feature = "middleware")]
mod middleware;
#[cfg(feature = "middleware")]
pub use middleware::RetryMiddleware;

/// The op of every `reqwest::Error` classification.
const OP: &str = "http";

/// A transport error by what went wrong: a timeout, a failed connection, an error status
/// (from `error_for_status`, as [`StatusError`] classifies it), or a request that could not
/// be built (a bad URL). Other errors (a body that failed mid-way, say) are left to the links
/// below them, such as an `io::Error` of kind `ConnectionReset`.
fn classify(e: &ReqwestError) -> Option<Classification> {
    if e.is_timeout() {
        return Some(Classification::Fixed(&TIMED_OUT));
    }
    if e.is_connect() {
        return Some(Classification::Fixed(&NOT_CONNECTED));
    }
    if let Some(status) = e.status() {
        return Some(Classification::Built(
            agent_error_runtime::Error::classification_of(&StatusError::new(status.as_u16())),
        ));
    }
    if e.is_builder() {
        return Some(Classification::Fixed(&NOT_BUILT));
    }
    None
}

/// The fixed answers, kept in statics: classifying a timeout or a failed connection builds
/// nothing.
static TIMED_OUT: FixedClassification =
    FixedClassification::new(OP, TIMEOUT, "the request timed out");
static NOT_CONNECTED: FixedClassification =
    FixedClassification::new(OP, PROVIDER_UNAVAILABLE, "could not connect to the server");
static NOT_BUILT: FixedClassification =
    FixedClassification::new(OP, INVALID_INPUT, "the request could not be built");

agent_error_runtime::extend::builtin_classifier!(ReqwestError, classify);

/// Lets a successful response through, and turns an error response (4xx, 5xx) into a
/// classified [`StatusError`] with [`StatusError::from_reqwest`]: one `?` after `send()`.
/// Its op is `"http"`; [`check_as`] names the operation instead.
///
/// ```no_run
/// # async fn call(client: reqwest::Client) -> anyhow::Result<String> {
/// let response = client.get("http://127.0.0.1:8080/v1/models").send().await?;
/// let response = agent_error::reqwest::check(response).await?;
/// Ok(response.text().await?)
/// # }
/// ```
pub async fn check(response: Response) -> Result<Response, StatusError> {
    check_as(response, OP).await
}

/// [`check`], with the operation the request was for as the error's op, given once here
/// rather than mapped onto each error afterwards.
///
/// ```no_run
/// # async fn call(client: reqwest::Client) -> anyhow::Result<String> {
/// use agent_error::reqwest::check_as;
///
/// let response = client.post("http://127.0.0.1:8080/v1/chat/completions").send().await?;
/// let response = check_as(response, "llm.generate").await?; // `llm.generate [rate_limit]: …`
/// Ok(response.text().await?)
/// # }
/// ```
pub async fn check_as(
    response: Response,
    op: impl Into<Cow<'static, str>>,
) -> Result<Response, StatusError> {
    let status = response.status();
    if status.is_client_error() || status.is_server_error() {
        Err(StatusError::from_reqwest(response).await.with_op(op))
    } else {
        Ok(response)
    }
}

/// Streams: a response's server-sent events watched (feature `stream`).
#[cfg(feature = "stream")]
mod stream;
#[cfg(feature = "stream")]
pub use stream::{watch, watch_as};
