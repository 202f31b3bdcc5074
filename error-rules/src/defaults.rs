//! The tuning of a retry policy when nothing else is said, which the derive also uses to
//! check `retry(...)` at compile time (`base` no longer than `max`, …). The runtime
//! publishes them as `RetryPolicy::DEFAULT_*`.

use core::time::Duration;

use crate::Jitter;

/// Attempts in all (the first call plus retries): 3.
pub const MAX_ATTEMPTS: u32 = 3;
/// The first retry's delay: 200ms.
pub const BASE_DELAY: Duration = Duration::from_millis(200);
/// The growth factor of the delay: 2.
pub const FACTOR: f64 = 2.0;
/// The cap on a backoff delay: 30s.
pub const MAX_DELAY: Duration = Duration::from_secs(30);
/// The jitter: full.
pub const JITTER: Jitter = Jitter::Full;
/// The longest server-requested delay (`Retry-After`) honoured: 60s.
pub const MAX_WAIT: Duration = Duration::from_secs(60);
