//! One run of a [`Retrier`], attempt by attempt: [`decide`], the one decision after a
//! failure, and the steps around it that every loop takes the same way (the wait before an
//! attempt, the budget's payment, the pause announced to the fleet). The retrier's own
//! loops, the tower and reqwest layers and a caller's own loop all drive a [`RetryState`].

use std::borrow::Borrow;
use std::error::Error as StdError;
use std::fmt;
use std::time::{Duration, Instant};

use super::Retrier;
use super::budget::RetryBudget;
use super::record::{AttemptRecord, WaitSource};
use super::scope::{self, Mark, code_mark};
use crate::AgentError;
use crate::chain::ErrorChain;
use crate::core::classify::classify_then;
use crate::store::block_on;

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
    /// The caller asked for this failure back instead of a retry: `recover::Fallback`
    /// does, for an error that asks for another candidate when it has one.
    HandedBack,
    /// A [`gate`](Retrier::gate) (a pause shared through a store, a pacer's turn) asked
    /// to wait longer than this run may (its `max_wait`, or past its `max_elapsed`): no
    /// further attempt was made, and the error is the gate's, a `rate_limit` one whose
    /// `retry_after` is the wait needed (see [`Retrier::gate`]).
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
            Stop::HandedBack => "handed_back",
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
            Stop::Succeeded | Stop::Permanent | Stop::HandedBack => false,
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
    /// Each failed attempt's code, the wait after it and where that wait came from
    /// (capped: see [`AttemptRecord`]).
    pub record: AttemptRecord,
}

impl<T, E> Outcome<T, E> {
    /// The result alone.
    pub fn into_result(self) -> Result<T, E> {
        self.result
    }

    /// The run in one line, for a log: `3 attempts: rate_limit (waited 2.0s, header),
    /// provider_unavailable (waited 400ms, backoff); succeeded`.
    pub fn summary(&self) -> impl fmt::Display + '_ {
        Summary {
            attempts: self.attempts,
            record: &self.record,
            stop: self.stop,
        }
    }
}

/// [`Outcome::summary`].
pub(super) struct Summary<'a> {
    pub(super) attempts: u32,
    pub(super) record: &'a AttemptRecord,
    pub(super) stop: Stop,
}

impl fmt::Display for Summary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = if self.attempts == 1 { "" } else { "s" };
        write!(f, "{} attempt{s}", self.attempts)?;
        if !self.record.is_empty() {
            write!(f, ": {}", self.record)?;
        }
        write!(f, "; {}", self.stop)
    }
}

/// Whether a classified failure goes back to the caller at once, unretried ([`Stop::HandedBack`]).
pub(crate) type HandBack<'h> = &'h (dyn Fn(&dyn AgentError) -> bool + Sync);

/// One run of a [`Retrier`], driven attempt by attempt: for code that owns its loop, such
/// as an HTTP middleware, and for the retrier's own loops. Each attempt is:
///
/// 1. [`before_attempt`](Self::before_attempt): wait what the retrier's
///    [`gate`](Retrier::gate)s say (a pause another replica shared, the pacer's turn), or
///    end the run with the error;
/// 2. the attempt;
/// 3. on success [`succeeded`](Self::succeeded); on failure
///    [`next_delay`](Self::next_delay) (or its `_for` and `_async` forms): wait the delay
///    it gives and go to 1, or stop.
///
/// The decision after a failure is the one [`Retrier`]'s documentation describes, with the
/// same caps, budget, jitter and `on_retry` hook. With a gate that shares pauses
/// ([`Gate::shares_pauses`](super::Gate::shares_pauses)), a delay the server asked for is
/// announced to it, for every replica, and waited in step 1 (then `next_delay` gives zero).
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
    pub(super) tally: Tally,
}

/// What a run has counted so far: read and updated by each decision.
#[derive(Debug)]
pub(super) struct Tally {
    /// The attempt being made, 1 for the first.
    pub(super) attempt: u32,
    /// When the run started; read only when there is a `max_elapsed` to enforce.
    pub(super) started: Option<Instant>,
    /// The delays decided and waited so far, in all.
    pub(super) waited: Duration,
    /// The delay before the last retry (decorrelated jitter grows from it).
    previous: Option<Duration>,
    /// What the budget paid for this run's retries.
    spent: u32,
    /// The last retryable failure's code, as a mark (what a give-up leaves), and how many
    /// failures in a row had it.
    pub(super) code: Option<Mark>,
    streak: u32,
    /// Retryable failures in all, whatever their codes, and the largest `max_attempts` of
    /// their policies.
    failures: u32,
    most_attempts: u32,
    /// The delays the server asked for (`retry_after`) in all, and the `max_wait` the last
    /// of them was held to (a shared pause is held to it too).
    asked: Duration,
    pub(super) pause_cap: Option<Duration>,
    /// With a gate that shares pauses: the delay the server asked for after the last
    /// failure, and its code, to announce to it.
    announce: Option<(Duration, String)>,
    /// Each failed attempt, capped.
    pub(super) record: AttemptRecord,
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

/// A retry decided on but for its budget's payment: its delay, and what the budget must
/// pay (nothing without a budget).
#[derive(Clone, Copy, Debug)]
struct Planned {
    delay: Duration,
    cost: Option<u32>,
    /// Whether the delay is one the server asked for (else the policy's backoff).
    asked: bool,
}

/// The one decision: whether and how long to wait after attempt `t.attempt` failed with
/// `failure` (a link of `chain`, when the caller has the chain), every cap checked; the
/// budget pays afterwards. The attempt is recorded, with the wait when there is one.
fn decide(
    failure: &dyn AgentError,
    chain: Option<&(dyn StdError + 'static)>,
    t: &mut Tally,
    r: &Retrier,
) -> Result<Planned, Stop> {
    t.record.failed(t.attempt, failure.code());
    let planned = decide_wait(failure, t, r)?;
    let source = match (planned.asked, chain) {
        (false, _) => WaitSource::Backoff,
        (true, Some(chain)) => WaitSource::of_delay_in(chain),
        (true, None) => WaitSource::Error,
    };
    t.record.waited(Some((planned.delay, source)));
    Ok(planned)
}

/// [`decide`]'s decision.
fn decide_wait(failure: &dyn AgentError, t: &mut Tally, r: &Retrier) -> Result<Planned, Stop> {
    let policy = failure.retry_policy();
    if !policy.is_retryable() {
        return Err(Stop::Permanent);
    }
    let code = code_mark(failure.code());
    t.streak = if t.code == Some(code) {
        t.streak + 1
    } else {
        1
    };
    t.code = Some(code);
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
        None => policy.delay(t.streak - 1, t.previous, &r.jitter),
        Some(asked) => {
            // The delays a server asks for add up, in one run, to at most the `max_wait`
            // each of them is held to: changing codes buys it no more waiting.
            let cap = policy.max_wait().min(r.max_wait);
            if t.asked.saturating_add(asked) > cap {
                return Err(Stop::WaitTooLong);
            }
            t.asked = t.asked.saturating_add(asked);
            t.pause_cap = Some(cap);
            if r.gates.iter().any(|gate| gate.shares_pauses()) {
                t.announce = Some((asked, failure.code().to_owned()));
            }
            asked
        }
    };
    if let (Some(limit), Some(started)) = (r.max_elapsed, t.started) {
        // Real time includes real sleeps; the sum of delays covers a sleep that only pretends.
        if started.elapsed().max(t.waited).saturating_add(delay) > limit {
            return Err(Stop::Deadline);
        }
    }
    Ok(Planned {
        delay,
        cost: r.budget.as_ref().map(|b| b.cost_of(failure.code())),
        asked: policy.retry_after().is_some(),
    })
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
    pub(super) fn started_at(retrier: R, started: Option<Instant>) -> Self {
        RetryState {
            retrier,
            tally: Tally {
                attempt: 1,
                started,
                waited: Duration::ZERO,
                previous: None,
                spent: 0,
                code: None,
                streak: 0,
                failures: 0,
                most_attempts: 0,
                asked: Duration::ZERO,
                pause_cap: None,
                announce: None,
                record: AttemptRecord::default(),
            },
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

    /// The failed attempts so far, each with the wait after it and where that wait came
    /// from (from a failure given as a chain, `next_delay_for`; one given as a classified
    /// link alone, `next_delay`, says [`WaitSource::Error`] for a server's delay).
    pub fn record(&self) -> &AttemptRecord {
        &self.tally.record
    }

    /// What to wait before the attempt about to be made: the longest wait the retrier's
    /// [`gate`](Retrier::gate)s ask for (a shared pause in force, the pacer's turn).
    /// `Ok(wait)`: sleep `wait`, then make the attempt (the wait counts in
    /// [`waited`](Self::waited)); `Err(error)`: it would wait longer than the run may, end
    /// it with this error (a `rate_limit` one whose `retry_after` is the wait needed).
    pub async fn before_attempt(&mut self) -> Result<Duration, crate::Error> {
        let retrier: &Retrier = self.retrier.borrow();
        let wait = retrier.wait_before(&mut self.tally, None).await?;
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
    /// classified response such as an `http::StatusError`): `Ok(delay)` to wait that long
    /// and make the next attempt (the attempt number moves on, the budget has paid, the
    /// `on_retry` hook has been called, a server's delay has been shared), or `Err(stop)`
    /// to give up. A shared budget's and pauses' store is waited for on this thread.
    #[inline]
    pub fn next_delay(&mut self, failure: &dyn AgentError) -> Result<Duration, Stop> {
        self.next_delay_in(failure, None)
    }

    /// [`next_delay`](Self::next_delay) of a link of `chain`, when the caller has it: the
    /// record then says where a server's delay came from.
    #[inline]
    fn next_delay_in(
        &mut self,
        failure: &dyn AgentError,
        chain: Option<&(dyn StdError + 'static)>,
    ) -> Result<Duration, Stop> {
        let planned = decide(failure, chain, &mut self.tally, self.retrier.borrow())?;
        if let (Some(budget), Some(cost)) = (&self.retrier.borrow().budget, planned.cost) {
            if !budget.try_spend(cost) {
                self.tally.record.waited(None);
                return Err(Stop::BudgetEmpty);
            }
        }
        self.commit(Some(failure), planned);
        if self.tally.announce.is_none() {
            return Ok(planned.delay);
        }
        let limit = self.announce_limit();
        Ok(block_on(self.announce(planned.delay), limit).unwrap_or(planned.delay))
    }

    /// [`next_delay`](Self::next_delay) for an error chain, classified with
    /// [`classify`](crate::classify); an unclassified error is [`Stop::Permanent`].
    pub fn next_delay_for(&mut self, err: &(dyn StdError + 'static)) -> Result<Duration, Stop> {
        classify_then(err, |failure| self.next_delay_in(failure, Some(err)))
            .unwrap_or_else(|| self.unclassified())
    }

    /// An unclassified failure: recorded, and permanent.
    fn unclassified<T>(&mut self) -> Result<T, Stop> {
        let t = &mut self.tally;
        t.record.failed(t.attempt, crate::codes::UNCLASSIFIED);
        Err(Stop::Permanent)
    }

    /// [`next_delay`](Self::next_delay) that awaits the stores instead of blocking the
    /// thread: what an async loop of the caller's own calls.
    pub async fn next_delay_async(
        &mut self,
        failure: &(dyn AgentError + Sync),
    ) -> Result<Duration, Stop> {
        let planned = decide(failure, None, &mut self.tally, self.retrier.borrow())?;
        self.pay(planned).await?;
        self.commit(Some(failure), planned);
        Ok(self.announce(planned.delay).await)
    }

    /// [`next_delay_for`](Self::next_delay_for) that awaits the stores instead of blocking
    /// the thread. The classification is not held across an await (so that the run's
    /// future stays `Send`): the `on_retry` hook gets `err` classified again.
    pub async fn next_delay_for_async(
        &mut self,
        err: &(dyn StdError + Sync + 'static),
    ) -> Result<Duration, Stop> {
        let planned = classify_then(err, |failure| {
            decide(failure, Some(err), &mut self.tally, self.retrier.borrow())
        })
        .unwrap_or_else(|| self.unclassified())?;
        self.pay(planned).await?;
        self.commit_classified(Some(err), planned);
        Ok(self.announce(planned.delay).await)
    }

    /// Pays a planned retry from the budget, awaiting its store.
    async fn pay(&mut self, planned: Planned) -> Result<(), Stop> {
        match (&self.retrier.borrow().budget, planned.cost) {
            (Some(budget), Some(cost)) if !budget.try_spend_async(cost).await => {
                self.tally.record.waited(None);
                Err(Stop::BudgetEmpty)
            }
            _ => Ok(()),
        }
    }

    /// Completes a paid retry: the `on_retry` hook (given the failure when there is one),
    /// the counters, and the attempt number moves on.
    fn commit(&mut self, failure: Option<&dyn AgentError>, planned: Planned) {
        let (t, r) = (&mut self.tally, self.retrier.borrow());
        if let Some(cost) = planned.cost {
            t.spent = t.spent.saturating_add(cost);
        }
        if let (Some(hook), Some(failure)) = (&r.on_retry, failure) {
            hook(failure, t.attempt, planned.delay);
        }
        t.waited = t.waited.saturating_add(planned.delay);
        t.previous = Some(planned.delay);
        t.attempt += 1;
    }

    /// [`commit`](Self::commit) after an await: the `on_retry` hook, if there is one, gets
    /// `err` classified again (a classification is not held across an await, so that the
    /// run's future stays `Send`).
    fn commit_classified(&mut self, err: Option<&(dyn StdError + 'static)>, planned: Planned) {
        let hooked = self.retrier.borrow().on_retry.is_some();
        if let Some(err) = err.filter(|_| hooked) {
            if classify_then(err, |failure| self.commit(Some(failure), planned)).is_some() {
                return;
            }
        }
        self.commit(None, planned);
    }

    /// Shares the delay the server asked for with the gates that share pauses, for every
    /// replica; the wait before the next attempt then waits it out. Returns what is still
    /// to wait now: `delay`, or nothing once it is shared.
    async fn announce(&mut self, delay: Duration) -> Duration {
        let r: &Retrier = self.retrier.borrow();
        let Some((asked, code)) = self.tally.announce.take() else {
            return delay;
        };
        for gate in r.gates().filter(|gate| gate.shares_pauses()) {
            gate.share_pause(asked, &code).await;
        }
        self.tally.waited = self.tally.waited.saturating_sub(delay);
        Duration::ZERO
    }

    /// The longest a blocking run waits for the gates that share pauses.
    fn announce_limit(&self) -> Duration {
        let r: &Retrier = self.retrier.borrow();
        let sharing = r.gates().filter(|gate| gate.shares_pauses());
        sharing
            .map(|gate| gate.wait_limit())
            .max()
            .unwrap_or_default()
    }

    /// What the retrier's own loops decide after an attempt: `Err(Stop::Succeeded)` after a
    /// success (the budget refilled), a stop, or the delay before the next attempt. `mark`
    /// is what a nested run that gave up during the attempt left; `hand_back` returns
    /// chosen failures at once.
    pub(super) fn after<T, E: ErrorChain<M>, M>(
        &mut self,
        result: &Result<T, E>,
        mark: Option<Mark>,
        hand_back: Option<HandBack<'_>>,
    ) -> Result<Duration, Stop> {
        let Err(e) = result else {
            self.succeeded();
            return Err(Stop::Succeeded);
        };
        let err = e.error_chain();
        classify_then(err, |failure| {
            self.check(err, failure, mark, hand_back)?;
            self.next_delay_in(failure, Some(err))
        })
        .unwrap_or_else(|| self.unclassified())
    }

    /// [`after`](Self::after) for the async loop: the stores are awaited.
    pub(super) async fn after_async<T, E: ErrorChain<M>, M>(
        &mut self,
        result: &Result<T, E>,
        mark: Option<Mark>,
        hand_back: Option<HandBack<'_>>,
    ) -> Result<Duration, Stop> {
        let planned = {
            let Err(e) = result else {
                self.succeeded_async().await;
                return Err(Stop::Succeeded);
            };
            let err = e.error_chain();
            classify_then(err, |failure| {
                self.check(err, failure, mark, hand_back)?;
                decide(failure, Some(err), &mut self.tally, self.retrier.borrow())
            })
            .unwrap_or_else(|| self.unclassified())?
        };
        self.pay(planned).await?;
        // Found and classified again: neither the chain nor its classification is held
        // across the payment's await, so that the run's future stays `Send`.
        let err = result.as_ref().err().map(ErrorChain::error_chain);
        self.commit_classified(err, planned);
        Ok(self.announce(planned.delay).await)
    }

    /// What stops a failure before the decision: the caller wants it back, or a nested run
    /// already gave up on its code.
    fn check(
        &mut self,
        err: &(dyn StdError + 'static),
        failure: &dyn AgentError,
        mark: Option<Mark>,
        hand_back: Option<HandBack<'_>>,
    ) -> Result<(), Stop> {
        let stop = if hand_back.is_some_and(|hand_back| hand_back(failure)) {
            Stop::HandedBack
        } else if mark.is_some_and(|mark| {
            failure.is_retryable()
                && (mark == code_mark(failure.code()) || chain_has_mark(err, mark))
        }) {
            self.tally.code = mark;
            Stop::AlreadyRetried
        } else {
            return Ok(());
        };
        self.tally.record.failed(self.tally.attempt, failure.code());
        Err(stop)
    }

    /// What the loops make of the wait before an attempt: `Ok(wait)` to sleep (counted in
    /// [`waited`](Self::waited)), or the outcome that ends the run when the wait is longer
    /// than the run may wait and the operation's error type can hold the error that says
    /// so (else the attempt is made at once). The outcome is what the loop returns as it
    /// is: boxing it here would allocate on the path that ends a run, for nothing.
    #[allow(clippy::result_large_err)]
    pub(super) fn after_wait<T, E: ErrorChain<M>, M>(
        &mut self,
        before: Result<Duration, crate::Error>,
    ) -> Result<Duration, Outcome<T, E>> {
        match before {
            Ok(wait) => {
                self.tally.waited = self.tally.waited.saturating_add(wait);
                Ok(wait)
            }
            Err(held) => self.paused(held).map_or(Ok(Duration::ZERO), Err),
        }
    }

    /// Ends the run before an attempt because a gate asks to wait longer than it may, with `paused` as the operation's error type holds it. An
    /// error type that cannot hold it (a type of the caller's own) gets `None`: the attempt
    /// is made without waiting, and the server's own answer ends the run.
    fn paused<T, E: ErrorChain<M>, M>(&mut self, paused: crate::Error) -> Option<Outcome<T, E>> {
        let error = crate::core::chain::held_as::<E>(paused)?;
        scope::gave_up(self.tally.code);
        Some(Outcome {
            result: Err(error),
            attempts: self.tally.attempt - 1,
            stop: Stop::Paused,
            waited: self.tally.waited,
            record: std::mem::take(&mut self.tally.record),
        })
    }

    /// How the run ended; a give-up marks the enclosing attempt, if any.
    pub(super) fn outcome<T, E>(&mut self, result: Result<T, E>, stop: Stop) -> Outcome<T, E> {
        if stop.gave_up() {
            scope::gave_up(self.tally.code);
        }
        Outcome {
            result,
            attempts: self.tally.attempt,
            stop,
            waited: self.tally.waited,
            record: std::mem::take(&mut self.tally.record),
        }
    }
}

/// Whether a link of `err`'s chain is classified with a code of mark `mark`.
fn chain_has_mark(err: &(dyn StdError + 'static), mark: Mark) -> bool {
    crate::chain::links(err).any(|link| {
        crate::core::classify::classify_link(link).is_some_and(|c| code_mark(c.code()) == mark)
    })
}
