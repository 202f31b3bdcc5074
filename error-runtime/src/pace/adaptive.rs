//! The adaptive rate for a provider that sends no limits and only answers 429: it falls on
//! each `rate_limit` and climbs back on success along a cubic curve.
//!
//! This follows the client rate limiter of the AWS SDKs' "adaptive" retry mode (botocore's
//! `retries/adaptive.py` and `retries/throttling.py`): off until the first throttle; then a
//! token bucket whose rate, on a throttle, drops to `β` (0.7) times the rate being sent
//! and, on a success, follows `C·(t − K)³ + W_max` (C = 0.4, K = ∛(W_max·(1 − β)/C), t the
//! time since the last throttle), never above twice the measured sending rate and never
//! below half a call a second. The sending rate is measured over half-second buckets,
//! smoothed by 0.8.

const BETA: f64 = 0.7;
const SCALE: f64 = 0.4;
const MIN_RATE: f64 = 0.5;
const SMOOTH: f64 = 0.8;
const BUCKET: f64 = 0.5;
const NANOS: f64 = 1e9;

/// One key's adaptive rate, on a clock of nanoseconds.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Adaptive {
    /// Whether a throttle has been met: before, calls are not held.
    enabled: bool,
    rate: f64,
    level: f64,
    at: u64,
    w_max: f64,
    k: f64,
    last_fail: u64,
    /// The measured sending rate, and the half-second bucket being counted.
    measured: f64,
    bucket: u64,
    sent: f64,
}

impl Adaptive {
    /// Counts one call sent at `now`.
    pub(super) fn sent(&mut self, now: u64) {
        let bucket = (now as f64 / NANOS / BUCKET) as u64;
        if bucket == self.bucket {
            self.sent += 1.0;
            return;
        }
        let current = self.sent / BUCKET;
        self.measured = if self.measured == 0.0 {
            current
        } else {
            self.measured * SMOOTH + current * (1.0 - SMOOTH)
        };
        // Buckets with nothing sent in between bring the measure down too.
        let missed = bucket.saturating_sub(self.bucket).saturating_sub(1).min(64);
        for _ in 0..missed {
            self.measured *= SMOOTH;
        }
        self.bucket = bucket;
        self.sent = 1.0;
    }

    /// A call was answered `rate_limit` at `now`.
    pub(super) fn throttled(&mut self, now: u64) {
        let sending = self.sending();
        let rate = if self.enabled {
            sending.min(self.rate)
        } else {
            sending
        };
        self.refill(now);
        self.w_max = rate;
        self.k = (self.w_max * (1.0 - BETA) / SCALE).cbrt();
        self.last_fail = now;
        self.set_rate(rate * BETA);
        if !self.enabled {
            self.enabled = true;
            self.level = 1.0;
            self.at = now;
        }
    }

    /// A call succeeded at `now`.
    pub(super) fn succeeded(&mut self, now: u64) {
        if !self.enabled {
            return;
        }
        self.refill(now);
        let t = now.saturating_sub(self.last_fail) as f64 / NANOS;
        let cubic = SCALE * (t - self.k).powi(3) + self.w_max;
        let ceiling = 2.0 * self.sending();
        self.set_rate(cubic.min(ceiling));
    }

    /// How long until the next call may go at `now`.
    pub(super) fn need(&mut self, now: u64) -> std::time::Duration {
        if !self.enabled {
            return std::time::Duration::ZERO;
        }
        self.refill(now);
        if self.level >= 1.0 {
            return std::time::Duration::ZERO;
        }
        std::time::Duration::from_secs_f64(((1.0 - self.level) / self.rate).clamp(0.0, 3600.0))
    }

    /// Takes the unit of a call that goes (after its wait).
    pub(super) fn take(&mut self) {
        if self.enabled {
            self.level -= 1.0;
        }
    }

    /// The rate being held to, calls a second; `None` before the first throttle.
    pub(super) fn rate(&self) -> Option<f64> {
        self.enabled.then_some(self.rate)
    }

    fn sending(&self) -> f64 {
        if self.measured > 0.0 {
            self.measured
        } else {
            // Nothing measured yet: what the current bucket holds.
            self.sent / BUCKET
        }
    }

    fn set_rate(&mut self, rate: f64) {
        self.rate = if rate.is_finite() {
            rate.max(MIN_RATE)
        } else {
            MIN_RATE
        };
        self.level = self.level.min(self.capacity());
    }

    fn capacity(&self) -> f64 {
        self.rate.max(1.0)
    }

    fn refill(&mut self, now: u64) {
        if now > self.at {
            let back = self.rate * (now - self.at) as f64 / NANOS;
            self.level = (self.level + back).min(self.capacity());
            self.at = now;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn off_until_the_first_throttle_then_falls_and_climbs_back() {
        let mut a = Adaptive::default();
        let mut now = 0;
        // 20 calls a second for two seconds.
        for _ in 0..40 {
            assert_eq!(a.need(now), std::time::Duration::ZERO);
            a.sent(now);
            now += 50 * MS;
        }
        a.throttled(now);
        let fallen = a.rate().unwrap();
        assert!(fallen > 10.0 && fallen < 16.0, "{fallen}");
        for _ in 0..100 {
            now += 50 * MS;
            a.sent(now);
            a.succeeded(now);
        }
        assert!(a.rate().unwrap() > fallen, "{:?}", a.rate());
        a.throttled(now);
        assert!(a.rate().unwrap() < 20.0);
    }

    #[test]
    fn the_rate_never_falls_below_half_a_call_a_second() {
        let mut a = Adaptive::default();
        for i in 0..50 {
            a.throttled(i * 10 * MS);
        }
        assert_eq!(a.rate(), Some(MIN_RATE));
        a.take();
        assert!(a.need(500 * MS) <= std::time::Duration::from_secs(2));
    }
}
