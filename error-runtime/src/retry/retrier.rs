//! `Retrier`: runs an operation again while its error's own policy says to, within the caps
//! the caller sets: its settings, the waits before an attempt, and its two loops, blocking
//! and async, of one shape around a [`RetryState`](super::RetryState).

use std::fmt;
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::budget::RetryBudget;
use super::scope::{AttemptScope, Mark, code_mark};
use super::state::{HandBack, Outcome, RetryState, Stop, Tally, paused_error};
use crate::AgentError;
use crate::chain::ErrorChain;
use crate::core::jitter::JitterSource;
use crate::pace::{Cost, Pacer};
use crate::store::{Pause, PauseStore, block_on};

/// The hook called before each retry: the classified error, the retry number (1 for
/// the first retry) and the delay about to be waited.
type OnRetry = dyn Fn(&dyn AgentError, u32, Duration) + Send + Sync;

/// Retries an operation as each failure's own [`RetryPolicy`](crate::RetryPolicy) says.
///
/// For every failure it [`classify`](crate::classify)s the error's chain (a typed error
/// anywhere in it, else a foreign link such as a timed-out `std::io::Error`) and asks the
/// classification's policy:
/// - an unclassified or non-retryable error is returned at once;
/// - a server-requested delay (`retry_after`) is waited exactly, unless it is longer than
///   the `max_wait` (the smaller of the policy's and the retrier's): then the error is
///   returned. The server's delays of one run add up to at most that `max_wait` (60 s by
///   default): a server that keeps asking for more, under one code or several, ends the
///   run ([`Stop::WaitTooLong`]);
/// - otherwise the delay is the policy's jittered backoff for this code's failures in a
///   row (the first 503 after a 429 waits `backoff(0)`), never above its `max_delay`;
/// - a policy's `max_attempts` counts the attempts that failed with that same code in a
///   row (a 429 then two 503s is one `rate_limit` and two `provider_unavailable`), and the
///   retrier's own cap counts every attempt ([`Retrier::DEFAULT_ATTEMPT_CAP`] unless set);
///   and since a server chooses the codes of its answers, a run's failures in all stay
///   below twice the largest `max_attempts` of their policies (6 attempts with the default
///   policies, however the codes alternate);
/// - a retry that would end after `max_elapsed` is not made;
/// - with a shared [`RetryBudget`], a retry the budget cannot pay for is not made;
/// - an error that a retrier nested in the same call path already gave up on is not retried
///   again ([`Stop::AlreadyRetried`], see below).
///
/// # Nested retriers do not multiply
///
/// Retry layers stack up in agents (an SDK's retries inside a tool's inside the loop's),
/// and their attempts multiply: three retriers of 3 attempts make 27 attempts on a
/// permanent outage. Here each attempt of a run is a scope on its thread (for
/// [`run_async`](Retrier::run_async), each poll of the attempt's future is). A run that
/// ends giving up on a retryable error (attempts exhausted, budget empty, deadline, a wait
/// too long, or an inner give-up) inside another run's attempt records the code it gave up
/// on in that scope; when that attempt then fails with an error whose chain has a link of
/// that code, the outer run stops at once with [`Stop::AlreadyRetried`], and marks its own
/// enclosing attempt in turn. So three nested retriers of 3 attempts make 3 attempts.
///
/// Nothing wraps the error: `run` still gives back the operation's own error unchanged.
/// The scope is the thread (blocking runs) or the polls of the attempt's future (async runs,
/// on any executor, even when the task moves between threads); an inner retrier on another
/// thread or in a spawned task is not in the same call path, and is not seen. An error that
/// the operation turns into one of another code (a fallback that then fails with a timeout)
/// is retried as usual.
///
/// ```
/// use std::cell::Cell;
/// use agent_error::{codes, retry::{Retrier, Stop}, Error};
///
/// let calls = Cell::new(0);
/// let (outer, inner) = (Retrier::new().max_attempts(3), Retrier::new().max_attempts(3));
/// let outcome = outer.run_detailed_with_sleep(
///     |_| inner.run_detailed_with_sleep(|_| {
///         calls.set(calls.get() + 1);
///         Err::<(), _>(Error::new("llm.generate", codes::PROVIDER_UNAVAILABLE, "down"))
///     }, |_| {}).result,
///     |_| {},
/// );
/// assert_eq!(calls.get(), 3); // not 9
/// assert_eq!((outcome.attempts, outcome.stop), (1, Stop::AlreadyRetried));
/// ```
///
/// The operation's error type is any `E: Error + 'static`, a `Box<dyn Error + Send + Sync>`,
/// or with the `anyhow` feature an `anyhow::Error` (see [`ErrorChain`]); it is given back
/// unchanged. Each failure is classified as [`classify`](crate::classify) classifies it: a
/// derived error type is recognised once registered (every non-generic derived type, with the
/// default `registry` feature; a generic one such as `MyError<String>`, or any type without
/// that feature, with [`register!`](crate::register)), and a failure nothing classifies is
/// not retried.
///
/// # Cloning
///
/// A `Retrier` is cheap to clone (a few words and reference counts), so one configured
/// retrier can be handed to a [`Fallback`](crate::recover::Fallback) or a layer and kept.
/// A clone shares what is meant to be shared: the [`RetryBudget`], the `on_retry` hook, the
/// store of [`pauses`](Retrier::pauses) and the jitter source (one sequence, drawn by both).
/// Its caps are copied: changing a clone's `max_attempts` leaves the original as it was.
///
/// ```
/// use agent_error::retry::{Retrier, RetryBudget};
///
/// let budget = RetryBudget::new();
/// let retrier = Retrier::new().budget(budget.clone());
/// let for_fallback = retrier.clone(); // the same budget: retries through either spend it
/// # let _ = for_fallback;
/// ```
///
/// [`run`](Retrier::run) gives back the last error unchanged;
/// [`run_detailed`](Retrier::run_detailed) also tells how it ended and after how many
/// attempts. Nothing is allocated per attempt.
///
/// ```
/// use std::time::Duration;
/// use agent_error::{codes, retry::{Retrier, Stop}, Error};
///
/// let retrier = Retrier::new().seed(7);
/// let mut slept = Vec::new();
/// let outcome = retrier.run_detailed_with_sleep(
///     |attempt| {
///         if attempt < 3 {
///             Err(Error::new("llm.generate", codes::TIMEOUT, "deadline exceeded"))
///         } else {
///             Ok("done")
///         }
///     },
///     |delay| slept.push(delay),
/// );
/// assert_eq!(outcome.result.unwrap(), "done");
/// assert_eq!(outcome.attempts, 3);
/// assert_eq!(outcome.stop, Stop::Succeeded);
/// assert_eq!(slept.len(), 2);
/// assert!(slept[0] <= Duration::from_millis(200) && slept[1] <= Duration::from_millis(400));
/// ```
#[derive(Clone)]
pub struct Retrier {
    pub(super) max_attempts: u32,
    pub(super) max_elapsed: Option<Duration>,
    pub(super) max_wait: Duration,
    pub(super) on_retry: Option<Arc<OnRetry>>,
    pub(super) budget: Option<RetryBudget>,
    pub(super) jitter: Arc<JitterSource>,
    /// Server-announced pauses shared through a store, under the caller's key.
    pub(super) pauses: Option<(std::sync::Arc<dyn PauseStore>, std::sync::Arc<str>)>,
    /// The pacer every attempt acquires from first, its key and each attempt's cost.
    pacer: Option<(Pacer, Arc<str>, Cost)>,
}

impl fmt::Debug for Retrier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Retrier")
            .field("max_attempts", &self.max_attempts)
            .field("max_elapsed", &self.max_elapsed)
            .field("max_wait", &self.max_wait)
            .field("on_retry", &self.on_retry.is_some())
            .field("budget", &self.budget)
            .finish_non_exhaustive()
    }
}

impl Default for Retrier {
    fn default() -> Self {
        Self::new()
    }
}

impl Retrier {
    /// The retrier's cap on attempts in all when none is set: 10. It bounds a run whose
    /// failures keep changing code, each within its own policy.
    pub const DEFAULT_ATTEMPT_CAP: u32 = 10;

    /// A retrier whose only cap of its own is [`DEFAULT_ATTEMPT_CAP`](Self::DEFAULT_ATTEMPT_CAP):
    /// each error's policy decides. Jitter is seeded from the process's random hasher keys.
    pub fn new() -> Self {
        Retrier {
            max_attempts: Self::DEFAULT_ATTEMPT_CAP,
            max_elapsed: None,
            max_wait: Duration::MAX,
            on_retry: None,
            budget: None,
            jitter: Arc::new(JitterSource::from_entropy()),
            pauses: None,
            pacer: None,
        }
    }

    /// Caps the attempts in all (the first one included), whatever the policies allow
    /// (10 by default).
    #[must_use]
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts.max(1);
        self
    }

    /// Makes no retry that would end more than `limit` after the run started.
    #[must_use]
    pub fn max_elapsed(mut self, limit: Duration) -> Self {
        self.max_elapsed = Some(limit);
        self
    }

    /// Caps the server-requested delay that is honoured, below the policies' own `max_wait`.
    #[must_use]
    pub fn max_wait(mut self, limit: Duration) -> Self {
        self.max_wait = limit;
        self
    }

    /// Calls `hook(error, retry number, delay)` before each retry (retry 1 is the first).
    #[must_use]
    pub fn on_retry(
        mut self,
        hook: impl Fn(&dyn AgentError, u32, Duration) + Send + Sync + 'static,
    ) -> Self {
        self.on_retry = Some(Arc::new(hook));
        self
    }

    /// Shares a [`RetryBudget`] with other retriers.
    #[must_use]
    pub fn budget(mut self, budget: RetryBudget) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Shares the pauses that servers announce (a 429's `Retry-After`) through `store`,
    /// under `key`: name what the server limits, such as `openai/acct-1/gpt-4o`. A failure
    /// whose error carries a `retry_after` sets the pause for every retrier on the same store
    /// and key (the later deadline wins); before each attempt, a run waits out the pause in
    /// force, plus a positive jitter of up to a fifth of it (at most 1 s) drawn for each wait,
    /// so that replicas do not all come back at the deadline's instant. The waits count in
    /// [`Outcome::waited`].
    ///
    /// A pause read from the store obeys the caps a server's `retry_after` obeys: one that
    /// lasts longer than the `max_wait` (the `rate_limit` policy's and the retrier's, or the
    /// one this run's last server delay was held to), or past the `max_elapsed`, is not
    /// waited. The run ends at once, before the attempt, with [`Stop::Paused`] and a
    /// `rate_limit` error (op `retry.pause`) whose `retry_after` is the wait left, as an
    /// `agent_error::Error`, a boxed error or an `anyhow::Error` (whichever the operation's
    /// error type is). An error type of the caller's own cannot hold it: the attempt is then
    /// made without waiting, and the server's answer (its own `Retry-After`, longer than the
    /// caps) ends the run.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::time::Duration;
    /// use agent_error::recover::{LocalStore, Store};
    /// use agent_error::{http::StatusError, retry::Retrier};
    ///
    /// let store: Arc<dyn Store> = Arc::new(LocalStore::new());
    /// let a = Retrier::new().pauses(store.clone(), "openai/acct-1/gpt-4o");
    /// let b = Retrier::new().pauses(store, "openai/acct-1/gpt-4o");
    /// let mut slept = Vec::new();
    /// let _ = a.run_detailed_with_sleep(|attempt| match attempt {
    ///     1 => Err(StatusError::new(429).with_retry_after(Duration::from_secs(20))),
    ///     _ => Ok(()),
    /// }, |d| slept.push(d));
    /// // B, about to call the same account and model, waits for the pause A met.
    /// let mut b_slept = Vec::new();
    /// let _ = b.run_detailed_with_sleep(|_| Ok::<_, StatusError>(()), |d| b_slept.push(d));
    /// assert!(b_slept[0] > Duration::from_secs(19));
    /// ```
    #[must_use]
    pub fn pauses(
        mut self,
        store: std::sync::Arc<dyn PauseStore>,
        key: impl Into<std::sync::Arc<str>>,
    ) -> Self {
        self.pauses = Some((store, key.into()));
        self
    }

    /// Paces every attempt with `pacer` on `key` (see [`Pacer`]): before each attempt the
    /// run acquires `cost` (waiting as the pacer says), and each attempt's outcome feeds
    /// the pacer's adaptive rate (a `rate_limit` falls, a success climbs). The wait obeys
    /// the caps a shared pause obeys: longer than the `max_wait` (the pacer's, the
    /// `rate_limit` policy's and the retrier's) or past the `max_elapsed`, the run ends
    /// before the attempt with [`Stop::Paused`] and a `rate_limit` error (op `pace`) whose
    /// `retry_after` is the wait needed, as [`pauses`](Self::pauses) describes (an error
    /// type of the caller's own cannot hold it: the attempt is then made at once). The
    /// waits count in [`Outcome::waited`].
    ///
    /// ```
    /// use std::time::Duration;
    /// use agent_error::recover::{Cost, Limit, Pacer};
    /// use agent_error::retry::{Retrier, Stop};
    ///
    /// let pacer = Pacer::new().limit("search", Limit::requests(1, Duration::from_secs(2)));
    /// let retrier = Retrier::new().pacer(pacer, "search", Cost::request());
    /// let mut slept = Vec::new();
    /// let first = retrier.run_detailed_with_sleep(|_| Ok::<_, agent_error::Error>(1), |d| slept.push(d));
    /// let second = retrier.run_detailed_with_sleep(|_| Ok::<_, agent_error::Error>(2), |d| slept.push(d));
    /// assert_eq!((first.stop, second.stop), (Stop::Succeeded, Stop::Succeeded));
    /// // The second call waited for the budget to come back.
    /// assert_eq!(slept.len(), 1);
    /// assert!(slept[0] > Duration::from_millis(1_900));
    /// ```
    #[must_use]
    pub fn pacer(mut self, pacer: Pacer, key: impl Into<Arc<str>>, cost: Cost) -> Self {
        self.pacer = Some((pacer, key.into(), cost));
        self
    }

    /// The pacer this retrier paces its attempts with, and its key, if any: for a loop of
    /// the caller's own (an HTTP middleware) that feeds it each response's headers.
    pub fn paced_by(&self) -> Option<(&Pacer, &str)> {
        self.pacer.as_ref().map(|(pacer, key, _)| (pacer, &**key))
    }

    /// The retrier's own pacing, if any.
    pub(super) fn own_pace(&self) -> Option<PaceOn<'_>> {
        self.pacer.as_ref().map(|(pacer, key, cost)| PaceOn {
            pacer,
            key,
            cost: *cost,
            hold_back: false,
            first_reserved: false,
        })
    }

    /// The longest a run may wait before an attempt now (a shared pause, a pacer): the
    /// `max_wait` the last server delay of this run was held to (else the `rate_limit`
    /// policy's and the retrier's), and the time left before `max_elapsed`.
    fn wait_cap(&self, t: &Tally) -> (Duration, Option<Duration>) {
        let cap = t.pause_cap.unwrap_or_else(|| {
            crate::codes::default_policy(crate::codes::RATE_LIMIT)
                .max_wait()
                .min(self.max_wait)
        });
        let left = match (self.max_elapsed, t.started) {
            (Some(limit), Some(started)) => {
                Some(limit.saturating_sub(started.elapsed().max(t.waited)))
            }
            _ => None,
        };
        (cap, left)
    }

    /// What to wait before the attempt about to be made: the shared pause in force and the
    /// pacer's turn, the longer of the two; or the error that ends the run before it, when
    /// either lasts longer than the run may wait.
    pub(super) async fn wait_before(
        &self,
        t: &mut Tally,
        pace: Option<&PaceOn<'_>>,
    ) -> Result<Duration, crate::Error> {
        let mut wait = Duration::ZERO;
        if self.pauses.is_some() {
            let pause = self.shared_pause().await;
            wait = self.pause_wait_in(t, pause)?;
        }
        if let Some(pace) = pace
            && !(pace.first_reserved && t.attempt == 1)
        {
            wait = wait.max(self.pace_wait_in(t, pace).await?);
        }
        Ok(wait)
    }

    /// The pacer's reservation before an attempt: the wait, or the error that ends the run.
    async fn pace_wait_in(
        &self,
        t: &mut Tally,
        pace: &PaceOn<'_>,
    ) -> Result<Duration, crate::Error> {
        let (cap, left) = self.wait_cap(t);
        let mut cap = cap.min(pace.pacer.wait_limit());
        if let Some(left) = left {
            cap = cap.min(left);
        }
        if pace.hold_back {
            cap = Duration::ZERO;
        }
        match pace.pacer.reserve(pace.key, pace.cost, cap).await {
            Ok(wait) => Ok(wait),
            Err(needed) => {
                t.code = Some(code_mark(crate::codes::RATE_LIMIT));
                Err(crate::pace::pace_error(needed))
            }
        }
    }

    /// The shared pause in force before an attempt, if any.
    async fn shared_pause(&self) -> Option<Pause> {
        let (store, key) = self.pauses.as_ref()?;
        store.pause(key).await
    }

    /// The wait before an attempt for `pause` (with this wait's jitter), or, when the pause
    /// lasts longer than the run may wait, the error that ends the run: a store's value
    /// obeys the caps a server's `retry_after` obeys.
    fn pause_wait_in(&self, t: &mut Tally, pause: Option<Pause>) -> Result<Duration, crate::Error> {
        let Some(pause) = pause else {
            return Ok(Duration::ZERO);
        };
        let (cap, left) = self.wait_cap(t);
        let mut wait = pause.wait(self.jitter.next_fraction());
        let mut beyond = pause.remaining > cap;
        if let Some(left) = left {
            beyond |= pause.remaining > left;
            // The jitter after the deadline never takes the run past its `max_elapsed`.
            wait = wait.min(left);
        }
        if !beyond {
            return Ok(wait);
        }
        t.code = Some(code_mark(crate::codes::RATE_LIMIT));
        Err(paused_error(pause.remaining, &pause.code))
    }

    /// Seeds the jitter, so that the same seed gives the same delays.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.jitter = Arc::new(JitterSource::seeded(seed));
        self
    }

    /// A run driven attempt by attempt, for a loop of the caller's own (see [`RetryState`]).
    /// To own the retrier instead of borrowing it, use `RetryState::new(Arc<Retrier>)`.
    #[inline]
    pub fn start(&self) -> RetryState<&Retrier> {
        RetryState::new(self)
    }

    /// Runs `op(attempt)` (attempt 1 first) until it succeeds or the policy says stop,
    /// sleeping the thread between attempts. Returns the last result unchanged.
    pub fn run<T, E: ErrorChain<M>, M>(&self, op: impl FnMut(u32) -> Result<T, E>) -> Result<T, E> {
        self.run_detailed_with_sleep(op, std::thread::sleep).result
    }

    /// [`run`](Retrier::run), telling how it ended.
    pub fn run_detailed<T, E: ErrorChain<M>, M>(
        &self,
        op: impl FnMut(u32) -> Result<T, E>,
    ) -> Outcome<T, E> {
        self.run_detailed_with_sleep(op, std::thread::sleep)
    }

    /// [`run_detailed`](Retrier::run_detailed) with a sleep of the caller's (a fake one in tests).
    pub fn run_detailed_with_sleep<T, E: ErrorChain<M>, M>(
        &self,
        op: impl FnMut(u32) -> Result<T, E>,
        sleep: impl FnMut(Duration),
    ) -> Outcome<T, E> {
        self.run_blocking(op, sleep, None, None)
    }

    /// The blocking loop; `hand_back` returns chosen failures at once; `pace` paces each
    /// attempt (else the retrier's own pacer does). The same shape as the async loop, the
    /// stores waited for on this thread.
    pub(crate) fn run_blocking<T, E: ErrorChain<M>, M>(
        &self,
        mut op: impl FnMut(u32) -> Result<T, E>,
        mut sleep: impl FnMut(Duration),
        hand_back: Option<HandBack<'_>>,
        pace: Option<PaceOn<'_>>,
    ) -> Outcome<T, E> {
        let pace = pace.or_else(|| self.own_pace());
        let waits = self.pauses.is_some() || pace.is_some();
        // Most calls succeed at once: with nothing to wait for first, the first attempt is
        // made before the run's state is, and a success needs none.
        let started = self.max_elapsed.map(|_| Instant::now());
        let mut first = None;
        if !waits {
            let made = attempt_once(|| op(1));
            if made.0.is_ok() {
                return self.succeeded_at_once(made.0, true);
            }
            first = Some(made);
        }
        let mut run = RetryState::started_at(self, started);
        let limit = self.store_wait_limit(pace.as_ref());
        loop {
            let (result, mark) = match first.take() {
                Some(made) => made,
                None => {
                    if waits {
                        let before = self.wait_before(&mut run.tally, pace.as_ref());
                        let before = block_on(before, limit).unwrap_or(Ok(Duration::ZERO));
                        match run.after_wait(before) {
                            Ok(wait) if wait.is_zero() => {}
                            Ok(wait) => sleep(wait),
                            Err(outcome) => return outcome,
                        }
                    }
                    attempt_once(|| op(run.attempt()))
                }
            };
            if let Some(pace) = &pace {
                pace.report(&result);
            }
            match run.after(&result, mark, hand_back) {
                Ok(delay) if delay.is_zero() => {}
                Ok(delay) => sleep(delay),
                Err(stop) => return run.outcome(result, stop),
            }
        }
    }

    /// The longest a blocking run waits for a store before an attempt (the pauses', the
    /// pacer's).
    fn store_wait_limit(&self, pace: Option<&PaceOn<'_>>) -> Duration {
        let pauses = self.pauses.as_ref().map(|(store, _)| store.wait_limit());
        let pacer = pace.map(|p| p.pacer.store_wait_limit());
        pauses.unwrap_or_default().max(pacer.unwrap_or_default())
    }

    /// The outcome of a run whose first attempt succeeded: the budget gets its success
    /// refill (here when `refill`, else the caller awaited it), and nothing else is kept.
    #[inline]
    fn succeeded_at_once<T, E>(&self, result: Result<T, E>, refill: bool) -> Outcome<T, E> {
        if refill && let Some(budget) = &self.budget {
            budget.refill(budget.success_refill());
        }
        Outcome {
            result,
            attempts: 1,
            stop: Stop::Succeeded,
            waited: Duration::ZERO,
        }
    }

    /// Runs `op(attempt)` as [`run`](Retrier::run) does, awaiting `sleep(delay)` between
    /// attempts: any runtime's sleep works (with the `tokio` feature, pass
    /// [`tokio_sleep`](crate::retry::tokio_sleep)).
    pub async fn run_async<T, E, M, F, Fut, S, SFut>(&self, op: F, sleep: S) -> Result<T, E>
    where
        E: ErrorChain<M>,
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<T, E>>,
        S: FnMut(Duration) -> SFut,
        SFut: Future<Output = ()>,
    {
        self.run_async_detailed(op, sleep).await.result
    }

    /// [`run_async`](Retrier::run_async), telling how it ended.
    pub async fn run_async_detailed<T, E, M, F, Fut, S, SFut>(
        &self,
        op: F,
        sleep: S,
    ) -> Outcome<T, E>
    where
        E: ErrorChain<M>,
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<T, E>>,
        S: FnMut(Duration) -> SFut,
        SFut: Future<Output = ()>,
    {
        self.run_async_with(Plain(op), sleep, None, None).await
    }

    /// The async loop; `hand_back` returns chosen failures at once; `pace` paces each
    /// attempt (else the retrier's own pacer does).
    /// `op` may lend: its future may borrow `op` (a fallback's candidate and closure).
    pub(crate) async fn run_async_with<T, E, M, F, S, SFut>(
        &self,
        mut op: F,
        mut sleep: S,
        hand_back: Option<HandBack<'_>>,
        pace: Option<PaceOn<'_>>,
    ) -> Outcome<T, E>
    where
        E: ErrorChain<M>,
        F: MakeAttempt<T, E>,
        S: FnMut(Duration) -> SFut,
        SFut: Future<Output = ()>,
    {
        let pace = pace.or_else(|| self.own_pace());
        let waits = self.pauses.is_some() || pace.is_some();
        // Most calls succeed at once: with nothing to wait for first, the first attempt is
        // made before the run's state is, and a success needs none.
        let started = self.max_elapsed.map(|_| Instant::now());
        let mut first = None;
        if !waits {
            let made = attempt_polled(&mut op, 1).await;
            if made.0.is_ok() {
                if let Some(budget) = &self.budget {
                    budget.refill_async(budget.success_refill()).await;
                }
                return self.succeeded_at_once(made.0, false);
            }
            first = Some(made);
        }
        let mut run = RetryState::started_at(self, started);
        loop {
            let (result, mark) = match first.take() {
                Some(made) => made,
                None => {
                    if waits {
                        let before = self.wait_before(&mut run.tally, pace.as_ref()).await;
                        match run.after_wait(before) {
                            Ok(wait) if wait.is_zero() => {}
                            Ok(wait) => sleep(wait).await,
                            Err(outcome) => return outcome,
                        }
                    }
                    attempt_polled(&mut op, run.attempt()).await
                }
            };
            if let Some(pace) = &pace {
                pace.report(&result);
            }
            match run.after_async(&result, mark, hand_back).await {
                Ok(delay) if delay.is_zero() => {}
                Ok(delay) => sleep(delay).await,
                Err(stop) => return run.outcome(result, stop),
            }
        }
    }
}

/// Makes attempt `n` of `op`, each poll a scope: a nested run that gives up during one
/// leaves its mark.
async fn attempt_polled<T, E, F: MakeAttempt<T, E>>(
    op: &mut F,
    n: u32,
) -> (Result<T, E>, Option<Mark>) {
    let mut attempt = pin!(op.attempt(n));
    let mut mark = None;
    let result = poll_fn(|cx| {
        let scope = AttemptScope::enter();
        let poll = attempt.as_mut().poll(cx);
        if let Some(code) = scope.take_mark() {
            mark = Some(code);
        }
        poll
    })
    .await;
    (result, mark)
}

/// Makes one attempt as a scope: a nested run that gives up during it leaves its mark.
#[inline]
fn attempt_once<T, E>(op: impl FnOnce() -> Result<T, E>) -> (Result<T, E>, Option<Mark>) {
    let scope = AttemptScope::enter();
    let result = op();
    let mark = scope.take_mark();
    drop(scope);
    (result, mark)
}

/// A pacer on a key, for the attempts of one run: the retrier's own, or a fallback
/// candidate's.
pub(crate) struct PaceOn<'p> {
    pub(crate) pacer: &'p Pacer,
    pub(crate) key: &'p str,
    pub(crate) cost: Cost,
    /// Wait for nothing: a fallback with another candidate ready moves on instead.
    pub(crate) hold_back: bool,
    /// The first attempt's turn is already reserved (a fallback reserved it to choose the
    /// candidate).
    pub(crate) first_reserved: bool,
}

impl PaceOn<'_> {
    /// Feeds an attempt's outcome to the pacer's adaptive rate.
    fn report<T, E: ErrorChain<M>, M>(&self, result: &Result<T, E>) {
        match result {
            Ok(_) => self.pacer.succeeded(self.key),
            Err(e) => self.pacer.failed(self.key, e.error_chain()),
        }
    }
}

/// What the async loop calls once an attempt: an operation whose future may borrow it.
pub(crate) trait MakeAttempt<T, E> {
    /// The future of attempt `attempt`.
    fn attempt(&mut self, attempt: u32) -> impl Future<Output = Result<T, E>>;
}

/// An operation whose future owns what it needs: `FnMut(u32) -> Fut`.
pub(crate) struct Plain<F>(pub(crate) F);

impl<T, E, F, Fut> MakeAttempt<T, E> for Plain<F>
where
    F: FnMut(u32) -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    fn attempt(&mut self, attempt: u32) -> impl Future<Output = Result<T, E>> {
        (self.0)(attempt)
    }
}
