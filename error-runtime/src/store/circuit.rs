//! Circuits: per key, failures in a row, when the circuit opened, and the one trial call
//! after its cooldown, fleet-wide, as a token with a lease rather than a lock.

use std::time::Duration;

use super::{StoreFuture, WaitLimit};

/// The state of one key's circuit, as [`CircuitBreaker::state`](crate::recover::CircuitBreaker::state) reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CircuitState {
    /// Calls run; `failures` is how many failed in a row.
    Closed {
        /// Failures in a row.
        failures: u32,
    },
    /// Calls fail fast; the next call after `closes_in` is the trial.
    Open {
        /// How long until a trial call is let through.
        closes_in: Duration,
    },
    /// The one trial call is running; other calls fail fast.
    HalfOpen,
}

/// The right to make the one trial call of a half-open circuit, fleet-wide: a token the
/// trial's result is reported with. It expires by itself after its lease, so that a
/// replica that dies during the trial does not keep the circuit half-open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TrialToken(pub u64);

/// When a circuit breaker opens and for how long, as a [`CircuitStore`] applies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BreakerRule {
    /// Failures in a row that open the circuit.
    pub threshold: u32,
    /// How long it stays open before one trial call.
    pub cooldown: Duration,
}

/// Where [`CircuitBreaker`](crate::recover::CircuitBreaker) keeps its circuits. No method
/// holds anything across the caller's own call: a trial is a token with a lease, not a lock.
pub trait CircuitStore: WaitLimit {
    /// The state of `key`'s circuit. An open circuit whose cooldown has passed, or a
    /// half-open one whose trial's lease expired, is `Open { closes_in: 0 }`: a trial may
    /// be claimed.
    fn circuit<'a>(&'a self, key: &'a str) -> StoreFuture<'a, CircuitState>;

    /// Counts one more failure in a row on `key`'s closed circuit, opening it at the
    /// rule's threshold. Returns the state after.
    fn record_failure<'a>(
        &'a self,
        key: &'a str,
        rule: BreakerRule,
    ) -> StoreFuture<'a, CircuitState>;

    /// A call on `key`'s closed circuit succeeded: its failures in a row go back to zero.
    fn record_success<'a>(&'a self, key: &'a str) -> StoreFuture<'a, ()>;

    /// Claims the one trial call of `key`'s circuit, whose cooldown has passed: a token
    /// valid for `lease`, or `None` when the circuit is closed, still cooling down, or
    /// another caller (anywhere in the fleet) holds the trial.
    fn claim_trial<'a>(
        &'a self,
        key: &'a str,
        lease: Duration,
    ) -> StoreFuture<'a, Option<TrialToken>>;

    /// Reports the trial's result with its token: success closes the circuit, failure
    /// opens it for the rule's cooldown. A token that expired or was replaced changes nothing.
    fn finish_trial<'a>(
        &'a self,
        key: &'a str,
        token: TrialToken,
        ok: bool,
        rule: BreakerRule,
    ) -> StoreFuture<'a, ()>;

    /// Gives the trial up without a result (the call was dropped): the next caller may
    /// claim it. Best effort and non-blocking; the lease ends it anyway.
    fn abandon_trial(&self, key: &str, token: TrialToken);
}
