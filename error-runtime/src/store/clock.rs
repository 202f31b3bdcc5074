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

/// The real monotonic clock ([`Instant`]), counted from a fixed instant of the process.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        origin().elapsed()
    }
}

/// The instant [`SystemClock`] and function clocks count from: a day before the first time
/// any clock is read (less when the monotonic clock has not run that long), so that a test's
/// `Instant` taken just before is not before it.
fn origin() -> Instant {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    *ORIGIN.get_or_init(|| {
        let now = Instant::now();
        [86_400, 3_600, 60, 1]
            .into_iter()
            .find_map(|secs| now.checked_sub(Duration::from_secs(secs)))
            .unwrap_or(now)
    })
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

/// A function that tells the time is a clock: `|| start + offset`, for a test that keeps
/// its own `Instant`. Its readings are counted from [`SystemClock`]'s origin, a day before
/// the process first read a clock (a reading before it counts as zero), and must not go
/// back.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use std::time::{Duration, Instant};
/// use agent_error::recover::CircuitBreaker;
///
/// let now = Arc::new(Mutex::new(Instant::now()));
/// let read = now.clone();
/// let breaker = CircuitBreaker::new().clock(move || *read.lock().unwrap());
/// # let _ = breaker;
/// *now.lock().unwrap() += Duration::from_secs(60); // the breaker's time moves on too
/// ```
impl<F: Fn() -> Instant + Send + Sync> Clock for F {
    fn now(&self) -> Duration {
        self().saturating_duration_since(origin())
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
