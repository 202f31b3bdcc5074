//! A fallback chain over streams: each candidate's stream is retried while it has said
//! nothing, and one that breaks after it spoke hands its partial text to the next.

use std::error::Error as StdError;
use std::future::Future;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use futures_core::TryStream;

use super::{Call, Candidate, Fallback};
use crate::retry::MakeAttempt;
use crate::retry::stream::{Queue, attempt};
use crate::retry::{RunStream, StreamOutcome};
use crate::stream::{Delivered, StreamError, Watch};
use crate::{AgentError, Recovery, codes};

/// A stream on one candidate, for the retrier's async loop: each attempt's future borrows
/// the opener, the candidate and the text to continue from.
struct OnCandidate<'c, O, C> {
    open: &'c mut O,
    candidate: &'c Candidate<C>,
    /// The cooldown in force as the latest attempt began.
    began: &'c AtomicU64,
    resume: Option<&'c str>,
    queue: &'c Queue,
}

impl<O, C, S, B, E, OE> MakeAttempt<(), StreamError> for OnCandidate<'_, O, C>
where
    O: AsyncFnMut(&C, Option<&str>, u32) -> Result<Watch<S>, OE>,
    S: TryStream<Ok = B, Error = E>,
    B: AsRef<[u8]>,
    E: Into<Box<dyn StdError + Send + Sync + 'static>>,
    OE: Into<Box<dyn StdError + Send + Sync + 'static>>,
{
    fn attempt(&mut self, n: u32) -> impl Future<Output = Result<(), StreamError>> {
        self.candidate.mark_attempt(self.began);
        attempt(
            (self.open)(&self.candidate.value, self.resume, n),
            self.queue,
            Some(&self.candidate.name),
        )
    }
}

impl<C> Fallback<C> {
    /// Runs a stream on the first healthy candidate, as [`run_async`](Self::run_async) runs
    /// a call: `open(candidate, resume, attempt)` opens it and gives its [`Watch`], and the
    /// stream this returns yields each event as it arrives, whichever candidate and attempt
    /// it came from, then ends or yields the [`StreamError`] it ended in.
    ///
    /// On each candidate the stream is retried by the retrier while it has delivered
    /// nothing (see [`Retrier::run_stream`](crate::retry::Retrier::run_stream)). A
    /// rate-limited failure, or one whose recovery is `fallback`, moves on to the next
    /// candidate, as for any call; so does a stream that broke after it delivered output
    /// (recovery [`Continue`](Recovery::Continue)): the next candidate's `open` receives the
    /// text delivered so far as `resume` (what the watches kept with
    /// [`keep_text`](Watch::keep_text), `Some("")` when they kept none), to continue from it
    /// the way a router's mid-stream fallback does. A stream that broke after it spoke
    /// does not cool its candidate down (a cut connection says nothing of the next call);
    /// an error that asks for another candidate does, as for any call. A permanent failure
    /// stops the chain.
    ///
    /// Each event says which attempt of the chain it came from ([`Event::attempt`](crate::stream::Event::attempt), counted
    /// along the chain, every candidate's openings included) and which candidate sent it
    /// ([`Event::candidate`](crate::stream::Event::candidate)), and the first of each attempt says it starts one
    /// ([`Event::starts_attempt`](crate::stream::Event::starts_attempt)). [`on_fallback`](Self::on_fallback) hears of each
    /// candidate that failed, as for a unary call. As under the retrier, the stream is
    /// read at most 16 events ahead of the caller. Once the stream has ended,
    /// [`RunStream::outcome`] tells how the chain went: its attempts, every failed one's
    /// code and wait along the chain, how the last run stopped and which candidate ran last.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// use agent_error::{recover::Fallback, stream::Watch};
    /// use futures_util::StreamExt;
    ///
    /// let models = Fallback::new(["primary", "secondary"]);
    /// let mut stream = models.run_stream(
    ///     async |model: &&str, resume: Option<&str>, _attempt| {
    ///         let body = match (*model, resume) {
    ///             // The primary speaks, then its connection drops.
    ///             ("primary", _) => "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n".to_owned(),
    ///             // The secondary continues from what was delivered.
    ///             (_, Some(said)) => format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{said}lo\"}}}}]}}\n\ndata: [DONE]\n\n"),
    ///             (_, None) => unreachable!(),
    ///         };
    ///         let chunks = futures_util::stream::iter([Ok::<_, std::io::Error>(body)]);
    ///         Ok::<_, std::io::Error>(Watch::new(chunks).keep_text(1 << 20))
    ///     },
    ///     |_delay| async {},
    /// );
    /// let mut events = Vec::new();
    /// while let Some(event) = stream.next().await {
    ///     events.push(event.unwrap());
    /// }
    /// assert!(events[1].data().contains("Hello"));
    /// assert_eq!(events.len(), 3);
    /// // Each event names the candidate that sent it.
    /// let from: Vec<_> = events.iter().map(|e| e.candidate()).collect();
    /// assert_eq!(from, [Some("primary"), Some("secondary"), Some("secondary")]);
    /// // How the chain went: the primary's cut, then the secondary's answer.
    /// let outcome = stream.outcome().unwrap();
    /// assert_eq!(outcome.attempts, 2);
    /// assert_eq!(outcome.candidate(), Some("secondary"));
    /// assert_eq!(outcome.summary().to_string(), "2 attempts: stream_interrupted; succeeded");
    /// // The primary broke after it spoke: no cooldown, the next call starts there.
    /// assert_eq!(models.cooling_for(0), None);
    /// # });
    /// ```
    pub fn run_stream<'a, O, S, B, E, OE, Sl, SFut>(
        &'a self,
        mut open: O,
        mut sleep: Sl,
    ) -> RunStream<impl Future<Output = (Result<(), StreamError>, StreamOutcome)> + 'a>
    where
        O: AsyncFnMut(&C, Option<&str>, u32) -> Result<Watch<S>, OE> + 'a,
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
            let mut call = Call::new(self);
            call.continue_elsewhere = true;
            if let Some(store) = &self.store {
                call.shared = self.shared_cooldowns(&**store).await;
            }
            // What the candidates that broke after they spoke delivered, before the one
            // being run: the text the next continues from; and, for each failure, what had
            // been delivered before it, which the chain's error says when that failure
            // decides.
            let mut spoke = Spoke::default();
            let mut before_each = Vec::new();
            let mut told = StreamOutcome::chain();
            while let Some(index) = call.next() {
                let Ok(pace) = self.pace_on(index, &call).await else {
                    call.skipped.push(index);
                    continue;
                };
                let before = spoke.clone();
                let began = AtomicU64::new(0);
                let on_candidate = OnCandidate {
                    open: &mut open,
                    candidate: &self.candidates[index],
                    began: &began,
                    resume: spoke.text.as_deref(),
                    queue: &sink,
                };
                let outcome = self
                    .retrier
                    .run_async_with(
                        on_candidate,
                        &mut sleep,
                        call.hand_back(),
                        pace.as_ref().map(|p| p as _),
                    )
                    .await;
                if let Err(e) = &outcome.result
                    && moves_on_after_output(e)
                {
                    spoke.add(e);
                }
                told.then(&outcome, &self.candidates[index].name);
                let answer = call.after(index, outcome, began.into_inner());
                if answer.is_none() {
                    before_each.push(before);
                }
                if let Some(store) = &self.store {
                    let shared = call.to_share.take();
                    self.share_cooldown(&**store, shared).await;
                }
                if answer.is_some() {
                    return (Ok(()), told);
                }
            }
            (Err(chain_error(call, before_each)), told)
        };
        RunStream::new(run, queue)
    }
}

/// The error a chain over streams ends in: the deciding failure's (the most actionable,
/// see [`FallbackError::deciding`](super::FallbackError::deciding)), told what the
/// candidates before it delivered, so that a chain whose reader saw text is not run again
/// from the start, whatever the deciding one failed with; with no candidate called, the
/// chain's own. `before_each` holds, for each failure, what had been delivered before it.
fn chain_error<C>(call: Call<'_, C, StreamError>, mut before_each: Vec<Spoke>) -> StreamError {
    let error = call.error();
    if error.failures().is_empty() {
        // No candidate was called: all of them cooling down, or spent.
        return StreamError::opening(error);
    }
    let before = before_each
        .get_mut(error.deciding)
        .map(std::mem::take)
        .unwrap_or_default();
    let deciding = error
        .into_deciding()
        .unwrap_or_else(|| StreamError::opening(NoCandidate));
    match before.text {
        Some(text) => deciding.after_output(before.delivered, text),
        None => deciding,
    }
}

/// Whether a failure moves the chain on to continue elsewhere: a stream that broke after it
/// delivered output (recovery `continue`), but not one the model stopped at its token limit,
/// which another model would not mend.
pub(super) fn moves_on_after_output(e: &StreamError) -> bool {
    e.recovery() == Recovery::Continue
        && !e.delivered().is_empty()
        && e.code() != codes::OUTPUT_TRUNCATED
}

/// What the candidates that broke after they spoke delivered, in all.
#[derive(Clone, Debug, Default)]
struct Spoke {
    delivered: Delivered,
    /// The text they kept (empty when their watches kept none); `None` until one spoke.
    text: Option<String>,
}

impl Spoke {
    fn add(&mut self, e: &StreamError) {
        self.delivered = self.delivered.and(e.delivered());
        self.text
            .get_or_insert_with(String::new)
            .push_str(e.partial_text().unwrap_or(""));
    }
}

/// Stands for a failure the chain lost, which cannot happen: the last failure is kept.
#[derive(Debug)]
struct NoCandidate;

impl std::fmt::Display for NoCandidate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("no candidate was called")
    }
}

impl StdError for NoCandidate {}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;
    use std::sync::Mutex;

    use futures_util::StreamExt;

    use crate::stream::Event;

    use super::*;

    /// A stream that stops at the token limit after it spoke goes back to the caller: another
    /// model would not mend it, and the healthy model is not cooled down.
    #[tokio::test]
    async fn a_truncated_stream_stops_the_chain_without_a_cooldown() {
        let opened = Mutex::new(Vec::new());
        let models = Fallback::new(["first", "second"]);
        let items: Vec<_> = models
            .run_stream(
                async |model: &&str, resume: Option<&str>, _| {
                    opened.lock().unwrap().push((*model, resume.map(str::to_owned)));
                    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":null}]}\n\n\
                                data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n\
                                data: [DONE]\n\n";
                    let chunks = futures_util::stream::iter([Ok::<_, Infallible>(body)]);
                    Ok::<_, Infallible>(Watch::new(chunks).keep_text(64))
                },
                |_| async {},
            )
            .collect()
            .await;
        assert_eq!(items.len(), 4);
        let e = items.last().unwrap().as_ref().unwrap_err();
        assert_eq!(
            (e.code(), e.recovery()),
            ("output_truncated", Recovery::Continue)
        );
        assert_eq!(e.partial_text(), Some("Hi"));
        assert_eq!(*opened.lock().unwrap(), [("first", None)]);
        assert_eq!(models.cooling_for(0), None);
    }

    /// The chain's error after a stream spoke: the text shown decides (recovery
    /// `continue`), whether the candidate whose budget is spent comes after it in the order
    /// or is known to be spent already, and the spent one is not opened as a last resort.
    #[tokio::test]
    async fn a_spent_candidate_never_masks_a_stream_that_spoke() {
        async fn run(
            models: &Fallback<&'static str>,
            opened: &Mutex<Vec<&'static str>>,
        ) -> Vec<Result<Event, StreamError>> {
            models
                .run_stream(
                    async |model: &&'static str, _resume: Option<&str>, _| {
                        opened.lock().unwrap().push(*model);
                        if *model == "spent" {
                            return Err(crate::Error::new(
                                "llm.stream",
                                codes::BUDGET_EXHAUSTED,
                                "credit balance is too low",
                            ));
                        }
                        // Speaks, then the connection ends before the last event.
                        let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"},\"finish_reason\":null}]}\n\n";
                        let chunks = futures_util::stream::iter([Ok::<_, Infallible>(body)]);
                        Ok(Watch::new(chunks).keep_text(64))
                    },
                    |_| async {},
                )
                .collect()
                .await
        }
        let opened = Mutex::new(Vec::new());
        let check = |items: Vec<Result<Event, StreamError>>| {
            let e = items.last().unwrap().as_ref().unwrap_err();
            assert_eq!(e.recovery(), Recovery::Continue, "{e}");
            assert_eq!(e.partial_text(), Some("Hel"));
        };
        // The spent candidate after the one that spoke.
        let models = Fallback::new(["serving", "spent"]);
        check(run(&models, &opened).await);
        assert_eq!(*opened.lock().unwrap(), ["serving", "spent"]);
        // Known to be spent: skipped, and not tried as a last resort.
        opened.lock().unwrap().clear();
        check(run(&models, &opened).await);
        assert_eq!(*opened.lock().unwrap(), ["serving"]);
    }
}
