//! Gates: what a run asks before each attempt and tells after it. The retrier knows nothing
//! of what stands behind a gate (a pause a fleet shares, a pacer's turn): it waits what the
//! gates say, within its own caps, and tells them how each attempt went.

use std::any::Any;
use std::error::Error as StdError;
use std::fmt;
use std::time::Duration;

use crate::core::jitter::JitterSource;
use crate::store::{StoreFuture, WaitLimit};

/// Something a [`Retrier`](super::Retrier) asks before each attempt: how long to wait
/// first, or that the attempt must not be made. A retrier takes any number of them
/// ([`Retrier::gate`](super::Retrier::gate)); the wait before an attempt is the longest any
/// of them asks for.
///
/// The library's own gates: a pacer on a key
/// (`Pacer::on`, with the `recover` feature), which waits for the provider's budget to come
/// back, and the pauses servers announce, shared through a store
/// (`SharedPauses`, same feature), which every replica waits out. A gate of one's own (a
/// token from a leader, a maintenance window) is a type implementing this trait.
///
/// [`before`](Gate::before) returns a future, so that a gate may ask a server; a blocking
/// run waits for it at most the gate's [`wait_limit`](WaitLimit::wait_limit) and then makes
/// the attempt without waiting. An async run awaits it: as a store's, a gate's futures must
/// complete by themselves within that limit. Whatever a gate answers, the run waits no
/// longer than it may (the caps [`Retrier::gate`](super::Retrier::gate) lists).
///
/// ```
/// use std::time::Duration;
/// use agent_error::retry::{Gate, Retrier, Turn};
/// use agent_error::store::{StoreFuture, WaitLimit};
///
/// /// Every attempt after the first waits a fixed 5 ms, on top of the policy's delay.
/// #[derive(Debug)]
/// struct Breather;
///
/// impl WaitLimit for Breather {}
///
/// impl Gate for Breather {
///     fn before(&self, turn: Turn<'_>) -> StoreFuture<'_, Result<Duration, agent_error::Error>> {
///         let wait = if turn.attempt() > 1 { Duration::from_millis(5) } else { Duration::ZERO };
///         Box::pin(std::future::ready(Ok(wait.min(turn.may_wait()))))
///     }
/// }
///
/// let mut slept = Vec::new();
/// let retrier = Retrier::new().gate(Breather);
/// let outcome = retrier.run_detailed_with_sleep(
///     |attempt| if attempt < 2 { Err(agent_error::Error::new("op", "timeout", "slow")) } else { Ok(()) },
///     |delay| slept.push(delay),
/// );
/// assert_eq!(outcome.attempts, 2);
/// assert!(slept.contains(&Duration::from_millis(5)));
/// ```
pub trait Gate: WaitLimit + Any {
    /// Before attempt [`turn.attempt()`](Turn::attempt): `Ok(wait)` to wait that long first
    /// (at most [`turn.may_wait()`](Turn::may_wait), the longest this run may wait now), or
    /// `Err(error)` when the wait needed is longer: the run ends before the attempt with
    /// this error (a `rate_limit` one whose `retry_after` is the wait needed, by
    /// convention), as [`Stop::Paused`](super::Stop::Paused).
    fn before<'a>(&'a self, turn: Turn<'a>) -> StoreFuture<'a, Result<Duration, crate::Error>>;

    /// After each attempt: `None` when it succeeded, else its error (its whole chain).
    fn after(&self, failure: Option<&(dyn StdError + 'static)>) {
        let _ = failure;
    }

    /// Whether this gate shares the delays servers ask for ([`share_pause`](Gate::share_pause)):
    /// a run that has one waits such a delay in [`before`](Gate::before) instead of after the
    /// failure.
    fn shares_pauses(&self) -> bool {
        false
    }

    /// A server asked to wait `wait` after a failure with code `code`: a gate that
    /// [`shares_pauses`](Gate::shares_pauses) records it, so that its next
    /// [`before`](Gate::before), on every replica, waits it out.
    fn share_pause<'a>(&'a self, wait: Duration, code: &'a str) -> StoreFuture<'a, ()> {
        let _ = (wait, code);
        Box::pin(std::future::ready(()))
    }
}

/// What a [`Gate`] is told before an attempt.
#[derive(Clone, Copy)]
pub struct Turn<'a> {
    attempt: u32,
    may_wait: Duration,
    jitter: &'a JitterSource,
}

impl<'a> Turn<'a> {
    pub(super) fn new(attempt: u32, may_wait: Duration, jitter: &'a JitterSource) -> Self {
        Turn {
            attempt,
            may_wait,
            jitter,
        }
    }

    /// The attempt about to be made, 1 for the first.
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The longest this run may wait before the attempt: the `max_wait` a server's delay
    /// is held to, and the time left before the retrier's `max_elapsed`.
    pub fn may_wait(&self) -> Duration {
        self.may_wait
    }

    /// A fraction from 0 to 1, drawn from the retrier's jitter source (seeded with
    /// [`Retrier::seed`](super::Retrier::seed)): for a gate that adds jitter of its own.
    pub fn jitter(&self) -> f64 {
        self.jitter.next_fraction()
    }

    /// The same turn, allowed to wait at most `limit`.
    pub fn at_most(self, limit: Duration) -> Self {
        Turn {
            may_wait: self.may_wait.min(limit),
            ..self
        }
    }
}

impl fmt::Debug for Turn<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Turn")
            .field("attempt", &self.attempt)
            .field("may_wait", &self.may_wait)
            .finish_non_exhaustive()
    }
}
