//! `Tracker`: follows a provider's events one at a time and says where the stream stands:
//! what it delivered, how it stopped, and the `StreamError` it ended in. [`Watch`] is a
//! tracker over a byte stream; the tracker alone serves events parsed elsewhere.
//!
//! [`Watch`]: super::Watch

use std::borrow::Cow;
use std::error::Error as StdError;
use std::time::Duration;

use super::error::{Delivered, FailureKind, StreamError, peer_text};
use super::event::Event;
use super::provider::Provider;
use super::read::{self, Reading};
use crate::core::summary::floor_char_boundary;
use crate::http::body::read_document;

/// What the stream is after an event was observed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// More events are to come.
    Continue,
    /// That was the provider's last event (`data: [DONE]`, `message_stop`,
    /// `response.completed`): call [`Tracker::end`] for the verdict.
    Last,
}

/// Follows a provider's events and classifies how the stream ends. [`Watch`](super::Watch)
/// does this over bytes; use a tracker directly for events parsed by another client.
///
/// Feed it each event with [`observe`](Self::observe) (an error event is returned as the
/// error), and at the end [`end`](Self::end) (the stream ended cleanly),
/// [`interrupted`](Self::interrupted) (its transport failed) or [`idle`](Self::idle).
///
/// ```
/// use agent_error::stream::{Event, Provider, Step, Tracker};
///
/// let mut tracker = Tracker::new().keep_text(1024);
/// let chunk = r#"{"choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}]}"#;
/// assert_eq!(tracker.observe(&Event::new("", chunk)).unwrap(), Step::Continue);
/// assert_eq!(tracker.recognised(), Some(Provider::OpenAiChat));
/// assert_eq!(tracker.observe(&Event::new("", "[DONE]")).unwrap(), Step::Last);
/// assert!(tracker.end().is_ok());
/// assert_eq!(tracker.partial_text(), Some("Hello"));
/// assert_eq!(tracker.delivered().text_bytes(), 5);
/// ```
#[derive(Debug)]
pub struct Tracker {
    provider: Option<Provider>,
    delivered: Delivered,
    kept: Option<Kept>,
    stop: Option<Box<str>>,
    /// The failure that the last stop reason is, if any.
    failing: Option<FailureKind>,
    refused: bool,
    last: bool,
    buffered: bool,
    op: Cow<'static, str>,
    retry_after: Option<Duration>,
}

/// The output text kept, up to a cap.
#[derive(Debug)]
struct Kept {
    text: String,
    cap: usize,
}

impl Kept {
    /// Keeps what of `text` fits under the cap, cut at a character boundary.
    fn keep(&mut self, text: &str) {
        let room = self.cap.saturating_sub(self.text.len());
        self.text.push_str(&text[..floor_char_boundary(text, room)]);
    }
}

impl Default for Tracker {
    fn default() -> Self {
        Tracker::new()
    }
}

impl Tracker {
    /// A tracker that recognises the provider from the first event that tells, keeps no
    /// text, and reports failures under the op `llm.stream`.
    pub fn new() -> Self {
        Tracker {
            provider: None,
            delivered: Delivered::default(),
            kept: None,
            stop: None,
            failing: None,
            refused: false,
            last: false,
            buffered: false,
            op: Cow::Borrowed("llm.stream"),
            retry_after: None,
        }
    }

    /// Names the provider instead of recognising it.
    #[must_use]
    pub fn provider(mut self, provider: Provider) -> Self {
        self.provider = Some(provider);
        self
    }

    /// Keeps the output text delivered, up to `cap` bytes (cut at a character boundary), so
    /// that a caller can continue from it ([`StreamError::partial_text`]).
    #[must_use]
    pub fn keep_text(mut self, cap: usize) -> Self {
        self.kept = Some(Kept {
            text: String::new(),
            cap,
        });
        self
    }

    /// Says that the consumer buffers the events (nothing reaches a person or a tool before
    /// the stream ends): a failure after output then gets the ordinary retry, and the
    /// consumer drops what it kept of the failed attempt when the next one starts.
    #[must_use]
    pub fn buffered(mut self, buffered: bool) -> Self {
        self.buffered = buffered;
        self
    }

    /// The operation the failures report (`llm.stream` by default).
    #[must_use]
    pub fn op(mut self, op: impl Into<Cow<'static, str>>) -> Self {
        self.op = op.into();
        self
    }

    /// The server's requested delay from the stream's response headers (`Retry-After`),
    /// used when a failure gives none of its own.
    #[must_use]
    pub fn retry_after(mut self, delay: Option<Duration>) -> Self {
        self.retry_after = delay;
        self
    }

    /// The provider, named or recognised so far.
    pub fn recognised(&self) -> Option<Provider> {
        self.provider
    }

    /// What was delivered so far.
    pub fn delivered(&self) -> Delivered {
        self.delivered
    }

    /// The output text kept so far (see [`keep_text`](Self::keep_text)).
    pub fn partial_text(&self) -> Option<&str> {
        self.kept.as_ref().map(|kept| kept.text.as_str())
    }

    /// The provider's last stop reason (`stop`, `end_turn`, `length`, `pause_turn`, an
    /// unknown one, …), folded to one line and cut as a peer's text is.
    pub fn stop_reason(&self) -> Option<&str> {
        self.stop.as_deref()
    }

    /// Whether the provider's last event was seen.
    pub fn is_complete(&self) -> bool {
        self.last
    }

    /// Observes one event the stream yields: `Err` when the event is an error (it is not
    /// to be yielded), else whether it was the provider's last.
    #[inline]
    pub fn observe(&mut self, event: &Event) -> Result<Step, StreamError> {
        let name = event.given_name();
        let data = event.data();
        // The commonest event, a text delta in its provider's fixed shape, is counted
        // without building a reading.
        if let Some(text) = read::text_delta(self.provider, name, data) {
            self.delivered.events += 1;
            self.delivered.content_events += 1;
            // Counted by its place; the text itself is sliced only to be kept.
            self.delivered.text_bytes += text.len() as u64;
            if let Some(kept) = &mut self.kept {
                kept.keep(data.get(text).unwrap_or_default());
            }
            return Ok(Step::Continue);
        }
        self.observe_read(name, data)
    }

    /// Observes an event that is not a text delta in its fixed shape: it is read.
    // Apart, so that the text delta's path stays small enough to inline.
    #[inline(never)]
    fn observe_read(&mut self, name: Option<&str>, data: &str) -> Result<Step, StreamError> {
        if self.provider.is_none() {
            self.provider = Provider::recognise(name, data);
        }
        let reading = read::read(self.provider, name, data);
        if let Some(document) = reading.error {
            return Err(self.error_event(document));
        }
        let step = self.take(reading)?;
        self.delivered.events += 1;
        Ok(step)
    }

    /// Observes a JSON document the stream wrote on its own, not as an event (Gemini writes
    /// a failure after a chunk so): `Err` when it is an error document.
    pub fn observe_document(&mut self, document: &str) -> Result<(), StreamError> {
        if read::is_error_document(document) {
            return Err(self.error_event(document));
        }
        Ok(())
    }

    /// The stream ended cleanly: `Ok` when it was complete and its stop is not a failure;
    /// else the failing stop (`output_truncated`, `content_filtered`, …) or, when the
    /// provider's last event never came, `stream_interrupted`.
    ///
    /// Gemini has no last event: its stream is complete when it ends after a chunk with a
    /// `finishReason`. A cut exactly after such a chunk cannot be told from the end.
    pub fn end(&mut self) -> Result<(), StreamError> {
        if let Some(failure) = self.failing {
            return Err(self.fail(StreamError::new(failure)));
        }
        if self.refused {
            return Err(self.fail(StreamError::new(FailureKind::Filtered)));
        }
        let complete =
            self.last || (self.provider == Some(Provider::Gemini) && self.stop.is_some());
        if complete {
            Ok(())
        } else {
            Err(self.fail(StreamError::new(FailureKind::Interrupted)))
        }
    }

    /// The stream's transport failed: `stream_interrupted`, with `cause` as its source.
    pub fn interrupted(
        &mut self,
        cause: impl Into<Box<dyn StdError + Send + Sync + 'static>>,
    ) -> StreamError {
        let mut e = StreamError::new(FailureKind::Interrupted);
        e.set_source(cause.into());
        self.fail(e)
    }

    /// No event came for `after`: `timeout`.
    pub fn idle(&mut self, after: Duration) -> StreamError {
        let mut e = StreamError::new(FailureKind::Idle);
        e.set_idle(after);
        self.fail(e)
    }

    /// The stream broke a cap on a line or an event: `invalid_output`.
    pub(super) fn oversized(&mut self) -> StreamError {
        self.fail(StreamError::new(FailureKind::Oversized))
    }

    /// An error event's document, classified.
    fn error_event(&mut self, document: &str) -> StreamError {
        self.fail(StreamError::from_document(read_document(document)))
    }

    /// Takes what a healthy event says.
    fn take(&mut self, reading: Reading<'_>) -> Result<Step, StreamError> {
        if reading.stop.as_deref() == Some("error") {
            // OpenRouter's `finish_reason: "error"` without an error object.
            self.stop = Some(peer_text("error"));
            return Err(self.fail(StreamError::new(FailureKind::Interrupted)));
        }
        if reading.content {
            self.delivered.content_events += 1;
        }
        if let Some(text) = &reading.text {
            self.deliver_text(text);
        }
        self.refused |= reading.refusal;
        if let Some(reason) = reading.stop {
            self.failing = if reading.blocked {
                Some(FailureKind::Filtered)
            } else {
                stop_failure(&reason)
            };
            self.stop = Some(peer_text(&reason));
        }
        if reading.terminal {
            self.last = true;
            return Ok(Step::Last);
        }
        Ok(Step::Continue)
    }

    /// Counts output text yielded, and keeps it when asked.
    fn deliver_text(&mut self, text: &str) {
        self.delivered.text_bytes += text.len() as u64;
        if let Some(kept) = &mut self.kept {
            kept.keep(text);
        }
    }

    /// `e` with what the stream delivered, and the tracker's op and delay.
    fn fail(&mut self, mut e: StreamError) -> StreamError {
        let partial = self
            .kept
            .as_mut()
            .map(|kept| std::mem::take(&mut kept.text));
        e.set_context(
            self.provider,
            self.delivered,
            self.buffered,
            partial,
            self.stop.clone(),
        );
        e.set_header_delay(self.retry_after);
        e.with_op(self.op.clone())
    }
}

/// The failure a stop reason is, if any. Unknown reasons, and `pause_turn` (the caller
/// continues the turn), are none.
fn stop_failure(reason: &str) -> Option<FailureKind> {
    match reason {
        "length" | "max_tokens" | "max_output_tokens" | "MAX_TOKENS" => {
            Some(FailureKind::Truncated)
        }
        "refusal" | "content_filter" | "SAFETY" | "RECITATION" | "PROHIBITED_CONTENT"
        | "BLOCKLIST" | "SPII" | "IMAGE_SAFETY" | "cyber_policy" | "bio_policy" => {
            Some(FailureKind::Filtered)
        }
        "model_context_window_exceeded" => Some(FailureKind::ContextWindow),
        "MALFORMED_FUNCTION_CALL" => Some(FailureKind::MalformedOutput),
        _ => None,
    }
}
