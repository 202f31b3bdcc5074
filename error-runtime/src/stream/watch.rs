//! `Watch`: a provider's byte stream read as server-sent events, yielded unchanged, ending in
//! the provider's last event or a classified `StreamError`.

use std::borrow::Cow;
use std::error::Error as StdError;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_core::{Stream, TryStream};

use super::error::{Delivered, StreamError};
use super::event::Event;
use super::frames::{Caps, Frame, Frames, PIECE};
use super::provider::Provider;
use super::tracker::{Step, Tracker};

/// Watches a provider's stream of server-sent events: yields each event unchanged, and ends
/// either after the provider's last event or in a classified [`StreamError`].
///
/// It wraps any byte stream: `reqwest::Response::bytes_stream()`, a hyper body's data
/// (`http_body_util::BodyDataStream::new(body)`), any `Stream<Item = Result<B, E>>` with
/// `B: AsRef<[u8]>` and `E` an error. With reqwest, `agent_error::reqwest::watch(response)`
/// checks the response's status first. The failures after
/// `200 OK` that it classifies:
///
/// - an error event (Anthropic's `event: error`, the Responses API's `response.failed` and
///   `error`, an `{"error": …}` chunk, a Gemini error document after a chunk), classified
///   exactly as the same JSON body after a status is;
/// - the stream's end, or its transport's failure, before the provider's last event:
///   `stream_interrupted`, whose source is the transport's error (an event whose blank line
///   never came is yielded at the end, and the end judged after it);
/// - no event for the idle timeout (60 s unless set; pings and comments count, bytes that
///   complete neither do not): `timeout`;
/// - a stop that is a failure for an agent: `output_truncated`, `content_filtered`,
///   `context_overflow`, `invalid_output` (see [`StreamError`]). A normal stop is no error,
///   and an error or failing stop wins over a later `data: [DONE]`;
/// - a line or an event over the caps (4 MiB each unless set): `invalid_output`, so that a
///   hostile stream is held in bounded memory.
///
/// What the watch yielded decides what may be done again (see [`Delivered`]): after output
/// content, a failure is not retried from the start, and recovers with
/// [`Recovery::Continue`](crate::Recovery::Continue).
///
/// The idle timer is tokio's: outside a tokio runtime the watch has none (and says so in
/// [`has_idle_timer`](Self::has_idle_timer)). It checks for silence four times a timeout, so
/// the error comes between the timeout and a quarter more after the last event or comment,
/// and a healthy event costs no clock read.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// use agent_error::{AgentError, stream::{Provider, Watch}};
///
/// let body = [
///     Ok::<_, std::io::Error>("event: message_start\ndata: {\"type\":\"message_start\"}\n\n"),
///     Ok("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}\n\n"),
///     Err(std::io::Error::from(std::io::ErrorKind::ConnectionReset)),
/// ];
/// let mut watch = Watch::new(futures_util::stream::iter(body)).keep_text(1 << 20);
/// let mut events = 0;
/// let failure = loop {
///     match futures_util::StreamExt::next(&mut watch).await {
///         Some(Ok(_event)) => events += 1,
///         Some(Err(e)) => break e,
///         None => unreachable!("the stream was cut"),
///     }
/// };
/// assert_eq!(events, 2);
/// assert_eq!(watch.recognised(), Some(Provider::Anthropic));
/// assert_eq!(failure.code(), "stream_interrupted");
/// assert!(!failure.is_retryable()); // "Hel" was already delivered
/// assert_eq!(failure.recovery(), agent_error::Recovery::Continue);
/// assert_eq!(failure.partial_text(), Some("Hel"));
/// # });
/// ```
pub struct Watch<S: TryStream> {
    inner: Pin<Box<S>>,
    frames: Frames,
    tracker: Tracker,
    /// The rest of a chunk larger than [`PIECE`], framed a piece at a time.
    pending: Option<(S::Ok, usize)>,
    idle: Idle,
    state: State,
}

/// The watch is `Unpin` whatever `S` is: the stream is boxed and no field is ever pinned.
impl<S: TryStream> Unpin for Watch<S> {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Reading,
    /// The bytes ended: the events dispatched at the end are yielded, then the end is judged.
    Ending,
    /// The provider's last event was yielded: the verdict comes next.
    Last,
    Done,
}

/// The idle timer: a sleep of a quarter of the timeout, and the quarters that passed with
/// no bytes.
struct Idle {
    timeout: Option<Duration>,
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
    /// Whether bytes came since the timer last fired.
    active: bool,
    quiet: u8,
    /// Whether a tokio runtime was found (checked once, on the first poll).
    checked: bool,
}

/// The default idle timeout.
const DEFAULT_IDLE: Duration = Duration::from_secs(60);

/// The default cap on a line and on an event, in bytes.
const DEFAULT_CAP: usize = 4 * 1024 * 1024;

impl<S: TryStream> Watch<S> {
    /// Watches `bytes`: the provider is recognised from the first event that tells, the
    /// idle timeout is 60 s, a line or an event may be 4 MiB, no text is kept.
    pub fn new(bytes: S) -> Self {
        Watch {
            inner: Box::pin(bytes),
            frames: Frames::new(Caps {
                line: DEFAULT_CAP,
                event: DEFAULT_CAP,
            }),
            tracker: Tracker::new(),
            pending: None,
            idle: Idle {
                timeout: Some(DEFAULT_IDLE),
                sleep: None,
                active: false,
                quiet: 0,
                checked: false,
            },
            state: State::Reading,
        }
    }

    /// Names the provider instead of recognising it.
    #[must_use]
    pub fn provider(mut self, provider: Provider) -> Self {
        self.tracker = self.tracker.provider(provider);
        self
    }

    /// Sets the idle timeout, or turns it off with `None`.
    #[must_use]
    pub fn idle_timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.idle.timeout = timeout.into().filter(|t| !t.is_zero());
        self
    }

    /// Keeps the output text yielded, up to `cap` bytes, for
    /// [`StreamError::partial_text`] and [`partial_text`](Self::partial_text).
    #[must_use]
    pub fn keep_text(mut self, cap: usize) -> Self {
        self.tracker = self.tracker.keep_text(cap);
        self
    }

    /// Says that the consumer buffers what it reads (nothing reaches a person or a tool
    /// before the stream ends): a failure after output then gets the ordinary retry.
    ///
    /// Under `Retrier::run_stream` or `Fallback::run_stream`, the events of a re-opened
    /// stream follow those of the attempt that failed; the first of them says so
    /// ([`Event::starts_attempt`]), and the consumer drops what it kept before it.
    #[must_use]
    pub fn buffered(mut self, buffered: bool) -> Self {
        self.tracker = self.tracker.buffered(buffered);
        self
    }

    /// The longest line allowed, in bytes (4 MiB by default; raise it for image output).
    #[must_use]
    pub fn max_line(mut self, bytes: usize) -> Self {
        self.frames = Frames::new(Caps {
            line: bytes,
            event: self.caps().event,
        });
        self
    }

    /// The most bytes allowed between two events, comments included (4 MiB by default).
    #[must_use]
    pub fn max_event(mut self, bytes: usize) -> Self {
        self.frames = Frames::new(Caps {
            line: self.caps().line,
            event: bytes,
        });
        self
    }

    /// The operation the failures report (`llm.stream` by default).
    #[must_use]
    pub fn op(mut self, op: impl Into<Cow<'static, str>>) -> Self {
        self.tracker = self.tracker.op(op);
        self
    }

    /// The server's requested delay from the stream's response headers, used when a
    /// failure gives none of its own.
    #[must_use]
    pub fn retry_after(mut self, delay: Option<Duration>) -> Self {
        self.tracker = self.tracker.retry_after(delay);
        self
    }

    /// The provider, named or recognised so far.
    pub fn recognised(&self) -> Option<Provider> {
        self.tracker.recognised()
    }

    /// What was yielded so far.
    pub fn delivered(&self) -> Delivered {
        self.tracker.delivered()
    }

    /// The output text kept so far (see [`keep_text`](Self::keep_text)); after a failure,
    /// the error holds it.
    pub fn partial_text(&self) -> Option<&str> {
        self.tracker.partial_text()
    }

    /// The provider's last stop reason, once given.
    pub fn stop_reason(&self) -> Option<&str> {
        self.tracker.stop_reason()
    }

    /// Whether the provider's last event was seen.
    pub fn is_complete(&self) -> bool {
        self.tracker.is_complete()
    }

    /// Whether the idle timer runs: a timeout is set and a tokio runtime was found on the
    /// first poll.
    pub fn has_idle_timer(&self) -> bool {
        self.idle.sleep.is_some()
    }

    fn caps(&self) -> Caps {
        self.frames.caps()
    }
}

impl<S, B, E> Watch<S>
where
    S: TryStream<Ok = B, Error = E>,
    B: AsRef<[u8]>,
    E: Into<Box<dyn StdError + Send + Sync + 'static>>,
{
    /// The next frame of what was read: an event to yield, or the end.
    #[inline]
    fn framed(&mut self) -> Option<Result<Event, StreamError>> {
        loop {
            let frame = match self.frames.next() {
                Ok(Some(frame)) => frame,
                Ok(None) => {
                    let (chunk, at) = self.pending.as_mut()?;
                    let bytes = chunk.as_ref();
                    let end = bytes.len().min(*at + PIECE);
                    self.frames.push(&bytes[*at..end]);
                    *at = end;
                    if end == bytes.len() {
                        self.pending = None;
                    }
                    continue;
                }
                Err(_) => return Some(Err(self.tracker.oversized())),
            };
            if let Some(item) = self.take(frame) {
                return Some(item);
            }
        }
    }

    /// What a frame makes the watch yield, if anything.
    #[inline]
    fn take(&mut self, frame: Frame) -> Option<Result<Event, StreamError>> {
        match frame {
            Frame::Event(event) => match self.tracker.observe(&event) {
                Ok(Step::Continue) => Some(Ok(event)),
                Ok(Step::Last) => {
                    self.state = State::Last;
                    Some(Ok(event))
                }
                Err(e) => Some(Err(e)),
            },
            Frame::Bare(document) => self.tracker.observe_document(&document).err().map(Err),
        }
    }

    /// The next item once the bytes ended: an event dispatched at the end (its blank line
    /// never came), else the verdict on the end.
    fn ended(&mut self) -> Option<Result<Event, StreamError>> {
        loop {
            match self.frames.finish() {
                Ok(Some(frame)) => {
                    if let Some(item) = self.take(frame) {
                        return Some(item);
                    }
                }
                Ok(None) => return self.tracker.end().err().map(Err),
                Err(_) => return Some(Err(self.tracker.oversized())),
            }
        }
    }

    /// Whether the idle timer fired with no bytes for the whole timeout.
    fn went_silent(&mut self, cx: &mut Context<'_>) -> bool {
        let idle = &mut self.idle;
        let Some(timeout) = idle.timeout else {
            return false;
        };
        if !idle.checked {
            idle.checked = true;
            if tokio::runtime::Handle::try_current().is_ok() {
                idle.sleep = Some(Box::pin(tokio::time::sleep(timeout / 4)));
            }
        }
        let Some(sleep) = &mut idle.sleep else {
            return false;
        };
        if self.frames.take_active() {
            idle.active = true;
        }
        while sleep.as_mut().poll(cx).is_ready() {
            if std::mem::take(&mut idle.active) {
                idle.quiet = 0;
            } else {
                idle.quiet += 1;
                if idle.quiet >= 4 {
                    return true;
                }
            }
            let next = tokio::time::Instant::now() + timeout / 4;
            sleep.as_mut().reset(next);
        }
        false
    }
}

impl<S, B, E> Stream for Watch<S>
where
    S: TryStream<Ok = B, Error = E>,
    B: AsRef<[u8]>,
    E: Into<Box<dyn StdError + Send + Sync + 'static>>,
{
    type Item = Result<Event, StreamError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            match this.state {
                State::Done => return Poll::Ready(None),
                State::Last => {
                    this.state = State::Done;
                    return Poll::Ready(this.tracker.end().err().map(Err));
                }
                State::Ending => {
                    let item = this.ended();
                    // An event dispatched at the end is yielded; the verdict follows it
                    // (unless it was the provider's last, which set `Last`).
                    if !matches!(item, Some(Ok(_))) {
                        this.state = State::Done;
                    }
                    return Poll::Ready(item);
                }
                State::Reading => {}
            }
            if let Some(item) = this.framed() {
                if item.is_err() {
                    this.state = State::Done;
                }
                return Poll::Ready(Some(item));
            }
            match this.inner.as_mut().try_poll_next(cx) {
                Poll::Ready(Some(Ok(chunk))) => {
                    let bytes = chunk.as_ref();
                    if bytes.len() <= PIECE {
                        this.frames.push(bytes);
                    } else {
                        this.pending = Some((chunk, 0));
                    }
                }
                Poll::Ready(Some(Err(e))) => {
                    this.state = State::Done;
                    return Poll::Ready(Some(Err(this.tracker.interrupted(e))));
                }
                Poll::Ready(None) => this.state = State::Ending,
                Poll::Pending => {
                    if this.went_silent(cx) {
                        this.state = State::Done;
                        let timeout = this.idle.timeout.unwrap_or_default();
                        return Poll::Ready(Some(Err(this.tracker.idle(timeout))));
                    }
                    return Poll::Pending;
                }
            }
        }
    }
}

impl<S: TryStream> std::fmt::Debug for Watch<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watch")
            .field("tracker", &self.tracker)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests;
