//! A streaming response read through [`Watch`]: its head first (an error status is a
//! [`StatusError`] before any event is read), then its events.

use std::borrow::Cow;
use std::time::SystemTime;

use ::reqwest::Response;
use agent_error_runtime::http::{StatusError, server_delay};
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
    let delay = server_delay(response.headers(), SystemTime::now());
    Ok(Watch::new(response.bytes_stream())
        .op(op)
        .retry_after(delay))
}
