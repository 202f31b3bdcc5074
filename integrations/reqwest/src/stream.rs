//! A streaming response read through [`Watch`]: its head first (an error status is a
//! [`StatusError`] before any event is read), then its events.

use std::borrow::Cow;
use std::time::{Duration, SystemTime};

use ::reqwest::Response;
use agent_error_runtime::http::{StatusError, parse_retry_after};
use agent_error_runtime::stream::Watch;
use bytes::Bytes;
use futures_core::Stream;

/// Watches a streaming response: an error status (4xx, 5xx) is a classified [`StatusError`]
/// before any event is read, as [`check`](crate::check) gives; a success is read as
/// server-sent events by a [`Watch`], whose failures take the response's `retry-after-ms` or
/// `Retry-After` as their delay when they give none of their own. The op is `llm.stream`;
/// [`watch_as`] names it.
///
/// ```no_run
/// # async fn call(client: reqwest::Client) -> Result<(), Box<dyn std::error::Error>> {
/// use futures_util::StreamExt;
///
/// let response = client.post("http://127.0.0.1:8080/v1/chat/completions").send().await?;
/// let mut events = agent_error::reqwest::watch(response).await?.keep_text(1 << 20);
/// while let Some(event) = events.next().await {
///     let event = event?; // a `StreamError` once the stream fails: classified
///     println!("{}", event.data());
/// }
/// # Ok(())
/// # }
/// ```
pub async fn watch(
    response: Response,
) -> Result<Watch<impl Stream<Item = ::reqwest::Result<Bytes>> + Send + 'static>, StatusError> {
    watch_as(response, "llm.stream").await
}

/// [`watch`], with the operation the stream is for as its errors' op (the head's too).
pub async fn watch_as(
    response: Response,
    op: impl Into<Cow<'static, str>>,
) -> Result<Watch<impl Stream<Item = ::reqwest::Result<Bytes>> + Send + 'static>, StatusError> {
    let op = op.into();
    let response = crate::check_as(response, op.clone()).await?;
    let delay = server_delay(response.headers());
    Ok(Watch::new(response.bytes_stream())
        .op(op)
        .retry_after(delay))
}

/// The delay a successful response's headers ask for, if any: `retry-after-ms`, else
/// `Retry-After`.
fn server_delay(headers: &::reqwest::header::HeaderMap) -> Option<Duration> {
    let value = |name| headers.get(name).and_then(|v| v.to_str().ok());
    value("retry-after-ms")
        .and_then(|ms| ms.trim().parse::<f64>().ok())
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
        .and_then(|ms| Duration::try_from_secs_f64(ms / 1000.0).ok())
        .or_else(|| value("retry-after").and_then(|v| parse_retry_after(v, SystemTime::now())))
}
