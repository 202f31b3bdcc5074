//! Streams (feature `stream`): async-openai's streams with their failures classified as
//! `stream::Watch` classifies a provider's events, by a `stream::Tracker` that reads each item.

use std::borrow::Cow;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use ::async_openai::error::{ApiErrorResponse, OpenAIError, StreamError as SseError};
use agent_error_runtime::stream::{Delivered, Event, Provider, StreamError, Tracker};
use futures_core::Stream;
use serde::Serialize;

/// Watches an async-openai Chat Completions stream (`client.chat().create_stream(request)`):
/// yields its chunks unchanged, and turns its failures into a classified [`StreamError`],
/// as [`stream::Watch`](agent_error_runtime::stream::Watch) does for a stream's bytes.
///
/// - An error event in the middle of the stream (`data: {"error": …}`, which async-openai
///   yields as `OpenAIError::JSONDeserialize` carrying the event's data) is classified as the
///   same body after a status would be: `server_error` → `provider_unavailable`,
///   `rate_limit_exceeded` → `rate_limit`, a number in `code` as the status, …
/// - The connection cut (async-openai's `OpenAIError::StreamError`), or the stream ended
///   without a chunk that gave a `finish_reason`: `stream_interrupted`, whose source is the
///   `OpenAIError` when there is one.
/// - A stop that is a failure for an agent: `length` → `output_truncated`, `content_filter`
///   or refusal text → `content_filtered`.
/// - After output content (text, refusal text, tool-call arguments) was yielded, a failure
///   is not retried from the start: recovery [`Continue`](agent_error_runtime::Recovery::Continue),
///   with what was [`delivered`](StreamError::delivered) and, when kept
///   ([`keep_text`](Watched::keep_text)), the [`partial_text`](StreamError::partial_text).
///
/// The watch ends after its first `Err`. A stream that could not be opened is the
/// `Err` of `create_stream` itself, classified as any `OpenAIError` is (see the crate's
/// table); [`StreamError::opening`] makes one a `StreamError`.
///
/// **What async-openai hides**, and what follows from it:
///
/// - `data: [DONE]`: async-openai ends the stream there without yielding it, and a
///   connection closed cleanly ends it the same way. A stream whose chunks gave a
///   `finish_reason` is taken as complete; a close after that chunk and before `[DONE]`
///   cannot be told from the end.
/// - The response's headers: a `Retry-After` sent with the stream is not seen, so a delay
///   comes only from the error event itself (a "try again in 11.054s" in its message).
/// - The transport's error: async-openai keeps only its text
///   (`StreamError::EventStream`), so the source says what happened but is not a
///   `reqwest::Error` to classify further.
/// - Silence: async-openai has no idle timeout, and neither does this watch; put a
///   `tokio::time::timeout` around each `next()`, or read the response through
///   `agent_error::reqwest::watch`, which has one.
/// - A chunk async-openai cannot read as its type (a `finish_reason` it does not know,
///   such as OpenRouter's `"error"`) arrives as `JSONDeserialize` too: its data is read as
///   an error event would be (OpenRouter's `"error"` is `stream_interrupted`), and if it
///   is no error, the stream ends there in `stream_interrupted`, since the chunk cannot be
///   yielded. Its text, never yielded, is not counted as delivered nor kept, and a chunk
///   that is not whole JSON (cut short) is never read for phrases: its text is the model's.
///
/// ```no_run
/// # async fn chat(
/// #     client: async_openai::Client<async_openai::config::OpenAIConfig>,
/// #     request: async_openai::types::chat::CreateChatCompletionRequest,
/// # ) -> Result<(), Box<dyn std::error::Error>> {
/// use agent_error::{AgentError, Recovery};
/// use futures_util::StreamExt;
///
/// let stream = client.chat().create_stream(request).await?;
/// let mut chunks = agent_error::openai::watch_chat(stream).keep_text(1 << 20);
/// while let Some(chunk) = chunks.next().await {
///     match chunk {
///         Ok(chunk) => print!("{:?}", chunk.choices.first().and_then(|c| c.delta.content.as_deref())),
///         Err(e) if e.recovery() == Recovery::Continue => {
///             // Part of the answer was shown: ask the model to go on from it.
///             let said = e.partial_text().unwrap_or_default();
///             # let _ = said;
///         }
///         Err(e) if e.is_retryable() => { /* nothing was shown: call again */ }
///         Err(e) => return Err(e.into()),
///     }
/// }
/// # Ok(())
/// # }
/// ```
pub fn watch_chat<S, T>(chunks: S) -> Watched<S>
where
    S: Stream<Item = Result<T, OpenAIError>>,
    T: Serialize,
{
    watch(chunks, Provider::OpenAiChat)
}

/// Watches any async-openai stream whose items are `provider`'s events, such as the
/// Responses API's (`client.responses().create_stream(request)`, [`Provider::OpenAiResponses`]),
/// as [`watch_chat`] watches Chat Completions: each item is read, as JSON, by a
/// [`Tracker`] of `provider`.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use agent_error::{AgentError, stream::Provider};
/// use async_openai::error::OpenAIError;
/// use futures_util::StreamExt;
///
/// // What async-openai yields for a Chat stream whose server sent text, then an error
/// // event: the chunk, then the event's data that it could not read as a chunk.
/// let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"content": "Hel"}}]});
/// let error = r#"{"error":{"message":"overloaded","type":"server_error","code":null}}"#;
/// let items = futures_util::stream::iter([
///     Ok(chunk),
///     Err(OpenAIError::JSONDeserialize(
///         serde_json::from_str::<u8>(error).unwrap_err(),
///         error.to_owned(),
///     )),
/// ]);
/// let mut watched = agent_error::openai::watch(items, Provider::OpenAiChat);
/// assert!(watched.next().await.unwrap().is_ok());
/// let e = watched.next().await.unwrap().unwrap_err();
/// assert_eq!(e.code(), "provider_unavailable");
/// assert!(!e.is_retryable()); // "Hel" was already yielded
/// assert!(watched.next().await.is_none());
/// # });
/// ```
pub fn watch<S, T>(items: S, provider: Provider) -> Watched<S>
where
    S: Stream<Item = Result<T, OpenAIError>>,
    T: Serialize,
{
    Watched {
        inner: Box::pin(items),
        tracker: Tracker::new().provider(provider),
        provider,
        done: false,
    }
}

/// An async-openai stream watched ([`watch_chat`], [`watch`]): its items unchanged, its
/// failures a classified [`StreamError`], then the end.
pub struct Watched<S> {
    inner: Pin<Box<S>>,
    tracker: Tracker,
    provider: Provider,
    /// Whether the verdict was given (the last item, or the first `Err`).
    done: bool,
}

impl<S> Watched<S> {
    /// Keeps the output text yielded, up to `cap` bytes, for a failure's
    /// [`partial_text`](StreamError::partial_text).
    #[must_use]
    pub fn keep_text(mut self, cap: usize) -> Self {
        self.tracker = self.tracker.keep_text(cap);
        self
    }

    /// Says that the consumer buffers the items (nothing reaches a person or a tool before
    /// the stream ends): a failure after output then gets the ordinary retry.
    #[must_use]
    pub fn buffered(mut self, buffered: bool) -> Self {
        self.tracker = self.tracker.buffered(buffered);
        self
    }

    /// The operation the failures report (`llm.stream` by default).
    #[must_use]
    pub fn op(mut self, op: impl Into<Cow<'static, str>>) -> Self {
        self.tracker = self.tracker.op(op);
        self
    }

    /// What was yielded so far.
    pub fn delivered(&self) -> Delivered {
        self.tracker.delivered()
    }

    /// The output text kept so far (see [`keep_text`](Self::keep_text)).
    pub fn partial_text(&self) -> Option<&str> {
        self.tracker.partial_text()
    }

    /// The last stop reason (`stop`, `length`, `tool_calls`, …), folded to one line.
    pub fn stop_reason(&self) -> Option<&str> {
        self.tracker.stop_reason()
    }
}

impl<S, T> Stream for Watched<S>
where
    S: Stream<Item = Result<T, OpenAIError>>,
    T: Serialize,
{
    type Item = Result<T, StreamError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        let verdict = match ready!(this.inner.as_mut().poll_next(cx)) {
            Some(Ok(item)) => {
                // async-openai's types always serialize; an item that would not is yielded
                // unread.
                let Ok(json) = serde_json::to_string(&item) else {
                    return Poll::Ready(Some(Ok(item)));
                };
                match this.tracker.observe(&Event::new("", json)) {
                    Ok(_) => return Poll::Ready(Some(Ok(item))),
                    Err(e) => Some(e),
                }
            }
            Some(Err(err)) => Some(this.failure(err)),
            None => this.end().err(),
        };
        this.done = true;
        Poll::Ready(verdict.map(Err))
    }
}

impl<S> Watched<S> {
    /// An error async-openai yielded, classified: the event it could not read by the error
    /// document it may be, or by its stop reason alone (never its text, which the caller did
    /// not see); any other error ends the stream as `stream_interrupted`.
    fn failure(&mut self, err: OpenAIError) -> StreamError {
        // What async-openai could not read was never yielded: it is read only for the error
        // it may carry, so that its text never counts as delivered.
        let error_document =
            |data: &str| crate::error_document(data).map(|_| Event::new("error", data));
        let event = match &err {
            OpenAIError::JSONDeserialize(_, data) => {
                error_document(data).or_else(|| stop_only(data))
            }
            OpenAIError::StreamError(inner) => match inner.as_ref() {
                SseError::UnknownEvent(event) => error_document(&event.data),
                SseError::EventStream(_) => None,
            },
            OpenAIError::ApiError(response) => Some(Event::new("error", api_document(response))),
            _ => None,
        };
        if let Some(event) = event
            && let Err(e) = self.tracker.observe(&event)
        {
            return e;
        }
        self.tracker.interrupted(err)
    }

    /// The stream ended: complete when the provider's last event was seen or, for Chat
    /// (whose `[DONE]` async-openai does not yield), when a chunk gave a finish reason.
    fn end(&mut self) -> Result<(), StreamError> {
        if self.provider == Provider::OpenAiChat
            && !self.tracker.is_complete()
            && self.tracker.stop_reason().is_some()
        {
            let _ = self.tracker.observe(&Event::new("", "[DONE]"));
        }
        self.tracker.end()
    }
}

/// A chunk async-openai could not read, as the chunk of its stop reason alone (OpenRouter's
/// `"error"`, a reason async-openai does not know), without the text it may carry.
fn stop_only(data: &str) -> Option<Event> {
    let chunk: serde_json::Value = serde_json::from_str(data).ok()?;
    let reason = chunk.pointer("/choices/0/finish_reason")?.as_str()?;
    let stop = serde_json::json!({
        "object": "chat.completion.chunk",
        "choices": [{ "index": 0, "delta": {}, "finish_reason": reason }],
    });
    Some(Event::new("", stop.to_string()))
}

/// An API error that came as an item, as the error document a stream would send: its body
/// under `error`, and its status as `http_status_code`, which the reader takes for the
/// status when the body names nothing it knows.
fn api_document(response: &ApiErrorResponse) -> String {
    let error = serde_json::to_string(&response.api_error).unwrap_or_else(|_| "{}".to_owned());
    format!(
        r#"{{"error":{error},"http_status_code":{}}}"#,
        response.status_code.as_u16()
    )
}

#[cfg(test)]
mod tests;
