//! `Retrier`: runs an operation again while its error's own policy says to, within the caps
//! the caller sets: its settings, the waits before an attempt, and its two loops, blocking
//! and async, of one shape around a [`RetryState`](super::RetryState).

use std::any::Any;
use std::fmt;
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::budget::RetryBudget;
use super::gate::{Gate, Turn};
use super::scope::{AttemptScope, Mark, code_mark};
use super::state::{HandBack, Outcome, RetryState, Stop, Tally};
use crate::AgentError;
use crate::chain::ErrorChain;
use crate::core::jitter::JitterSource;
use crate::store::block_on;

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
/// [`gate`](Retrier::gate)s and the jitter source (one sequence, drawn by both).
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
    /// What each attempt waits for first (a shared pause, a pacer's turn).
    pub(super) gates: Vec<Arc<dyn Gate>>,
}

impl fmt::Debug for Retrier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Retrier")
            .field("max_attempts", &self.max_attempts)
            .field("max_elapsed", &self.max_elapsed)
            .field("max_wait", &self.max_wait)
            .field("on_retry", &self.on_retry.is_some())
            .field("budget", &self.budget)
            .field("gates", &self.gates)
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
            gates: Vec::new(),
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

    /// Asks `gate` before each attempt how long to wait first (see [`Gate`]), and tells it
    /// how each attempt went. With several gates, the wait is the longest any of them asks
    /// for. The library's gates, with the `recover` feature: `Pacer::on(key, cost)` paces
    /// every attempt under a provider's limits, and `SharedPauses::new(store, key)` shares
    /// the pauses servers announce (a 429's `Retry-After`) with every replica on the store.
    ///
    /// A gate's wait obeys the caps a server's `retry_after` obeys: one longer than the
    /// `max_wait` (the `rate_limit` policy's and the retrier's, or the one this run's last
    /// server delay was held to), or past the `max_elapsed`, is not waited. The run ends at
    /// once, before the attempt, with [`Stop::Paused`] and the gate's error (a `rate_limit`
    /// one whose `retry_after` is the wait needed), as an `agent_error::Error`, a boxed
    /// error or an `anyhow::Error` (whichever the operation's error type is). An error type
    /// of the caller's own cannot hold it: the attempt is then made without waiting, and the
    /// server's answer ends the run. The waits count in [`Outcome::waited`].
    #[must_use]
    pub fn gate(mut self, gate: impl Gate) -> Self {
        self.gates.push(Arc::new(gate));
        self
    }

    /// The gates each attempt waits for, in the order they were given: for a loop of the
    /// caller's own (an HTTP middleware) that finds its pacer among them to feed it each
    /// response's headers.
    pub fn gates(&self) -> impl Iterator<Item = &dyn Gate> {
        self.gates.iter().map(|gate| &**gate)
    }

    /// The gates of a run: the retrier's, and `extra`, a gate of the run's own (a fallback
    /// candidate's pacer) that takes the place of the retrier's gates of its type.
    fn gates_with<'g>(&'g self, extra: Option<&'g dyn Gate>) -> impl Iterator<Item = &'g dyn Gate> {
        // A gate's own type through its supertrait `Any` (with `Self` the `dyn Gate`, the
        // call goes through the vtable); the upcast to `&dyn Any` needs Rust 1.86.
        let type_of = |gate: &dyn Gate| <dyn Gate as Any>::type_id(gate);
        let replaced = extra.map(type_of);
        let own = self.gates();
        own.filter(move |gate| Some(type_of(*gate)) != replaced)
            .chain(extra)
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

    /// What to wait before the attempt about to be made: the longest wait the gates (the
    /// retrier's, and `extra`, a fallback candidate's) ask for; or the error that ends the
    /// run before it, when one asks for longer than the run may wait.
    pub(super) async fn wait_before(
        &self,
        t: &mut Tally,
        extra: Option<&dyn Gate>,
    ) -> Result<Duration, crate::Error> {
        let (cap, left) = self.wait_cap(t);
        let may_wait = left.map_or(cap, |left| cap.min(left));
        let mut wait = Duration::ZERO;
        for gate in self.gates_with(extra) {
            let turn = Turn::new(t.attempt, may_wait, &self.jitter);
            match gate.before(turn).await {
                Ok(asked) => wait = wait.max(asked.min(may_wait)),
                Err(held) => {
                    t.code = Some(code_mark(held.code()));
                    return Err(held);
                }
            }
        }
        Ok(wait)
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
    pub fn run<T, E: ErrorChain<M>, M>(
        &self,
        mut op: impl FnMut(u32) -> Result<T, E>,
    ) -> Result<T, E> {
        if !self.gates.is_empty() {
            return self.run_blocking(op, std::thread::sleep, None, None).result;
        }
        // The result alone: a first attempt that succeeds builds no outcome.
        let started = self.max_elapsed.map(|_| Instant::now());
        let made = attempt_once(|| op(1));
        if made.0.is_ok() {
            return self.succeeded_at_once(made.0, true).result;
        }
        self.go_on_blocking(op, std::thread::sleep, None, None, started, Some(made))
            .result
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

    /// The blocking loop; `hand_back` returns chosen failures at once; `extra` is a gate
    /// of this run's own (a fallback candidate's pacer) beside the retrier's. The same
    /// shape as the async loop, the gates waited for on this thread.
    pub(crate) fn run_blocking<T, E: ErrorChain<M>, M>(
        &self,
        mut op: impl FnMut(u32) -> Result<T, E>,
        sleep: impl FnMut(Duration),
        hand_back: Option<HandBack<'_>>,
        extra: Option<&dyn Gate>,
    ) -> Outcome<T, E> {
        let waits = !self.gates.is_empty() || extra.is_some();
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
        self.go_on_blocking(op, sleep, hand_back, extra, started, first)
    }

    /// The blocking loop from its state: `first` is the first attempt when it was made
    /// already (and failed).
    fn go_on_blocking<T, E: ErrorChain<M>, M>(
        &self,
        mut op: impl FnMut(u32) -> Result<T, E>,
        mut sleep: impl FnMut(Duration),
        hand_back: Option<HandBack<'_>>,
        extra: Option<&dyn Gate>,
        started: Option<Instant>,
        mut first: Option<(Result<T, E>, Option<Mark>)>,
    ) -> Outcome<T, E> {
        let waits = !self.gates.is_empty() || extra.is_some();
        let mut run = RetryState::started_at(self, started);
        let limit = self.gates_with(extra).map(|g| g.wait_limit()).max();
        let limit = limit.unwrap_or_default();
        loop {
            let (result, mark) = match first.take() {
                Some(made) => made,
                None => {
                    if waits {
                        let before = self.wait_before(&mut run.tally, extra);
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
            if waits {
                self.tell_gates(extra, &result);
            }
            match run.after(&result, mark, hand_back) {
                Ok(delay) if delay.is_zero() => {}
                Ok(delay) => sleep(delay),
                Err(stop) => return run.outcome(result, stop),
            }
        }
    }

    /// Tells the gates how an attempt went.
    fn tell_gates<T, E: ErrorChain<M>, M>(&self, extra: Option<&dyn Gate>, result: &Result<T, E>) {
        let failure = result.as_ref().err().map(ErrorChain::error_chain);
        for gate in self.gates_with(extra) {
            gate.after(failure);
        }
    }

    /// The outcome of a run whose first attempt succeeded: the budget gets its success
    /// refill (here when `refill`, else the caller awaited it), and nothing else is kept.
    #[inline]
    fn succeeded_at_once<T, E>(&self, result: Result<T, E>, refill: bool) -> Outcome<T, E> {
        if refill {
            if let Some(budget) = &self.budget {
                budget.refill(budget.success_refill());
            }
        }
        Outcome {
            result,
            attempts: 1,
            stop: Stop::Succeeded,
            waited: Duration::ZERO,
            record: super::AttemptRecord::default(),
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

    /// The async loop; `hand_back` returns chosen failures at once; `extra` is a gate of
    /// this run's own (a fallback candidate's pacer) beside the retrier's.
    /// `op` may lend: its future may borrow `op` (a fallback's candidate and closure).
    pub(crate) async fn run_async_with<T, E, M, F, S, SFut>(
        &self,
        mut op: F,
        mut sleep: S,
        hand_back: Option<HandBack<'_>>,
        extra: Option<&dyn Gate>,
    ) -> Outcome<T, E>
    where
        E: ErrorChain<M>,
        F: MakeAttempt<T, E>,
        S: FnMut(Duration) -> SFut,
        SFut: Future<Output = ()>,
    {
        let waits = !self.gates.is_empty() || extra.is_some();
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
                        let before = self.wait_before(&mut run.tally, extra).await;
                        match run.after_wait(before) {
                            Ok(wait) if wait.is_zero() => {}
                            Ok(wait) => sleep(wait).await,
                            Err(outcome) => return outcome,
                        }
                    }
                    attempt_polled(&mut op, run.attempt()).await
                }
            };
            if waits {
                self.tell_gates(extra, &result);
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
