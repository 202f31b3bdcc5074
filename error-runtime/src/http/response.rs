//! A failed response read into a [`StatusError`]: its status, its headers and the first
//! [`StatusError::MAX_BODY`] bytes of its body, from any `http::Response` whose body is an
//! `http_body::Body` (reqwest's, hyper's, axum's).

use std::future::poll_fn;
use std::pin::pin;

use bytes::Buf;
use http_body::Body;

use super::StatusError;

impl StatusError {
    /// A response read into a classified error: its status, its headers (`Retry-After`,
    /// `retry-after-ms`, `x-should-retry`, rate-limit resets) and at most
    /// [`StatusError::MAX_BODY`] bytes of its body, as [`StatusError::from_parts`] reads
    /// them. A body that fails to arrive is left empty where it failed; the rest of a longer
    /// body is not read. Meant for a response whose status is an error.
    ///
    /// ```
    /// # async fn run() {
    /// use agent_error::{AgentError, http::StatusError};
    ///
    /// let response = http::Response::builder()
    ///     .status(429)
    ///     .header("retry-after", "7")
    ///     .body(String::from(r#"{"error":{"type":"rate_limit_error"}}"#))
    ///     .unwrap();
    /// let e = StatusError::from_http_response(response).await;
    /// assert_eq!(e.code(), "rate_limit");
    /// assert_eq!(e.retry_after(), Some(std::time::Duration::from_secs(7)));
    /// # }
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(run());
    /// ```
    pub async fn from_http_response<B: Body>(response: ::http::Response<B>) -> StatusError {
        let (parts, body) = response.into_parts();
        let mut body = pin!(body);
        let mut kept = Vec::new();
        while kept.len() < StatusError::MAX_BODY {
            let Some(Ok(frame)) = poll_fn(|cx| body.as_mut().poll_frame(cx)).await else {
                break;
            };
            let Ok(mut data) = frame.into_data() else {
                continue;
            };
            while data.has_remaining() && kept.len() < StatusError::MAX_BODY {
                let chunk = data.chunk();
                let taken = chunk.len().min(StatusError::MAX_BODY - kept.len());
                kept.extend_from_slice(&chunk[..taken]);
                data.advance(taken);
            }
        }
        StatusError::from_parts(parts.status, &parts.headers, &kept)
    }

    /// A reqwest response (or any response that converts into an `http::Response` whose body
    /// is an `http_body::Body`) read into a classified error, as
    /// [`from_http_response`](Self::from_http_response) reads it. `agent_error::reqwest::check` lets a
    /// successful response through and reads an error response with this.
    pub async fn from_reqwest<R, B>(response: R) -> StatusError
    where
        R: Into<::http::Response<B>>,
        B: Body,
    {
        StatusError::from_http_response(response.into()).await
    }
}
