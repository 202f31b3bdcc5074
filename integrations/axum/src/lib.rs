//! The axum integration (feature `axum`): [`ApiError`], a handler's error that answers with
//! the error's status, `Retry-After` and RFC 9457 problem+json; with the feature `stream`,
//! `error_event`, a failure after `200 OK` written as the error event of a provider's stream.

#![forbid(unsafe_code)]
// On docs.rs (nightly, `--cfg docsrs`): each item says which feature brings it.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

use std::error::Error as StdError;
use std::fmt;

use ::axum::http::{HeaderValue, StatusCode, header};
use ::axum::response::{IntoResponse, Response};

use agent_error_runtime::report::Problem;
use agent_error_runtime::{AgentError, Report};

/// Streams: a failure written as a provider's stream error event (feature `stream`).
#[cfg(feature = "stream")]
mod stream;
#[cfg(feature = "stream")]
pub use stream::{done_event, error_event, report_event};

/// The longest `Retry-After` an [`ApiError`] sends, in seconds: one day. A delay read from
/// elsewhere may be anything up to `Duration::MAX`; what goes on the wire is bounded.
pub const MAX_RETRY_AFTER_SECS: u64 = 24 * 60 * 60;

/// A handler's error: any [`AgentError`] converts into it with `?`, and it answers with
///
/// - the error's status ([`Report::http_status`]: its own `#[agent(status)]` or a
///   `StatusError`'s, else one fitting its code: 429 `rate_limit`, 503
///   `provider_unavailable`, 504 `timeout`, 400 `invalid_input`, … 500 otherwise);
///   never anything but 4xx or 5xx: a report relayed from elsewhere that says `200`, `101`
///   or `304` answers with its code's status, 500 when the code has none;
/// - `Retry-After` in whole seconds, rounded up, when the error carries a delay, at most
///   [`MAX_RETRY_AFTER_SECS`] (a day): a longer or unbounded delay is sent as that;
/// - `content-type: application/problem+json` and the error's [`Problem`] as the body.
///
/// The body is built from [`Report::capture`]: public messages only, `#[redact]` fields as
/// `[redacted]`, and the text of foreign causes (paths, SQL, ids) never.
///
/// ```
/// use agent_error::{AgentError, axum::ApiError};
///
/// #[derive(Debug, AgentError)]
/// #[agent(op = "orders.get", code = "not_found")]
/// #[error("no order {id}")]
/// struct NoOrder { id: u64 }
///
/// async fn order(id: u64) -> Result<String, ApiError> {
///     let found: Result<String, NoOrder> = Err(NoOrder { id });
///     Ok(found?)
/// }
///
/// let app: axum::Router = axum::Router::new().route(
///     "/orders/{id}",
///     axum::routing::get(|axum::extract::Path(id): axum::extract::Path<u64>| order(id)),
/// );
/// # let _ = app;
/// ```
///
/// A foreign error (an `io::Error`, a driver's error) has no `From`: coherence allows only
/// one blanket impl. Use [`ApiError::from_error`], which classifies it
/// ([`classify`](agent_error_runtime::classify)); an unclassified error answers 500 "internal error".
pub struct ApiError {
    report: Report,
}

impl ApiError {
    /// Any error, classified with [`classify`](agent_error_runtime::classify): a timed-out `io::Error` is a
    /// `timeout` (504), an unclassified error a 500 whose message is "internal error".
    ///
    /// ```
    /// use agent_error::axum::ApiError;
    ///
    /// let e = ApiError::from_error(&std::io::Error::other("/srv/secret.db is locked"));
    /// assert_eq!(e.status(), axum::http::StatusCode::INTERNAL_SERVER_ERROR);
    /// assert_eq!(e.report().message_text(), "internal error");
    /// ```
    pub fn from_error(err: &(dyn StdError + 'static)) -> Self {
        ApiError {
            report: Report::capture(err),
        }
    }

    /// The status it answers with: always 4xx or 5xx.
    pub fn status(&self) -> StatusCode {
        match StatusCode::from_u16(self.report.http_status()) {
            Ok(status) if status.is_client_error() || status.is_server_error() => status,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The `Retry-After` it answers with, in whole seconds rounded up, at most
    /// [`MAX_RETRY_AFTER_SECS`]; `None` when the error carries no delay.
    pub fn retry_after_secs(&self) -> Option<u64> {
        self.report.retry_after().map(|delay| {
            delay
                .as_secs()
                .saturating_add(u64::from(delay.subsec_nanos() > 0))
                .min(MAX_RETRY_AFTER_SECS)
        })
    }

    /// The report it answers with.
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// The report it answers with, owned.
    pub fn into_report(self) -> Report {
        self.report
    }
}

impl<E: AgentError + Send + Sync + 'static> From<E> for ApiError {
    fn from(err: E) -> Self {
        ApiError::from_error(&err)
    }
}

impl fmt::Debug for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiError")
            .field("report", &self.report)
            .finish()
    }
}

impl fmt::Display for ApiError {
    /// The report's public form: `op [code]: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.report, f)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let retry_after = self.retry_after_secs().map(HeaderValue::from);
        let body = match serde_json::to_vec(&self.report.to_problem()) {
            Ok(body) => body,
            // A `Problem` is strings, numbers and booleans: it always serializes.
            Err(_) => return status.into_response(),
        };
        let mut response = (status, body).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(Problem::CONTENT_TYPE),
        );
        if let Some(seconds) = retry_after {
            headers.insert(header::RETRY_AFTER, seconds);
        }
        response
    }
}
