//! The random numbers that spread retries out: a small seedable source, shared by the
//! clones of a retrier. [`RetryPolicy::delay`](crate::RetryPolicy::delay) draws from it.

use std::sync::atomic::{AtomicU64, Ordering};

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
    pub(crate) fn next_u64(&self) -> u64 {
        let state = self
            .state
            .load(Ordering::Relaxed)
            .wrapping_add(0xA076_1D64_78BD_642F);
        self.state.store(state, Ordering::Relaxed);
        let wide = u128::from(state) * u128::from(state ^ 0xE703_7ED1_A0B4_28DB);
        (wide >> 64) as u64 ^ wide as u64
    }

    /// A uniform fraction in `[0, 1)`, with the 53 bits an `f64` holds.
    #[inline]
    pub(crate) fn next_unit(&self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform fraction in `[0, 1]`, for a positive jitter of a shared pause.
    pub(crate) fn next_fraction(&self) -> f64 {
        self.next_u64() as f64 / u64::MAX as f64
    }
}
