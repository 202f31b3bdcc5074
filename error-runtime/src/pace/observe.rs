//! What a pacer learns from a response (feature `http`): its rate-limit headers turned
//! into buckets, its `Retry-After` into a pause, its status into the adaptive rate.

use std::time::{Duration, SystemTime};

use crate::http::{IntoStatus, LimitReading, RateLimits};
use crate::store::{Bucket, BucketReport, PROBE_WAIT};

use super::{KeyState, Pacer, State, pause};

/// The longest a key waits when its budget is spent and no reset is said.
const MAX_SPENT_BACKOFF: Duration = Duration::from_secs(32);

/// What a bucket's `remaining` may lack, rounded down: a unit.
const ROUNDING_UNITS: f64 = 1.0;

/// What a bucket's reset may lack, written in whole milliseconds: a millisecond.
const ROUNDING_RESET: Duration = Duration::from_millis(1);

impl Pacer {
    /// Learns what a response's headers say about `key`'s limits, whatever its status
    /// (see [`RateLimits`] for the header families read): each limit becomes the key's
    /// budget in its dimension, and `retry-after-ms` / `Retry-After` pause the key. A
    /// budget spent with no reset said waits a short while (1 s, doubling while it stays
    /// spent, at most 32 s). A field that is not obeyed is ignored, with one warning (with
    /// the `tracing` feature).
    ///
    /// ```
    /// use std::time::Duration;
    /// use agent_error::recover::{Cost, Pacer};
    /// use http::{HeaderMap, HeaderValue};
    ///
    /// let pacer = Pacer::new();
    /// let mut headers = HeaderMap::new();
    /// headers.insert("retry-after", HeaderValue::from_static("3"));
    /// pacer.observe("openai/gpt-4o", &headers);
    /// let wait = pacer.try_acquire("openai/gpt-4o", Cost::request()).unwrap_err();
    /// assert!(wait > Duration::from_millis(2_900) && wait <= Duration::from_secs(3));
    /// ```
    pub fn observe(&self, key: &str, headers: &::http::HeaderMap) {
        self.observe_limits(key, &RateLimits::read(headers, SystemTime::now()));
    }

    /// [`observe`](Self::observe), and the status feeds the adaptive rate: 429 falls
    /// ([`throttled`](Self::throttled)), a success (below 400) climbs
    /// ([`succeeded`](Self::succeeded)).
    pub fn observe_response(
        &self,
        key: &str,
        status: impl IntoStatus,
        headers: &::http::HeaderMap,
    ) {
        let status = status.into_status();
        self.observe(key, headers);
        match status {
            429 => self.throttled(key, None),
            100..=399 => self.succeeded(key),
            _ => {}
        }
    }

    /// Learns limits already read from a response's headers.
    pub fn observe_limits(&self, key: &str, limits: &RateLimits) {
        if limits.ignored {
            warn_implausible(&self.state);
        }
        if limits.is_empty() {
            return;
        }
        let now = self.now();
        let shared = self.config.store.is_some();
        self.with_key(key, now, |state| {
            let mut spent_without_reset = false;
            let mut any_left = false;
            for (dimension, reading) in limits.iter() {
                let d = dimension.index();
                let report = to_report(&reading, state.buckets[d].as_ref());
                state.reported = true;
                let share = state.taken_share();
                let known = state.buckets[d].is_some();
                let bucket = state.buckets[d].get_or_insert_with(Bucket::default);
                bucket.refill_share(now, share);
                bucket.report(&report, now);
                if !known {
                    // The calls that went while no limit was known are on their way.
                    bucket.made_after(state.unmetered[d].take(now), now);
                }
                if shared {
                    state.pending[d] = Some(report);
                    // The response's count is newer than what this replica spent and has
                    // not told yet, and holds it: told as well, it would count twice, and
                    // a spend told a day late would hold a budget the provider says is back.
                    state.unsynced[d] = state.unsynced[d].min(0.0);
                }
                if reading.remaining == 0 && reading.reset.is_none() {
                    spent_without_reset = true;
                } else if reading.remaining > 0 {
                    any_left = true;
                }
            }
            if spent_without_reset {
                let wait = next_backoff(state);
                pause(state, wait, now, shared);
            } else if any_left {
                state.spent_backoff = Duration::ZERO;
            }
            if let Some(wait) = limits.retry_after {
                pause(state, wait, now, shared);
            }
        });
    }
}

/// The wait for a budget spent with no reset: the short default ([`PROBE_WAIT`], 1 s),
/// then twice the last, at most 32 s.
fn next_backoff(state: &mut KeyState) -> Duration {
    let wait = if state.spent_backoff.is_zero() {
        PROBE_WAIT
    } else {
        (state.spent_backoff * 2).min(MAX_SPENT_BACKOFF)
    };
    state.spent_backoff = wait;
    wait
}

/// One limit as a bucket. A bucket (OpenAI, Anthropic) refills at
/// `(limit − remaining − 1) / (reset + 1 ms)`, full again at the reset less the rounding of
/// both numbers (see [`ROUNDING_UNITS`]); where that margin leaves nothing to read (a limit
/// of one, a bucket all but full) it holds what is left until the reset, when it is full
/// again. A window of a known quota holds until its reset, then refills evenly over its
/// length (the period the server says, else its reset; at least a second). A window whose
/// quota or length is not known (an IETF item without a policy) refills at no known rate:
/// `remaining` now, and the next at its reset, or with none after the short default. A
/// reset said to be now (`0s`, a time past) is a limit whole again, whatever `remaining`
/// was rounded to. A limit not said is the largest known.
fn to_report(reading: &LimitReading, known: Option<&Bucket>) -> BucketReport {
    let capacity = reading
        .limit
        .map(|l| l as f64)
        .unwrap_or_else(|| {
            known
                .map_or(0.0, |b| b.capacity)
                .max(reading.remaining as f64)
        })
        .max(reading.remaining as f64)
        .max(1.0);
    let remaining = if reading.reset == Some(Duration::ZERO) {
        capacity
    } else {
        reading.remaining as f64
    };
    let reset = reading.reset.unwrap_or(Duration::ZERO);
    if reading.window {
        let period = reading
            .limit
            .and(reading.period.or(reading.reset))
            .map(|period| period.max(Duration::from_secs(1)));
        return BucketReport {
            capacity,
            level: remaining,
            rate: period.map_or(0.0, |period| capacity / period.as_secs_f64()),
            hold: reset,
        };
    }
    // The margin that rounding needs: `remaining` is rounded down, so up to one unit less
    // may be missing; the reset is written in whole milliseconds, so it may be up to one
    // later. Read either way, the refill is never faster than the provider's.
    let missing = capacity - remaining - ROUNDING_UNITS;
    if reading.limit.is_some() && !reset.is_zero() && remaining < capacity && missing <= 0.0 {
        // Less than the margin is missing: the refill cannot be read, but the bucket is
        // full again at the reset (a limit of one: its one unit is back then).
        return BucketReport {
            capacity,
            level: remaining,
            rate: 0.0,
            hold: reset,
        };
    }
    let rate = if reading.limit.is_some() && missing > 0.0 && !reset.is_zero() {
        missing / (reset + ROUNDING_RESET).as_secs_f64()
    } else {
        0.0
    };
    BucketReport {
        capacity,
        level: remaining,
        rate,
        hold: Duration::ZERO,
    }
}

/// Reports once that a response had a rate-limit field that is not obeyed.
fn warn_implausible(state: &State) {
    if !state
        .warned
        .swap(true, std::sync::atomic::Ordering::Relaxed)
    {
        #[cfg(feature = "tracing")]
        tracing::warn!(
            "a response's rate-limit headers held a value that is not obeyed (negative, not a number, or a reset more than 25 hours ahead); such values are ignored"
        );
    }
}
