//! A provider's limits: a token bucket of requests and one of tokens, refilled evenly over a
//! minute, as OpenAI and Anthropic describe theirs.

use std::time::{Duration, Instant};

/// One bucket: it holds `capacity` units and refills `capacity` a minute.
#[derive(Clone, Debug)]
struct Bucket {
    capacity: f64,
    level: f64,
    at: Instant,
}

impl Bucket {
    fn new(capacity: u64, now: Instant) -> Bucket {
        let capacity = capacity.max(1) as f64;
        Bucket {
            capacity,
            level: capacity,
            at: now,
        }
    }

    fn per_second(&self) -> f64 {
        self.capacity / 60.0
    }

    fn refill(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.level = (self.level + elapsed * self.per_second()).min(self.capacity);
        self.at = now;
    }

    /// How long until `units` are in the bucket (zero when they are).
    fn wait_for(&self, units: f64) -> Duration {
        let missing = units.min(self.capacity) - self.level;
        if missing <= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(missing / self.per_second())
        }
    }

    /// How long until the bucket is full again.
    fn reset(&self) -> Duration {
        self.wait_for(self.capacity)
    }
}

/// What the buckets said of one call, for the rate-limit headers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// The requests a minute allowed.
    pub requests_limit: u64,
    /// The requests left now.
    pub requests_remaining: u64,
    /// When the requests bucket is full again.
    pub requests_reset: Duration,
    /// The tokens a minute allowed.
    pub tokens_limit: u64,
    /// The tokens left now.
    pub tokens_remaining: u64,
    /// When the tokens bucket is full again.
    pub tokens_reset: Duration,
}

/// The two buckets of one provider.
#[derive(Clone, Debug)]
pub struct Buckets {
    requests: Bucket,
    tokens: Bucket,
}

impl Buckets {
    /// Full buckets of `requests` and `tokens` a minute.
    pub fn new(requests: u64, tokens: u64, now: Instant) -> Buckets {
        Buckets {
            requests: Bucket::new(requests, now),
            tokens: Bucket::new(tokens, now),
        }
    }

    /// Takes one request and `tokens` if both buckets hold them: `Ok` with the limits after,
    /// or `Err` with the limits and how long until they would.
    pub fn admit(&mut self, tokens: u64, now: Instant) -> Result<Limits, (Limits, Duration)> {
        self.requests.refill(now);
        self.tokens.refill(now);
        let wait = self
            .requests
            .wait_for(1.0)
            .max(self.tokens.wait_for(tokens as f64));
        if !wait.is_zero() {
            return Err((self.limits(), wait));
        }
        self.requests.level -= 1.0;
        self.tokens.level -= (tokens as f64).min(self.tokens.capacity);
        Ok(self.limits())
    }

    fn limits(&self) -> Limits {
        Limits {
            requests_limit: self.requests.capacity as u64,
            requests_remaining: self.requests.level.max(0.0) as u64,
            requests_reset: self.requests.reset(),
            tokens_limit: self.tokens.capacity as u64,
            tokens_remaining: self.tokens.level.max(0.0) as u64,
            tokens_reset: self.tokens.reset(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admits_what_the_buckets_hold_and_says_when_the_rest_would_be() {
        let start = Instant::now();
        let mut b = Buckets::new(60, 6_000, start);
        for _ in 0..60 {
            b.admit(10, start).unwrap();
        }
        let (limits, wait) = b.admit(10, start).unwrap_err();
        assert_eq!(limits.requests_remaining, 0);
        assert!((wait.as_secs_f64() - 1.0).abs() < 1e-6, "{wait:?}");
        assert!(b.admit(10, start + Duration::from_secs(1)).is_ok());
        // A call bigger than the token bucket is admitted by a full one, not refused for ever.
        let mut b = Buckets::new(60, 100, start);
        assert!(b.admit(1_000, start).is_ok());
    }
}
