//! Applying a policy's `Jitter` to its backoff, with a small seedable random source.
//! The delay never exceeds the policy's `max_delay`, whatever the jitter.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::{Jitter, RetryPolicy};

/// A seedable source of random numbers for jitter (SplitMix64), shareable across threads.
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
    pub fn next_u64(&self) -> u64 {
        let mut z = self
            .state
            .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed)
            .wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform duration in `[low, high]` (`low` when `high <= low`).
    pub fn between(&self, low: Duration, high: Duration) -> Duration {
        if high <= low {
            return low;
        }
        let span = (high - low).as_nanos();
        // Spans beyond u64 nanoseconds (584 years) are clamped; the result stays within bounds.
        let span = u64::try_from(span).unwrap_or(u64::MAX);
        let offset = if span == u64::MAX {
            self.next_u64()
        } else {
            self.next_u64() % (span + 1)
        };
        low.saturating_add(Duration::from_nanos(offset)).min(high)
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
    let cap = policy.max_delay();
    let backoff = policy.backoff(retry);
    let delay = match policy.jitter() {
        Jitter::None => backoff,
        Jitter::Full => rng.between(Duration::ZERO, backoff),
        Jitter::Equal => {
            let half = backoff / 2;
            half + rng.between(Duration::ZERO, backoff - half)
        }
        Jitter::Decorrelated => {
            let base = policy.base_delay();
            let high = previous.unwrap_or(base).saturating_mul(3);
            rng.between(base, high.max(base))
        }
    };
    delay.min(cap)
}
