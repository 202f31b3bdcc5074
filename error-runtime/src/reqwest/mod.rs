//! The reqwest integration (feature `reqwest`): `reqwest::Error` classified (SPEC §7), and a
//! failed `reqwest::Response` read into a classified [`StatusError`]; with the feature
//! `reqwest-middleware`, [`RetryMiddleware`] retries by classification.

use ::reqwest::{Error as ReqwestError, Response};

use crate::core::codes::{INVALID_INPUT, PROVIDER_UNAVAILABLE, TIMEOUT};
use crate::http::StatusError;

#[cfg(feature = "reqwest-middleware")]
mod middleware;
#[cfg(feature = "reqwest-middleware")]
pub use middleware::RetryMiddleware;

/// The op of every `reqwest::Error` classification.
const OP: &str = "http";

/// A transport error by what went wrong: a timeout, a failed connection, an error status
/// (from `error_for_status`, as [`StatusError`] classifies it), or a request that could not
/// be built (a bad URL). Other errors (a body that failed mid-way, say) are left to the links
/// below them, such as an `io::Error` of kind `ConnectionReset`.
fn classify(e: &ReqwestError) -> Option<crate::Error> {
    if e.is_timeout() {
        return Some(crate::Error::new(OP, TIMEOUT, "the request timed out"));
    }
    if e.is_connect() {
        return Some(crate::Error::new(
            OP,
            PROVIDER_UNAVAILABLE,
            "could not connect to the server",
        ));
    }
    if let Some(status) = e.status() {
        return Some(crate::Error::classification_of(&StatusError::new(
            status.as_u16(),
        )));
    }
    if e.is_builder() {
        return Some(crate::Error::new(
            OP,
            INVALID_INPUT,
            "the request could not be built",
        ));
    }
    None
}

crate::__private::register_classifier!(
    ReqwestError,
    classify,
    crate::__private::ClassifierOrigin::Builtin
);

impl StatusError {
    /// A response read into a classified error: its status, its headers (`Retry-After`,
    /// `retry-after-ms`, `x-should-retry`, rate-limit resets) and at most
    /// [`StatusError::MAX_BODY`] bytes of its body, as [`StatusError::from_parts`] reads
    /// them. A body that fails to arrive is left empty; the rest of a longer body is not
    /// read. Meant for a response whose status is an error; see [`check`] to let a
    /// successful response through.
    pub async fn from_reqwest(mut response: Response) -> StatusError {
        let status = response.status();
        let headers = std::mem::take(response.headers_mut());
        let mut body = Vec::new();
        while body.len() < StatusError::MAX_BODY {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    let room = StatusError::MAX_BODY - body.len();
                    body.extend_from_slice(&chunk[..chunk.len().min(room)]);
                }
                Ok(None) | Err(_) => break,
            }
        }
        StatusError::from_parts(status, &headers, &body)
    }
}

/// Lets a successful response through, and turns an error response (4xx, 5xx) into a
/// classified [`StatusError`] with [`StatusError::from_reqwest`]: one `?` after `send()`.
///
/// ```no_run
/// # async fn call(client: reqwest::Client) -> anyhow::Result<String> {
/// let response = client.get("http://127.0.0.1:8080/v1/models").send().await?;
/// let response = agent_error::reqwest::check(response).await?;
/// Ok(response.text().await?)
/// # }
/// ```
pub async fn check(response: Response) -> Result<Response, StatusError> {
    let status = response.status();
    if status.is_client_error() || status.is_server_error() {
        Err(StatusError::from_reqwest(response).await)
    } else {
        Ok(response)
    }
}
