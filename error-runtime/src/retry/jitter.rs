//! Applying a policy's `Jitter` to its backoff, with a small seedable random source.
//! The delay never exceeds the policy's `max_delay`, whatever the jitter.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::{Jitter, RetryPolicy};
use crate::core::policy::nanos_u64;

/// A seedable source of random numbers for jitter (wyrand: one widening multiply a draw),
/// shareable across threads.
///
/// Not for cryptography: it only spreads retries out. The same seed gives the same
/// sequence, so tests can assert exact delays.
#[derive(Debug)]
pub struct JitterSource {
    state: AtomicU64,
}

impl JitterSource {
    /// A source that gives the same sequence for the same seed.
    pub const fn seeded(seed: u64) -> Self {
        JitterSource {
            state: AtomicU64::new(seed),
        }
    }

    /// A source seeded from the process's random hasher keys.
    pub fn from_entropy() -> Self {
        use std::hash::{BuildHasher, Hasher};
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(0x5EED);
        Self::seeded(hasher.finish())
    }

    /// The next random 64 bits.
    ///
    /// The state moves on with a plain load and store, not a locked read-modify-write: two
    /// threads drawing at the same instant may draw the same number (their two retries then
    /// wait the same delay, a rare case that spreading retries out can afford), and a draw
    /// costs no locked instruction.
    #[inline]
    pub fn next_u64(&self) -> u64 {
        let state = self
            .state
            .load(Ordering::Relaxed)
            .wrapping_add(0xA076_1D64_78BD_642F);
        self.state.store(state, Ordering::Relaxed);
        // A draw is one multiply deep: the delay it decides is on a retry's critical path.
        let wide = u128::from(state) * u128::from(state ^ 0xE703_7ED1_A0B4_28DB);
        (wide >> 64) as u64 ^ wide as u64
    }

    /// A uniform fraction in `[0, 1]`, for a positive jitter of a shared pause.
    pub(crate) fn next_fraction(&self) -> f64 {
        self.next_u64() as f64 / u64::MAX as f64
    }

    /// A uniform duration in `[low, high]` (`low` when `high <= low`).
    pub fn between(&self, low: Duration, high: Duration) -> Duration {
        if high <= low {
            return low;
        }
        let offset = match u64::try_from((high - low).as_nanos()) {
            Ok(span) => self.up_to(span),
            // Spans beyond u64 nanoseconds (584 years): any offset; the result is clamped.
            Err(_) => self.next_u64(),
        };
        low.saturating_add(Duration::from_nanos(offset)).min(high)
    }

    /// A uniform number in `[0, span]`: the high half of a widening multiply, so no division.
    #[inline]
    fn up_to(&self, span: u64) -> u64 {
        let scaled = u128::from(self.next_u64()) * (u128::from(span) + 1);
        // The high 64 bits of a product of a u64 and at most 2^64: at most `span`.
        (scaled >> 64) as u64
    }

    /// A uniform duration in `[0, high]`, for delays below 584 years (all of them, in
    /// practice) computed in nanoseconds without a division.
    #[inline]
    fn up_to_duration(&self, high: Duration) -> Duration {
        match nanos_u64(high) {
            Some(span) => Duration::from_nanos(self.up_to(span)),
            None => self.between(Duration::ZERO, high),
        }
    }
}

/// `nanos` as a `Duration`, without a division for the delays below a second (the first
/// retries of the default policy).
#[inline]
fn duration_of(nanos: u64) -> Duration {
    match u32::try_from(nanos) {
        Ok(below) if below < 1_000_000_000 => Duration::new(0, below),
        _ => Duration::from_nanos(nanos),
    }
}

/// The jittered delay before retry number `retry` (0-based). `previous` is the delay
/// before the last retry, used by decorrelated jitter. Never above `max_delay`.
#[inline]
pub fn delay(
    policy: &RetryPolicy,
    retry: u32,
    previous: Option<Duration>,
    rng: &JitterSource,
) -> Duration {
    // The common case in whole nanoseconds: one conversion, no `Duration` arithmetic. A
    // jitter below the backoff stays below the cap, as the backoff does.
    if let Some(backoff) = policy.backoff_nanos(retry) {
        let nanos = match policy.jitter() {
            Jitter::None => Some(backoff),
            Jitter::Full => Some(rng.up_to(backoff)),
            Jitter::Equal => Some(backoff / 2 + rng.up_to(backoff - backoff / 2)),
            Jitter::Decorrelated => None,
        };
        if let Some(nanos) = nanos {
            return duration_of(nanos);
        }
    }
    let cap = policy.max_delay();
    let backoff = policy.backoff(retry);
    let delay = match policy.jitter() {
        Jitter::None => backoff,
        Jitter::Full => rng.up_to_duration(backoff),
        Jitter::Equal => {
            let half = backoff / 2;
            half + rng.up_to_duration(backoff - half)
        }
        Jitter::Decorrelated => {
            let base = policy.base_delay();
            let high = previous.unwrap_or(base).saturating_mul(3);
            rng.between(base, high.max(base))
        }
    };
    delay.min(cap)
}
