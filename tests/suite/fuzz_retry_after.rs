//! Property tests of `http::parse_retry_after`: never panics on any text, reads every
//! delay-seconds value exactly (saturating beyond `u64` seconds), decimal seconds too, and
//! every HTTP-date in the future as the delay to it; and the pacer's reading of the header
//! (`http::RateLimits`) agrees with it on every value.
#![cfg(feature = "http")]

use std::time::{Duration, SystemTime};

use agent_error::http::{RateLimits, parse_retry_after};
use http::{HeaderMap, HeaderValue};
use proptest::prelude::*;

fn now() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn never_panics(value in "\\PC*", bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let _ = parse_retry_after(&value, now());
        let _ = parse_retry_after(&String::from_utf8_lossy(&bytes), now());
        let _ = parse_retry_after(&value, SystemTime::UNIX_EPOCH);
    }

    #[test]
    fn delay_seconds_are_read_exactly(secs in any::<u64>(), pad in "[ \\t]{0,3}") {
        prop_assert_eq!(
            parse_retry_after(&format!("{pad}{secs}{pad}"), now()),
            Some(Duration::from_secs(secs))
        );
    }

    #[test]
    fn beyond_u64_seconds_saturates(digits in "[1-9][0-9]{20,40}") {
        prop_assert_eq!(parse_retry_after(&digits, now()), Some(Duration::MAX));
    }

    #[test]
    fn future_dates_are_the_delay_to_them_and_past_ones_none(offset in 0u64..10_000_000) {
        let later = now() + Duration::from_secs(offset + 1);
        let text = httpdate::fmt_http_date(later);
        prop_assert_eq!(parse_retry_after(&text, now()), Some(Duration::from_secs(offset + 1)));
        let earlier = now() - Duration::from_secs(offset + 1);
        prop_assert_eq!(parse_retry_after(&httpdate::fmt_http_date(earlier), now()), None);
    }

    #[test]
    fn decimal_seconds_are_read_to_the_nanosecond(secs in 0u64..1_000_000, nanos in 0u32..1_000_000_000) {
        let text = format!("{secs}.{nanos:09}");
        prop_assert_eq!(parse_retry_after(&text, now()), Some(Duration::new(secs, nanos)));
    }

    /// One reading of `Retry-After`: what the retrier waits is what the pacer pauses for,
    /// whatever the value (a date in the past is no wait for either: the retrier's backoff,
    /// the pacer's zero), within the pacer's horizon of 25 hours; past it, the pacer refuses
    /// the value and the retrier's `max_wait` ends the run.
    #[test]
    fn the_retrier_and_the_pacer_read_one_retry_after(
        value in prop_oneof![
            "[0-9]{1,25}",
            "[0-9]{0,6}\\.[0-9]{0,12}",
            (0u64..20_000_000).prop_map(|s| httpdate::fmt_http_date(now() + Duration::from_secs(s) - Duration::from_secs(10_000_000))),
            "\\PC{0,12}",
        ]
    ) {
        let mut headers = HeaderMap::new();
        let Ok(header) = HeaderValue::from_str(&value) else { return Ok(()) };
        headers.insert("retry-after", header);
        let horizon = Duration::from_secs(25 * 60 * 60);
        let retrier = parse_retry_after(&value, now())
            .filter(|wait| !wait.is_zero() && *wait <= horizon);
        let pacer = RateLimits::read(&headers, now()).retry_after.filter(|wait| !wait.is_zero());
        prop_assert_eq!(retrier, pacer, "{:?}", value);
    }
}
