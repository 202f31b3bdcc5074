//! A pacer on one key, as a [`Gate`] of a retrier: each attempt waits its turn first.

use std::any::Any;
use std::error::Error as StdError;
use std::sync::Arc;
use std::time::Duration;

use super::{Cost, Pacer, pace_error};
use crate::retry::{Gate, Retrier, Turn};
use crate::store::{StoreFuture, WaitLimit};

/// A [`Pacer`] on one key, each attempt costing the same: a [`Gate`] that paces every
/// attempt of a [`Retrier`] ([`Pacer::on`]).
///
/// Before each attempt the run reserves the cost (waiting as the pacer says), and each
/// attempt's outcome feeds the pacer's adaptive rate (a `rate_limit` falls, a success
/// climbs). The wait obeys the run's caps and the pacer's own
/// [`max_wait`](Pacer::max_wait): longer than either, the run ends before the attempt with
/// [`Stop::Paused`](crate::retry::Stop::Paused) and a `rate_limit` error (op `pace`) whose
/// `retry_after` is the wait needed.
///
/// ```
/// use std::time::Duration;
/// use agent_error::recover::{Cost, Limit, Pacer};
/// use agent_error::retry::{Retrier, Stop};
///
/// let pacer = Pacer::new().limit("search", Limit::requests(1, Duration::from_secs(2)));
/// let retrier = Retrier::new().gate(pacer.on("search", Cost::request()));
/// let mut slept = Vec::new();
/// let first = retrier.run_detailed_with_sleep(|_| Ok::<_, agent_error::Error>(1), |d| slept.push(d));
/// let second = retrier.run_detailed_with_sleep(|_| Ok::<_, agent_error::Error>(2), |d| slept.push(d));
/// assert_eq!((first.stop, second.stop), (Stop::Succeeded, Stop::Succeeded));
/// // The second call waited for the budget to come back.
/// assert_eq!(slept.len(), 1);
/// assert!(slept[0] > Duration::from_millis(1_900));
/// ```
#[derive(Clone, Debug)]
pub struct PaceGate {
    pacer: Pacer,
    key: Arc<str>,
    cost: Cost,
    /// Wait for nothing: a fallback with another candidate ready moves on instead.
    hold_back: bool,
    /// The first attempt's turn is already reserved (a fallback reserved it to choose the
    /// candidate).
    first_reserved: bool,
}

impl Pacer {
    /// This pacer on `key`, each attempt costing `cost`: the [`Gate`] that paces a
    /// [`Retrier`]'s attempts (`Retrier::new().gate(pacer.on(key, cost))`). The pacer is
    /// shared, not copied: every gate on it draws from the same budgets.
    pub fn on(&self, key: impl Into<Arc<str>>, cost: Cost) -> PaceGate {
        PaceGate {
            pacer: self.clone(),
            key: key.into(),
            cost,
            hold_back: false,
            first_reserved: false,
        }
    }
}

impl PaceGate {
    /// The pacer a retrier paces its attempts with, if any (the first one among its
    /// [`gates`](Retrier::gates)): for a loop of the caller's own, such as an HTTP
    /// middleware, that feeds it each response's headers.
    pub fn of(retrier: &Retrier) -> Option<&PaceGate> {
        retrier.gates().find_map(|gate| {
            let gate: &dyn Any = gate;
            gate.downcast_ref::<PaceGate>()
        })
    }

    /// The pacer.
    pub fn pacer(&self) -> &Pacer {
        &self.pacer
    }

    /// The key each attempt is paced on.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// What each attempt costs.
    pub fn cost(&self) -> Cost {
        self.cost
    }

    /// A fallback candidate's pacing for one call: `hold_back` waits for nothing (another
    /// candidate is ready), and the first attempt's turn is then already reserved.
    pub(crate) fn for_candidate(pacer: &Pacer, key: Arc<str>, cost: Cost, hold_back: bool) -> Self {
        PaceGate {
            pacer: pacer.clone(),
            key,
            cost,
            hold_back,
            first_reserved: hold_back,
        }
    }
}

impl WaitLimit for PaceGate {
    fn wait_limit(&self) -> Duration {
        self.pacer.store_wait_limit()
    }
}

impl Gate for PaceGate {
    fn before<'a>(&'a self, turn: Turn<'a>) -> StoreFuture<'a, Result<Duration, crate::Error>> {
        Box::pin(async move {
            if self.first_reserved && turn.attempt() == 1 {
                return Ok(Duration::ZERO);
            }
            let cap = if self.hold_back {
                Duration::ZERO
            } else {
                turn.may_wait().min(self.pacer.wait_limit())
            };
            self.pacer
                .reserve(&self.key, self.cost, cap)
                .await
                .map_err(pace_error)
        })
    }

    fn after(&self, failure: Option<&(dyn StdError + 'static)>) {
        match failure {
            None => self.pacer.succeeded(&self.key),
            Some(err) => self.pacer.failed(&self.key, err),
        }
    }
}
