//! The retry policy an error carries, its defaults, its backoff curve and its run-time builder.

use core::fmt;
use core::time::Duration;

pub use agent_error_rules::Jitter;
use agent_error_rules::defaults;

use crate::core::jitter::JitterSource;

/// Whether and how an error should be retried.
///
/// A policy is `Copy` and cheap: derived errors build theirs from constants.
/// Read it through the accessors; build one at run time with [`RetryPolicy::builder`].
///
/// The defaults, used by [`RetryPolicy::DEFAULT`] and by any field a
/// `retry(...)` attribute leaves out: 3 attempts in all, base 200ms, factor 2,
/// max delay 30s, full jitter, `max_wait` 60s.
///
/// ```
/// use std::time::Duration;
/// use agent_error::RetryPolicy;
///
/// let p = RetryPolicy::DEFAULT;
/// assert!(p.is_retryable());
/// assert_eq!(p.max_attempts(), 3);
/// assert_eq!(p.backoff(0), Duration::from_millis(200));
/// assert_eq!(p.backoff(1), Duration::from_millis(400));
/// assert_eq!(p.backoff(1_000), Duration::from_secs(30)); // capped, never overflows
/// assert!(!RetryPolicy::NEVER.is_retryable());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetryPolicy {
    retryable: bool,
    rate_limited: bool,
    max_attempts: u32,
    base_delay: Duration,
    max_delay: Duration,
    factor: f64,
    jitter: Jitter,
    max_wait: Duration,
    retry_after: Option<Duration>,
}

impl RetryPolicy {
    /// Attempts in all (the first call plus retries) when nothing else is said: 3.
    pub const DEFAULT_MAX_ATTEMPTS: u32 = defaults::MAX_ATTEMPTS;
    /// The first retry's delay when nothing else is said: 200ms.
    pub const DEFAULT_BASE_DELAY: Duration = defaults::BASE_DELAY;
    /// The growth factor of the delay when nothing else is said: 2.
    pub const DEFAULT_FACTOR: f64 = defaults::FACTOR;
    /// The cap on a backoff delay when nothing else is said: 30s.
    pub const DEFAULT_MAX_DELAY: Duration = defaults::MAX_DELAY;
    /// The jitter when nothing else is said: full.
    pub const DEFAULT_JITTER: Jitter = defaults::JITTER;
    /// The longest server-requested delay (`Retry-After`) honoured when nothing else is said: 60s.
    pub const DEFAULT_MAX_WAIT: Duration = defaults::MAX_WAIT;

    /// Not retryable: one attempt in all, no delay.
    pub const NEVER: RetryPolicy = RetryPolicy {
        retryable: false,
        rate_limited: false,
        max_attempts: 1,
        base_delay: Duration::ZERO,
        max_delay: Duration::ZERO,
        factor: 1.0,
        jitter: Jitter::None,
        max_wait: Duration::ZERO,
        retry_after: None,
    };

    /// Retryable with the default tuning.
    pub const DEFAULT: RetryPolicy = RetryPolicy {
        retryable: true,
        rate_limited: false,
        max_attempts: Self::DEFAULT_MAX_ATTEMPTS,
        base_delay: Self::DEFAULT_BASE_DELAY,
        max_delay: Self::DEFAULT_MAX_DELAY,
        factor: Self::DEFAULT_FACTOR,
        jitter: Self::DEFAULT_JITTER,
        max_wait: Self::DEFAULT_MAX_WAIT,
        retry_after: None,
    };

    /// Rate-limited (and so retryable) with the default tuning.
    pub const RATE_LIMITED: RetryPolicy = RetryPolicy {
        rate_limited: true,
        ..Self::DEFAULT
    };

    /// Starts a run-time policy from [`RetryPolicy::DEFAULT`].
    ///
    /// ```
    /// use std::time::Duration;
    /// use agent_error::RetryPolicy;
    /// use agent_error::retry::Jitter;
    ///
    /// let p = RetryPolicy::builder()
    ///     .max_attempts(5)
    ///     .base_delay(Duration::from_millis(50))
    ///     .max_delay(Duration::from_secs(2))
    ///     .jitter(Jitter::Equal)
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(p.backoff(3), Duration::from_millis(400));
    ///
    /// let bad = RetryPolicy::builder().max_attempts(0).build();
    /// assert!(bad.is_err());
    /// ```
    pub const fn builder() -> RetryPolicyBuilder {
        RetryPolicyBuilder {
            policy: Self::DEFAULT,
        }
    }

    /// Whether the failure may succeed if tried again.
    pub const fn is_retryable(&self) -> bool {
        self.retryable
    }

    /// Whether the failure is a rate limit (retryable; callers may fall back instead of waiting).
    pub const fn is_rate_limited(&self) -> bool {
        self.rate_limited
    }

    /// Attempts in all, the first one included; 1 for a policy that is not retryable.
    pub const fn max_attempts(&self) -> u32 {
        if self.retryable { self.max_attempts } else { 1 }
    }

    /// The delay before the first retry, before jitter.
    pub const fn base_delay(&self) -> Duration {
        self.base_delay
    }

    /// The cap on any backoff delay, jitter included.
    pub const fn max_delay(&self) -> Duration {
        self.max_delay
    }

    /// How much the delay grows from one retry to the next (at least 1).
    pub const fn factor(&self) -> f64 {
        self.factor
    }

    /// How the delay is randomised.
    pub const fn jitter(&self) -> Jitter {
        self.jitter
    }

    /// The longest server-requested delay that is honoured; a longer one means give up.
    pub const fn max_wait(&self) -> Duration {
        self.max_wait
    }

    /// The delay the server asked for (`Retry-After`), when it asked.
    pub const fn retry_after(&self) -> Option<Duration> {
        self.retry_after
    }

    /// The same policy with the server's requested delay set (or cleared).
    pub const fn with_retry_after(mut self, retry_after: Option<Duration>) -> Self {
        self.retry_after = retry_after;
        self
    }

    /// The un-jittered delay before retry number `retry` (0-based):
    /// `min(max_delay, base_delay * factor^retry)`.
    ///
    /// Defined for every `retry`: it saturates at [`max_delay`](Self::max_delay)
    /// and never overflows or panics. It is zero for [`RetryPolicy::NEVER`].
    pub fn backoff(&self, retry: u32) -> Duration {
        if retry == 0 || self.factor == 1.0 || self.base_delay >= self.max_delay {
            return self.base_delay.min(self.max_delay);
        }
        let delay = self.grown(retry);
        // Not below the cap covers NaN and infinity too, whatever the factor.
        if delay.partial_cmp(&secs(self.max_delay)) != Some(core::cmp::Ordering::Less) {
            return self.max_delay;
        }
        // f64 keeps 53 bits: keep rounding from leaving [base, max].
        Duration::try_from_secs_f64(delay)
            .unwrap_or(self.max_delay)
            .clamp(self.base_delay, self.max_delay)
    }

    /// [`backoff`](Self::backoff) in seconds, as [`delay`](Self::delay) spreads it.
    fn backoff_secs(&self, retry: u32) -> f64 {
        let cap = secs(self.max_delay);
        if retry == 0 || self.factor == 1.0 || self.base_delay >= self.max_delay {
            return secs(self.base_delay).min(cap);
        }
        // `min` takes the cap over NaN too.
        self.grown(retry).min(cap)
    }

    /// `base_delay * factor^retry` in seconds. The exponent is an integer, so the power is
    /// a few multiplications (beyond `i32::MAX` retries, any factor above 1 has long passed
    /// the cap).
    fn grown(&self, retry: u32) -> f64 {
        let exponent = i32::try_from(retry).unwrap_or(i32::MAX);
        secs(self.base_delay) * self.factor.powi(exponent)
    }

    /// The jittered delay before retry number `retry` (0-based), as the retrier waits it:
    /// [`backoff`](Self::backoff) spread by the policy's [`Jitter`] with random numbers from
    /// `rng`; `previous` is the delay before the last retry, which decorrelated jitter grows
    /// from. Never above [`max_delay`](Self::max_delay).
    ///
    /// ```
    /// use std::time::Duration;
    /// use agent_error::RetryPolicy;
    /// use agent_error::retry::JitterSource;
    ///
    /// let policy = agent_error::codes::default_policy("timeout"); // full jitter, base 200 ms
    /// let delay = policy.delay(1, None, &JitterSource::seeded(7));
    /// assert!(delay <= Duration::from_millis(400));
    /// ```
    pub fn delay(&self, retry: u32, previous: Option<Duration>, rng: &JitterSource) -> Duration {
        // In f64 seconds: a delay needs no nanosecond beyond 104 days, and one conversion
        // back to a `Duration` is all the arithmetic costs.
        let backoff = self.backoff_secs(retry);
        let r = rng.next_unit();
        let delay = match self.jitter {
            Jitter::None => backoff,
            Jitter::Full => r * backoff,
            Jitter::Equal => backoff / 2.0 + r * (backoff / 2.0),
            Jitter::Decorrelated => {
                let base = secs(self.base_delay);
                let high = previous.map_or(base, secs) * 3.0;
                base + r * (high - base).max(0.0)
            }
        };
        // `as` saturates (NaN to zero, past 584 years to `u64::MAX`): the cap then applies.
        Duration::from_nanos((delay * 1e9) as u64).min(self.max_delay)
    }
}

/// A retryable policy of this tuning, which its caller has checked (the derive at compile
/// time, the vocabulary's own constants). Derived code reaches it as `__private::policy`.
#[allow(clippy::too_many_arguments)]
pub const fn tuned(
    rate_limited: bool,
    max_attempts: u32,
    base_delay: Duration,
    max_delay: Duration,
    factor: f64,
    jitter: Jitter,
    max_wait: Duration,
) -> RetryPolicy {
    RetryPolicy {
        retryable: true,
        rate_limited,
        max_attempts,
        base_delay,
        max_delay,
        factor,
        jitter,
        max_wait,
        retry_after: None,
    }
}

impl Default for RetryPolicy {
    /// [`RetryPolicy::NEVER`]: nothing is retried unless it says so.
    fn default() -> Self {
        Self::NEVER
    }
}

/// Builds a [`RetryPolicy`] at run time, for errors that are not derived.
///
/// It checks the same rules the derive checks at compile time.
#[derive(Clone, Copy, Debug)]
#[must_use]
pub struct RetryPolicyBuilder {
    policy: RetryPolicy,
}

impl RetryPolicyBuilder {
    /// Attempts in all, the first one included (at least 1).
    pub const fn max_attempts(mut self, attempts: u32) -> Self {
        self.policy.max_attempts = attempts;
        self
    }

    /// The delay before the first retry (more than zero).
    pub const fn base_delay(mut self, delay: Duration) -> Self {
        self.policy.base_delay = delay;
        self
    }

    /// The cap on any delay (at least the base delay).
    pub const fn max_delay(mut self, delay: Duration) -> Self {
        self.policy.max_delay = delay;
        self
    }

    /// The growth factor (finite, at least 1).
    pub const fn factor(mut self, factor: f64) -> Self {
        self.policy.factor = factor;
        self
    }

    /// The jitter.
    pub const fn jitter(mut self, jitter: Jitter) -> Self {
        self.policy.jitter = jitter;
        self
    }

    /// The longest server-requested delay that is honoured.
    pub const fn max_wait(mut self, max_wait: Duration) -> Self {
        self.policy.max_wait = max_wait;
        self
    }

    /// Marks the policy rate-limited.
    pub const fn rate_limited(mut self, rate_limited: bool) -> Self {
        self.policy.rate_limited = rate_limited;
        self
    }

    /// The server's requested delay.
    pub const fn retry_after(mut self, retry_after: Option<Duration>) -> Self {
        self.policy.retry_after = retry_after;
        self
    }

    /// The policy, or what is wrong with it. A `const fn`: a policy may be a constant.
    pub const fn build(self) -> Result<RetryPolicy, InvalidPolicy> {
        let p = self.policy;
        if p.max_attempts == 0 {
            return Err(InvalidPolicy("max_attempts must be at least 1"));
        }
        if p.base_delay.is_zero() {
            return Err(InvalidPolicy("base_delay must be more than zero"));
        }
        if p.base_delay.as_nanos() > p.max_delay.as_nanos() {
            return Err(InvalidPolicy("base_delay must not exceed max_delay"));
        }
        if !(p.factor.is_finite() && p.factor >= 1.0) {
            return Err(InvalidPolicy(
                "factor must be a finite number of at least 1",
            ));
        }
        Ok(p)
    }
}

/// Why a [`RetryPolicyBuilder`] refused to build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidPolicy(&'static str);

impl fmt::Display for InvalidPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid retry policy: {}", self.0)
    }
}

impl std::error::Error for InvalidPolicy {}

/// `d` in seconds, by a multiplication rather than `as_secs_f64`'s division: a delay
/// does not need its last bit.
fn secs(d: Duration) -> f64 {
    d.as_secs() as f64 + f64::from(d.subsec_nanos()) * 1e-9
}

#[cfg(test)]
mod tests {
    use super::RetryPolicy;
    use std::time::Duration;

    /// What `backoff` is defined to be: the base capped, then `base * factor^retry` capped.
    fn backoff_by_definition(p: &RetryPolicy, retry: u32) -> Duration {
        if retry == 0 || p.factor() == 1.0 {
            p.base_delay().min(p.max_delay())
        } else if p.base_delay() >= p.max_delay() {
            p.max_delay()
        } else {
            let grown = p.base_delay().as_secs_f64() * p.factor().powf(f64::from(retry));
            Duration::try_from_secs_f64(grown)
                .map_or(p.max_delay(), |d| d.min(p.max_delay()))
                .max(p.base_delay())
        }
    }

    /// A zero base (only `RetryPolicy::NEVER` and hidden constructors have one) stays zero
    /// however many times it doubles by shifts.
    #[test]
    fn a_zero_base_stays_zero_however_often_it_doubles() {
        let zero = super::tuned(
            false,
            3,
            Duration::ZERO,
            Duration::from_secs(30),
            2.0,
            super::Jitter::Full,
            Duration::from_secs(60),
        );
        for retry in [0, 1, 63, 64, 65, 1_000] {
            assert_eq!(zero.backoff(retry), Duration::ZERO, "{retry}");
            assert_eq!(
                backoff_by_definition(&zero, retry),
                Duration::ZERO,
                "{retry}"
            );
        }
        // 0 × 2^(2^32 − 1) is 0 × ∞ in f64: NaN, which the `powf` path takes to the cap.
        assert_eq!(
            zero.backoff(u32::MAX),
            backoff_by_definition(&zero, u32::MAX)
        );
        assert_eq!(RetryPolicy::NEVER.backoff(u32::MAX), Duration::ZERO);
    }

    proptest::proptest! {
        /// `backoff` is what it is defined to be, within f64's rounding, and within
        /// `[base, max]`.
        #[test]
        fn the_backoff_in_nanoseconds_is_the_backoff(
            base_ns in 0u64..(1 << 56),
            max_ns in 0u64..(1 << 56),
            factor in proptest::sample::select(vec![1.0, 1.5, 2.0, 3.0]),
            retry in proptest::prop_oneof![0u32..70, proptest::num::u32::ANY],
        ) {
            let Ok(p) = RetryPolicy::builder()
                .base_delay(Duration::from_nanos(base_ns))
                .max_delay(Duration::from_nanos(max_ns))
                .factor(factor)
                .build()
            else {
                return Ok(());
            };
            let (got, defined) = (p.backoff(retry), backoff_by_definition(&p, retry));
            // A power by multiplications and one by `powf` round differently: a few parts
            // in 10^13 apart, and the conversions a nanosecond.
            let slack = Duration::from_nanos(2 + (defined.as_nanos() / 1_000_000_000_000) as u64);
            proptest::prop_assert!(got.abs_diff(defined) <= slack, "{got:?} {defined:?}");
            proptest::prop_assert!(got <= p.max_delay() && got >= p.base_delay().min(p.max_delay()));
        }
    }
}
