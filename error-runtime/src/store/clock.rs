//! The time that cooldowns are measured in: the monotonic clock by default, a manual one
//! that tests move forward by hand.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// A monotonic clock: the time elapsed since a fixed point of the clock's choosing.
///
/// [`Fallback`](crate::recover::Fallback) and [`CircuitBreaker`](crate::recover::CircuitBreaker) read it to
/// start and end cooldowns; [`SystemClock`] is the real one, [`ManualClock`] the one tests
/// move by hand. A clock never goes back.
pub trait Clock: Send + Sync {
    /// The time elapsed since the clock's origin.
    fn now(&self) -> Duration;
}

/// The real monotonic clock ([`Instant`]), counted from the first time any `SystemClock`
/// is read in the process.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        static ORIGIN: OnceLock<Instant> = OnceLock::new();
        ORIGIN.get_or_init(Instant::now).elapsed()
    }
}

/// A clock that moves only when told to, for tests and deterministic examples. Clones
/// share one time.
///
/// ```
/// use std::time::Duration;
/// use agent_error::recover::{Clock, ManualClock};
///
/// let clock = ManualClock::new();
/// let seen_by_breaker = clock.clone();
/// clock.advance(Duration::from_secs(30));
/// assert_eq!(seen_by_breaker.now(), Duration::from_secs(30));
/// ```
#[derive(Clone, Debug, Default)]
pub struct ManualClock {
    nanos: Arc<AtomicU64>,
}

impl ManualClock {
    /// A clock at zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: Duration) {
        self.nanos.fetch_add(nanos(by), Ordering::Relaxed);
    }

    /// Sets the clock to `to`, unless it is already later (a clock never goes back).
    pub fn set(&self, to: Duration) {
        self.nanos.fetch_max(nanos(to), Ordering::Relaxed);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::Relaxed))
    }
}

impl<C: Clock + ?Sized> Clock for &C {
    fn now(&self) -> Duration {
        (**self).now()
    }
}

impl<C: Clock + ?Sized> Clock for Arc<C> {
    fn now(&self) -> Duration {
        (**self).now()
    }
}

/// A duration in nanoseconds, saturating (u64 nanoseconds last 584 years).
pub(crate) fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Whole seconds, rounded up, for hints and messages ("42s"); at least 1s.
pub(crate) fn seconds_text(d: Duration) -> String {
    let secs = d.as_secs() + u64::from(d.subsec_nanos() > 0);
    format!("{}s", secs.max(1))
}
