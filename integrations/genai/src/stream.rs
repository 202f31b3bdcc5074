//! Streams (feature `stream`): genai's `ChatStream` with its failures classified as
//! `stream::Watch` classifies a provider's events, by a `stream::Tracker` that reads each
//! event genai yields in the shape of an OpenAI Chat chunk.

use std::pin::Pin;
use std::task::{Context, Poll, ready};

use agent_error_runtime::stream::{Delivered, Event, Provider, StreamError, Tracker};
use futures_core::Stream;
use genai::chat::{ChatStreamEvent, StopReason};
use serde_json::{Value, json};

/// Watches a genai chat stream (`client.exec_chat_stream(..).await?.stream`): yields its
/// events unchanged, and turns its failures into a classified [`StreamError`].
///
/// - **An end without genai's `End` event** (the connection closed before the provider's
///   last event, which genai ends as if the answer were whole): `stream_interrupted`.
/// - An error event in the middle of the stream (genai's `ChatResponse`): classified as the
///   same body after a status would be (`overloaded_error` → `provider_unavailable`, …).
/// - A failure before any event (the stream never opened: a failed response, a refused
///   connection): classified as genai's error is, as [`StreamError::opening`] does.
/// - The transport failed, or genai's read timeout fired: `stream_interrupted`, whose source
///   is genai's error.
/// - A stop that is a failure for an agent, from the `End` event's stop reason: the token
///   limit → `output_truncated`, a content filter → `content_filtered`. The `End` event is
///   yielded first (it carries what genai captured), then the failure.
/// - After output content (text, reasoning text, tool-call arguments) was yielded, a failure
///   is not retried from the start: recovery [`Continue`](agent_error_runtime::Recovery::Continue),
///   with what was [`delivered`](StreamError::delivered) and, when kept
///   ([`keep_text`](Watched::keep_text)), the [`partial_text`](StreamError::partial_text).
///
/// The watch ends after its first `Err`.
///
/// ```no_run
/// # async fn chat(client: genai::Client, request: genai::chat::ChatRequest) -> Result<(), Box<dyn std::error::Error>> {
/// use agent_error::{AgentError, Recovery};
/// use futures_util::StreamExt;
///
/// let response = client.exec_chat_stream("gpt-4o-mini", request, None).await?;
/// let mut events = agent_error::genai::watch(response.stream).keep_text(1 << 20);
/// while let Some(event) = events.next().await {
///     match event {
///         Ok(genai::chat::ChatStreamEvent::Chunk(chunk)) => print!("{}", chunk.content),
///         Ok(_) => {}
///         Err(e) if e.recovery() == Recovery::Continue => { /* ask the model to go on from e.partial_text() */ }
///         Err(e) if e.is_retryable() => { /* nothing was shown: call again */ }
///         Err(e) => return Err(e.into()),
///     }
/// }
/// # Ok(())
/// # }
/// ```
pub fn watch<S>(events: S) -> Watched<S>
where
    S: Stream<Item = genai::Result<ChatStreamEvent>>,
{
    Watched {
        inner: Box::pin(events),
        tracker: Tracker::new().provider(Provider::OpenAiChat),
        pending: None,
        done: false,
    }
}

/// A genai chat stream whose failures are classified (see [`watch`]).
pub struct Watched<S> {
    inner: Pin<Box<S>>,
    tracker: Tracker,
    /// A failing stop, yielded after the `End` event that said it.
    pending: Option<StreamError>,
    done: bool,
}

impl<S> Watched<S> {
    /// Keeps up to `cap` bytes of the text delivered, for
    /// [`partial_text`](StreamError::partial_text).
    #[must_use]
    pub fn keep_text(mut self, cap: usize) -> Self {
        self.tracker = self.tracker.keep_text(cap);
        self
    }

    /// Says that the caller buffers what it reads (nothing reached a person or a tool yet),
    /// so that a failure after output is retried as its code says.
    #[must_use]
    pub fn buffered(mut self, buffered: bool) -> Self {
        self.tracker = self.tracker.buffered(buffered);
        self
    }

    /// What the stream has delivered so far.
    pub fn delivered(&self) -> Delivered {
        self.tracker.delivered()
    }
}

impl<S> std::fmt::Debug for Watched<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watched")
            .field("delivered", &self.tracker.delivered())
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl<S> Stream for Watched<S>
where
    S: Stream<Item = genai::Result<ChatStreamEvent>>,
{
    type Item = Result<ChatStreamEvent, StreamError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if let Some(e) = this.pending.take() {
            this.done = true;
            return Poll::Ready(Some(Err(e)));
        }
        if this.done {
            return Poll::Ready(None);
        }
        let failure = match ready!(this.inner.as_mut().poll_next(cx)) {
            Some(Ok(event)) => match this.observe(&event) {
                Ok(()) => return Poll::Ready(Some(Ok(event))),
                // A failing stop: the `End` event first, the failure after it.
                Err(e) if matches!(event, ChatStreamEvent::End(_)) => {
                    this.pending = Some(e);
                    return Poll::Ready(Some(Ok(event)));
                }
                Err(e) => e,
            },
            Some(Err(err)) => this.failure(err),
            None => match this.tracker.end() {
                Ok(()) => {
                    this.done = true;
                    return Poll::Ready(None);
                }
                Err(e) => e,
            },
        };
        this.done = true;
        Poll::Ready(Some(Err(failure)))
    }
}

impl<S> Watched<S> {
    /// Counts what an event delivers, as the OpenAI Chat chunk it stands for; the `End`
    /// event's stop reason ends the stream.
    fn observe(&mut self, event: &ChatStreamEvent) -> Result<(), StreamError> {
        let delta = match event {
            ChatStreamEvent::Chunk(chunk) => json!({ "content": chunk.content }),
            ChatStreamEvent::ReasoningChunk(chunk) => json!({ "reasoning_content": chunk.content }),
            ChatStreamEvent::ToolCallChunk(chunk) => {
                let arguments = match &chunk.tool_call.fn_arguments {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                json!({ "tool_calls": [{ "index": 0, "function": { "arguments": arguments } }] })
            }
            ChatStreamEvent::End(end) => {
                let reason = end
                    .captured_stop_reason
                    .as_ref()
                    .map_or("stop", finish_reason);
                self.chunk(json!({}), Some(reason))?;
                return self.tracker.observe(&Event::new("", "[DONE]")).map(drop);
            }
            ChatStreamEvent::Start
            | ChatStreamEvent::Heartbeat
            | ChatStreamEvent::ThoughtSignatureChunk(_) => return Ok(()),
        };
        self.chunk(delta, None)
    }

    /// Observes an OpenAI Chat chunk with this delta and finish reason.
    fn chunk(&mut self, delta: Value, finish: Option<&str>) -> Result<(), StreamError> {
        let chunk = json!({
            "object": "chat.completion.chunk",
            "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }],
        });
        self.tracker
            .observe(&Event::new("", chunk.to_string()))
            .map(drop)
    }

    /// An error genai yielded, classified: an error event by its body; before any event,
    /// as the stream's opening failed (a response's status, headers and body, a refused
    /// connection, …); after events, as an interruption.
    fn failure(&mut self, err: genai::Error) -> StreamError {
        if let genai::Error::ChatResponse { body, .. } = &err
            && let Err(e) = self
                .tracker
                .observe(&Event::new("error", error_document(body)))
        {
            return e;
        }
        if self.tracker.delivered().events() == 0 {
            return StreamError::opening(err);
        }
        self.tracker.interrupted(err)
    }
}

/// An error event's body as the document the provider sent: genai keeps the OpenAI shape's
/// `error` object alone, which is put back under `error`; a body that has its own `error`
/// (Anthropic's, Gemini's) is the document already.
fn error_document(body: &Value) -> String {
    if body.get("error").is_some() {
        body.to_string()
    } else {
        json!({ "error": body }).to_string()
    }
}

/// The OpenAI `finish_reason` that stands for genai's normalised stop reason.
fn finish_reason(reason: &StopReason) -> &str {
    match reason {
        StopReason::MaxTokens(_) => "length",
        StopReason::ContentFilter(_) => "content_filter",
        StopReason::ToolCall(_) => "tool_calls",
        StopReason::Completed(_) | StopReason::StopSequence(_) => "stop",
        StopReason::Other(other) => other,
    }
}
