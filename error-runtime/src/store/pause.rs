//! Pauses and cooldowns: a deadline on a key that every replica waits out (the retrier,
//! after a server said "wait 30 s") or skips (a fallback candidate cooling down).

use std::sync::Arc;
use std::time::Duration;

use super::{StoreFuture, WaitLimit};
use crate::retry::{Gate, Turn};

/// A pause (or cooldown) on a key, as a [`PauseStore`] knows it: how long until its deadline,
/// how long it lasts in all, and the code that caused it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pause {
    /// How long until the deadline; zero once it has passed.
    pub remaining: Duration,
    /// How long ago the deadline passed; zero before it.
    pub overdue: Duration,
    /// How long the pause lasts in all, from when it was set.
    pub length: Duration,
    /// The code of the error that set it (`rate_limit`, `provider_unavailable`, …).
    pub code: String,
}

impl Pause {
    /// The most a replica adds after the deadline so that a fleet does not wake at one
    /// instant: a fifth of the pause, at most one second.
    pub fn max_jitter(&self) -> Duration {
        max_jitter_of(self.length)
    }

    /// How long to wait from now: until the deadline plus `fraction` (0 to 1) of
    /// [`max_jitter`](Self::max_jitter) — jitter is only ever added after the deadline, so
    /// that replicas drawing different fractions wake at different instants after it.
    pub fn wait(&self, fraction: f64) -> Duration {
        let fraction = if fraction.is_finite() {
            fraction.clamp(0.0, 1.0)
        } else {
            0.0
        };
        self.remaining
            .saturating_add(self.max_jitter().mul_f64(fraction))
            .saturating_sub(self.overdue)
    }
}

/// [`Pause::max_jitter`] of a pause `length` long.
pub(crate) fn max_jitter_of(length: Duration) -> Duration {
    (length / 5).min(Duration::from_secs(1))
}

/// Where pauses and cooldowns live: what the [`Retrier`](crate::retry::Retrier) waits out
/// (server-announced pauses) and what [`Fallback`](crate::recover::Fallback) skips
/// (cooldowns). When two replicas write, the later deadline wins.
pub trait PauseStore: WaitLimit {
    /// The pause in force on `key`, if any (including one whose deadline passed less than
    /// its jitter ago, with `remaining` zero).
    fn pause<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Pause>>;

    /// Pauses `key` for `wait` from now because of an error with code `code`; when a later
    /// deadline is already set it stays (the later deadline wins). Returns the pause in force.
    fn set_pause<'a>(
        &'a self,
        key: &'a str,
        wait: Duration,
        code: &'a str,
    ) -> StoreFuture<'a, Pause>;
}

/// The pauses servers announce, shared through a [`PauseStore`] under one key: a
/// [`Gate`](crate::retry::Gate) for a [`Retrier`](crate::retry::Retrier), so that what one
/// replica met every replica waits out.
///
/// Name what the server limits, such as `openai/acct-1/gpt-4o`. A failure whose error
/// carries a `retry_after` sets the pause for every retrier on the same store and key (the
/// later deadline wins); before each attempt, a run waits out the pause in force, plus a
/// positive jitter of up to a fifth of it (at most 1 s) drawn for each wait, so that
/// replicas do not all come back at the deadline's instant.
///
/// A pause read from the store obeys the caps a server's `retry_after` obeys: one that
/// lasts longer than the run may wait is not waited, and the run ends before the attempt
/// with [`Stop::Paused`](crate::retry::Stop::Paused) and a `rate_limit` error (op
/// `retry.pause`) whose `retry_after` is the wait left (see
/// [`Retrier::gate`](crate::retry::Retrier::gate)).
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use agent_error::recover::{LocalStore, SharedPauses, Store};
/// use agent_error::{http::StatusError, retry::Retrier};
///
/// let store: Arc<dyn Store> = Arc::new(LocalStore::new());
/// let a = Retrier::new().gate(SharedPauses::new(store.clone(), "openai/acct-1/gpt-4o"));
/// let b = Retrier::new().gate(SharedPauses::new(store, "openai/acct-1/gpt-4o"));
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
#[derive(Clone, Debug)]
pub struct SharedPauses {
    store: Arc<dyn PauseStore>,
    key: Arc<str>,
}

impl SharedPauses {
    /// The pauses on `key` in `store`.
    pub fn new(store: Arc<dyn PauseStore>, key: impl Into<Arc<str>>) -> Self {
        SharedPauses {
            store,
            key: key.into(),
        }
    }

    /// The key the pauses are kept under.
    pub fn key(&self) -> &str {
        &self.key
    }
}

impl WaitLimit for SharedPauses {
    fn wait_limit(&self) -> Duration {
        self.store.wait_limit()
    }
}

impl Gate for SharedPauses {
    fn before<'a>(&'a self, turn: Turn<'a>) -> StoreFuture<'a, Result<Duration, crate::Error>> {
        Box::pin(async move {
            let Some(pause) = self.store.pause(&self.key).await else {
                return Ok(Duration::ZERO);
            };
            if pause.remaining > turn.may_wait() {
                return Err(paused_error(pause.remaining, &pause.code));
            }
            // The jitter after the deadline never takes the run past what it may wait.
            Ok(pause.wait(turn.jitter()).min(turn.may_wait()))
        })
    }

    fn shares_pauses(&self) -> bool {
        true
    }

    fn share_pause<'a>(&'a self, wait: Duration, code: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.store.set_pause(&self.key, wait, code).await;
        })
    }
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
            super::seconds_text(wait)
        ),
    )
    .with_retry_after(wait)
}
