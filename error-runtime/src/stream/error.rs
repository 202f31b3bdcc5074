//! `StreamError`: how a stream failed, classified, and what it had delivered by then.

use std::borrow::Cow;
use std::error::Error as StdError;
use std::fmt::{self, Write as _};
use std::time::Duration;

use super::provider::Provider;
use crate::catalog::{Catalog, CodeDoc};
use crate::core::summary::OneLine;
use crate::http::body::Document;
use crate::http::evidence::Evidence;
use crate::http::kind::Kind;
use crate::{AgentError, Recovery, RetryPolicy, codes};

/// The most bytes of a peer's message that [`StreamError`]'s message shows.
pub(super) const MAX_PEER_MESSAGE: usize = 256;

/// What a stream delivered before it ended: events, and output content.
///
/// *Content* is what a reader may already have seen: text deltas, refusal text, thinking
/// text and tool-call arguments. Metadata events (`message_start`, `ping`,
/// `response.created`, a role-only chunk) count as events and deliver nothing.
///
/// ```
/// use agent_error::stream::Delivered;
///
/// let nothing = Delivered::default();
/// assert!(nothing.is_empty());
/// assert_eq!(nothing.events(), 0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Delivered {
    pub(super) events: u64,
    pub(super) content_events: u64,
    pub(super) text_bytes: u64,
}

impl Delivered {
    /// The events yielded, metadata included.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// The events that carried output content.
    pub fn content_events(&self) -> u64 {
        self.content_events
    }

    /// The bytes of output text yielded (UTF-8, decoded from the events' JSON), where the
    /// provider's deltas are recognised.
    pub fn text_bytes(&self) -> u64 {
        self.text_bytes
    }

    /// Whether no output content was yielded: a failure now may be retried from the start.
    pub fn is_empty(&self) -> bool {
        self.content_events == 0
    }

    /// What two streams delivered, in all.
    #[cfg(feature = "recover")]
    pub(crate) fn and(self, other: Delivered) -> Delivered {
        Delivered {
            events: self.events.saturating_add(other.events),
            content_events: self.content_events.saturating_add(other.content_events),
            text_bytes: self.text_bytes.saturating_add(other.text_bytes),
        }
    }
}

/// How a stream failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FailureKind {
    /// The provider sent an error event (or, for Gemini, an error document after a chunk).
    ErrorEvent,
    /// The stream ended, or its transport failed, before the provider's last event.
    Interrupted,
    /// No event (nor comment) came for the idle timeout.
    Idle,
    /// The output was cut at the token limit (`length`, `max_tokens`, …).
    Truncated,
    /// A refusal or a content filter stopped the output, or the prompt was blocked.
    Filtered,
    /// The context window filled up (Anthropic's `model_context_window_exceeded`).
    ContextWindow,
    /// The model broke its own output format (Gemini's `MALFORMED_FUNCTION_CALL`).
    MalformedOutput,
    /// The stream broke a cap: a line or an event longer than the watch allows.
    Oversized,
    /// The stream could not be opened (its response's status, or the connection): the
    /// opening error's own classification.
    Opening,
}

/// A stream that failed after `200 OK`, classified.
///
/// | how it failed | code | retried while nothing was delivered | recovery |
/// |---|---|---|---|
/// | an error event | as the same body after a status (`overloaded_error` → `provider_unavailable`, …); a number in it stands for the status; a call the server cancelled (Google's `CANCELLED`, 499) and a body that names nothing known: `stream_interrupted` | as that code | as that code |
/// | ended or cut before the last event | `stream_interrupted` | yes | retry |
/// | no event for the idle timeout (pings and comments count) | `timeout` | yes | retry |
/// | output cut at the token limit | `output_truncated` | no | continue |
/// | a refusal, a content filter, a blocked prompt | `content_filtered` | no | replan |
/// | Anthropic's `model_context_window_exceeded` | `context_overflow` | no | compact |
/// | Gemini's `MALFORMED_FUNCTION_CALL` | `invalid_output` | once | retry |
/// | a line or an event over the watch's cap | `invalid_output` | once | retry |
///
/// **What was delivered decides what may be done again.** Once output content was yielded
/// (see [`Delivered`]), the reader has seen it: a failure that would have been retried is
/// not ([`is_retryable`](AgentError::is_retryable) is false) and recovers with
/// [`Recovery::Continue`], and one whose recovery is not a retry keeps it. A watch told that
/// its consumer buffers ([`Watch::buffered`](super::Watch::buffered)) gets the ordinary retry.
///
/// The provider's own message in an error event is a peer's text: [`message`](AgentError::message)
/// shows it folded to one line and cut to 256 bytes; public renderings (tool text, text for
/// people, the wire form) leave it out.
///
/// ```
/// use agent_error::{AgentError, Recovery};
/// use agent_error::stream::{FailureKind, Tracker, Provider};
///
/// let mut tracker = Tracker::new().provider(Provider::Anthropic);
/// let overloaded = agent_error::stream::Event::new(
///     "error",
///     r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
/// );
/// let e = tracker.observe(&overloaded).unwrap_err();
/// assert_eq!(e.failure(), FailureKind::ErrorEvent);
/// assert_eq!(e.code(), "provider_unavailable");
/// assert!(e.is_retryable()); // nothing was delivered yet
/// assert_eq!(e.to_string(), "llm.stream [provider_unavailable]: the provider sent an error event: Overloaded");
/// ```
#[derive(Debug)]
pub struct StreamError(Box<Inner>);

/// What a [`StreamError`] holds, boxed: a failure is rare, and the results that carry one
/// (each event a stream yields) stay small.
#[derive(Debug)]
struct Inner {
    failure: FailureKind,
    /// The row of the table that gives the code, policy, recovery and hints.
    doc: &'static CodeDoc,
    /// The code, policy and recovery of an opening failure, from its own classification.
    opening: Option<Opening>,
    provider: Option<Provider>,
    delivered: Delivered,
    buffered: bool,
    partial: Option<String>,
    stop_reason: Option<Box<str>>,
    /// The peer's message, as it wrote it (folded and cut when shown).
    peer_message: Option<Box<str>>,
    /// The status a number in an error event stood for.
    status: Option<u16>,
    /// The delay the failure's own fields give (Google's `RetryInfo`).
    retry_after: Option<Duration>,
    /// The delay the stream's response headers gave.
    header_delay: Option<Duration>,
    /// The delay written only in the peer's message ("try again in 11.054s").
    message_delay: Option<Duration>,
    idle: Option<Duration>,
    op: Cow<'static, str>,
    source: Option<Box<dyn StdError + Send + Sync + 'static>>,
}

/// What an opening error's classification said.
#[derive(Debug)]
struct Opening {
    code: Box<str>,
    policy: RetryPolicy,
    recovery: Recovery,
    hints: Vec<Cow<'static, str>>,
    status: Option<u16>,
}

impl StreamError {
    /// A failure of `failure`'s kind with its row's code (for an error event, see
    /// [`from_document`](Self::from_document)).
    pub(super) fn new(failure: FailureKind) -> Self {
        StreamError(Box::new(Inner {
            failure,
            doc: row(failure),
            opening: None,
            provider: None,
            delivered: Delivered::default(),
            buffered: false,
            partial: None,
            stop_reason: None,
            peer_message: None,
            status: None,
            retry_after: None,
            header_delay: None,
            message_delay: None,
            idle: None,
            op: Cow::Borrowed(DEFAULT_OP),
            source: None,
        }))
    }

    /// An error event, classified from its document as a body after a status is: the
    /// names in it, then a number in it standing for the status, else `stream_interrupted`.
    pub(super) fn from_document(document: Document) -> Self {
        let status = document.hints.status.filter(|status| *status >= 400);
        // A call the server cancelled was interrupted, whatever 4xx it is written with.
        let kind = Evidence {
            status,
            body: document.hints,
            ..Evidence::default()
        }
        .kind()
        .filter(|_| !document.hints.cancelled);
        let mut e = *StreamError::new(FailureKind::ErrorEvent).0;
        e.doc = kind.map_or(&INTERRUPTED, Kind::doc);
        e.status = status;
        e.peer_message = document.message.map(String::into_boxed_str);
        e.retry_after = document.hints.retry_delay;
        e.message_delay = document.hints.message_delay;
        StreamError(Box::new(e))
    }

    /// A stream that could not be opened, classified as `err` is (see
    /// [`classify`](crate::classify)); an unclassified error is `stream_interrupted`'s
    /// table row, not retried.
    ///
    /// ```
    /// use agent_error::{AgentError, http::StatusError, stream::{FailureKind, StreamError}};
    ///
    /// let e = StreamError::opening(StatusError::new(429));
    /// assert_eq!((e.failure(), e.code()), (FailureKind::Opening, "rate_limit"));
    /// // It takes the operation its cause was made for, when one was named.
    /// let named = StreamError::opening(StatusError::new(429).with_op("llm.chat"));
    /// assert_eq!(named.op(), "llm.chat");
    /// assert!(e.is_rate_limited());
    /// // One head a line: the classified cause shows without its own.
    /// assert_eq!(
    ///     e.to_string(),
    ///     "llm.stream [rate_limit]: the stream could not be opened: HTTP 429 Too Many Requests"
    /// );
    /// ```
    pub fn opening(err: impl Into<Box<dyn StdError + Send + Sync + 'static>>) -> Self {
        let source: Box<dyn StdError + Send + Sync + 'static> = err.into();
        let mut e = *StreamError::new(FailureKind::Opening).0;
        if let Some(c) = crate::classify(&*source) {
            // The operation the opening was made for (`watch_as(response, "llm.chat")`),
            // unless it named none (a response's error is `http` by default).
            if !matches!(c.op(), "" | "http") {
                e.op = Cow::Owned(c.op().to_owned());
            }
            e.opening = Some(Opening {
                code: c.code().into(),
                policy: c.retry_policy(),
                recovery: c.recovery(),
                hints: c.hints(),
                status: c.status(),
            });
        } else {
            e.opening = Some(Opening {
                code: codes::UNCLASSIFIED.into(),
                policy: RetryPolicy::NEVER,
                recovery: Recovery::Abort,
                hints: Vec::new(),
                status: None,
            });
        }
        e.source = Some(source);
        StreamError(Box::new(e))
    }

    pub(super) fn set_source(&mut self, source: Box<dyn StdError + Send + Sync + 'static>) {
        self.0.source = Some(source);
    }

    pub(super) fn set_context(
        &mut self,
        provider: Option<Provider>,
        delivered: Delivered,
        buffered: bool,
        partial: Option<String>,
        stop_reason: Option<Box<str>>,
    ) {
        self.0.provider = provider;
        self.0.delivered = delivered;
        self.0.buffered = buffered;
        self.0.partial = partial;
        // Already folded and cut by the tracker, as a peer's text.
        self.0.stop_reason = stop_reason;
    }

    pub(super) fn set_idle(&mut self, after: Duration) {
        self.0.idle = Some(after);
    }

    /// The delay the stream's response headers asked for (`Retry-After`): it comes after
    /// the failure's own fields, and before a delay written only in its message.
    pub(super) fn set_header_delay(&mut self, delay: Option<Duration>) {
        self.0.header_delay = delay;
    }

    /// This failure after `earlier` streams of the same answer delivered `text` (a fallback
    /// chain's candidates that broke after they spoke): what was delivered in all, the text
    /// in all, and so never retried from the start.
    #[cfg(feature = "recover")]
    pub(crate) fn after_output(mut self, earlier: Delivered, text: String) -> Self {
        let inner = &mut *self.0;
        inner.delivered = earlier.and(inner.delivered);
        inner.partial = Some(text + inner.partial.as_deref().unwrap_or(""));
        inner.buffered = false;
        self
    }

    /// Sets the operation (`"llm.stream"` by default).
    #[must_use]
    pub fn with_op(mut self, op: impl Into<Cow<'static, str>>) -> Self {
        self.0.op = op.into();
        self
    }

    /// Names the provider whose stream this is: for a stream that failed to open, which no
    /// event named (a watch names the provider of the events it read).
    #[must_use]
    pub fn with_provider(mut self, provider: Provider) -> Self {
        self.0.provider = Some(provider);
        self
    }

    /// How the stream failed.
    pub fn failure(&self) -> FailureKind {
        self.0.failure
    }

    /// The provider, when it was named or recognised.
    pub fn provider(&self) -> Option<Provider> {
        self.0.provider
    }

    /// What the stream had yielded when it failed.
    pub fn delivered(&self) -> Delivered {
        self.0.delivered
    }

    /// The output text yielded before the failure, when the watch kept it
    /// ([`Watch::keep_text`](super::Watch::keep_text)), up to its cap.
    pub fn partial_text(&self) -> Option<&str> {
        self.0.partial.as_deref()
    }

    /// Takes the kept partial text out of the error.
    pub fn take_partial_text(&mut self) -> Option<String> {
        self.0.partial.take()
    }

    /// The provider's stop reason, when it gave one (`length`, `max_tokens`, `SAFETY`, …),
    /// folded to one line and cut as a peer's text is.
    pub fn stop_reason(&self) -> Option<&str> {
        self.0.stop_reason.as_deref()
    }

    /// The provider's own message in an error event, as it wrote it: a peer's text, for the
    /// caller who asks (shown folded and cut in [`message`](AgentError::message), never in
    /// public renderings).
    pub fn peer_message(&self) -> Option<&str> {
        self.0.peer_message.as_deref()
    }

    /// Whether the consumer was said to buffer (nothing reached a reader yet).
    pub fn buffered(&self) -> bool {
        self.0.buffered
    }

    /// Whether the reader already saw part of the output: then the failure is not retried
    /// from the start.
    fn spoke(&self) -> bool {
        !self.0.delivered.is_empty() && !self.0.buffered
    }

    /// The policy and recovery of the failure taken alone, before what was delivered.
    fn base(&self) -> (RetryPolicy, Recovery) {
        match &self.0.opening {
            Some(o) => (o.policy, o.recovery),
            None => (self.0.doc.policy, self.0.doc.recovery),
        }
    }

    /// The fixed text of the failure, safe to show anyone.
    fn write_public(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.0.failure {
            FailureKind::ErrorEvent => "the provider sent an error event",
            FailureKind::Interrupted => "the stream ended before the provider's last event",
            FailureKind::Idle => "the stream went silent",
            FailureKind::Truncated => "the output was cut at the token limit",
            FailureKind::Filtered => "the provider's content filter stopped the output",
            FailureKind::ContextWindow => "the context window filled up during the output",
            FailureKind::MalformedOutput => "the model broke its own output format",
            FailureKind::Oversized => "the stream sent a line or an event over the cap",
            FailureKind::Opening => "the stream could not be opened",
        })?;
        if let (FailureKind::Idle, Some(after)) = (self.0.failure, self.0.idle) {
            write!(f, " for {after:?}")?;
        }
        if !self.0.delivered.is_empty() {
            write!(f, " after {} bytes of output", self.0.delivered.text_bytes)?;
        }
        Ok(())
    }
}

/// The operation of a stream's errors unless set.
const DEFAULT_OP: &str = "llm.stream";

/// A peer's text as kept: folded to one line, cut to [`MAX_PEER_MESSAGE`] bytes.
pub(super) fn peer_text(text: &str) -> Box<str> {
    let mut out = String::new();
    let _ = OneLine::new(&mut out, MAX_PEER_MESSAGE).write_str(text);
    out.into_boxed_str()
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::core::agent::write_head(f, &self.0.op, self.code())?;
        self.fmt_message(f)?;
        let Some(source) = &self.0.source else {
            return Ok(());
        };
        // A classified cause (a `StatusError` head, say) shows without its own head.
        crate::core::agent::write_cause(f, &**source)
    }
}

impl StdError for StreamError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.0
            .source
            .as_deref()
            .map(|e| e as &(dyn StdError + 'static))
    }
}

impl AgentError for StreamError {
    fn code(&self) -> &str {
        match &self.0.opening {
            Some(o) => &o.code,
            None => self.0.doc.code,
        }
    }

    fn op(&self) -> &str {
        &self.0.op
    }

    /// The failure's fixed text, then the provider's message in an error event, folded to
    /// one line and cut to 256 bytes.
    fn fmt_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_public(f)?;
        if let Some(message) = &self.0.peer_message {
            f.write_str(": ")?;
            OneLine::new(f, MAX_PEER_MESSAGE).write_str(message)?;
        }
        Ok(())
    }

    /// The failure's fixed text alone: the peer's words stay out.
    fn fmt_public_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_public(f)
    }

    fn retry_policy(&self) -> RetryPolicy {
        let (policy, _) = self.base();
        if self.spoke() || !policy.is_retryable() {
            return RetryPolicy::NEVER;
        }
        // The failure's own field first, then the response's headers, then a delay written
        // only in the peer's message.
        let delay = (self.0.retry_after)
            .or(policy.retry_after())
            .or(self.0.header_delay)
            .or(self.0.message_delay);
        policy.with_retry_after(delay)
    }

    fn hints(&self) -> Vec<Cow<'static, str>> {
        if self.spoke() && self.base().1 == Recovery::Retry {
            return vec![Cow::Borrowed(CONTINUE_HINT)];
        }
        match &self.0.opening {
            Some(o) => o.hints.clone(),
            None => self.0.doc.hints.iter().map(|h| Cow::Borrowed(*h)).collect(),
        }
    }

    fn status(&self) -> Option<u16> {
        match &self.0.opening {
            Some(o) => o.status,
            None => self.0.status.or(self.0.doc.status),
        }
    }

    fn recovery(&self) -> Recovery {
        match self.base().1 {
            Recovery::Retry if self.spoke() => Recovery::Continue,
            recovery => recovery,
        }
    }
}

impl PartialEq for StreamError {
    /// Equal when the codes are, as derived types.
    fn eq(&self, other: &Self) -> bool {
        self.code() == other.code()
    }
}

impl Eq for StreamError {}

/// The hint of a failure after the reader saw part of the output.
const CONTINUE_HINT: &str =
    "part of the answer was already delivered: continue from it rather than start again";

inventory::submit! { crate::core::registry::Registration::of::<StreamError>() }

/// The row of a failure that is not an error event.
fn row(failure: FailureKind) -> &'static CodeDoc {
    match failure {
        FailureKind::ErrorEvent | FailureKind::Interrupted | FailureKind::Opening => &INTERRUPTED,
        FailureKind::Idle => &IDLE,
        FailureKind::Truncated => &TRUNCATED,
        FailureKind::Filtered => &FILTERED,
        FailureKind::ContextWindow => &CONTEXT_WINDOW,
        FailureKind::MalformedOutput | FailureKind::Oversized => &MALFORMED,
    }
}

const fn entry(
    code: &'static str,
    variant: &'static str,
    message: &'static str,
    docs: &'static str,
    hints: &'static [&'static str],
    policy: RetryPolicy,
    recovery: Recovery,
) -> CodeDoc {
    CodeDoc::new(
        code,
        "agent_error::stream::StreamError",
        variant,
        policy,
        recovery,
    )
    .with_message(message)
    .with_docs(docs)
    .with_hints(hints)
}

/// `invalid_output`'s policy, the vocabulary's: retried once.
const ONCE: RetryPolicy = codes::defaults_of(codes::INVALID_OUTPUT).0;

const INTERRUPTED: CodeDoc = entry(
    codes::STREAM_INTERRUPTED,
    "Interrupted",
    "the stream ended before the provider's last event",
    "The stream ended, or its transport failed, before the provider's last event (`data: [DONE]`, `message_stop`, `response.completed`, a Gemini chunk with `finishReason`); also an error event that names nothing known. Retried while nothing was delivered; after that, recovery `continue`.",
    &["retry the call; if part of the answer was shown, continue from it"],
    RetryPolicy::DEFAULT,
    Recovery::Retry,
);

const IDLE: CodeDoc = entry(
    codes::TIMEOUT,
    "Idle",
    "the stream went silent",
    "No event came for the watch's idle timeout (60 s unless set); pings and comments count.",
    &[],
    RetryPolicy::DEFAULT,
    Recovery::Retry,
);

const TRUNCATED: CodeDoc = entry(
    codes::OUTPUT_TRUNCATED,
    "Truncated",
    "the output was cut at the token limit",
    "The provider stopped at the output token limit (`length`, `max_tokens`, `max_output_tokens`, `MAX_TOKENS`).",
    &["continue from the partial output, or raise the output token limit"],
    RetryPolicy::NEVER,
    Recovery::Continue,
);

const FILTERED: CodeDoc = entry(
    codes::CONTENT_FILTERED,
    "Filtered",
    "the provider's content filter stopped the output",
    "A refusal or a content filter stopped the output (`refusal`, `content_filter`, `SAFETY`, `RECITATION`, `PROHIBITED_CONTENT`, `BLOCKLIST`, `SPII`, `IMAGE_SAFETY`, a blocked prompt, refusal text in a Chat delta).",
    &["change the request: the provider's policy refused it"],
    RetryPolicy::NEVER,
    Recovery::Replan,
);

const CONTEXT_WINDOW: CodeDoc = entry(
    codes::CONTEXT_OVERFLOW,
    "ContextWindow",
    "the context window filled up during the output",
    "The model's context window filled up while it wrote (Anthropic's `model_context_window_exceeded`).",
    &["shorten the prompt: summarise or drop older turns"],
    RetryPolicy::NEVER,
    Recovery::Compact,
);

const MALFORMED: CodeDoc = entry(
    codes::INVALID_OUTPUT,
    "MalformedOutput",
    "the model broke its own output format",
    "The model broke its own output format (Gemini's `MALFORMED_FUNCTION_CALL`), or the stream sent a line or an event over the watch's cap. Retried once.",
    &[],
    ONCE,
    Recovery::Retry,
);

/// The failures' rows; an error event's code is also any of `StatusError`'s.
const TABLE: [CodeDoc; 6] = [
    INTERRUPTED,
    IDLE,
    TRUNCATED,
    FILTERED,
    CONTEXT_WINDOW,
    MALFORMED,
];

impl Catalog for StreamError {
    /// One entry per failure; an error event takes the code its document gives, one of
    /// [`StatusError`](crate::http::StatusError)'s.
    const CODES: &'static [CodeDoc] = &TABLE;
}
