//! Rate limits read from real-looking headers of each family, and the readings' bounds
//! whatever the headers hold.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ::http::{HeaderMap, HeaderName, HeaderValue};
use proptest::prelude::*;

use super::super::timestamp::rfc3339;
use super::*;

/// 2024-04-19T18:29:00Z.
const NOW_SECONDS: u64 = 1_713_551_340;

fn now() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(NOW_SECONDS)
}

/// The headers, each pair a field line (a name given twice is two lines).
fn headers(lines: &[(&str, &str)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in lines {
        map.append(
            HeaderName::from_bytes(name.as_bytes()).unwrap(),
            HeaderValue::from_str(value).unwrap(),
        );
    }
    map
}

fn read(lines: &[(&str, &str)]) -> RateLimits {
    RateLimits::read(&headers(lines), now())
}

fn secs(seconds: u64) -> Option<Duration> {
    Some(Duration::from_secs(seconds))
}

fn millis(milliseconds: u64) -> Option<Duration> {
    Some(Duration::from_millis(milliseconds))
}

fn bucket(limit: Option<u64>, remaining: u64, reset: Option<Duration>) -> Option<LimitReading> {
    Some(LimitReading {
        limit,
        remaining,
        reset,
        window: false,
        period: None,
    })
}

fn window(
    limit: Option<u64>,
    remaining: u64,
    reset: Option<Duration>,
    period: Option<Duration>,
) -> Option<LimitReading> {
    Some(LimitReading {
        limit,
        remaining,
        reset,
        window: true,
        period,
    })
}

#[test]
fn openai_requests_and_tokens() {
    let limits = read(&[
        ("x-ratelimit-limit-requests", "10000"),
        ("x-ratelimit-limit-tokens", "2000000"),
        ("x-ratelimit-remaining-requests", "9999"),
        ("x-ratelimit-remaining-tokens", "1999975"),
        ("x-ratelimit-reset-requests", "6ms"),
        ("x-ratelimit-reset-tokens", "6m0s"),
    ]);
    assert_eq!(
        limits.get(Dimension::Requests),
        bucket(Some(10_000), 9_999, millis(6))
    );
    assert_eq!(
        limits.get(Dimension::Tokens),
        bucket(Some(2_000_000), 1_999_975, secs(360))
    );
    assert_eq!(limits.get(Dimension::InputTokens), None);
    assert_eq!(limits.retry_after, None);
    assert!(!limits.ignored);
    assert!(!limits.is_empty());
}

#[test]
fn openai_resets_as_go_durations_or_seconds() {
    let cases = [
        ("6m0s", Duration::from_secs(360)),
        ("1s", Duration::from_secs(1)),
        ("20ms", Duration::from_millis(20)),
        ("59.94s", Duration::from_millis(59_940)),
        ("2m59.56s", Duration::from_millis(179_560)),
        ("1h0m0s", Duration::from_secs(3_600)),
        ("0s", Duration::ZERO),
        ("0", Duration::ZERO),
        ("12", Duration::from_secs(12)),
        ("0.5", Duration::from_millis(500)),
    ];
    for (text, reset) in cases {
        let limits = read(&[
            ("x-ratelimit-remaining-tokens", "10"),
            ("x-ratelimit-reset-tokens", text),
        ]);
        let tokens = limits.get(Dimension::Tokens).unwrap();
        assert_eq!(tokens.reset, Some(reset), "{text}");
        assert!(!limits.ignored, "{text}");
    }
}

#[test]
fn groq_counts_requests_per_day() {
    let limits = read(&[
        ("x-ratelimit-limit-requests", "14400"),
        ("x-ratelimit-limit-tokens", "18000"),
        ("x-ratelimit-remaining-requests", "14370"),
        ("x-ratelimit-remaining-tokens", "17997"),
        ("x-ratelimit-reset-requests", "2m59.56s"),
        ("x-ratelimit-reset-tokens", "7.66s"),
    ]);
    assert_eq!(
        limits.get(Dimension::Requests),
        bucket(Some(14_400), 14_370, millis(179_560))
    );
    assert_eq!(
        limits.get(Dimension::Tokens),
        bucket(Some(18_000), 17_997, millis(7_660))
    );
    assert!(!limits.ignored);
}

#[test]
fn azure_sends_only_what_remains_and_minus_one_for_unknown() {
    let limits = read(&[
        ("x-ratelimit-remaining-requests", "99"),
        ("x-ratelimit-remaining-tokens", "119000"),
    ]);
    assert_eq!(limits.get(Dimension::Requests), bucket(None, 99, None));
    assert_eq!(limits.get(Dimension::Tokens), bucket(None, 119_000, None));
    assert!(!limits.ignored);

    let limits = read(&[
        ("x-ratelimit-remaining-requests", "-1"),
        ("x-ratelimit-remaining-tokens", "119000"),
        ("x-ratelimit-reset-tokens", "-1"),
    ]);
    assert_eq!(limits.get(Dimension::Requests), None);
    assert_eq!(limits.get(Dimension::Tokens), bucket(None, 119_000, None));
    assert!(!limits.ignored);
}

fn anthropic(date: Option<&str>) -> HeaderMap {
    let mut lines = vec![
        ("anthropic-ratelimit-requests-limit", "50"),
        ("anthropic-ratelimit-requests-remaining", "49"),
        ("anthropic-ratelimit-requests-reset", "2024-04-19T18:30:00Z"),
        ("anthropic-ratelimit-tokens-limit", "480000"),
        ("anthropic-ratelimit-tokens-remaining", "479000"),
        ("anthropic-ratelimit-tokens-reset", "2024-04-19T18:29:01.5Z"),
        ("anthropic-ratelimit-input-tokens-limit", "400000"),
        ("anthropic-ratelimit-input-tokens-remaining", "399000"),
        (
            "anthropic-ratelimit-input-tokens-reset",
            "2024-04-19T20:29:02+02:00",
        ),
        ("anthropic-ratelimit-output-tokens-limit", "80000"),
        ("anthropic-ratelimit-output-tokens-remaining", "80000"),
        (
            "anthropic-ratelimit-output-tokens-reset",
            "2024-04-19T18:28:00Z",
        ),
    ];
    if let Some(date) = date {
        lines.push(("date", date));
    }
    headers(&lines)
}

#[test]
fn anthropic_resets_against_the_servers_date() {
    // The local clock is ten seconds ahead of the server's.
    let local = now() + Duration::from_secs(10);
    let limits = RateLimits::read(&anthropic(Some("Fri, 19 Apr 2024 18:29:00 GMT")), local);
    assert_eq!(
        limits.get(Dimension::Requests),
        bucket(Some(50), 49, secs(60))
    );
    assert_eq!(
        limits.get(Dimension::Tokens),
        bucket(Some(480_000), 479_000, millis(1_500))
    );
    assert_eq!(
        limits.get(Dimension::InputTokens),
        bucket(Some(400_000), 399_000, secs(2))
    );
    // A reset in the past: full already.
    assert_eq!(
        limits.get(Dimension::OutputTokens),
        bucket(Some(80_000), 80_000, Some(Duration::ZERO))
    );
    assert!(!limits.ignored);
    let read: Vec<Dimension> = limits.iter().map(|(dimension, _)| dimension).collect();
    assert_eq!(read, Dimension::ALL);
}

#[test]
fn anthropic_resets_against_the_local_clock_without_a_date() {
    let local = now() + Duration::from_secs(10);
    for date in [None, Some("yesterday")] {
        let limits = RateLimits::read(&anthropic(date), local);
        assert_eq!(
            limits.get(Dimension::Requests),
            bucket(Some(50), 49, secs(50))
        );
        assert_eq!(
            limits.get(Dimension::Tokens).unwrap().reset,
            Some(Duration::ZERO)
        );
        assert!(!limits.ignored);
    }
}

#[test]
fn ietf_policies_pair_with_items_by_name() {
    let limits = read(&[
        (
            "ratelimit-policy",
            r#""minute";q=100;w=60, "day";q=1000;w=86400, "tpm";q=50000;w=60;qu="tokens""#,
        ),
        (
            "ratelimit-policy",
            r#""bytes";q=1000000;w=60;qu="content-bytes", "mine";q=10;w=1;pk=:YWxpY2U=:"#,
        ),
        (
            "ratelimit",
            r#""minute";r=50;t=30, "day";r=20;t=3600, "tpm";r=42000;t=5, "bytes";r=0;t=60"#,
        ),
        ("ratelimit", r#""mine";r=0;t=1;pk=:Ym9i:"#),
    ]);
    // Of the two request limits, the daily one has less remaining.
    assert_eq!(
        limits.get(Dimension::Requests),
        window(Some(1000), 20, secs(3600), secs(86_400))
    );
    assert_eq!(
        limits.get(Dimension::Tokens),
        window(Some(50_000), 42_000, secs(5), secs(60))
    );
    // Neither the bytes (another unit) nor another partition's limit counts, nor warns.
    assert!(!limits.ignored);
    assert_eq!(limits.iter().count(), 2);
}

#[test]
fn ietf_items_with_their_policys_partition_key() {
    let limits = read(&[
        ("ratelimit-policy", "mine;q=10;w=1;pk=:YWxpY2U=:"),
        ("ratelimit", "mine;r=3;t=1;pk=:YWxpY2U=:"),
    ]);
    assert_eq!(
        limits.get(Dimension::Requests),
        window(Some(10), 3, secs(1), secs(1))
    );
}

#[test]
fn ietf_items_without_a_policy_count_requests() {
    let limits = read(&[("ratelimit", r#""default";r=5;t=9"#)]);
    assert_eq!(
        limits.get(Dimension::Requests),
        window(None, 5, secs(9), None)
    );
    // A policy alone says nothing about what remains.
    assert!(read(&[("ratelimit-policy", r#""default";q=100;w=60"#)]).is_empty());
}

#[test]
fn ietf_an_item_whose_reset_is_malformed_is_dropped_whole() {
    for value in [
        r#""default";r=0;t=-5"#,
        r#""default";r=0;t=1.5"#,
        r#""default";r=0;t=soon"#,
        r#""default";r=0;t="10""#,
    ] {
        let limits = read(&[("ratelimit", value)]);
        assert_eq!(limits.get(Dimension::Requests), None, "{value}");
        assert!(limits.ignored, "{value}");
        // The other items are read.
        let line = format!(r#"{value}, "day";r=3;t=60"#);
        let limits = read(&[("ratelimit", &line)]);
        assert_eq!(
            limits.get(Dimension::Requests),
            window(None, 3, secs(60), None),
            "{line}"
        );
    }
    // No reset at all, or `-1` (unknown), keeps the item: spent with no reset.
    for value in [r#""default";r=0"#, r#""default";r=0;t=-1"#] {
        assert_eq!(
            read(&[("ratelimit", value)]).get(Dimension::Requests),
            window(None, 0, None, None),
            "{value}"
        );
    }
}

#[test]
fn ietf_older_dictionary_form() {
    let limits = read(&[("ratelimit", "limit=100, remaining=50, reset=30")]);
    assert_eq!(
        limits.get(Dimension::Requests),
        window(Some(100), 50, secs(30), None)
    );
    assert!(!limits.ignored);
}

#[test]
fn ietf_older_separate_fields() {
    let limits = read(&[
        ("ratelimit-limit", "100, 100;w=60"),
        ("ratelimit-remaining", "50"),
        ("ratelimit-reset", "30"),
    ]);
    assert_eq!(
        limits.get(Dimension::Requests),
        window(Some(100), 50, secs(30), secs(60))
    );
    let limits = read(&[("ratelimit-limit", "10"), ("ratelimit-remaining", "0")]);
    assert_eq!(
        limits.get(Dimension::Requests),
        window(Some(10), 0, None, None)
    );
    assert!(!limits.ignored);
}

#[test]
fn ietf_malformed_fields_are_refused_whole() {
    for value in [
        r#""minute";r=50;t=30,"#,
        r#""minute";r=50;t=30, "day";r="#,
        r#""minute";R=50"#,
        r#""minute" r=50"#,
        r#""unterminated;r=5"#,
        "minute;r=1234567890123456",
        "minute;r=1.5",
        "minute;r=-5",
        "minute;r=?1",
    ] {
        let limits = read(&[("ratelimit", value)]);
        assert_eq!(limits.get(Dimension::Requests), None, "{value}");
        assert!(limits.ignored, "{value}");
    }
    // One malformed line refuses the field's other lines too.
    let limits = read(&[("ratelimit", "minute;r=5"), ("ratelimit", "day;;r=3")]);
    assert_eq!(limits.get(Dimension::Requests), None);
    assert!(limits.ignored);
    // Valid structured fields that do not matter here are read past.
    let limits = read(&[(
        "ratelimit",
        r#"(a b);x=1, ?1, "other";r=7;t=2;note=%"caf%c3%a9";at=@1700000000;d=1.25"#,
    )]);
    assert_eq!(
        limits.get(Dimension::Requests),
        window(None, 7, secs(2), None)
    );
    assert!(!limits.ignored);
}

#[test]
fn x_ratelimit_resets_as_unix_times_or_delays() {
    let cases = [
        // Unix seconds and milliseconds, against the response's clock.
        (NOW_SECONDS + 60).to_string(),
        ((NOW_SECONDS + 60) * 1000).to_string(),
        // A delay.
        "60".to_owned(),
    ];
    for reset in &cases {
        let limits = read(&[
            ("x-ratelimit-limit", "20"),
            ("x-ratelimit-remaining", "19"),
            ("x-ratelimit-reset", reset),
        ]);
        assert_eq!(
            limits.get(Dimension::Requests),
            window(Some(20), 19, secs(60), None),
            "{reset}"
        );
        assert!(!limits.ignored);
    }
    // The server's `Date` rules over the local clock; a time past is now.
    let mut map = headers(&[
        ("x-ratelimit-remaining", "0"),
        ("x-ratelimit-reset", &(NOW_SECONDS + 60).to_string()),
        ("date", "Fri, 19 Apr 2024 18:29:30 GMT"),
    ]);
    let limits = RateLimits::read(&map, now());
    assert_eq!(limits.get(Dimension::Requests).unwrap().reset, secs(30));
    map.insert("x-ratelimit-reset", HeaderValue::from_static("1713551000"));
    let limits = RateLimits::read(&map, now());
    assert_eq!(
        limits.get(Dimension::Requests).unwrap().reset,
        Some(Duration::ZERO)
    );
    // Unknown.
    let limits = read(&[("x-ratelimit-remaining", "3"), ("x-ratelimit-reset", "-1")]);
    assert_eq!(limits.get(Dimension::Requests), window(None, 3, None, None));
    assert!(!limits.ignored);
}

#[test]
fn retry_after_ms_wins_over_retry_after() {
    let limits = read(&[("retry-after-ms", "1500"), ("retry-after", "3")]);
    assert_eq!(limits.retry_after, millis(1_500));
    assert!(!limits.is_empty());
    assert_eq!(limits.iter().count(), 0);

    let cases = [
        (
            "retry-after-ms",
            "250.5",
            Some(Duration::from_micros(250_500)),
        ),
        ("retry-after", "1.5", millis(1_500)),
        ("retry-after", "0", Some(Duration::ZERO)),
        ("retry-after", "Fri, 19 Apr 2024 18:31:00 GMT", secs(120)),
        (
            "retry-after",
            "Fri, 19 Apr 2024 18:00:00 GMT",
            Some(Duration::ZERO),
        ),
    ];
    for (name, value, delay) in cases {
        let limits = read(&[(name, value)]);
        assert_eq!(limits.retry_after, delay, "{name}: {value}");
        assert!(!limits.ignored, "{name}: {value}");
    }

    // A `retry-after-ms` not obeyed leaves `Retry-After`.
    let limits = read(&[("retry-after-ms", "soon"), ("retry-after", "3")]);
    assert_eq!(limits.retry_after, secs(3));
    assert!(limits.ignored);
}

#[test]
fn duplicate_lines_keep_the_most_restrictive() {
    let limits = read(&[
        ("x-ratelimit-limit-requests", "100"),
        ("x-ratelimit-remaining-requests", "60"),
        ("x-ratelimit-remaining-requests", "40, 50"),
        ("x-ratelimit-reset-requests", "1s"),
        ("x-ratelimit-reset-requests", "3s"),
        ("retry-after", "2"),
        ("retry-after", "5"),
    ]);
    assert_eq!(
        limits.get(Dimension::Requests),
        bucket(Some(100), 40, secs(3))
    );
    assert_eq!(limits.retry_after, secs(5));

    // Across families: the reading with less remaining, on a tie the later reset.
    let limits = read(&[
        ("x-ratelimit-remaining-requests", "9"),
        ("x-ratelimit-reset-requests", "1s"),
        ("ratelimit", "default;r=9;t=30"),
        ("x-ratelimit-remaining", "12"),
    ]);
    assert_eq!(
        limits.get(Dimension::Requests),
        window(None, 9, secs(30), None)
    );
    let limits = read(&[
        ("x-ratelimit-remaining-requests", "2"),
        ("ratelimit", "default;r=9;t=30"),
    ]);
    assert_eq!(limits.get(Dimension::Requests), bucket(None, 2, None));
}

#[test]
fn remaining_above_the_limit_is_clamped() {
    let limits = read(&[
        ("anthropic-ratelimit-tokens-limit", "1000"),
        ("anthropic-ratelimit-tokens-remaining", "5000"),
        ("ratelimit-policy", "p;q=10"),
        ("ratelimit", "p;r=11"),
    ]);
    assert_eq!(
        limits.get(Dimension::Tokens),
        bucket(Some(1000), 1000, None)
    );
    assert_eq!(
        limits.get(Dimension::Requests),
        window(Some(10), 10, None, None)
    );
}

#[test]
fn resets_beyond_twenty_five_hours_are_ignored() {
    let cases = [
        ("anthropic-ratelimit-requests-reset", "3000-01-01T00:00:00Z"),
        ("x-ratelimit-reset-requests", "25h0m0.001s"),
        ("x-ratelimit-reset", "90001"),
        ("x-ratelimit-reset", "32503680000"),
        ("ratelimit-reset", "1000000"),
    ];
    for (name, reset) in cases {
        let remaining = name.replace("reset", "remaining");
        let limits = read(&[(&remaining, "5"), (name, reset)]);
        let reading = limits.get(Dimension::Requests).unwrap();
        assert_eq!(reading.remaining, 5, "{name}: {reset}");
        assert_eq!(reading.reset, None, "{name}: {reset}");
        assert!(limits.ignored, "{name}: {reset}");
    }
    for (name, value) in [("retry-after", "90001"), ("retry-after-ms", "90000001")] {
        let limits = read(&[(name, value)]);
        assert_eq!(limits.retry_after, None, "{name}");
        assert!(limits.ignored, "{name}");
    }
    // Twenty-five hours exactly is obeyed.
    let limits = read(&[
        ("x-ratelimit-remaining-requests", "5"),
        ("x-ratelimit-reset-requests", "25h"),
        ("retry-after", "90000"),
    ]);
    assert_eq!(limits.get(Dimension::Requests).unwrap().reset, secs(90_000));
    assert_eq!(limits.retry_after, secs(90_000));
    assert!(!limits.ignored);
}

#[test]
fn values_not_obeyed_are_absent_and_said_so() {
    let bad = [
        "-5",
        "NaN",
        "nan",
        "1.5",
        "1e3",
        "+3",
        "",
        "18446744073709551616",
        "99999999999999999999999",
        "garbage",
        "0x10",
    ];
    for value in bad {
        let limits = read(&[("x-ratelimit-remaining-requests", value)]);
        assert_eq!(limits.get(Dimension::Requests), None, "{value:?}");
        assert!(limits.ignored, "{value:?}");

        let limits = read(&[
            ("x-ratelimit-remaining-requests", "3"),
            ("x-ratelimit-limit-requests", value),
        ]);
        assert_eq!(
            limits.get(Dimension::Requests),
            bucket(None, 3, None),
            "{value:?}"
        );
        assert!(limits.ignored, "{value:?}");
    }
    for value in ["-1s", "NaN", "1.5.2s", "5x", "2024-04-19", "inf"] {
        let limits = read(&[
            ("x-ratelimit-remaining-tokens", "3"),
            ("x-ratelimit-reset-tokens", value),
            ("retry-after", value),
        ]);
        assert_eq!(
            limits.get(Dimension::Tokens).unwrap().reset,
            None,
            "{value}"
        );
        assert_eq!(limits.retry_after, None, "{value}");
        assert!(limits.ignored, "{value}");
    }
    // The largest count is read; one more is not.
    let limits = read(&[("x-ratelimit-remaining", "18446744073709551615")]);
    assert_eq!(limits.get(Dimension::Requests).unwrap().remaining, u64::MAX);
    // One bad element leaves the others.
    let limits = read(&[("x-ratelimit-remaining-requests", "7, lots")]);
    assert_eq!(limits.get(Dimension::Requests), bucket(None, 7, None));
    assert!(limits.ignored);
}

#[test]
fn values_that_are_not_text_are_ignored() {
    let mut map = HeaderMap::new();
    let latin1 = HeaderValue::from_bytes(b"10\xe9").unwrap();
    for name in [
        "x-ratelimit-remaining-requests",
        "anthropic-ratelimit-tokens-remaining",
        "ratelimit",
        "retry-after",
    ] {
        map.insert(name, latin1.clone());
    }
    map.append(
        "x-ratelimit-remaining-requests",
        HeaderValue::from_static("4"),
    );
    let limits = RateLimits::read(&map, now());
    assert_eq!(limits.get(Dimension::Requests), bucket(None, 4, None));
    assert_eq!(limits.get(Dimension::Tokens), None);
    assert_eq!(limits.retry_after, None);
    assert!(limits.ignored);
}

#[test]
fn at_most_sixty_four_values_a_field() {
    let many = (1..=100)
        .rev()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let limits = read(&[("x-ratelimit-remaining-requests", &many)]);
    // 100 down to 37 were read.
    assert_eq!(limits.get(Dimension::Requests).unwrap().remaining, 37);
    assert!(limits.ignored);

    let items = (1..=100)
        .rev()
        .map(|n| format!("p{n};r={n}"))
        .collect::<Vec<_>>()
        .join(", ");
    let limits = read(&[("ratelimit", &items)]);
    assert_eq!(limits.get(Dimension::Requests).unwrap().remaining, 37);
    assert!(limits.ignored);

    // A huge value is read in one pass, without a panic.
    let huge = "9".repeat(1 << 20);
    let limits = read(&[
        ("x-ratelimit-remaining-requests", &huge),
        ("ratelimit", &huge),
        ("anthropic-ratelimit-requests-reset", &huge),
    ]);
    assert!(limits.is_empty());
    assert!(limits.ignored);
}

#[test]
fn nothing_read_is_empty() {
    let limits = read(&[
        ("content-type", "application/json"),
        ("x-request-id", "abc"),
    ]);
    assert!(limits.is_empty());
    assert!(!limits.ignored);
    assert_eq!(limits, RateLimits::default());
    // A limit without what remains says nothing.
    let limits = read(&[
        ("x-ratelimit-limit-requests", "100"),
        ("x-ratelimit-reset-requests", "1s"),
    ]);
    assert!(limits.is_empty());
}

#[test]
fn rfc3339_times() {
    let at = |seconds: u64, nanos: u32| Some(UNIX_EPOCH + Duration::new(seconds, nanos));
    assert_eq!(rfc3339("1970-01-01T00:00:00Z"), at(0, 0));
    assert_eq!(rfc3339("2024-04-19T18:29:00Z"), at(NOW_SECONDS, 0));
    assert_eq!(rfc3339("2024-04-19t18:29:00z"), at(NOW_SECONDS, 0));
    assert_eq!(rfc3339("2024-04-19T20:29:00+02:00"), at(NOW_SECONDS, 0));
    assert_eq!(rfc3339("2024-04-19T13:59:00-04:30"), at(NOW_SECONDS, 0));
    assert_eq!(
        rfc3339("2024-04-19T18:29:00.123456789123Z"),
        at(NOW_SECONDS, 123_456_789)
    );
    assert_eq!(
        rfc3339("2024-04-19T18:29:00.5Z"),
        at(NOW_SECONDS, 500_000_000)
    );
    assert_eq!(rfc3339("2024-02-29T00:00:00Z"), at(1_709_164_800, 0));
    assert_eq!(rfc3339("2000-02-29T00:00:00Z"), at(951_782_400, 0));
    assert_eq!(rfc3339("2016-12-31T23:59:60Z"), at(1_483_228_800, 0));
    assert_eq!(
        rfc3339("1969-12-31T23:59:59.5Z"),
        UNIX_EPOCH.checked_sub(Duration::from_millis(500))
    );
    for text in [
        "",
        "2024-04-19",
        "2024-04-19 18:29:00Z",
        "2024-04-19T18:29:00",
        "2024-04-19T18:29Z",
        "2024-04-19T18:29:00.Z",
        "2024-04-19T18:29:00+0200",
        "2024-04-19T18:29:00+02:00 ",
        "2024-04-19T18:29:00ZZ",
        "2023-02-29T00:00:00Z",
        "1900-02-29T00:00:00Z",
        "2024-13-01T00:00:00Z",
        "2024-00-01T00:00:00Z",
        "2024-04-31T00:00:00Z",
        "2024-04-19T24:00:00Z",
        "2024-04-19T18:60:00Z",
        "2024-04-19T18:29:61Z",
        "2024-04-19T18:29:00+24:00",
        "2024-04-19T18:29:00+02:60",
        "+2024-04-19T18:29:00Z",
        "２024-04-19T18:29:00Z",
        "2024-04-19T18:29:00.５Z",
    ] {
        assert_eq!(rfc3339(text), None, "{text:?}");
    }
}

/// Header names the reader looks at, and a few it does not.
fn name() -> impl Strategy<Value = HeaderName> {
    let known: Vec<&'static str> = LIMIT_FIELDS
        .iter()
        .flat_map(|fields| [fields.limit, fields.remaining, fields.reset])
        .chain([
            "ratelimit",
            "ratelimit-policy",
            "ratelimit-limit",
            "ratelimit-remaining",
            "ratelimit-reset",
            "retry-after",
            "retry-after-ms",
            "date",
        ])
        .collect();
    prop_oneof![
        4 => prop::sample::select(known).prop_map(HeaderName::from_static),
        1 => "[a-z0-9-]{1,30}".prop_map(|name| HeaderName::from_bytes(name.as_bytes()).unwrap()),
    ]
}

/// Values near the grammars read (digits, units, structured-field syntax, dates), and bytes.
fn value() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        r#"[-0-9a-zA-Z;=,":.?*@%() +]{0,40}"#.prop_map(String::into_bytes),
        "-?[0-9]{1,22}(\\.[0-9]{1,4})?(ns|us|ms|s|m|h)?".prop_map(String::into_bytes),
        r#"("?[a-z]{1,5}"?;r=-?[0-9]{1,16};t=-?[0-9]{1,8}(;q=[0-9]{1,5})?(;w=[0-9]{1,6})?(;qu="(requests|tokens|bytes)")?, ){1,4}"#
            .prop_map(String::into_bytes),
        "[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{0,12})?(Z|[+-][0-9]{2}:[0-9]{2})?"
            .prop_map(String::into_bytes),
        prop::collection::vec(any::<u8>(), 0..40),
    ]
}

/// Checks what any reading must hold.
fn check_bounds(limits: &RateLimits) -> Result<(), TestCaseError> {
    for (_, reading) in limits.iter() {
        if let Some(limit) = reading.limit {
            prop_assert!(reading.remaining <= limit, "{reading:?}");
        }
        prop_assert!(
            reading.reset.is_none_or(|reset| reset <= HORIZON),
            "{reading:?}"
        );
    }
    prop_assert!(limits.retry_after.is_none_or(|delay| delay <= HORIZON));
    prop_assert_eq!(
        limits.is_empty(),
        limits.retry_after.is_none() && limits.iter().next().is_none()
    );
    Ok(())
}

/// Hours, minutes, seconds and nanoseconds written as Go writes a duration.
fn go_duration(hours: u64, minutes: u64, seconds: u64, nanos: u32) -> String {
    let mut text = String::new();
    if hours > 0 {
        text += &format!("{hours}h");
    }
    if hours > 0 || minutes > 0 {
        text += &format!("{minutes}m");
    }
    text += &seconds.to_string();
    if nanos > 0 {
        let fraction = format!("{nanos:09}");
        text += ".";
        text += fraction.trim_end_matches('0');
    }
    text + "s"
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// Whatever the names and values, reading never panics and its readings hold their bounds.
    #[test]
    fn any_headers_read_within_bounds(
        lines in prop::collection::vec((name(), value()), 0..12),
        now_seconds in 0_u64..4_102_444_800,
    ) {
        let mut map = HeaderMap::new();
        for (name, value) in lines {
            if let Ok(value) = HeaderValue::from_bytes(&value) {
                map.append(name, value);
            }
        }
        let limits = RateLimits::read(&map, UNIX_EPOCH + Duration::from_secs(now_seconds));
        check_bounds(&limits)?;
    }

    /// Every value of every family, structured or not, within bounds.
    #[test]
    fn every_family_reads_within_bounds(values in prop::collection::vec(value(), 1..4)) {
        let mut map = HeaderMap::new();
        for fields in LIMIT_FIELDS {
            for (name, value) in [fields.limit, fields.remaining, fields.reset].into_iter().zip(values.iter().cycle()) {
                if let Ok(value) = HeaderValue::from_bytes(value) {
                    map.append(name, value);
                }
            }
        }
        for (name, value) in ["ratelimit", "ratelimit-policy", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "retry-after", "retry-after-ms", "date"]
            .into_iter()
            .zip(values.iter().cycle())
        {
            if let Ok(value) = HeaderValue::from_bytes(value) {
                map.append(name, value);
            }
        }
        check_bounds(&RateLimits::read(&map, now()))?;
    }

    /// A Go duration written out from its parts reads back exactly, as an OpenAI reset.
    #[test]
    fn go_durations_read_back(hours in 0_u64..26, minutes in 0_u64..60, seconds in 0_u64..60, nanos in 0_u32..1_000_000_000) {
        let text = go_duration(hours, minutes, seconds, nanos);
        let expected = Duration::new(hours * 3600 + minutes * 60 + seconds, nanos);
        let limits = read(&[("x-ratelimit-remaining-tokens", "1"), ("x-ratelimit-reset-tokens", &text)]);
        let reset = limits.get(Dimension::Tokens).and_then(|tokens| tokens.reset);
        if expected <= HORIZON {
            prop_assert_eq!(reset, Some(expected), "{}", text);
            prop_assert!(!limits.ignored);
        } else {
            prop_assert_eq!(reset, None, "{}", text);
            prop_assert!(limits.ignored);
        }
    }

    /// An RFC 3339 time written out from a UTC time (its calendar date from `httpdate`), an
    /// offset and a fraction reads back exactly.
    #[test]
    fn rfc3339_times_read_back(
        // A day inside the years `httpdate` writes, 1970 to 9999, whatever the offset.
        seconds in 86_400_u64..253_402_214_400,
        nanos in 0_u32..1_000_000_000,
        offset_minutes in -(23 * 60 + 59)..=(23 * 60 + 59_i64),
        digits in 1_usize..=9,
    ) {
        let at = UNIX_EPOCH + Duration::from_secs(seconds);
        // Written as the wall clock at that offset.
        let Some(wall) = at.checked_add(Duration::from_secs(offset_minutes.max(0).unsigned_abs() * 60))
            .and_then(|t| t.checked_sub(Duration::from_secs(offset_minutes.min(0).unsigned_abs() * 60)))
        else {
            return Ok(());
        };
        let date = httpdate::fmt_http_date(wall);
        // "Fri, 19 Apr 2024 18:29:00 GMT"
        let parts: Vec<&str> = date.split([' ', ':']).collect();
        let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
            .iter()
            .position(|m| *m == parts[2])
            .unwrap()
            + 1;
        let fraction = format!("{nanos:09}");
        let fraction = &fraction[..digits];
        let sign = if offset_minutes < 0 { '-' } else { '+' };
        let offset = offset_minutes.unsigned_abs();
        let zone = if offset_minutes == 0 && digits % 2 == 0 {
            "Z".to_owned()
        } else {
            format!("{sign}{:02}:{:02}", offset / 60, offset % 60)
        };
        let text = format!(
            "{}-{month:02}-{}T{}:{}:{}.{fraction}{zone}",
            parts[3], parts[1], parts[4], parts[5], parts[6]
        );
        let kept: u32 = fraction.parse::<u32>().unwrap() * 10_u32.pow(9 - digits as u32);
        prop_assert_eq!(rfc3339(&text), Some(at + Duration::from_nanos(u64::from(kept))), "{}", text);
    }
}
