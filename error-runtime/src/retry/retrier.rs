//! `Retrier`: runs an operation again while its error's own policy says to, within the caps
//! the caller sets. One decision function serves the blocking and the async loop.

use std::borrow::Borrow;
use std::error::Error as StdError;
use std::fmt;
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::budget::RetryBudget;
use super::code::CodeSlot;
use super::jitter::{self, JitterSource};
use super::scope::{self, AttemptScope, Mark};
use crate::AgentError;
use crate::chain::ErrorChain;
use crate::core::classify::{Answer, Classified, answer_as_before, classify_seeing};
use crate::core::registry::Seen;
use crate::pace::{Cost, Pacer};
use crate::store::{Pause, PauseStore, block_on, seconds_text};

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
///   retrier's own cap counts every attempt ([`Retrier::DEFAULT_MAX_ATTEMPTS`] unless set);
///   and since a server chooses the codes of its answers, a run's failures in all stay
///   below twice the largest `max_attempts` of their policies (6 attempts with the default
///   policies, however the codes alternate);
/// - a retry that would end after `max_elapsed` is not made;
/// - with a shared [`RetryBudget`], a retry the budget cannot pay for is not made;
/// - an error that a retrier nested in the same call path already gave up on is not retried
///   again ([`Stop::AlreadyRetried`], see below).
///
/// An operation fails with one error type, attempt after attempt and run after run: the
/// retrier remembers what recognised its last failure (that type's registration, or the
/// classifiers of a lone foreign link's type) and tries it first, with the answer `classify`
/// would give. Keep a retrier rather than make one per call.
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
/// unchanged.
///
/// # Cloning
///
/// A `Retrier` is cheap to clone (a few words and reference counts), so one configured
/// retrier can be handed to a [`Fallback`](crate::recover::Fallback) or a layer and kept.
/// A clone shares what is meant to be shared: the [`RetryBudget`], the `on_retry` hook, the
/// store of [`pauses`](Retrier::pauses) and the jitter source (one sequence, drawn by both).
/// Its caps are copied (and what it remembers of the last failure): changing a clone's
/// `max_attempts` leaves the original as it was.
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
    max_attempts: u32,
    max_elapsed: Option<Duration>,
    max_wait: Duration,
    on_retry: Option<Arc<OnRetry>>,
    budget: Option<RetryBudget>,
    jitter: Arc<JitterSource>,
    /// Server-announced pauses shared through a store, under the caller's key.
    pauses: Option<(std::sync::Arc<dyn PauseStore>, std::sync::Arc<str>)>,
    /// The pacer every attempt acquires from first, its key and each attempt's cost.
    pacer: Option<(Pacer, Arc<str>, Cost)>,
    /// What recognised the outermost link of the last failure of the last run: a retrier
    /// kept for one operation meets its error type run after run.
    seen: LastSeen,
}

/// A [`Seen`] shared by the runs of one retrier (and copied by a clone), read at a run's
/// start and written when it changes. Any value read is safe: a stale one only costs a
/// missed first try.
struct LastSeen(AtomicUsize);

impl LastSeen {
    fn get(&self) -> Seen {
        Seen::from_bits(self.0.load(Ordering::Relaxed))
    }

    fn set(&self, seen: Seen) {
        self.0.store(seen.to_bits(), Ordering::Relaxed);
    }
}

impl Clone for LastSeen {
    fn clone(&self) -> Self {
        LastSeen(AtomicUsize::new(self.0.load(Ordering::Relaxed)))
    }
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

/// How a [`Retrier`] run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Stop {
    /// The operation succeeded.
    Succeeded,
    /// The error is not retryable, or not classified at all.
    Permanent,
    /// The attempts allowed by the policy or the retrier were used up.
    AttemptsExhausted,
    /// The shared [`RetryBudget`] could not pay for another retry.
    BudgetEmpty,
    /// Another retry would end after the retrier's `max_elapsed`.
    Deadline,
    /// The server asked to wait longer than `max_wait`.
    WaitTooLong,
    /// A retrier nested in this attempt's call path already retried this error and gave
    /// up on it: retrying it here too would multiply the attempts (see [`Retrier`]).
    AlreadyRetried,
    /// The error asks for another candidate (rate-limited, or recovery `fallback`) and the
    /// caller has one to move to: `recover::Fallback` moves on
    /// instead of retrying.
    FellBack,
    /// A pause shared through the store ([`Retrier::pauses`]) lasts longer than this run
    /// may wait (its `max_wait`, or past its `max_elapsed`): no further attempt was made,
    /// and the error is a `rate_limit` one whose `retry_after` is the wait left (see
    /// [`Retrier::pauses`]).
    Paused,
}

impl Stop {
    /// A short lowercase name (`"succeeded"`, `"budget_empty"`, …), for logs and metrics.
    pub const fn as_str(self) -> &'static str {
        match self {
            Stop::Succeeded => "succeeded",
            Stop::Permanent => "permanent",
            Stop::AttemptsExhausted => "attempts_exhausted",
            Stop::BudgetEmpty => "budget_empty",
            Stop::Deadline => "deadline",
            Stop::WaitTooLong => "wait_too_long",
            Stop::AlreadyRetried => "already_retried",
            Stop::FellBack => "fell_back",
            Stop::Paused => "paused",
        }
    }

    /// Whether the run gave up on an error that its policy called retryable: attempts
    /// exhausted, budget empty, deadline, a wait too long, a shared pause too long, or an
    /// inner retrier's give-up.
    pub const fn gave_up(self) -> bool {
        match self {
            Stop::AttemptsExhausted
            | Stop::BudgetEmpty
            | Stop::Deadline
            | Stop::WaitTooLong
            | Stop::AlreadyRetried
            | Stop::Paused => true,
            Stop::Succeeded | Stop::Permanent | Stop::FellBack => false,
        }
    }
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// The result of a run, with how it ended.
#[derive(Debug)]
#[must_use]
pub struct Outcome<T, E> {
    /// What the last attempt returned.
    pub result: Result<T, E>,
    /// Attempts made in all, the first one included.
    pub attempts: u32,
    /// How the run ended.
    pub stop: Stop,
    /// The delays waited in all.
    pub waited: Duration,
}

impl<T, E> Outcome<T, E> {
    /// The result alone.
    pub fn into_result(self) -> Result<T, E> {
        self.result
    }
}

/// Whether a classified failure goes back to the caller at once, unretried ([`Stop::FellBack`]).
pub(crate) type HandBack<'h> = &'h (dyn Fn(&dyn AgentError) -> bool + Sync);

/// One run of a [`Retrier`], driven attempt by attempt: for code that owns its loop, such
/// as an HTTP middleware, and for the retrier's own loops. The decision after a failure is
/// the one [`Retrier`]'s documentation describes (the same function makes it), with the
/// same caps, budget, jitter and `on_retry` hook.
///
/// `R` is how the state holds its retrier: `&Retrier` ([`Retrier::start`]) or an
/// `Arc<Retrier>` for a state that must own it (a future handed to a runtime).
///
/// ```
/// use std::time::Duration;
/// use agent_error::{http::StatusError, retry::{Retrier, Stop}};
///
/// let retrier = Retrier::new().seed(1);
/// let mut run = retrier.start();
/// assert_eq!(run.attempt(), 1);
/// // The first response was a 429 asking for 2 seconds: wait them, then make attempt 2.
/// let throttled = StatusError::new(429).with_retry_after(Duration::from_secs(2));
/// assert_eq!(run.next_delay(&throttled), Ok(Duration::from_secs(2)));
/// assert_eq!(run.attempt(), 2);
/// // A 400 is not retried.
/// assert_eq!(run.next_delay(&StatusError::new(400)), Err(Stop::Permanent));
/// ```
pub struct RetryState<R: Borrow<Retrier>> {
    retrier: R,
    tally: Tally,
    /// What recognised the last failure's outermost link, tried first on the next (an
    /// operation fails with one error type, attempt after attempt).
    seen: Seen,
}

/// What a run has counted so far: read and updated by each decision.
#[derive(Debug)]
struct Tally {
    /// The attempt being made, 1 for the first.
    attempt: u32,
    /// When the run started; read only when there is a `max_elapsed` to enforce.
    started: Option<Instant>,
    waited: Duration,
    previous: Option<Duration>,
    spent: u32,
    /// The last retryable failure's code (what a give-up marks), and how many failures in
    /// a row had it.
    code: CodeSlot,
    streak: u32,
    /// With shared pauses: the delay the server asked for after the last failure, and its code.
    announced: Option<(Duration, String)>,
    /// Retryable failures in all, whatever their codes.
    failures: u32,
    /// The largest `max_attempts` of the policies of the run's failures.
    most_attempts: u32,
    /// The delays the server asked for (`retry_after`) and that were waited, in all.
    asked: Duration,
    /// The `max_wait` that the last server delay of this run was held to: a shared pause
    /// is held to it too (to the `rate_limit` policy's and the retrier's before any).
    pause_cap: Option<Duration>,
}

impl<R: Borrow<Retrier>> fmt::Debug for RetryState<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RetryState")
            .field("attempt", &self.tally.attempt)
            .field("waited", &self.tally.waited)
            .field("spent", &self.tally.spent)
            .finish_non_exhaustive()
    }
}

/// Binds `$failure` to the classification of `$err` in the run `$run`, or returns
/// `Err(Stop::Permanent)` when nothing classifies it. What recognised the last failure is
/// tried first (the operation fails with one error type): a failure so recognised is a
/// reference, or a classifier's answer kept in the caller's frame, with no `Classified` to
/// build and move. A macro, so that the answer can live in that frame.
macro_rules! let_failure {
    ($run:ident, $err:expr => $failure:ident) => {
        let (built, classified);
        let $failure: &dyn AgentError = match answer_as_before($err, $run.seen) {
            Some(Answer::Agent(failure)) => failure,
            Some(Answer::Built(failure)) => {
                built = failure;
                &built
            }
            Some(Answer::Unclassified) => return Err(Stop::Permanent),
            None => match $run.classify_afresh($err) {
                Some(failure) => {
                    classified = failure;
                    &*classified
                }
                None => return Err(Stop::Permanent),
            },
        };
    };
}

impl<R: Borrow<Retrier>> RetryState<R> {
    /// A run of `retrier` that has not made its first attempt yet; the clock of
    /// `max_elapsed` starts now.
    #[inline]
    pub fn new(retrier: R) -> Self {
        let started = retrier.borrow().max_elapsed.map(|_| Instant::now());
        Self::started_at(retrier, started)
    }

    /// A run whose `max_elapsed` clock started at `started` (none without a `max_elapsed`).
    fn started_at(retrier: R, started: Option<Instant>) -> Self {
        let seen = retrier.borrow().seen.get();
        RetryState {
            retrier,
            tally: Tally {
                attempt: 1,
                started,
                waited: Duration::ZERO,
                previous: None,
                spent: 0,
                code: CodeSlot::new(),
                streak: 0,
                failures: 0,
                most_attempts: 0,
                asked: Duration::ZERO,
                announced: None,
                pause_cap: None,
            },
            seen,
        }
    }

    /// The retrier deciding.
    pub fn retrier(&self) -> &R {
        &self.retrier
    }

    /// The attempt being made (or just made): 1 for the first.
    pub fn attempt(&self) -> u32 {
        self.tally.attempt
    }

    /// The delays decided so far, in all.
    pub fn waited(&self) -> Duration {
        self.tally.waited
    }

    /// Waits to be done before the attempt about to be made, for a loop of the caller's
    /// own: the shared pause in force ([`Retrier::pauses`]) and the pacer's turn
    /// ([`Retrier::pacer`]), as the retrier's own loops wait them. `Ok(wait)`: sleep
    /// `wait`, then make the attempt (the wait counts in [`waited`](Self::waited));
    /// `Err(error)`: it would wait longer than the run may, end it with this `rate_limit`
    /// error (whose `retry_after` is the wait needed).
    pub async fn before_attempt(&mut self) -> Result<Duration, crate::Error> {
        let retrier: &Retrier = self.retrier.borrow();
        let pace = retrier.own_pace();
        let wait = retrier.wait_before(&mut self.tally, pace.as_ref()).await?;
        self.tally.waited = self.tally.waited.saturating_add(wait);
        Ok(wait)
    }

    /// Tells the run that the current attempt succeeded: a shared [`RetryBudget`] gets back
    /// what this run spent, or its success refill when no retry was needed.
    pub fn succeeded(&mut self) {
        if let Some(budget) = &self.retrier.borrow().budget {
            budget.refill(self.refund(budget));
        }
    }

    /// [`succeeded`](Self::succeeded) that awaits a shared budget's store instead of
    /// blocking the thread.
    pub async fn succeeded_async(&mut self) {
        if let Some(budget) = &self.retrier.borrow().budget {
            budget.refill_async(self.refund(budget)).await;
        }
    }

    /// What a success gives back to `budget`.
    fn refund(&self, budget: &RetryBudget) -> u32 {
        if self.tally.attempt == 1 {
            budget.success_refill()
        } else {
            self.tally.spent
        }
    }

    /// Decides after the current attempt failed with `failure` (a classified error, or a
    /// classified response such as an `http::StatusError`):
    /// `Ok(delay)` to wait that long and make the next attempt (the attempt number moves on,
    /// the budget has paid, the `on_retry` hook has been called), or `Err(stop)` to give up.
    pub fn next_delay(&mut self, failure: &dyn AgentError) -> Result<Duration, Stop> {
        let delay = self.decide(failure)?;
        self.tally.attempt += 1;
        Ok(delay)
    }

    /// [`next_delay`](Self::next_delay) for an error chain, classified with
    /// [`classify`](crate::classify); an unclassified error is [`Stop::Permanent`].
    pub fn next_delay_for(&mut self, err: &(dyn StdError + 'static)) -> Result<Duration, Stop> {
        let_failure!(self, err => failure);
        self.next_delay(failure)
    }

    /// [`next_delay`](Self::next_delay) that awaits a shared [`RetryBudget`]'s store
    /// instead of blocking the thread: what an async loop of the caller's own calls.
    pub async fn next_delay_async(
        &mut self,
        failure: &(dyn AgentError + Sync),
    ) -> Result<Duration, Stop> {
        let planned = self.plan(failure)?;
        self.pay(planned).await?;
        let delay = commit(
            Some(failure),
            planned,
            &mut self.tally,
            self.retrier.borrow(),
        );
        self.tally.attempt += 1;
        Ok(delay)
    }

    /// [`next_delay_for`](Self::next_delay_for) that awaits a shared [`RetryBudget`]'s
    /// store instead of blocking the thread.
    pub async fn next_delay_for_async(
        &mut self,
        err: &(dyn StdError + Sync + 'static),
    ) -> Result<Duration, Stop> {
        let planned = self.plan_for(err)?;
        self.pay(planned).await?;
        self.commit_for(err, planned)
    }

    /// The decision after `failure` but for the budget's payment.
    fn plan(&mut self, failure: &dyn AgentError) -> Result<Planned, Stop> {
        plan(failure, &mut self.tally, self.retrier.borrow())
    }

    /// [`plan`](Self::plan) for an error chain.
    fn plan_for(&mut self, err: &(dyn StdError + 'static)) -> Result<Planned, Stop> {
        let_failure!(self, err => failure);
        self.plan(failure)
    }

    /// Pays a planned retry from the budget, awaiting its store.
    async fn pay(&self, planned: Planned) -> Result<(), Stop> {
        match (&self.retrier.borrow().budget, planned.cost) {
            (Some(budget), Some(cost)) if !budget.try_spend_async(cost).await => {
                Err(Stop::BudgetEmpty)
            }
            _ => Ok(()),
        }
    }

    /// Completes a paid retry after `err`: the `on_retry` hook (given `err` classified
    /// again: a classification is not held across the payment's await, so that the run's
    /// future stays `Send`), and the attempt number moves on.
    fn commit_for(
        &mut self,
        err: &(dyn StdError + 'static),
        planned: Planned,
    ) -> Result<Duration, Stop> {
        let delay = if self.retrier.borrow().on_retry.is_some() {
            let_failure!(self, err => failure);
            commit(
                Some(failure),
                planned,
                &mut self.tally,
                self.retrier.borrow(),
            )
        } else {
            commit(None, planned, &mut self.tally, self.retrier.borrow())
        };
        self.tally.attempt += 1;
        Ok(delay)
    }

    /// `err` classified by the whole walk (what recognised the last failure did not
    /// recognise it); what recognised it is kept for the next failure, and the retrier's
    /// next run.
    fn classify_afresh<'e>(&mut self, err: &'e (dyn StdError + 'static)) -> Option<Classified<'e>> {
        let before = self.seen;
        self.seen = Seen::Nothing;
        let classified = classify_seeing(err, Some(&mut self.seen));
        if self.seen != before {
            self.retrier.borrow().seen.set(self.seen);
        }
        classified
    }

    /// Decides after an attempt of the retrier's own loops: wait and try again (the attempt
    /// number moves on), or stop. `mark` is the code a nested run gave up on during the
    /// attempt; `hand_back` returns chosen failures at once.
    fn after<T, E: ErrorChain<M>, M>(
        &mut self,
        result: &Result<T, E>,
        mark: Option<Mark>,
        hand_back: Option<HandBack<'_>>,
    ) -> Result<Duration, Stop> {
        let decision = self.after_with(result, mark, hand_back, Self::next_delay);
        if decision == Err(Stop::Succeeded) {
            self.succeeded();
        }
        decision
    }

    /// [`after`](Self::after) for the async loop: the payment of a shared budget and the
    /// refill after a success are awaited.
    async fn after_async<T, E: ErrorChain<M>, M>(
        &mut self,
        result: &Result<T, E>,
        mark: Option<Mark>,
        hand_back: Option<HandBack<'_>>,
    ) -> Result<Duration, Stop> {
        match self.after_with(result, mark, hand_back, Self::plan) {
            Ok(planned) => {
                self.pay(planned).await?;
                let err = result.as_ref().err().map(ErrorChain::error_chain);
                // A planned retry follows a failure: `err` is always there.
                let Some(err) = err else {
                    return Err(Stop::Permanent);
                };
                self.commit_for(err, planned)
            }
            Err(Stop::Succeeded) => {
                self.succeeded_async().await;
                Err(Stop::Succeeded)
            }
            Err(stop) => Err(stop),
        }
    }

    /// What both loops decide after an attempt: `Err(Stop::Succeeded)` (nothing refilled
    /// yet), a stop, or what `decide` makes of the failure.
    fn after_with<T, E: ErrorChain<M>, M, D>(
        &mut self,
        result: &Result<T, E>,
        mark: Option<Mark>,
        hand_back: Option<HandBack<'_>>,
        decide: impl FnOnce(&mut Self, &dyn AgentError) -> Result<D, Stop>,
    ) -> Result<D, Stop> {
        let err = match result {
            Ok(_) => return Err(Stop::Succeeded),
            Err(e) => e.error_chain(),
        };
        let_failure!(self, err => failure);
        if hand_back.is_some_and(|hand_back| hand_back(failure)) {
            return Err(Stop::FellBack);
        }
        if let Some(mark) = mark
            && failure.is_retryable()
            && (*mark == *failure.code() || chain_has_code(err, &mark))
        {
            self.tally.code.set(failure.code());
            return Err(Stop::AlreadyRetried);
        }
        decide(self, failure)
    }

    /// Ends the run before an attempt because a shared pause lasts longer than it may
    /// wait, with `paused` as the operation's error type holds it. An error type that
    /// cannot hold it (a type of the caller's own) gets `None`: the attempt is made
    /// without waiting, and the server's own answer ends the run.
    fn paused<T, E: ErrorChain<M>, M>(&self, paused: crate::Error) -> Option<Outcome<T, E>> {
        let error = E::__from_runtime_error(paused)?;
        scope::gave_up(|| self.tally.code.get());
        Some(Outcome {
            result: Err(error),
            attempts: self.tally.attempt - 1,
            stop: Stop::Paused,
            waited: self.tally.waited,
        })
    }

    /// How the run ended; a give-up marks the enclosing attempt, if any.
    fn outcome<T, E>(&self, result: Result<T, E>, stop: Stop) -> Outcome<T, E> {
        if stop.gave_up() {
            scope::gave_up(|| self.tally.code.get());
        }
        Outcome {
            result,
            attempts: self.tally.attempt,
            stop,
            waited: self.tally.waited,
        }
    }

    /// The one decision: whether and how long to wait after the current attempt failed
    /// with `failure`.
    fn decide(&mut self, failure: &dyn AgentError) -> Result<Duration, Stop> {
        decide(failure, &mut self.tally, self.retrier.borrow())
    }
}

/// The one decision: whether and how long to wait after attempt `t.attempt` failed with
/// `failure`, with a budget's payment made on this thread.
#[inline]
fn decide(failure: &dyn AgentError, t: &mut Tally, r: &Retrier) -> Result<Duration, Stop> {
    let planned = plan(failure, t, r)?;
    if let (Some(budget), Some(cost)) = (&r.budget, planned.cost)
        && !budget.try_spend(cost)
    {
        return Err(Stop::BudgetEmpty);
    }
    Ok(commit(Some(failure), planned, t, r))
}

/// A retry decided on but for its budget's payment: its delay, and what the budget must
/// pay (nothing without a budget).
#[derive(Clone, Copy, Debug)]
struct Planned {
    delay: Duration,
    cost: Option<u32>,
}

/// The decision up to the budget's payment: every cap is checked.
#[inline]
fn plan(failure: &dyn AgentError, t: &mut Tally, r: &Retrier) -> Result<Planned, Stop> {
    let policy = failure.retry_policy();
    if !policy.is_retryable() {
        return Err(Stop::Permanent);
    }
    let code = failure.code();
    if t.code.is(code) {
        t.streak += 1;
    } else {
        t.code.set(code);
        t.streak = 1;
    }
    t.failures = t.failures.saturating_add(1);
    t.most_attempts = t.most_attempts.max(policy.max_attempts());
    // A server that changes its answer's code (429, 503, 504, …) starts a new streak each
    // time: in all, the run's failures stay below twice the largest policy's attempts.
    if t.streak >= policy.max_attempts()
        || t.attempt >= r.max_attempts
        || t.failures >= t.most_attempts.saturating_mul(2)
    {
        return Err(Stop::AttemptsExhausted);
    }
    let delay = match policy.retry_after() {
        None => jitter::delay(&policy, t.streak - 1, t.previous, &r.jitter),
        Some(asked) => server_delay(failure, &policy, asked, t, r)?,
    };
    if r.max_elapsed.is_some() {
        within_elapsed(delay, t, r)?;
    }
    Ok(Planned {
        delay,
        cost: r.budget.as_ref().map(|b| b.cost_of(code)),
    })
}

/// Completes a retry whose budget has paid: the `on_retry` hook (given the failure when
/// there is one) is called, and the delay counted.
#[inline]
fn commit(
    failure: Option<&dyn AgentError>,
    planned: Planned,
    t: &mut Tally,
    r: &Retrier,
) -> Duration {
    let delay = planned.delay;
    if let Some(cost) = planned.cost {
        t.spent = t.spent.saturating_add(cost);
    }
    if let (Some(hook), Some(failure)) = (&r.on_retry, failure) {
        hook(failure, t.attempt, delay);
    }
    t.waited = t.waited.saturating_add(delay);
    t.previous = Some(delay);
    delay
}

/// The delay a server asked for (`retry_after`), if the run may still wait it.
#[inline(never)]
fn server_delay(
    failure: &dyn AgentError,
    policy: &crate::RetryPolicy,
    asked: Duration,
    t: &mut Tally,
    r: &Retrier,
) -> Result<Duration, Stop> {
    // The delays a server asks for add up, in one run, to at most the `max_wait` that each
    // of them is held to: changing codes buys it no more waiting.
    let cap = policy.max_wait().min(r.max_wait);
    if t.asked.saturating_add(asked) > cap {
        return Err(Stop::WaitTooLong);
    }
    t.pause_cap = Some(cap);
    if r.pauses.is_some() {
        t.announced = Some((asked, failure.code().to_owned()));
    }
    t.asked = t.asked.saturating_add(asked);
    Ok(asked)
}

/// Whether the run may still wait `delay` within its `max_elapsed`.
#[inline(never)]
fn within_elapsed(delay: Duration, t: &Tally, r: &Retrier) -> Result<(), Stop> {
    if let (Some(limit), Some(started)) = (r.max_elapsed, t.started) {
        // Real time includes real sleeps; the sum of delays covers a sleep that only pretends.
        let elapsed = started.elapsed().max(t.waited);
        if elapsed.saturating_add(delay) > limit {
            return Err(Stop::Deadline);
        }
    }
    Ok(())
}

/// The error a run ends with when a shared pause lasts longer than it may wait: a
/// `rate_limit` error whose `retry_after` is the wait left.
fn paused_error(wait: Duration, code: &str) -> crate::Error {
    crate::Error::new(
        "retry.pause",
        crate::codes::RATE_LIMIT,
        format!(
            "a shared pause ({}) lasts {} more, longer than this call may wait",
            // Another writer's value: only a well-formed code is repeated.
            if crate::codes::is_valid_code(code) {
                code
            } else {
                "unknown code"
            },
            seconds_text(wait)
        ),
    )
    .with_retry_after(wait)
}

/// Whether a link of `err`'s chain is classified with the code `code`.
fn chain_has_code(err: &(dyn StdError + 'static), code: &str) -> bool {
    crate::chain::links(err)
        .any(|link| crate::core::classify::classify_link(link).is_some_and(|c| c.code() == code))
}

impl Retrier {
    /// The retrier's cap on attempts in all when none is set: 10. It bounds a run whose
    /// failures keep changing code, each within its own policy.
    pub const DEFAULT_MAX_ATTEMPTS: u32 = 10;

    /// A retrier whose only cap of its own is [`DEFAULT_MAX_ATTEMPTS`](Self::DEFAULT_MAX_ATTEMPTS):
    /// each error's policy decides. Jitter is seeded from the process's random hasher keys.
    pub fn new() -> Self {
        Retrier {
            max_attempts: Self::DEFAULT_MAX_ATTEMPTS,
            max_elapsed: None,
            max_wait: Duration::MAX,
            on_retry: None,
            budget: None,
            jitter: Arc::new(JitterSource::from_entropy()),
            pauses: None,
            pacer: None,
            seen: LastSeen(AtomicUsize::new(0)),
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
    fn own_pace(&self) -> Option<PaceOn<'_>> {
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
    async fn wait_before(
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
                t.code.set(crate::codes::RATE_LIMIT);
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
        t.code.set(crate::codes::RATE_LIMIT);
        Err(paused_error(pause.remaining, &pause.code))
    }

    /// Announces the pause a failure asked for; the pre-attempt wait then waits it out.
    /// Returns the delay still to wait before that (none once it is shared).
    async fn announce<R: Borrow<Retrier>>(
        &self,
        run: &mut RetryState<R>,
        delay: Duration,
    ) -> Duration {
        let (Some((store, key)), Some((asked, code))) = (&self.pauses, run.tally.announced.take())
        else {
            return delay;
        };
        store.set_pause(key, asked, &code).await;
        run.tally.waited = run.tally.waited.saturating_sub(delay);
        Duration::ZERO
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
    /// attempt (else the retrier's own pacer does).
    pub(crate) fn run_blocking<T, E: ErrorChain<M>, M>(
        &self,
        mut op: impl FnMut(u32) -> Result<T, E>,
        mut sleep: impl FnMut(Duration),
        hand_back: Option<HandBack<'_>>,
        pace: Option<PaceOn<'_>>,
    ) -> Outcome<T, E> {
        let limit = self.pauses.as_ref().map(|(store, _)| store.wait_limit());
        let pace = pace.or_else(|| self.own_pace());
        // Most calls succeed at once: without a pause or a pacer to wait for first, the
        // first attempt is made before the run's state is, and a success needs none.
        let mut first = None;
        let mut run = if limit.is_none() && pace.is_none() {
            let started = self.max_elapsed.map(|_| Instant::now());
            let (result, mark) = attempt_once(|| op(1));
            if result.is_ok() {
                return self.succeeded_at_once(result, true);
            }
            first = Some((result, mark));
            RetryState::started_at(self, started)
        } else {
            self.start()
        };
        let before_limit = limit.unwrap_or_default().max(
            pace.as_ref()
                .map_or(Duration::ZERO, |p| p.pacer.store_wait_limit()),
        );
        loop {
            let (result, mark) = match first.take() {
                Some(made) => made,
                None => {
                    if limit.is_some() || pace.is_some() {
                        let before = self.wait_before(&mut run.tally, pace.as_ref());
                        match block_on(before, before_limit).unwrap_or(Ok(Duration::ZERO)) {
                            Ok(wait) if !wait.is_zero() => {
                                sleep(wait);
                                run.tally.waited = run.tally.waited.saturating_add(wait);
                            }
                            Ok(_) => {}
                            Err(held) => {
                                if let Some(outcome) = run.paused(held) {
                                    return outcome;
                                }
                            }
                        }
                    }
                    attempt_once(|| op(run.attempt()))
                }
            };
            if let Some(pace) = &pace {
                pace.report(&result);
            }
            match run.after(&result, mark, hand_back) {
                Ok(delay) => {
                    let delay = match limit {
                        Some(limit) => {
                            block_on(self.announce(&mut run, delay), limit).unwrap_or(delay)
                        }
                        None => delay,
                    };
                    if !(delay.is_zero() && limit.is_some()) {
                        sleep(delay);
                    }
                }
                Err(stop) => return run.outcome(result, stop),
            }
        }
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
        // Most calls succeed at once: without a pause or a pacer to wait for first, the
        // first attempt is made before the run's state is, and a success needs none.
        let mut first = None;
        let mut run = if self.pauses.is_none() && pace.is_none() {
            let started = self.max_elapsed.map(|_| Instant::now());
            let (result, mark) = attempt_polled(&mut op, 1).await;
            if result.is_ok() {
                if let Some(budget) = &self.budget {
                    budget.refill_async(budget.success_refill()).await;
                }
                return self.succeeded_at_once(result, false);
            }
            first = Some((result, mark));
            RetryState::started_at(self, started)
        } else {
            self.start()
        };
        loop {
            let (result, mark) = match first.take() {
                Some(made) => made,
                None => {
                    if self.pauses.is_some() || pace.is_some() {
                        let before = self.wait_before(&mut run.tally, pace.as_ref());
                        match before.await {
                            Ok(wait) if !wait.is_zero() => {
                                sleep(wait).await;
                                run.tally.waited = run.tally.waited.saturating_add(wait);
                            }
                            Ok(_) => {}
                            Err(held) => {
                                if let Some(outcome) = run.paused(held) {
                                    return outcome;
                                }
                            }
                        }
                    }
                    attempt_polled(&mut op, run.attempt()).await
                }
            };
            if let Some(pace) = &pace {
                pace.report(&result);
            }
            match run.after_async(&result, mark, hand_back).await {
                Ok(delay) if self.pauses.is_some() => {
                    let delay = self.announce(&mut run, delay).await;
                    if !delay.is_zero() {
                        sleep(delay).await;
                    }
                }
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
