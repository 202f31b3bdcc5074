//! Retrying a stream: a stream that failed before it delivered anything is opened again as
//! any call is retried; one that failed after it delivered is handed back. The caller reads
//! each event as it arrives, whatever attempt it came from.

use std::collections::VecDeque;
use std::error::Error as StdError;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use futures_core::{Stream, TryStream};

use super::retrier::{MakeAttempt, Retrier};
use super::{AttemptRecord, Outcome, Stop};
use crate::stream::{Event, StreamError, Watch};

/// The most events a run reads ahead of its caller: they wait for the caller's polls, and
/// the run reads no further until the caller took them all.
pub(crate) const READ_AHEAD: usize = 16;

/// Where the events of a run wait between the run's future and the caller's polls (at most
/// [`READ_AHEAD`]), and the count of the run's attempts.
#[derive(Clone, Default)]
pub(crate) struct Queue(Arc<Mutex<Waiting>>);

#[derive(Default)]
struct Waiting {
    events: VecDeque<Event>,
    attempts: u32,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, Waiting> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts an attempt of the run: the number its events carry.
    fn next_attempt(&self) -> u32 {
        let mut waiting = self.lock();
        waiting.attempts = waiting.attempts.saturating_add(1);
        waiting.attempts
    }

    /// Hands `event` to the caller, once fewer than [`READ_AHEAD`] wait.
    ///
    /// While the queue is full the run waits without a waker: [`RunStream`], which alone polls
    /// the run, polls it again as soon as the caller took every event waiting.
    async fn send(&self, event: Event) {
        let mut event = Some(event);
        std::future::poll_fn(|_| {
            let mut waiting = self.lock();
            if waiting.events.len() >= READ_AHEAD {
                return Poll::Pending;
            }
            waiting.events.extend(event.take());
            Poll::Ready(())
        })
        .await;
    }

    fn pop(&self) -> Option<Event> {
        self.lock().events.pop_front()
    }
}

/// One attempt of a stream: open it, then hand each event on as it comes, marked with the
/// attempt's number (the first marked as its start) and the fallback candidate's name, if
/// any; the attempt fails with the stream's error, or with the opening's error classified.
pub(crate) async fn attempt<S, B, E, OE>(
    opened: impl Future<Output = Result<Watch<S>, OE>>,
    queue: &Queue,
    candidate: Option<&Arc<str>>,
) -> Result<(), StreamError>
where
    S: TryStream<Ok = B, Error = E>,
    B: AsRef<[u8]>,
    E: Into<Box<dyn StdError + Send + Sync + 'static>>,
    OE: Into<Box<dyn StdError + Send + Sync + 'static>>,
{
    let number = queue.next_attempt();
    let mut watch = opened.await.map_err(StreamError::opening)?;
    let mut first = true;
    while let Some(item) = std::future::poll_fn(|cx| Pin::new(&mut watch).poll_next(cx)).await {
        let mut event = item?;
        event.mark_attempt(number, std::mem::take(&mut first));
        if let Some(name) = candidate {
            event.mark_candidate(name);
        }
        queue.send(event).await;
    }
    Ok(())
}

/// The retrier's operation over a stream: each attempt's future borrows the opener.
struct Opening<'o, O> {
    open: &'o mut O,
    queue: Queue,
}

impl<O, Fut, S, B, E, OE> MakeAttempt<(), StreamError> for Opening<'_, O>
where
    O: FnMut(u32) -> Fut,
    Fut: Future<Output = Result<Watch<S>, OE>>,
    S: TryStream<Ok = B, Error = E>,
    B: AsRef<[u8]>,
    E: Into<Box<dyn StdError + Send + Sync + 'static>>,
    OE: Into<Box<dyn StdError + Send + Sync + 'static>>,
{
    fn attempt(&mut self, n: u32) -> impl Future<Output = Result<(), StreamError>> {
        attempt((self.open)(n), &self.queue, None)
    }
}

impl Retrier {
    /// Runs a stream under the retrier: `open(attempt)` opens it (attempt 1 first) and gives
    /// its [`Watch`], and the stream this returns yields each event as it arrives, from
    /// whichever attempt, then ends, or yields the [`StreamError`] it ended in.
    ///
    /// A stream that failed before it delivered any output (its opening failed, say with a
    /// 503 head or a refused connection, or it was cut or sent an error event before any
    /// text) is opened again exactly as any call is retried: the failure's own policy, its
    /// `Retry-After` (from the event, or the response's headers), the retrier's caps, its
    /// budget and its shared pauses. One that failed after it delivered is not retried: its
    /// error comes back with [`delivered`](StreamError::delivered) and, when the watch kept
    /// it, [`partial_text`](StreamError::partial_text), recovery
    /// [`Continue`](crate::Recovery::Continue). An opening's own error is classified into a
    /// [`StreamError`] of failure [`Opening`](crate::stream::FailureKind::Opening), its source.
    ///
    /// Each event says which attempt it came from ([`Event::attempt`]), and the first of
    /// each attempt says it starts one ([`Event::starts_attempt`]): a consumer that buffers
    /// ([`Watch::buffered`]) drops there what it kept of a failed attempt.
    ///
    /// Nothing is collected first: the stream is read only as far as the caller takes its
    /// events, at most 16 events ahead of the caller, however fast the source is (with the
    /// chunk of bytes the watch is reading, each event within the watch's caps). `sleep` is
    /// awaited between attempts, as in [`run_async`](Self::run_async).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// use agent_error::{retry::Retrier, stream::Watch};
    /// use futures_util::StreamExt;
    ///
    /// // The first attempt is cut before any text, the second completes.
    /// let bodies = [
    ///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n",
    ///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n",
    /// ];
    /// let retrier = Retrier::new().seed(1);
    /// let events: Vec<_> = retrier
    ///     .run_stream(
    ///         |attempt| async move {
    ///             let body = bodies[attempt as usize - 1];
    ///             let chunks = futures_util::stream::iter([Ok::<_, std::io::Error>(body)]);
    ///             Ok::<_, std::io::Error>(Watch::new(chunks))
    ///         },
    ///         |_delay| async {},
    ///     )
    ///     .collect()
    ///     .await;
    /// // The role chunk of attempt 1 (no output yet, so it was re-opened), then attempt 2's
    /// // text and `[DONE]`.
    /// assert_eq!(events.len(), 3);
    /// assert!(events.iter().all(Result::is_ok));
    /// # });
    /// ```
    pub fn run_stream<'a, O, Fut, S, B, E, OE, Sl, SFut>(
        &'a self,
        mut open: O,
        sleep: Sl,
    ) -> RunStream<impl Future<Output = (Result<(), StreamError>, StreamOutcome)> + 'a>
    where
        O: FnMut(u32) -> Fut + 'a,
        Fut: Future<Output = Result<Watch<S>, OE>> + 'a,
        S: TryStream<Ok = B, Error = E> + 'a,
        B: AsRef<[u8]>,
        E: Into<Box<dyn StdError + Send + Sync + 'static>>,
        OE: Into<Box<dyn StdError + Send + Sync + 'static>>,
        Sl: FnMut(Duration) -> SFut + 'a,
        SFut: Future<Output = ()> + 'a,
    {
        let queue = Queue::default();
        let sink = queue.clone();
        let run = async move {
            let opening = Opening {
                open: &mut open,
                queue: sink,
            };
            StreamOutcome::of(self.run_async_with(opening, sleep, None, None).await)
        };
        RunStream::new(run, queue)
    }
}

/// The stream of a run over streams ([`Retrier::run_stream`], and with the feature
/// `recover`, `Fallback::run_stream`): each event as it
/// arrives, whichever attempt it came from, then the [`StreamError`] the run ended in, if
/// any. Once it has ended, [`outcome`](Self::outcome) tells how the run went, as a
/// unary call's [`Outcome`](super::Outcome) does.
///
/// It is `Unpin`: read it with `StreamExt::next` as it is, no pinning needed.
#[must_use = "a stream does nothing unless polled"]
pub struct RunStream<F> {
    run: Pin<Box<F>>,
    queue: Queue,
    /// The run's end: `Some(Err)` to yield once the queue is empty.
    ended: Option<Result<(), StreamError>>,
    outcome: Option<StreamOutcome>,
    done: bool,
}

impl<F> std::fmt::Debug for RunStream<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunStream")
            .field("outcome", &self.outcome)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl<F> RunStream<F> {
    pub(crate) fn new(run: F, queue: Queue) -> Self {
        RunStream {
            run: Box::pin(run),
            queue,
            ended: None,
            outcome: None,
            done: false,
        }
    }

    /// How the run went: `None` until the stream has yielded its last item (the error it
    /// ended in, when it failed) or ended.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// use agent_error::{retry::{Retrier, Stop}, stream::Watch};
    /// use futures_util::StreamExt;
    ///
    /// // The first attempt is cut before any text, the second completes.
    /// let bodies = [
    ///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n",
    ///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n",
    /// ];
    /// let retrier = Retrier::new().seed(1);
    /// let mut events = retrier.run_stream(
    ///     |attempt| async move {
    ///         let body = bodies[attempt as usize - 1];
    ///         Ok::<_, std::io::Error>(Watch::new(futures_util::stream::iter([Ok::<_, std::io::Error>(body)])))
    ///     },
    ///     |_delay| async {},
    /// );
    /// while let Some(event) = events.next().await {
    ///     event.unwrap();
    /// }
    /// let outcome = events.outcome().unwrap();
    /// assert_eq!((outcome.attempts, outcome.stop), (2, Stop::Succeeded));
    /// assert_eq!(outcome.record.last().unwrap().code(), "stream_interrupted");
    /// assert_eq!(outcome.summary().to_string(), "2 attempts: stream_interrupted (waited 160ms, backoff); succeeded");
    /// # });
    /// ```
    pub fn outcome(&self) -> Option<&StreamOutcome> {
        self.outcome.as_ref().filter(|_| self.done)
    }

    /// The outcome, taken: `None` until the stream has yielded its last item or ended, or
    /// once taken.
    pub fn take_outcome(&mut self) -> Option<StreamOutcome> {
        self.outcome.take_if(|_| self.done)
    }

    fn pop(&self) -> Option<Event> {
        self.queue.pop()
    }
}

/// How a run over streams went, once its stream has ended: what a unary call's
/// [`Outcome`] tells, without the result (the stream yielded it). Under a fallback chain
/// (`Fallback::run_stream`), it covers the whole chain: attempts are counted
/// along it, as [`Event::attempt`] counts them, and the record holds every candidate's
/// failed attempts.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct StreamOutcome {
    /// Attempts made in all, the first one included (every candidate's openings, under a
    /// fallback chain): 0 when a chain called no candidate.
    pub attempts: u32,
    /// How the last run ended (under a fallback chain, the last candidate's run; when it
    /// called none, [`Stop::Paused`]: every candidate was cooling down).
    pub stop: Stop,
    /// The delays waited in all.
    pub waited: Duration,
    /// Each failed attempt's code, the wait after it and where that wait came from,
    /// numbered along the chain (capped: see [`AttemptRecord`]).
    pub record: AttemptRecord,
    /// Under a fallback chain, each candidate run in order, with its attempts.
    runs: Vec<(Arc<str>, u32)>,
}

impl StreamOutcome {
    /// A retrier's run over a stream: its result, and how it went.
    pub(crate) fn of(
        outcome: Outcome<(), StreamError>,
    ) -> (Result<(), StreamError>, StreamOutcome) {
        let Outcome {
            result,
            attempts,
            stop,
            waited,
            record,
        } = outcome;
        let told = StreamOutcome {
            attempts,
            stop,
            waited,
            record,
            runs: Vec::new(),
        };
        (result, told)
    }

    /// A chain's outcome before any candidate ran.
    #[cfg(feature = "recover")]
    pub(crate) fn chain() -> StreamOutcome {
        StreamOutcome {
            attempts: 0,
            stop: Stop::Paused,
            waited: Duration::ZERO,
            record: AttemptRecord::default(),
            runs: Vec::new(),
        }
    }

    /// Adds the run of the chain's next candidate, `name`.
    #[cfg(feature = "recover")]
    pub(crate) fn then<T, E>(&mut self, outcome: &Outcome<T, E>, name: &Arc<str>) {
        self.record.append(&outcome.record, self.attempts);
        self.attempts = self.attempts.saturating_add(outcome.attempts);
        self.stop = outcome.stop;
        self.waited = self.waited.saturating_add(outcome.waited);
        self.runs.push((name.clone(), outcome.attempts));
    }

    /// The candidate that ran last, under a fallback chain: the one that answered, or the
    /// last that failed. `None` under a retrier alone.
    pub fn candidate(&self) -> Option<&str> {
        self.runs.last().map(|(name, _)| &**name)
    }

    /// The candidate that made attempt `attempt` (numbered along the chain, as the record
    /// and [`Event::attempt`] number them), under a fallback chain; `None` under a retrier
    /// alone, or past the last attempt.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// use agent_error::{http::StatusError, recover::Fallback, stream::Watch};
    /// use futures_util::StreamExt;
    ///
    /// let models = Fallback::new(["openai", "anthropic"]);
    /// let mut stream = models.run_stream(
    ///     async |model: &&str, _resume: Option<&str>, _attempt| match *model {
    ///         "openai" => Err(StatusError::new(429)),
    ///         _ => Ok(Watch::new(futures_util::stream::iter([Ok::<_, std::io::Error>(
    ///             "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n",
    ///         )]))),
    ///     },
    ///     |_delay| async {},
    /// );
    /// while let Some(event) = stream.next().await {
    ///     event.unwrap();
    /// }
    /// let outcome = stream.outcome().unwrap();
    /// let failed = outcome.record.last().unwrap();
    /// assert_eq!((failed.number(), failed.code()), (1, "rate_limit"));
    /// assert_eq!(outcome.candidate_of(1), Some("openai"));
    /// assert_eq!(outcome.candidate_of(2), Some("anthropic"));
    /// assert_eq!(outcome.candidate_of(3), None);
    /// # });
    /// ```
    pub fn candidate_of(&self, attempt: u32) -> Option<&str> {
        let mut before = 0u32;
        for (name, attempts) in &self.runs {
            let after = before.saturating_add(*attempts);
            if attempt > before && attempt <= after {
                return Some(name);
            }
            before = after;
        }
        None
    }

    /// The run in one line, for a log, as [`Outcome::summary`] writes it: `2 attempts:
    /// stream_interrupted (waited 0ms, backoff); succeeded`.
    pub fn summary(&self) -> impl std::fmt::Display + '_ {
        super::state::Summary {
            attempts: self.attempts,
            record: &self.record,
            stop: self.stop,
        }
    }
}

impl<F> Stream for RunStream<F>
where
    F: Future<Output = (Result<(), StreamError>, StreamOutcome)>,
{
    type Item = Result<Event, StreamError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if let Some(event) = this.pop() {
            return Poll::Ready(Some(Ok(event)));
        }
        if this.done {
            return Poll::Ready(None);
        }
        if this.ended.is_none()
            && let Poll::Ready((end, outcome)) = this.run.as_mut().poll(cx)
        {
            this.ended = Some(end);
            this.outcome = Some(outcome);
        }
        if let Some(event) = this.pop() {
            return Poll::Ready(Some(Ok(event)));
        }
        match this.ended.take() {
            Some(end) => {
                this.done = true;
                Poll::Ready(end.err().map(Err))
            }
            None => Poll::Pending,
        }
    }
}
