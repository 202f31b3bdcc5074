//! Where the resilience state that a fleet of replicas must share is kept, one trait a
//! concept: [`PauseStore`] (server-announced pauses and fallback cooldowns),
//! [`CircuitStore`] (circuit breakers), [`BudgetStore`] (retry budgets) and [`PaceStore`]
//! (a pacer's buckets). [`recover::Store`](crate::recover::Store) is all four: what
//! [`recover::LocalStore`](crate::recover::LocalStore) (in one process) and a
//! shared store (the Redis one of the `redis` feature) implement, and what
//! [`recover`](crate::recover)'s values and the retrier take.
//!
//! A user picks a store and hands it to the values that keep state
//! (`CircuitBreaker::store`, `Fallback::store`, `recover::SharedPauses::new`, `RetryBudget::shared_in`,
//! `Pacer::shared_in`); this module is for the one who writes a store.
//!
//! Every method takes a key that names one entity: a fallback candidate, a tool, a pause
//! key such as `openai/acct-1/gpt-4o`, a budget. Pauses, cooldowns (`PauseKind`),
//! circuits, budgets and buckets live in separate name spaces, so one key can name a
//! tool's circuit and its pause, and no key a user picks can reach another kind's entry.
//!
//! Operations are async where a store must talk to a server, and return a [`StoreFuture`];
//! an in-process store answers at once. A store decides itself what to do when it cannot
//! reach its server (serve its local copy, fail open, fail closed); its futures always
//! complete, within the time [`WaitLimit::wait_limit`] gives. A future polled once that
//! time has passed answers as the store does without its server, even when what it waited
//! for could not run meanwhile: a blocking caller on the thread of a one-thread async
//! runtime keeps the runtime from reaching the server, and must still get the state the
//! store serves then. Blocking callers (`CircuitBreaker::call`, `Retrier::run`) wait at
//! most that long; async ones await.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

#[cfg(feature = "recover")]
pub(crate) mod bucket;
mod budget;
#[cfg(feature = "recover")]
pub(crate) mod circuit;
#[cfg(feature = "recover")]
pub(crate) mod clock;
#[cfg(feature = "recover")]
pub(crate) mod local;
#[cfg(feature = "recover")]
mod pause;

pub use budget::BudgetStore;
#[cfg(feature = "recover")]
pub(crate) use {
    bucket::{Bucket, Dimension, Unmetered, reserve},
    circuit::CircuitState,
    clock::{Clock, SystemClock, nanos, seconds_text},
};
#[cfg(feature = "recover")]
pub use {
    bucket::{
        BucketReport, BucketView, DimensionStep, IN_FLIGHT, MAX_HOLD, MAX_UNITS, PROBE_WAIT,
        PaceAnswer, PaceStep, PaceStore, floor_of,
    },
    circuit::{BreakerRule, CircuitStore, TrialToken},
    pause::{Pause, PauseKind, PauseStore},
};

/// The future a store's operation returns: boxed, so that the traits stay object safe.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// How long a blocking caller waits for one operation of a store, whichever concept it
/// serves; every store trait builds on it.
pub trait WaitLimit: Send + Sync + fmt::Debug {
    /// The longest a blocking caller waits for one operation; it then polls the future
    /// once more, and the store answers without its server. Zero (the default) for a store
    /// that answers at once.
    fn wait_limit(&self) -> Duration {
        Duration::ZERO
    }
}

std::thread_local! {
    /// Whether this thread is in [`block_on`].
    static BLOCKING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this thread is waiting for a store's future in one of this library's blocking
/// APIs (a `CircuitBreaker::call`, a `Pacer::try_acquire`, a blocking `Retrier::run`).
///
/// For a store that needs an async runtime to reach its server: when this thread is that
/// runtime's own (a one-thread runtime), the runtime cannot run while the thread waits,
/// so the store should answer at once without its server, and without taking its server
/// for down: the server is not the one that failed to answer.
pub fn in_blocking_call() -> bool {
    BLOCKING.with(std::cell::Cell::get)
}

/// Marks the thread as in [`block_on`] while it lives.
struct Blocking(bool);

impl Blocking {
    fn enter() -> Blocking {
        Blocking(BLOCKING.with(|b| b.replace(true)))
    }
}

impl Drop for Blocking {
    fn drop(&mut self) {
        let was = self.0;
        BLOCKING.with(|b| b.set(was));
    }
}

/// Runs a store's future to completion on this thread, for the blocking APIs: it waits at
/// most `limit` once the future has stopped answering at once (an in-process store's
/// futures are ready at the first poll), polls it once more when the limit has passed,
/// and gives up with `None` only if it is still pending then.
///
/// On a thread that must itself drive the future (a one-thread async runtime's own
/// thread) the limit would always pass: a store then answers at once without its server
/// (see [`in_blocking_call`] and [`WaitLimit::wait_limit`]). The async APIs await
/// instead, and never call this.
pub(crate) fn block_on<F: Future>(future: F, limit: Duration) -> Option<F::Output> {
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.unpark();
        }
    }
    let _blocking = Blocking::enter();
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    let started = Instant::now();
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return Some(out);
        }
        let left = limit.saturating_sub(started.elapsed());
        if left.is_zero() {
            return None;
        }
        std::thread::park_timeout(left);
    }
}
