//! Property tests of `http::parse_retry_after`: never panics on any text, reads every
//! delay-seconds value exactly (saturating beyond `u64` seconds), and every HTTP-date in
//! the future as the delay to it.
#![cfg(feature = "http")]

use std::time::{Duration, SystemTime};

use agent_error::http::parse_retry_after;
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
}
