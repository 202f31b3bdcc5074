//! HTTP classification: statuses, Retry-After in every form, `StatusError` codes, responses
//! from their parts (server hints in headers, provider error bodies, the 64 KiB body limit),
//! and recognising a context-window overflow anywhere in a chain.

#![cfg(feature = "http")]
use std::time::{Duration, SystemTime};

use agent_error::http::{
    StatusClass, StatusError, classify_status, is_context_overflow, parse_rate_limit_reset,
    parse_retry_after,
};
use agent_error::retry::{Retrier, Stop};
use agent_error::{AgentError, Recovery, RetryPolicy};
use http::{HeaderMap, HeaderName, HeaderValue};
use proptest::prelude::*;

/// 1994-11-06 08:48:37 UTC, one minute before RFC 9110's example date.
fn now() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_717)
}

#[test]
fn statuses_are_classified() {
    for status in [408, 498, 500, 502, 503, 504, 529, 599] {
        assert_eq!(classify_status(status), StatusClass::Retryable, "{status}");
    }
    assert_eq!(classify_status(429), StatusClass::RateLimited);
    for status in [0, 200, 301, 400, 401, 403, 404, 409, 422, 499, 600, 999] {
        assert_eq!(classify_status(status), StatusClass::Permanent, "{status}");
    }
}

#[test]
fn retry_after_reads_delay_seconds() {
    assert_eq!(parse_retry_after("0", now()), Some(Duration::ZERO));
    assert_eq!(
        parse_retry_after("120", now()),
        Some(Duration::from_secs(120))
    );
    assert_eq!(
        parse_retry_after("  7 ", now()),
        Some(Duration::from_secs(7))
    );
}

#[test]
fn retry_after_reads_all_three_http_date_forms() {
    let minute = Some(Duration::from_secs(60));
    assert_eq!(
        parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now()),
        minute
    ); // IMF-fixdate
    assert_eq!(
        parse_retry_after("Sunday, 06-Nov-94 08:49:37 GMT", now()),
        minute
    ); // RFC 850
    assert_eq!(parse_retry_after("Sun Nov  6 08:49:37 1994", now()), minute); // asctime
}

#[test]
fn retry_after_rejects_invalid_negative_and_past_values() {
    for value in [
        "",
        "soon",
        "-1",
        "+5",
        "1.5.2",
        ".",
        "12s",
        "Sun, 06 Nov 1994 08:49:37",
    ] {
        assert_eq!(parse_retry_after(value, now()), None, "{value:?}");
    }
    // An absurd delay saturates instead of vanishing into an immediate retry.
    for value in ["18446744073709551616", "99999999999999999999999"] {
        assert_eq!(
            parse_retry_after(value, now()),
            Some(Duration::MAX),
            "{value:?}"
        );
    }
    assert_eq!(
        parse_retry_after("Sun, 06 Nov 1994 08:47:37 GMT", now()),
        None
    );
    // Decimal seconds, as the official SDKs (and the pacer) read them.
    assert_eq!(
        parse_retry_after("1.5", now()),
        Some(Duration::from_millis(1_500))
    );
}

#[test]
fn status_errors_get_the_code_of_their_status() {
    let table = [
        (400, "invalid_input", false, Recovery::Replan),
        (401, "auth_error", false, Recovery::Escalate),
        (403, "auth_error", false, Recovery::Escalate),
        (404, "not_found", false, Recovery::Abort),
        (408, "timeout", true, Recovery::Retry),
        (422, "invalid_input", false, Recovery::Replan),
        (429, "rate_limit", true, Recovery::Retry),
        (500, "provider_unavailable", true, Recovery::Retry),
        (503, "provider_unavailable", true, Recovery::Retry),
        (504, "timeout", true, Recovery::Retry),
        (529, "provider_unavailable", true, Recovery::Retry),
    ];
    for (status, code, retryable, recovery) in table {
        let e = StatusError::new(status);
        assert_eq!(
            (e.code(), e.is_retryable(), e.recovery()),
            (code, retryable, recovery),
            "{status}"
        );
        assert_eq!(e.is_rate_limited(), status == 429, "{status}");
    }
}

#[test]
fn status_error_display_and_public_message() {
    let e = StatusError::new(503)
        .with_op("llm.generate")
        .with_body("upstream overloaded\nretry later");
    assert_eq!(
        e.to_string(),
        "llm.generate [provider_unavailable]: HTTP 503 Service Unavailable: upstream overloaded"
    );
    assert_eq!(
        e.message(),
        "HTTP 503 Service Unavailable: upstream overloaded"
    );
    assert_eq!(
        agent_error::display::public(&e).to_string(),
        "HTTP 503 Service Unavailable"
    );
    let caused = StatusError::new(502).with_source(std::io::Error::other("connection reset"));
    assert_eq!(
        caused.to_string(),
        "http [provider_unavailable]: HTTP 502 Bad Gateway: connection reset"
    );
    assert_eq!(StatusError::new(418).message(), "HTTP 418");
}

#[test]
fn a_spent_quota_is_budget_exhausted_and_not_retried() {
    let body =
        r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota"}}"#;
    let e = StatusError::from_response(429, Some("30"), body, now());
    assert_eq!(e.code(), "budget_exhausted");
    assert!(!e.is_retryable());
    assert_eq!(e.recovery(), Recovery::Escalate);
    let (outcome, slept) = run(|_| Err::<(), _>(StatusError::new(429).with_body(body)));
    assert_eq!((outcome.stop, outcome.attempts), (Stop::Permanent, 1));
    assert!(slept.is_empty());
}

#[test]
fn a_context_overflow_400_is_compacted() {
    let bodies = [
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#,
        r#"{"error":{"message":"This model's maximum context length is 128000 tokens.","code":"context_length_exceeded"}}"#,
        "max_tokens must be greater than thinking.budget_tokens",
    ];
    for body in bodies {
        let e = StatusError::new(400).with_body(body);
        assert_eq!(e.code(), "context_overflow", "{body}");
        assert_eq!(e.recovery(), Recovery::Compact);
        assert!(is_context_overflow(&e));
    }
}

#[test]
fn context_overflow_is_found_anywhere_in_a_chain_but_never_in_a_bare_500() {
    let inner = StatusError::new(400).with_body("maximum context length exceeded");
    let wrapped = std::io::Error::other(inner);
    assert!(is_context_overflow(&wrapped));
    let foreign = anyhow::anyhow!("Prompt is too long for this model").context("calling the model");
    assert!(is_context_overflow(foreign.as_ref()));
    assert!(!is_context_overflow(&StatusError::new(500)));
    assert!(!is_context_overflow(
        &StatusError::new(500).with_body("internal error")
    ));
    // A 500 whose body says so is one: llama.cpp answers an overflow so, and the same
    // prompt fails the same way every time.
    assert!(is_context_overflow(
        &StatusError::new(500).with_body("Context size has been exceeded.")
    ));
    assert!(!is_context_overflow(
        &StatusError::new(400).with_body("missing field `model`")
    ));
}

#[test]
fn a_classified_link_whose_message_says_so_is_a_context_overflow() {
    let e = agent_error::Error::new(
        "llm.generate",
        "invalid_input",
        "prompt is too long: 210000 tokens > 200000 maximum",
    );
    assert!(is_context_overflow(&e));
    assert!(is_context_overflow(&std::io::Error::other(e)));
    // A classified link is read by its message, not by its cause's text: the 500 below it
    // decides for itself, and is not one.
    let over_a_500 = agent_error::Error::new("llm.generate", "provider_unavailable", "call failed")
        .with_source(StatusError::new(500).with_body("tokenizer crashed on the context"));
    assert!(!is_context_overflow(&over_a_500));
}

#[test]
fn the_retrier_waits_what_the_server_asked() {
    let mut answers = [
        StatusError::from_response(429, Some("2"), "slow down", now()),
        StatusError::from_response(503, None, "", now()),
    ]
    .into_iter();
    let (outcome, slept) = run(|_| match answers.next() {
        Some(e) => Err(e),
        None => Ok("hello"),
    });
    assert_eq!((outcome.stop, outcome.attempts), (Stop::Succeeded, 3));
    assert_eq!(slept[0], Duration::from_secs(2));
    assert!(slept[1] <= Duration::from_millis(400), "{:?}", slept[1]);
}

fn run<T>(
    op: impl FnMut(u32) -> Result<T, StatusError>,
) -> (agent_error::retry::Outcome<T, StatusError>, Vec<Duration>) {
    let mut slept = Vec::new();
    let outcome = Retrier::new()
        .seed(1)
        .run_detailed_with_sleep(op, |d| slept.push(d));
    (outcome, slept)
}

proptest! {
    #[test]
    fn parse_retry_after_never_panics(value in "\\PC{0,40}", secs in any::<u32>()) {
        let _ = parse_retry_after(&value, SystemTime::UNIX_EPOCH + Duration::from_secs(u64::from(secs)));
    }

    #[test]
    fn delay_seconds_round_trip(secs in any::<u32>()) {
        prop_assert_eq!(parse_retry_after(&secs.to_string(), now()), Some(Duration::from_secs(u64::from(secs))));
    }

    #[test]
    fn http_dates_in_the_future_give_their_distance(ahead in 0u64..100_000_000) {
        let date = httpdate::fmt_http_date(now() + Duration::from_secs(ahead));
        prop_assert_eq!(parse_retry_after(&date, now()), Some(Duration::from_secs(ahead)));
    }

    #[test]
    fn status_errors_never_panic(status in any::<u16>(), body in "\\PC{0,300}") {
        let e = StatusError::new(status).with_body(body);
        let _ = (e.to_string(), e.code(), e.retry_policy(), e.hints(), e.recovery());
    }
}

fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in pairs {
        map.append(
            HeaderName::from_bytes(name.as_bytes()).unwrap(),
            HeaderValue::from_str(value).unwrap(),
        );
    }
    map
}

/// A response from its parts, with the test clock.
fn parts(status: u16, pairs: &[(&str, &str)], body: &str) -> StatusError {
    StatusError::from_parts_at(status, &headers(pairs), body, now())
}

fn retry_after(status: u16, pairs: &[(&str, &str)]) -> Option<Duration> {
    parts(status, pairs, "").retry_after()
}

fn code(status: u16, body: &str) -> &'static str {
    let e = parts(status, &[], body);
    agent_error::codes::ALL
        .into_iter()
        .chain([agent_error::http::HTTP_ERROR])
        .find(|c| *c == e.code())
        .unwrap()
}

const SECS: fn(u64) -> Option<Duration> = |s| Some(Duration::from_secs(s));
const MILLIS: fn(u64) -> Option<Duration> = |ms| Some(Duration::from_millis(ms));

#[test]
fn from_parts_takes_the_http_crates_status_code() {
    let e = StatusError::from_parts(
        http::StatusCode::SERVICE_UNAVAILABLE,
        &HeaderMap::new(),
        b"",
    );
    assert_eq!((e.status(), e.code()), (503, "provider_unavailable"));
    let e = StatusError::from_parts(404u16, &HeaderMap::new(), String::from("no such model"));
    assert_eq!((e.code(), e.body()), ("not_found", "no such model"));
}

#[test]
fn retry_after_header_in_seconds_and_all_three_dates() {
    assert_eq!(retry_after(503, &[("Retry-After", "120")]), SECS(120));
    assert_eq!(retry_after(429, &[("retry-after", "0")]), SECS(0));
    for date in [
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
    ] {
        assert_eq!(
            retry_after(503, &[("RETRY-AFTER", date)]),
            SECS(60),
            "{date}"
        );
    }
    assert_eq!(
        retry_after(503, &[("retry-after", "Sun, 06 Nov 1994 08:47:37 GMT")]),
        None
    );
    assert_eq!(retry_after(503, &[("retry-after", "soon")]), None);
    // Not retried, so no delay.
    assert_eq!(retry_after(400, &[("retry-after", "5")]), None);
}

#[test]
fn retry_after_ms_reads_integers_and_decimals_and_wins_over_retry_after() {
    assert_eq!(
        retry_after(429, &[("retry-after-ms", "1500")]),
        MILLIS(1500)
    );
    assert_eq!(
        retry_after(429, &[("retry-after-ms", "250.5")]),
        Some(Duration::from_micros(250_500))
    );
    assert_eq!(retry_after(503, &[("Retry-After-Ms", " 20 ")]), MILLIS(20));
    assert_eq!(retry_after(503, &[("retry-after-ms", "0")]), SECS(0));
    assert_eq!(
        retry_after(503, &[("retry-after-ms", ".5")]),
        Some(Duration::from_micros(500))
    );
    assert_eq!(
        retry_after(429, &[("retry-after", "30"), ("retry-after-ms", "1500")]),
        MILLIS(1500)
    );
}

#[test]
fn junk_retry_after_ms_is_ignored() {
    for junk in [
        "", "abc", "-5", "+5", "1e3", "inf", "NaN", "1,5", "1.2.3", ".", "5ms",
    ] {
        assert_eq!(
            retry_after(429, &[("retry-after-ms", junk)]),
            None,
            "{junk:?}"
        );
        assert_eq!(
            retry_after(429, &[("retry-after-ms", junk), ("retry-after", "7")]),
            SECS(7),
            "{junk:?}"
        );
    }
}

#[test]
fn header_values_that_are_not_visible_ascii_are_ignored() {
    let mut map = HeaderMap::new();
    map.insert("retry-after", HeaderValue::from_bytes(b"\xff12").unwrap());
    map.insert(
        "retry-after-ms",
        HeaderValue::from_bytes("1500\u{e9}".as_bytes()).unwrap(),
    );
    map.insert(
        "x-should-retry",
        HeaderValue::from_bytes(b"fal\xe9se").unwrap(),
    );
    let e = StatusError::from_parts_at(503u16, &map, "", now());
    assert_eq!(
        (e.code(), e.retry_after(), e.is_retryable()),
        ("provider_unavailable", None, true)
    );
}

#[test]
fn x_should_retry_false_stops_retrying_and_falls_back_where_a_retry_was_due() {
    let hint = vec!["the server asked not to retry this request: use another provider or model"];
    for (status, code) in [
        (429, "rate_limit"),
        (500, "provider_unavailable"),
        (503, "provider_unavailable"),
        (529, "provider_unavailable"),
        (408, "timeout"),
        (504, "timeout"),
    ] {
        let e = parts(
            status,
            &[("x-should-retry", "false"), ("retry-after", "5")],
            "",
        );
        assert_eq!(e.code(), code, "{status}");
        assert_eq!(e.retry_policy(), RetryPolicy::NEVER, "{status}");
        assert_eq!(
            (e.is_retryable(), e.is_rate_limited(), e.retry_after()),
            (false, false, None)
        );
        assert_eq!(e.recovery(), Recovery::Fallback, "{status}");
        assert_eq!(e.hints(), hint, "{status}");
    }
    // What was not going to be retried keeps its recovery.
    for (status, code, recovery) in [
        (400, "invalid_input", Recovery::Replan),
        (401, "auth_error", Recovery::Escalate),
        (404, "not_found", Recovery::Abort),
    ] {
        let e = parts(status, &[("x-should-retry", "false")], "");
        assert_eq!(
            (e.code(), e.is_retryable(), e.recovery()),
            (code, false, recovery)
        );
    }
    let spent = parts(
        429,
        &[("x-should-retry", "false")],
        r#"{"error":{"code":"insufficient_quota"}}"#,
    );
    assert_eq!(
        (spent.code(), spent.recovery()),
        ("budget_exhausted", Recovery::Escalate)
    );
}

#[test]
fn x_should_retry_true_retries_what_the_status_would_not() {
    for status in [400, 401, 403, 404, 409, 422, 302] {
        let e = parts(status, &[("x-should-retry", "true")], "");
        assert_eq!(e.code(), "provider_unavailable", "{status}");
        assert_eq!(e.retry_policy(), RetryPolicy::DEFAULT, "{status}");
        assert_eq!(e.recovery(), Recovery::Retry, "{status}");
        assert_eq!(e.status(), status);
    }
    let e = parts(400, &[("x-should-retry", "TRUE"), ("retry-after", "3")], "");
    assert_eq!(
        (e.code(), e.retry_after()),
        ("provider_unavailable", SECS(3))
    );
    // Already retried: unchanged.
    let e = parts(429, &[("x-should-retry", "true"), ("retry-after", "3")], "");
    assert_eq!(
        (e.code(), e.is_rate_limited(), e.retry_after()),
        ("rate_limit", true, SECS(3))
    );
    let e = parts(504, &[("x-should-retry", "true")], "");
    assert_eq!(
        (e.code(), e.retry_policy()),
        ("timeout", RetryPolicy::DEFAULT)
    );
    // Anything but true or false is ignored.
    for junk in ["yes", "1", "", "truee"] {
        let e = parts(400, &[("x-should-retry", junk)], "");
        assert_eq!(
            (e.code(), e.is_retryable()),
            ("invalid_input", false),
            "{junk:?}"
        );
    }
}

#[test]
fn openai_rate_limit_resets_are_read_on_a_429_without_other_hints() {
    let both = [
        ("x-ratelimit-reset-requests", "1s"),
        ("x-ratelimit-reset-tokens", "6m0s"),
    ];
    assert_eq!(retry_after(429, &both), SECS(1));
    let tokens_spent = [
        both[0],
        both[1],
        ("x-ratelimit-remaining-requests", "59"),
        ("x-ratelimit-remaining-tokens", "0"),
    ];
    assert_eq!(retry_after(429, &tokens_spent), SECS(360));
    let requests_spent = [
        ("x-ratelimit-reset-requests", "20ms"),
        ("x-ratelimit-reset-tokens", "6m0s"),
        ("x-ratelimit-remaining-requests", "0"),
        ("x-ratelimit-remaining-tokens", "150000"),
    ];
    assert_eq!(retry_after(429, &requests_spent), MILLIS(20));
    let both_spent = [
        both[0],
        both[1],
        ("x-ratelimit-remaining-requests", "0"),
        ("x-ratelimit-remaining-tokens", "0"),
    ];
    assert_eq!(retry_after(429, &both_spent), SECS(360));
    // The spent limit's reset is unreadable: the other one.
    let unreadable = [
        ("x-ratelimit-reset-requests", "1s"),
        ("x-ratelimit-reset-tokens", "later"),
        ("x-ratelimit-remaining-tokens", "0"),
    ];
    assert_eq!(retry_after(429, &unreadable), SECS(1));
    assert_eq!(
        retry_after(429, &[("x-ratelimit-reset-tokens", "1h2m3.5s")]),
        MILLIS(3_723_500)
    );
    assert_eq!(
        retry_after(429, &[("x-ratelimit-reset-tokens", "soon")]),
        None
    );
}

#[test]
fn openai_rate_limit_resets_give_way_to_other_hints_and_other_statuses() {
    let reset = ("x-ratelimit-reset-requests", "6m0s");
    assert_eq!(retry_after(429, &[reset, ("retry-after", "2")]), SECS(2));
    assert_eq!(
        retry_after(429, &[reset, ("retry-after-ms", "10")]),
        MILLIS(10)
    );
    assert_eq!(retry_after(429, &[reset, ("x-should-retry", "true")]), None);
    assert_eq!(retry_after(503, &[reset]), None);
    // An unreadable Retry-After is no hint.
    assert_eq!(
        retry_after(429, &[reset, ("retry-after", "soon")]),
        SECS(360)
    );
}

#[test]
fn rate_limit_resets_are_go_durations() {
    let table = [
        ("6m0s", Duration::from_secs(360)),
        ("1s", Duration::from_secs(1)),
        ("20ms", Duration::from_millis(20)),
        ("1h2m3.5s", Duration::from_millis(3_723_500)),
        ("0.5s", Duration::from_millis(500)),
        ("250us", Duration::from_micros(250)),
        ("250µs", Duration::from_micros(250)),
        ("7ns", Duration::from_nanos(7)),
        ("1.5h", Duration::from_secs(5400)),
        (".5m", Duration::from_secs(30)),
        ("0", Duration::ZERO),
        ("0s", Duration::ZERO),
        (" 2s ", Duration::from_secs(2)),
        ("1m1m", Duration::from_secs(120)),
    ];
    for (value, expected) in table {
        assert_eq!(parse_rate_limit_reset(value), Some(expected), "{value:?}");
    }
    for value in [
        "", "5", "-1s", "+1s", "1x", "s", "1s2", "1 s", ".s", "1.2.3s", "1S", "inf",
    ] {
        assert_eq!(parse_rate_limit_reset(value), None, "{value:?}");
    }
    assert_eq!(
        parse_rate_limit_reset("99999999999999999999999h"),
        Some(Duration::MAX)
    );
}

#[test]
fn an_absurd_server_delay_ends_the_retries_instead_of_vanishing() {
    for pairs in [
        &[("retry-after", "18446744073709551616")][..],
        &[("retry-after-ms", "99999999999999999999999999999999")][..],
    ] {
        let e = parts(429, pairs, "");
        assert_eq!(e.retry_after(), Some(Duration::MAX));
        let outcome = Retrier::new().run_detailed_with_sleep(
            |_| Err::<(), _>(parts(429, pairs, "")),
            |_| panic!("no wait may be made"),
        );
        assert_eq!((outcome.stop, outcome.attempts), (Stop::WaitTooLong, 1));
    }
}

#[test]
fn openai_bodies_by_code_then_type() {
    let table = [
        (
            429,
            r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#,
            "budget_exhausted",
        ),
        (
            400,
            r#"{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
            "context_overflow",
        ),
        (
            401,
            r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#,
            "auth_error",
        ),
        (
            400,
            r#"{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}"#,
            "auth_error",
        ),
        (
            429,
            r#"{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}"#,
            "rate_limit",
        ),
        (
            500,
            r#"{"error":{"message":"The server had an error","type":"server_error","param":null,"code":null}}"#,
            "provider_unavailable",
        ),
        // A relay that labels a provider's 400 `server_error`: the status says more.
        (
            400,
            r#"{"error":{"message":"boom","type":"server_error","code":null}}"#,
            "invalid_input",
        ),
        (
            429,
            r#"{"error":{"type":"insufficient_quota"}}"#,
            "budget_exhausted",
        ),
        (
            400,
            r#"{"error":{"code":"billing_hard_limit_reached","type":"invalid_request_error"}}"#,
            "budget_exhausted",
        ),
        // Named nothing we know: the status decides, unless the message is an overflow.
        (
            404,
            r#"{"error":{"message":"The model `gpt-9` does not exist","type":"invalid_request_error","code":"model_not_found"}}"#,
            "not_found",
        ),
        (
            400,
            r#"{"error":{"message":"This model's maximum context length is 4096 tokens","type":"invalid_request_error","code":null}}"#,
            "context_overflow",
        ),
    ];
    for (status, body, expected) in table {
        assert_eq!(code(status, body), expected, "{status} {body}");
    }
    let spent = parts(429, &[], table[0].1);
    assert_eq!(
        (spent.is_retryable(), spent.recovery()),
        (false, Recovery::Escalate)
    );
}

#[test]
fn anthropic_bodies_by_error_type() {
    let body = |kind: &str, message: &str| {
        format!(r#"{{"type":"error","error":{{"type":"{kind}","message":"{message}"}}}}"#)
    };
    let table = [
        (
            529,
            "overloaded_error",
            "Overloaded",
            "provider_unavailable",
        ),
        // A generic server-fault type alone does not make a 400 an outage (a relay labels
        // a provider's refusal so); words that say so do.
        (400, "overloaded_error", "", "invalid_input"),
        (
            400,
            "overloaded_error",
            "Overloaded",
            "provider_unavailable",
        ),
        (
            429,
            "rate_limit_error",
            "Number of request tokens has exceeded your per-minute rate limit",
            "rate_limit",
        ),
        (
            413,
            "request_too_large",
            "Request exceeds the maximum allowed number of bytes",
            "request_too_large",
        ),
        (
            401,
            "authentication_error",
            "invalid x-api-key",
            "auth_error",
        ),
        (
            403,
            "permission_error",
            "Your API key does not have permission",
            "auth_error",
        ),
        (404, "not_found_error", "model: claude-9", "not_found"),
        (
            500,
            "api_error",
            "Internal server error",
            "provider_unavailable",
        ),
        (
            400,
            "invalid_request_error",
            "messages: roles must alternate",
            "invalid_input",
        ),
        (
            400,
            "invalid_request_error",
            "prompt is too long: 210000 tokens > 200000 maximum",
            "context_overflow",
        ),
        (
            400,
            "invalid_request_error",
            "max_tokens must be greater than thinking.budget_tokens",
            "context_overflow",
        ),
        (
            400,
            "billing_error",
            "Your credit balance is too low",
            "budget_exhausted",
        ),
        (418, "unknown_error", "teapot", "invalid_input"),
    ];
    for (status, kind, message, expected) in table {
        assert_eq!(
            code(status, &body(kind, message)),
            expected,
            "{status} {kind}"
        );
    }
    let overloaded = parts(529, &[], &body("overloaded_error", "Overloaded"));
    assert_eq!(
        (overloaded.is_retryable(), overloaded.recovery()),
        (true, Recovery::Retry)
    );
    let too_long = parts(
        400,
        &[],
        &body("invalid_request_error", "prompt is too long"),
    );
    assert_eq!(too_long.recovery(), Recovery::Compact);
}

fn google(status: &str, message: &str) -> String {
    format!(r#"{{"error":{{"code":400,"message":"{message}","status":"{status}"}}}}"#)
}

#[test]
fn google_bodies_by_error_status() {
    let table = [
        (
            429,
            "RESOURCE_EXHAUSTED",
            "Quota exceeded for metric",
            "rate_limit",
        ),
        (
            503,
            "UNAVAILABLE",
            "The model is overloaded. Please try again later.",
            "provider_unavailable",
        ),
        (
            504,
            "DEADLINE_EXCEEDED",
            "Deadline expired before operation could complete.",
            "timeout",
        ),
        (500, "DEADLINE_EXCEEDED", "Deadline expired", "timeout"),
        (
            401,
            "UNAUTHENTICATED",
            "Request had invalid authentication credentials.",
            "auth_error",
        ),
        (
            403,
            "PERMISSION_DENIED",
            "Permission denied on resource project",
            "auth_error",
        ),
        (
            404,
            "NOT_FOUND",
            "models/gemini-9 is not found",
            "not_found",
        ),
        (
            400,
            "INVALID_ARGUMENT",
            "Invalid JSON payload received.",
            "invalid_input",
        ),
        (
            400,
            "INVALID_ARGUMENT",
            "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
            "context_overflow",
        ),
        (
            400,
            "FAILED_PRECONDITION",
            "User location is not supported",
            "auth_error",
        ),
        (
            500,
            "INTERNAL",
            "An internal error has occurred",
            "provider_unavailable",
        ),
    ];
    for (status, name, message, expected) in table {
        let body = google(name, message);
        assert_eq!(code(status, &body), expected, "{status} {name}");
        assert_eq!(
            code(status, &format!("[{body}]")),
            expected,
            "[{status} {name}]"
        );
    }
    // Only a one-element array is unwrapped.
    let two = format!("[{0},{0}]", google("UNAVAILABLE", "x"));
    assert_eq!(code(400, &two), "invalid_input");
}

#[test]
fn google_retry_info_is_the_delay_when_no_header_gave_one() {
    let body = |delay: &str| {
        format!(
            r#"[{{"error":{{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED","details":[{{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[]}},{{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"{delay}"}}]}}}}]"#
        )
    };
    let e = parts(429, &[], &body("30s"));
    assert_eq!(
        (e.code(), e.is_rate_limited(), e.retry_after()),
        ("rate_limit", true, SECS(30))
    );
    assert_eq!(parts(429, &[], &body("1.5s")).retry_after(), MILLIS(1500));
    assert_eq!(
        parts(429, &[], &body("0.000000001s")).retry_after(),
        Some(Duration::from_nanos(1))
    );
    for junk in ["30", "-1s", "soon", "1.5ms", ""] {
        assert_eq!(parts(429, &[], &body(junk)).retry_after(), None, "{junk:?}");
    }
    assert_eq!(
        parts(429, &[("retry-after", "2")], &body("30s")).retry_after(),
        SECS(2)
    );
    assert_eq!(
        parts(429, &[("retry-after-ms", "5")], &body("30s")).retry_after(),
        MILLIS(5)
    );
    assert_eq!(
        StatusError::new(429).with_body(body("4s")).retry_after(),
        SECS(4)
    );
    // The body's delay counts only where a retry is due.
    let invalid = google("INVALID_ARGUMENT", "bad").replace(
        r#""status""#,
        r#""details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"9s"}],"status""#,
    );
    assert_eq!(parts(400, &[], &invalid).retry_after(), None);
}

#[test]
fn a_body_refines_only_an_error_status_and_never_a_status_whose_meaning_is_specific() {
    let overflow = r#"{"error":{"code":"context_length_exceeded"}}"#;
    for status in [400, 413, 422, 429, 499, 500, 503, 504] {
        assert_eq!(code(status, overflow), "context_overflow", "{status}");
    }
    // 404, 402 and 529 say what they mean whatever the body's names.
    assert_eq!(code(404, overflow), "not_found");
    assert_eq!(code(402, overflow), "budget_exhausted");
    let e = parts(529, &[], overflow);
    assert_eq!(e.code(), "provider_unavailable");
    assert!(!is_context_overflow(&e));
    // A server error is not a size limit, whatever its body says; a filter's refusal
    // relabelled as a 500 is still a refusal.
    let too_large = r#"{"error":{"type":"request_too_large"}}"#;
    assert_eq!(code(500, too_large), "provider_unavailable");
    assert_eq!(code(400, too_large), "request_too_large");
    let filtered = r#"{"error":{"code":"content_policy_violation"}}"#;
    assert_eq!(code(500, filtered), "content_filtered");
    assert_eq!(code(400, filtered), "content_filtered");
    assert_eq!(code(200, overflow), "http_error");
    assert_eq!(
        code(302, r#"{"error":{"code":"rate_limit_exceeded"}}"#),
        "http_error"
    );
    assert_eq!(
        code(500, r#"{"error":{"code":"rate_limit_exceeded"}}"#),
        "rate_limit"
    );
    assert_eq!(
        code(600, r#"{"error":{"code":"invalid_api_key"}}"#),
        "auth_error"
    );
}

#[test]
fn plain_text_bodies_fall_back_to_the_providers_phrases() {
    let table = [
        (400, "prompt is too long for this model", "context_overflow"),
        (
            413,
            "Input is too long for requested model.",
            "context_overflow",
        ),
        (
            400,
            "This request exceeds the context window",
            "context_overflow",
        ),
        (500, "maximum context length exceeded", "context_overflow"),
        (500, "internal error", "provider_unavailable"),
        (
            429,
            "You exceeded your current quota, please check your plan",
            "budget_exhausted",
        ),
        (
            402,
            "Your credit balance is too low to access the API",
            "budget_exhausted",
        ),
        (429, "slow down", "rate_limit"),
        (400, "missing field `model`", "invalid_input"),
        (
            400,
            "<html><body>Bad Request</body></html>",
            "invalid_input",
        ),
        (503, "", "provider_unavailable"),
    ];
    for (status, body, expected) in table {
        assert_eq!(code(status, body), expected, "{status} {body:?}");
    }
    // A JSON body is read by its fields: an identifier in an unrelated field is no phrase.
    assert_eq!(
        code(
            400,
            r#"{"error":{"message":"bad request","param":"prompt is too long"}}"#
        ),
        "invalid_input"
    );
    // Messages of other JSON shapes are read as text (vLLM, Ollama, FastAPI).
    let table = [
        (
            r#"{"object":"error","message":"This model's maximum context length is 4096 tokens.","type":"BadRequestError","code":400}"#,
            "context_overflow",
        ),
        (r#"{"error":"prompt is too long"}"#, "context_overflow"),
        (r#"{"detail":"input is too long"}"#, "context_overflow"),
        (r#""prompt is too long""#, "context_overflow"),
        (r#"{"detail":"not a phrase"}"#, "invalid_input"),
    ];
    for (body, expected) in table {
        assert_eq!(code(400, body), expected, "{body}");
    }
}

#[test]
fn is_context_overflow_agrees_with_the_body_reading() {
    let bodies = [
        r#"{"type":"error","error":{"type":"request_too_large","message":"too big"}}"#,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long"}}"#,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"roles must alternate"}}"#,
        r#"{"error":{"code":400,"message":"The input token count (2000000) exceeds the maximum","status":"INVALID_ARGUMENT"}}"#,
        r#"{"error":{"code":"context_length_exceeded"}}"#,
        r#"{"error":{"code":"rate_limit_exceeded","message":"maximum context length"}}"#,
        "maximum context length is 8192 tokens",
        "nothing to see",
    ];
    for body in bodies {
        for status in [400, 413, 429, 500, 503] {
            let e = parts(status, &[], body);
            let overflow = e.code() == "context_overflow";
            assert_eq!(is_context_overflow(&e), overflow, "{status} {body}");
            assert_eq!(
                is_context_overflow(&std::io::Error::other(e)),
                overflow,
                "{status} {body}"
            );
        }
        // An unclassified error whose text is the body is read the same way as a 4xx body.
        let text = std::io::Error::other(body.to_string());
        assert_eq!(
            is_context_overflow(&text),
            parts(400, &[], body).code() == "context_overflow",
            "{body}"
        );
    }
}

#[test]
fn bodies_are_kept_to_64_kib_cut_at_a_char_boundary() {
    assert_eq!(StatusError::MAX_BODY, 65_536);
    let fits = "a".repeat(StatusError::MAX_BODY);
    assert_eq!(parts(500, &[], &fits).body(), fits);
    let mut bytes = vec![b'a'; StatusError::MAX_BODY - 1];
    bytes.extend_from_slice("éééé".as_bytes());
    let e = StatusError::from_parts_at(500u16, &HeaderMap::new(), &bytes, now());
    assert_eq!(e.body(), "a".repeat(StatusError::MAX_BODY - 1));
    let e = StatusError::new(500).with_body(String::from_utf8(bytes).unwrap());
    assert_eq!(e.body(), "a".repeat(StatusError::MAX_BODY - 1));
    let emoji = "🦀".repeat(20_000); // 80,000 bytes
    let kept = parts(400, &[], &emoji);
    assert_eq!(kept.body(), "🦀".repeat(16_384));
}

#[test]
fn invalid_utf8_is_decoded_lossily() {
    let e = StatusError::from_parts_at(400u16, &HeaderMap::new(), b"bad \xff\xfe body", now());
    assert_eq!(e.body(), "bad \u{FFFD}\u{FFFD} body");
    assert_eq!(
        e.message(),
        "HTTP 400 Bad Request: bad \u{FFFD}\u{FFFD} body"
    );
    let e = StatusError::from_parts_at(429u16, &HeaderMap::new(), b"credits exhausted \xc3", now());
    assert_eq!(
        (e.code(), e.body()),
        ("budget_exhausted", "credits exhausted \u{FFFD}")
    );
}

#[test]
fn a_10_mb_body_of_any_shape_never_panics() {
    let mut ten_mb = Vec::with_capacity(10 * 1024 * 1024);
    while ten_mb.len() < 10 * 1024 * 1024 {
        ten_mb.extend_from_slice("{\"error\":[\u{e9}\u{1F980}".as_bytes());
        ten_mb.push(0xff);
    }
    let e = StatusError::from_parts_at(400u16, &HeaderMap::new(), &ten_mb, now());
    assert!(e.body().len() <= StatusError::MAX_BODY);
    assert_eq!(e.code(), "invalid_input");
    let _ = (
        e.to_string(),
        e.hints(),
        e.recovery(),
        is_context_overflow(&e),
    );

    let deep = "[".repeat(10 * 1024 * 1024);
    assert_eq!(parts(503, &[], &deep).code(), "provider_unavailable");
    let deep_objects = r#"{"error":"#.repeat(5_000);
    assert_eq!(parts(400, &[], &deep_objects).code(), "invalid_input");
    let huge_number = format!(r#"{{"error":{{"code":1{}}}}}"#, "0".repeat(60_000));
    assert_eq!(parts(429, &[], &huge_number).code(), "rate_limit");
    let huge_float = r#"{"error":{"code":1e999999,"type":"server_error"}}"#;
    assert_eq!(parts(400, &[], huge_float).code(), "invalid_input");
}

fn header_value() -> impl Strategy<Value = HeaderValue> {
    prop_oneof![
        "\\PC{0,40}".prop_filter_map("not a header value", |s| HeaderValue::from_str(&s).ok()),
        proptest::collection::vec(any::<u8>(), 0..40)
            .prop_filter_map("not a header value", |b| HeaderValue::from_bytes(&b).ok()),
        "[0-9.hmsuµn -]{0,16}"
            .prop_filter_map("not a header value", |s| HeaderValue::from_str(&s).ok()),
    ]
}

const HINT_HEADERS: [&str; 8] = [
    "retry-after",
    "retry-after-ms",
    "x-should-retry",
    "x-ratelimit-reset-requests",
    "x-ratelimit-reset-tokens",
    "x-ratelimit-remaining-requests",
    "x-ratelimit-remaining-tokens",
    "content-type",
];

proptest! {
    #[test]
    fn from_parts_never_panics(
        status in prop_oneof![Just(429u16), Just(400u16), Just(503u16), any::<u16>()],
        values in proptest::collection::vec((0..HINT_HEADERS.len(), header_value()), 0..8),
        body in proptest::collection::vec(any::<u8>(), 0..512),
        secs in any::<u64>(),
    ) {
        let mut map = HeaderMap::new();
        for (name, value) in values {
            map.append(HINT_HEADERS[name], value);
        }
        let clock = SystemTime::UNIX_EPOCH.checked_add(Duration::from_secs(secs)).unwrap_or(now());
        let e = StatusError::from_parts_at(status, &map, &body, clock);
        let _ = (e.to_string(), e.code(), e.retry_policy(), e.hints(), e.recovery(), is_context_overflow(&e));
        prop_assert!(e.body().len() <= StatusError::MAX_BODY);
    }

    #[test]
    fn provider_shaped_bodies_never_panic(
        status in any::<u16>(),
        kind in "[a-zA-Z_]{0,24}",
        message in "\\PC{0,60}",
        delay in "\\PC{0,12}",
        wrap in any::<bool>(),
    ) {
        let json = serde_json::json!({"type": "error", "error": {
            "type": kind, "code": kind, "status": kind, "message": message,
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}],
        }});
        let body = if wrap { serde_json::json!([json]) } else { json }.to_string();
        let e = parts(status, &[], &body);
        let _ = (e.code(), e.retry_policy(), e.recovery(), is_context_overflow(&e));
    }

    #[test]
    fn parse_rate_limit_reset_never_panics(value in "\\PC{0,40}") {
        let _ = parse_rate_limit_reset(&value);
    }

    #[test]
    fn rate_limit_resets_round_trip(h in 0u64..1000, m in 0u64..60, s in 0u64..60, ms in 0u64..1000) {
        let value = format!("{h}h{m}m{s}.{ms:03}s");
        let expected = Duration::from_secs(h * 3600 + m * 60 + s) + Duration::from_millis(ms);
        prop_assert_eq!(parse_rate_limit_reset(&value), Some(expected));
    }

    #[test]
    fn retry_after_ms_round_trips(ms in any::<u32>(), micros in 0u32..1000) {
        let value = format!("{ms}.{micros:03}");
        let expected = Duration::from_millis(u64::from(ms)) + Duration::from_micros(u64::from(micros));
        prop_assert_eq!(retry_after(503, &[("retry-after-ms", value.as_str())]), Some(expected));
    }
}

#[test]
fn the_message_shows_the_first_line_cut_with_an_ellipsis_and_no_controls() {
    let long = "é".repeat(250);
    let e = StatusError::new(503).with_body(long.clone());
    assert_eq!(
        e.message(),
        format!("HTTP 503 Service Unavailable: {}…", "é".repeat(200))
    );
    let exact = StatusError::new(503).with_body("é".repeat(200));
    assert!(!exact.message().ends_with('…'));
    let hostile = StatusError::new(500)
        .with_body("boom\x1b[2J\rERROR fake\x07 \u{2028}admin \u{202E}evil\nsecond line");
    assert_eq!(
        hostile.message(),
        "HTTP 500 Internal Server Error: boom[2J ERROR fake  admin evil"
    );
}

/// Compiles: every function that takes a status takes a literal and `http::StatusCode`.
#[test]
fn status_taking_functions_take_literals_and_status_codes() {
    let headers = http::HeaderMap::new();
    let now = std::time::SystemTime::now();
    let from_literal = [
        StatusError::new(429),
        StatusError::from_parts(429, &headers, "slow down"),
        StatusError::from_head(429, &headers),
        StatusError::from_parts_at(429, &headers, b"", now),
        StatusError::from_response(429, None, "", now),
    ];
    let code = http::StatusCode::TOO_MANY_REQUESTS;
    let borrowed: &http::StatusCode = &code;
    let from_status_code = [
        StatusError::new(code),
        StatusError::from_parts(code, &headers, "slow down"),
        StatusError::from_head(borrowed, &headers),
        StatusError::from_parts_at(code, &headers, b"", now),
        StatusError::from_response(code, None, "", now),
    ];
    for e in from_literal.iter().chain(&from_status_code) {
        assert_eq!(e.code(), "rate_limit");
    }
    assert_eq!(StatusError::new(-1).code(), StatusError::new(0).code());
    assert_eq!(StatusError::new(70_000).status(), 0);
}

/// Words, not strings: each word family, in English and in Chinese, said in words no
/// provider's table lists verbatim, decides on a status that says less.
#[test]
fn each_word_family_decides_in_words_it_was_not_written_from() {
    let message = |text: &str| format!(r#"{{"error":{{"message":"{text}"}}}}"#);
    let table = [
        // Money: balances, credits, billing, in any order and language.
        (
            429,
            "The wallet balance for this key is insufficient.",
            "budget_exhausted",
        ),
        (
            403,
            "Billing is not active for this project",
            "budget_exhausted",
        ),
        (
            400,
            "You have run out of credits on your team",
            "budget_exhausted",
        ),
        (429, "用户余额不足，请充值", "budget_exhausted"),
        (429, "該令牌額度不足", "budget_exhausted"),
        (400, "saldo insuficiente en la cuenta", "budget_exhausted"),
        // A plan's or a quota's limit, spent for longer than a retry waits.
        (
            429,
            "Daily request quota reached for the free tier",
            "budget_exhausted",
        ),
        (
            429,
            "Your token quota limit has been hit",
            "budget_exhausted",
        ),
        (429, "今日免费次数已用完", "budget_exhausted"),
        // ... unless the limit counts per minute: then waiting helps.
        (
            429,
            "Quota exceeded for 'requests per minute'",
            "rate_limit",
        ),
        (429, "每分钟请求数超过限制", "rate_limit"),
        // A request too large to ever pass, and the context window.
        (
            400,
            "The uploaded image is too large for this endpoint",
            "request_too_large",
        ),
        (
            400,
            "Input exceeds the model's context window of 8k",
            "context_overflow",
        ),
        (400, "输入过长，超出模型上下文", "context_overflow"),
        // Content policy, credentials, what does not exist.
        (
            400,
            "Blocked by the safety filter of the provider",
            "content_filtered",
        ),
        (400, "输入内容包含敏感词", "content_filtered"),
        (400, "The supplied api key is expired", "auth_error"),
        (400, "无效的令牌", "auth_error"),
        (400, "No such model: llama-9-900b", "not_found"),
        // Throttles, timeouts and overloads, where the status says less.
        (400, "请求过于频繁，请稍后再试", "rate_limit"),
        (500, "Upstream request timed out after 60s", "timeout"),
        (
            500,
            "当前分组上游负载已饱和，请稍后再试",
            "provider_unavailable",
        ),
        (
            500,
            "The engine is currently overloaded",
            "provider_unavailable",
        ),
        // A call while another of the same conversation is still answered: wait for it.
        (
            400,
            "Another request is in progress for this session",
            "rate_limit",
        ),
        (400, "该会话已有请求正在处理中", "rate_limit"),
        // Blocked on grounds of compliance.
        (400, "内容因合规问题被拦截", "content_filtered"),
        // A refusal relabelled as a server error is still a refusal; a filter that failed is
        // an outage.
        (
            500,
            "Output blocked by content filtering policy",
            "content_filtered",
        ),
        (
            503,
            "The content filter service is temporarily unavailable",
            "provider_unavailable",
        ),
        (
            500,
            "content moderation failed with an internal error",
            "provider_unavailable",
        ),
        // A cap on what the model writes, asked above it: a parameter, not a long prompt.
        (
            400,
            "max_tokens must be less than or equal to 4096 for this model",
            "invalid_input",
        ),
        (
            400,
            "The max tokens you requested exceeds what this model writes",
            "invalid_input",
        ),
        (500, "max_tokens 必须小于等于 4096", "invalid_input"),
        // A limit of requests in flight, the caller's; the server's own capacity, an outage.
        (
            400,
            "You have reached the limit of concurrent requests for this key",
            "rate_limit",
        ),
        (
            429,
            "Requests are throttled due to system capacity limits, try later",
            "provider_unavailable",
        ),
        (429, "服务并发已满，请稍后", "provider_unavailable"),
        // A billing limit, and a usage cap in Chinese.
        (
            429,
            "Billing limit reached for this key",
            "budget_exhausted",
        ),
        (429, "该密钥已达到用量上限", "budget_exhausted"),
        // No authorisation, a key of the wrong kind, a key without the permission.
        (400, "Request made with no auth header", "auth_error"),
        (
            400,
            "This endpoint cannot be called with this key type",
            "auth_error",
        ),
        (
            400,
            "You have insufficient permissions for this operation",
            "auth_error",
        ),
        // A token of text is not a credential's token.
        (
            400,
            "Invalid token id 200000 in the prompt",
            "invalid_input",
        ),
        // A deadline of the function that served the call.
        (502, "Function invocation timeout after 10s", "timeout"),
        // An illegal parameter, and a request that could not be decoded.
        (500, "Illegal argument: temperature", "invalid_input"),
        (500, "请求参数非法", "invalid_input"),
        (
            500,
            "json: cannot unmarshal number into Go struct field ChatRequest.stream of type bool",
            "invalid_input",
        ),
        // A relay that could not decode its upstream's response failed on its side.
        (
            500,
            "json: cannot unmarshal object into Go struct field ChatResponse.usage of type int",
            "provider_unavailable",
        ),
        // A feature of the request that no endpoint supports.
        (500, "This model does not support tools", "invalid_input"),
        (500, "该模型不支持工具调用", "invalid_input"),
        // A token limit counted over a stretch of time is a rate limit, not a context window.
        (
            400,
            "Maximum tokens allowed in this time period reached, wait and retry",
            "rate_limit",
        ),
        (
            429,
            "Token usage exceeded the limit for the current time window",
            "rate_limit",
        ),
        (400, "单位时间内调用的tokens数量超过上限", "rate_limit"),
        // A gateway's own keys, all out for now, are its outage; a caller's missing key is not.
        (
            503,
            "No available keys left in the pool, try again later",
            "provider_unavailable",
        ),
        (
            503,
            "All API keys are rate limited right now",
            "provider_unavailable",
        ),
        (
            503,
            "当前没有可用的密钥，请稍后再试",
            "provider_unavailable",
        ),
        (401, "No API key provided", "auth_error"),
        (
            503,
            "all upstream credentials are cooling down: no auth available",
            "provider_unavailable",
        ),
        (401, "No auth credentials found", "auth_error"),
        // Content the service will not make.
        (
            400,
            "This request includes content that we cannot generate",
            "content_filtered",
        ),
        (400, "无法生成此内容，请修改提示词", "content_filtered"),
        // A credential the server could not read, and "sign in again"; a JSON token is text.
        (
            400,
            "Failed to decode the bearer token in your request",
            "auth_error",
        ),
        (400, "Session ended, please log in again", "auth_error"),
        (
            400,
            "Failed to parse JSON: unexpected token at position 12",
            "invalid_input",
        ),
        // A model named, unquoted, between the noun and "does not exist".
        (
            400,
            "The model acme-chat-large-2025-01 does not exist",
            "not_found",
        ),
        // A model the server calls invalid, and a long name before "does not exist".
        (
            400,
            "Invalid model: acme-large. See the model list",
            "not_found",
        ),
        (
            400,
            "The endpoint ep-2025-acme-chat-large-text-01 does not exist or you do not have access to it",
            "not_found",
        ),
        (
            400,
            "The endpoint acme-chat-large does not exist",
            "not_found",
        ),
        // A request rate that grows too fast is the caller's rate.
        (400, "The request rate grew too quickly", "rate_limit"),
        // "Invalid request", and messages out of the order the API takes.
        (
            500,
            "Invalid request: temperature out of range",
            "invalid_input",
        ),
        (
            500,
            "Roles must alternate between user and assistant",
            "invalid_input",
        ),
        (
            500,
            "After the system message, user and assistant roles should be alternating",
            "invalid_input",
        ),
        // A gateway's pool of accounts, empty for now, is its outage.
        (
            503,
            "Account pool empty: upstream authentication failed",
            "provider_unavailable",
        ),
        (
            503,
            "账号池暂无可用账号（上游账号鉴权失效）",
            "provider_unavailable",
        ),
        // A caller not allowed to use what it asks for.
        (
            400,
            "Your organization is not allowed to use this model",
            "auth_error",
        ),
        // A limit the account set on itself, and a plan's usage window.
        (
            429,
            "Your account has reached the configured inference limit",
            "budget_exhausted",
        ),
        (
            429,
            "Usage window full for every account",
            "budget_exhausted",
        ),
        (429, "账号用量窗口已达上限", "budget_exhausted"),
        // A prompt held under a count of tokens.
        (
            400,
            "inputs must have less than 4096 tokens",
            "context_overflow",
        ),
    ];
    for (status, text, expected) in table {
        assert_eq!(code(status, &message(text)), expected, "{status} {text}");
    }
}

/// Each word family in the other languages providers and gateways answer in: Japanese,
/// Korean, Russian, Spanish, Portuguese, French, German and Italian, each said the way a
/// server of that language would, on a status that says less than the words.
#[test]
fn each_word_family_decides_in_other_languages() {
    let message = |text: &str| format!(r#"{{"error":{{"message":"{text}"}}}}"#);
    let table = [
        // Japanese.
        (400, "残高が不足しています", "budget_exhausted"),
        (429, "本日のクォータを使い切りました", "budget_exhausted"),
        (
            429,
            "レート制限を超えました。しばらくしてから再試行してください",
            "rate_limit",
        ),
        (500, "サーバーが過負荷状態です", "provider_unavailable"),
        (500, "リクエストがタイムアウトしました", "timeout"),
        (
            400,
            "入力が長すぎます。コンテキストの上限を超えています",
            "context_overflow",
        ),
        (400, "ファイルサイズが大きすぎます", "request_too_large"),
        (
            400,
            "不適切なコンテンツが含まれています",
            "content_filtered",
        ),
        (400, "認証に失敗しました", "auth_error"),
        (400, "指定されたモデルが見つかりません", "not_found"),
        (500, "パラメータが不正です", "invalid_input"),
        // Korean.
        (400, "잔액이 부족합니다", "budget_exhausted"),
        (429, "월간 사용량 한도에 도달했습니다", "budget_exhausted"),
        (
            400,
            "요청이 너무 많습니다. 잠시 후 다시 시도하세요",
            "rate_limit",
        ),
        (
            500,
            "서버 과부하로 처리할 수 없습니다",
            "provider_unavailable",
        ),
        (500, "요청 시간이 초과되었습니다", "timeout"),
        (
            400,
            "입력이 너무 길어 컨텍스트 길이를 초과했습니다",
            "context_overflow",
        ),
        (400, "파일 크기가 너무 큽니다", "request_too_large"),
        (400, "부적절한 내용이 포함되어 있습니다", "content_filtered"),
        (400, "API 키가 유효하지 않습니다", "auth_error"),
        (400, "모델을 찾을 수 없습니다", "not_found"),
        // Russian.
        (400, "Недостаточно средств на балансе", "budget_exhausted"),
        (429, "Дневной лимит токенов исчерпан", "budget_exhausted"),
        (
            400,
            "Слишком много запросов, попробуйте позже",
            "rate_limit",
        ),
        (500, "Сервис временно недоступен", "provider_unavailable"),
        (500, "Превышено время ожидания ответа", "timeout"),
        (
            400,
            "Запрос превышает длину контекста модели",
            "context_overflow",
        ),
        (400, "Файл слишком большой", "request_too_large"),
        (
            400,
            "Запрос нарушает политику использования",
            "content_filtered",
        ),
        (400, "Неверный ключ API", "auth_error"),
        (400, "Модель не найдена", "not_found"),
        // Spanish.
        (
            400,
            "No tiene saldo suficiente: pago requerido",
            "budget_exhausted",
        ),
        (
            429,
            "Cuota mensual agotada para su cuenta",
            "budget_exhausted",
        ),
        (
            400,
            "Demasiadas solicitudes, inténtelo más tarde",
            "rate_limit",
        ),
        (500, "El servidor está sobrecargado", "provider_unavailable"),
        (
            500,
            "Se agotó el tiempo de espera de la solicitud",
            "timeout",
        ),
        (
            400,
            "El mensaje excede el contexto máximo del modelo",
            "context_overflow",
        ),
        (400, "El archivo es demasiado grande", "request_too_large"),
        (
            400,
            "El contenido es inapropiado y fue bloqueado",
            "content_filtered",
        ),
        (400, "Clave de API inválida", "auth_error"),
        (400, "Modelo no encontrado", "not_found"),
        // Portuguese.
        (400, "Saldo insuficiente na conta", "budget_exhausted"),
        (429, "Cota diária esgotada", "budget_exhausted"),
        (
            400,
            "Muitas requisições, tente novamente mais tarde",
            "rate_limit",
        ),
        (
            500,
            "Serviço temporariamente indisponível",
            "provider_unavailable",
        ),
        (500, "Tempo limite excedido", "timeout"),
        (
            400,
            "A mensagem é muito longa para o modelo",
            "context_overflow",
        ),
        (400, "A imagem é muito grande", "request_too_large"),
        (400, "Conteúdo impróprio detectado", "content_filtered"),
        (400, "Chave de API inválida", "auth_error"),
        (400, "Modelo não encontrado", "not_found"),
        // French.
        (
            400,
            "Solde insuffisant, paiement requis",
            "budget_exhausted",
        ),
        (429, "Quota journalier dépassé", "budget_exhausted"),
        (400, "Trop de requêtes, réessayez plus tard", "rate_limit"),
        (500, "Le serveur est surchargé", "provider_unavailable"),
        (500, "Délai d'attente dépassé", "timeout"),
        (
            400,
            "Le texte dépasse la longueur de contexte maximale",
            "context_overflow",
        ),
        (400, "Le fichier est trop volumineux", "request_too_large"),
        (
            400,
            "Contenu inapproprié bloqué par la modération",
            "content_filtered",
        ),
        (400, "Clé API invalide", "auth_error"),
        (400, "Le modèle n'existe pas", "not_found"),
        // German.
        (
            400,
            "Nicht genügend Guthaben auf dem Konto",
            "budget_exhausted",
        ),
        (429, "Ihr Kontingent ist aufgebraucht", "budget_exhausted"),
        (
            400,
            "Zu viele Anfragen, bitte später erneut versuchen",
            "rate_limit",
        ),
        (500, "Der Dienst ist überlastet", "provider_unavailable"),
        (500, "Zeitüberschreitung bei der Anfrage", "timeout"),
        (
            400,
            "Die Eingabe überschreitet das Kontextfenster des Modells",
            "context_overflow",
        ),
        (400, "Die Datei ist zu groß", "request_too_large"),
        (
            400,
            "Der Inhalt verstößt gegen unsere Richtlinien",
            "content_filtered",
        ),
        (400, "Ungültiger API-Schlüssel", "auth_error"),
        (400, "Modell nicht gefunden", "not_found"),
        // Italian.
        (
            400,
            "Pagamento richiesto per continuare",
            "budget_exhausted",
        ),
        (400, "Troppe richieste, riprova più tardi", "rate_limit"),
        (
            500,
            "Il servizio è temporaneamente non disponibile",
            "provider_unavailable",
        ),
        (400, "Modello non trovato", "not_found"),
        // The families of requests in flight, permissions, the server's capacity, a usage
        // cap and an unsupported feature.
        (
            400,
            "Las solicitudes simultáneas superan lo permitido",
            "rate_limit",
        ),
        (400, "同時リクエスト数の上限に達しました", "rate_limit"),
        (
            400,
            "Permisos insuficientes para esta operación",
            "auth_error",
        ),
        (400, "権限が不足しています", "auth_error"),
        (
            429,
            "Capacidad del sistema excedida, inténtelo más tarde",
            "provider_unavailable",
        ),
        (429, "利用限度に達しました", "budget_exhausted"),
        (
            500,
            "Dieses Modell unterstützt keine Werkzeuge",
            "invalid_input",
        ),
        (
            500,
            "このモデルはツールをサポートしていません",
            "invalid_input",
        ),
        // A token limit counted over a stretch of time.
        (
            400,
            "一定時間内のトークン数の上限を超えました",
            "rate_limit",
        ),
        (400, "단위 시간당 토큰 한도를 초과했습니다", "rate_limit"),
        (
            400,
            "Превышен лимит токенов за единицу времени",
            "rate_limit",
        ),
        (
            400,
            "Se superó el máximo de tokens permitido en el período de tiempo actual",
            "rate_limit",
        ),
        (
            400,
            "Maximale Anzahl an Tokens im Zeitfenster überschritten",
            "rate_limit",
        ),
        // A gateway's own keys, all out for now.
        (503, "利用可能なAPIキーがありません", "provider_unavailable"),
        (503, "사용 가능한 API 키가 없습니다", "provider_unavailable"),
        (
            503,
            "Нет доступных ключей для этой группы",
            "provider_unavailable",
        ),
        (
            503,
            "No hay claves disponibles en el grupo",
            "provider_unavailable",
        ),
        (
            503,
            "Aucune clé active pour ce groupe",
            "provider_unavailable",
        ),
        // A model the server calls invalid.
        (400, "無効なモデルが指定されました", "not_found"),
        (400, "Modelo inválido: acme-large", "not_found"),
        (400, "Ungültiges Modell angegeben", "not_found"),
        // A request rate that grows too fast.
        (400, "Las solicitudes llegan demasiado rápido", "rate_limit"),
        (400, "Запросы отправляются слишком быстро", "rate_limit"),
        // Messages out of the order the API takes.
        (
            500,
            "Los roles deben alternar entre usuario y asistente",
            "invalid_input",
        ),
        (
            500,
            "ユーザーとアシスタントのメッセージは交互に並べてください",
            "invalid_input",
        ),
        (500, "用户与助手消息必须交替出现", "invalid_input"),
        // A gateway's pool of accounts, empty for now.
        (
            503,
            "利用可能なアカウントがありません（認証エラー）",
            "provider_unavailable",
        ),
        (
            503,
            "Нет доступных аккаунтов: ошибка авторизации",
            "provider_unavailable",
        ),
        // A caller not allowed to use what it asks for.
        (400, "该项目不允许使用此模型", "auth_error"),
        (400, "このモデルの使用が許可されていません", "auth_error"),
        (
            400,
            "Проекту не разрешено использовать эту модель",
            "auth_error",
        ),
        // A plan's usage window, a limit the account set on itself.
        (
            429,
            "Límite de uso alcanzado para esta cuenta",
            "budget_exhausted",
        ),
        (429, "账户已达到设置的推理限额", "budget_exhausted"),
        // A prompt held under a count of tokens.
        (
            400,
            "La entrada debe tener menos de 4096 tokens",
            "context_overflow",
        ),
        (
            400,
            "入力は4096トークン未満にしてください",
            "context_overflow",
        ),
        // Content the service will not make.
        (
            400,
            "生成できないコンテンツが含まれています",
            "content_filtered",
        ),
        (400, "생성할 수 없는 콘텐츠입니다", "content_filtered"),
        (
            400,
            "Мы не можем сгенерировать такой контент",
            "content_filtered",
        ),
        (
            400,
            "El contenido solicitado no se puede generar",
            "content_filtered",
        ),
        (
            400,
            "Ce contenu ne peut pas être généré",
            "content_filtered",
        ),
        // Signing in again.
        (
            400,
            "セッションが切れました。再度ログインしてください",
            "auth_error",
        ),
        (400, "다시 로그인해 주세요", "auth_error"),
        (400, "Сессия устарела, войдите снова", "auth_error"),
        (400, "Por favor, inicia sesión de nuevo", "auth_error"),
        (400, "Bitte erneut anmelden", "auth_error"),
        // A token limit to wait out.
        (
            429,
            "Demasiados tokens, espere antes de intentarlo de nuevo",
            "rate_limit",
        ),
        (
            429,
            "トークンが多すぎます。待ってから再試行してください",
            "rate_limit",
        ),
        (
            429,
            "토큰이 너무 많습니다. 기다린 후 다시 시도하세요",
            "rate_limit",
        ),
        // A model named between the noun and "does not exist".
        (400, "Модель acme-large не существует", "not_found"),
        (400, "El modelo acme-large-v2 no existe", "not_found"),
        (400, "指定されたエンドポイントは存在しません", "not_found"),
    ];
    for (status, text, expected) in table {
        assert_eq!(code(status, &message(text)), expected, "{status} {text}");
    }
}

/// A name the table does not know is read by its words: a quota whose words say it is
/// spent is not retried, wherever the name stands.
#[test]
fn names_are_read_by_their_words() {
    for name in [
        "QUOTA_EXHAUSTED",
        "insufficient_user_quota",
        "billing_not_active",
        "AllocationQuota.FreeTierOnly",
        "CreditBalanceDepleted",
    ] {
        let body = format!(r#"{{"error":{{"code":"{name}","message":"x"}}}}"#);
        let e = parts(429, &[], &body);
        assert_eq!(
            (e.code(), e.is_retryable()),
            ("budget_exhausted", false),
            "{name}"
        );
    }
    let throttled = parts(500, &[], r#"{"error":{"code":"RequestThrottled"}}"#);
    assert_eq!(throttled.code(), "rate_limit");
}

/// Anthropic's `permission_error` names a class of refusals, which servers that speak
/// Anthropic's protocol reuse for a spent plan: the message's words say which.
#[test]
fn a_permission_error_is_read_by_its_message() {
    let body = |message: &str| {
        format!(r#"{{"type":"error","error":{{"type":"permission_error","message":"{message}"}}}}"#)
    };
    let spent = parts(
        403,
        &[],
        &body("usage limit for this billing cycle reached"),
    );
    assert_eq!(
        (spent.code(), spent.is_retryable()),
        ("budget_exhausted", false)
    );
    let refused = parts(
        403,
        &[],
        &body("Your API key does not have permission to use the specified resource."),
    );
    assert_eq!(refused.code(), "auth_error");
}

/// When one text says two things, the one that decides what to do: words of a bad request
/// outweigh words of an outage (a relay's "upstream failed" around the provider's refusal);
/// a plan's limit that says it comes back within the hour is a rate limit; a dotted name's
/// last part that says something decides; Google names a quota by its service's metric.
#[test]
fn what_outweighs_what_in_one_text() {
    let message = |text: &str| format!(r#"{{"error":{{"message":"{text}"}}}}"#);
    for (status, text, expected) in [
        (
            500,
            "Upstream request failed: invalid request body: unknown field",
            "invalid_input",
        ),
        (500, "Upstream request failed", "provider_unavailable"),
        (
            429,
            "Limit on tokens per day reached. Please try again in 9m38.016s.",
            "rate_limit",
        ),
        (
            429,
            "Limit on tokens per day reached. Please try again in 7h12m0s.",
            "budget_exhausted",
        ),
        (
            429,
            "Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model.",
            "rate_limit",
        ),
        (
            429,
            "Quota exceeded for generativelanguage.googleapis.com/generate_requests_per_day.",
            "budget_exhausted",
        ),
        // Go's context deadline is a timeout, not a context window.
        (
            400,
            "Post https://api.example.com/v1/chat/completions: context deadline exceeded",
            "timeout",
        ),
        (400, "context window exceeded", "context_overflow"),
        // A token limit that asks to be waited out is a rate limit; one that asks for a
        // shorter prompt is a context window.
        (
            429,
            "Too many input tokens right now: please wait before retrying",
            "rate_limit",
        ),
        (
            400,
            "Too many tokens in the prompt: shorten it and try again",
            "context_overflow",
        ),
        // A rate said in words comes before a relay's "upstream error" around it.
        (
            502,
            "Upstream error from Acme: Request rate increased too quickly, to keep the system stable",
            "rate_limit",
        ),
        // A gateway's empty pool of accounts outweighs its upstream's credential words.
        (
            503,
            "No available accounts in the pool (upstream token expired), retry later",
            "provider_unavailable",
        ),
        // A limit per minute beside high demand names the caller's rate; high demand alone
        // is the server's load.
        (
            429,
            "High demand on this free model: limited to 2 requests per minute",
            "rate_limit",
        ),
        (
            429,
            "The service is under high demand, please retry shortly",
            "provider_unavailable",
        ),
    ] {
        assert_eq!(code(status, &message(text)), expected, "{status} {text}");
    }
    let e = parts(
        429,
        &[],
        &message("Limit on tokens per day reached. Please try again in 9m38.016s."),
    );
    assert_eq!(
        e.retry_after(),
        Some(std::time::Duration::from_millis(578_016))
    );
    // A plan's usage window in the message outweighs a generic rate-limit type.
    let window = r#"{"error":{"code":"rate_limit_reached","message":"Codex 账号用量窗口已达上限","type":"rate_limit_error"}}"#;
    assert_eq!(code(429, window), "budget_exhausted");
    // The last part of a dotted name that says something decides.
    for (name, expected) in [
        ("context_exceed", "context_overflow"),
        ("InternalError.Algo.InvalidParameter", "invalid_input"),
        ("Throttling.RateQuota", "rate_limit"),
        ("AllocationQuota.FreeTierOnly", "budget_exhausted"),
    ] {
        let body = format!(r#"{{"error":{{"code":"{name}","message":"x"}}}}"#);
        assert_eq!(code(400, &body), expected, "{name}");
    }
}

/// Text in quotes is the caller's own, echoed back: it never decides. A 400 that quotes a
/// rejected tool named "too many requests" or "overloaded", or money words, stays the
/// caller's error and is not retried.
#[test]
fn quoted_text_never_decides() {
    for quoted in [
        r#"Invalid 'tools[0].function.name': 'too many requests' does not match '^[a-zA-Z0-9_-]+$'"#,
        r#"Unknown tool \"overloaded\"; available tools: search"#,
        r#"Invalid value for 'model': `insufficient balance`"#,
        "Invalid parameter ‘rate limit exceeded’",
    ] {
        let body =
            format!(r#"{{"error":{{"type":"invalid_request_error","message":"{quoted}"}}}}"#);
        let e = parts(400, &[], &body);
        assert_eq!(
            (e.code(), e.is_retryable()),
            ("invalid_input", false),
            "{quoted}"
        );
    }
}

/// A body held in another (a relay's message, an SDK's printed exception) is read as the
/// body it holds; a page from a CDN or a proxy is classified by its status, never read.
#[test]
fn wrapped_bodies_are_read_and_pages_are_not() {
    let relayed = r#"{"error":{"message":"upstream returned 402: {\"error\":{\"code\":\"insufficient_quota\",\"message\":\"out of money\"}}","type":"api_error"}}"#;
    assert_eq!(code(502, relayed), "budget_exhausted");
    let python = r#"Error code: 429 - {'error': {'message': 'You exceeded your current quota, please check your plan.', 'type': 'insufficient_quota', 'param': None}}"#;
    assert_eq!(code(429, python), "budget_exhausted");
    let page = "<!DOCTYPE html><html><head><title>example.com | 524: A timeout occurred</title></head><body>rate limit exceeded, insufficient balance</body></html>";
    assert_eq!(code(524, page), "timeout");
    assert_eq!(code(503, page), "provider_unavailable");
    assert_eq!(
        code(
            503,
            "upstream connect error or disconnect/reset before headers. reset reason: overflow"
        ),
        "provider_unavailable"
    );
    assert_eq!(code(522, ""), "timeout");
}

/// What decided is shown: in `evidence`, in `Debug` and in the wire form, never in the
/// text for people or the model.
#[test]
fn the_evidence_of_a_decision_is_shown_to_operators_only() {
    use agent_error::http::Decision;
    let body = r#"{"error":{"type":"invalid_request_error","message":"Your prepaid balance is depleted"}}"#;
    let e = parts(400, &[], body);
    assert_eq!(e.code(), "budget_exhausted");
    let Decision::MessageWords { family, .. } = e.evidence() else {
        panic!("{:?}", e.evidence());
    };
    assert_eq!(family, "money");
    assert!(format!("{e:?}").contains("MessageWords"));
    assert!(!e.to_string().contains("money"));
    assert!(!agent_error::tool::render(&e).contains("money"));
    assert_eq!(parts(503, &[], "").evidence(), Decision::Status(503));
    assert_eq!(
        parts(402, &[], body).evidence(),
        Decision::SpecificStatus(402)
    );
    #[cfg(feature = "serde")]
    {
        let report = agent_error::Report::capture(&e);
        assert!(report.evidence().is_some_and(|text| text.contains("money")));
        let json = serde_json::to_string(&report).unwrap();
        assert!(
            json.contains(r#""evidence":"the message's words, family money"#),
            "{json}"
        );
    }
}

/// Your own vocabulary is read before the built-in tables.
#[test]
fn your_vocabulary_is_read_first() {
    use agent_error::http::{Decision, Vocabulary};
    assert!(Vocabulary::new().name("X", "no_such_code").is_err());
    Vocabulary::new()
        .name("ACME_FUNDS_GONE", "budget_exhausted")
        .unwrap()
        .phrase("the acme gerbils are resting", "provider_unavailable")
        .unwrap()
        .install();
    let named = parts(429, &[], r#"{"error":{"code":"ACME_FUNDS_GONE"}}"#);
    assert_eq!(named.code(), "budget_exhausted");
    assert_eq!(
        named.evidence(),
        Decision::YourName {
            name: "ACME_FUNDS_GONE"
        }
    );
    let said = parts(
        400,
        &[],
        r#"{"message":"The ACME gerbils are resting, sorry"}"#,
    );
    assert_eq!(said.code(), "provider_unavailable");
}

/// On a 404, words that say the request asks what no endpoint of the model supports (tools,
/// image input) or that the request is malformed outweigh the status: the request must
/// change, while a missing model stays `not_found`.
#[test]
fn a_404_whose_words_blame_the_request_is_a_bad_request() {
    let message = |text: &str| format!(r#"{{"error":{{"message":"{text}","code":404}}}}"#);
    for (text, expected) in [
        (
            "No endpoints found that support image input",
            "invalid_input",
        ),
        ("This model does not support tools", "invalid_input"),
        ("Invalid parameter: top_k", "invalid_input"),
        ("No endpoints found for acme/model-x", "not_found"),
        ("The model acme/model-x does not exist", "not_found"),
        ("", "not_found"),
    ] {
        assert_eq!(code(404, &message(text)), expected, "{text}");
    }
}

/// A body that came without a status stands for the status it writes: in the message, as a
/// relay writes its upstream's ("Request failed with status code 401", "HTTP 403",
/// `<429>`), which says more than the relay's own number; or in a field of its own
/// (`error.status_code`, a top-level `status`).
#[test]
fn a_status_written_in_a_body_stands_for_the_missing_one() {
    let read = |body: &str| agent_error::http::classify_body(body).map(|e| e.code().to_owned());
    for (body, expected) in [
        (
            r#"{"error":{"message":"Request failed with status code 401","type":"api_error","code":500}}"#,
            "auth_error",
        ),
        ("Upstream error: HTTP 403", "auth_error"),
        (
            r#"{"error":{"message":"<401> Access to this model was denied."}}"#,
            "auth_error",
        ),
        (
            r#"{"error":{"status_code":404,"error":{"type":"","message":""}}}"#,
            "not_found",
        ),
        (
            r#"{"status":403,"error":"Forbidden","message":"x"}"#,
            "auth_error",
        ),
    ] {
        assert_eq!(read(body).as_deref(), Some(expected), "{body}");
    }
    // A number that is not a status, or that only counts something, is not read as one.
    assert_eq!(read(r#"{"error":{"message":"code 1214 returned"}}"#), None);
    assert_eq!(read(r#"{"error":{"message":"sent 404 tokens"}}"#), None);
}

/// A wrapper's own object around a provider's body: a member that holds an `error` is read
/// as that error, and an `error` that is only a label gives way to it.
#[test]
fn a_body_a_wrapper_holds_in_another_member_is_read() {
    let read = |body: &str| agent_error::http::classify_body(body).map(|e| e.code().to_owned());
    let labelled = r#"{"error":"Upstream provider error","response":{"error":{"code":"insufficient_quota","message":"out of money"}}}"#;
    assert_eq!(read(labelled).as_deref(), Some("budget_exhausted"));
    let wrapped = r#"{"message":"Acme API error.","data":{"error":{"type":"overloaded_error","message":"Overloaded"}}}"#;
    assert_eq!(read(wrapped).as_deref(), Some("provider_unavailable"));
    // The body's own `error` object comes first.
    let own =
        r#"{"error":{"type":"authentication_error"},"data":{"error":{"type":"overloaded_error"}}}"#;
    assert_eq!(read(own).as_deref(), Some("auth_error"));
}

/// A success whose body is an error document with a status of its own (a server that
/// answers every error with 200) is that error; any other success body is not read.
#[test]
fn a_success_carrying_an_error_document_is_that_error() {
    let document = r#"{"object":"error","message":"The model `x` does not exist.","type":"NotFoundError","param":null,"code":404}"#;
    let e = parts(200, &[], document);
    assert_eq!((e.code(), e.is_retryable()), ("not_found", false));
    assert_eq!(
        code(200, r#"{"error":{"message":"insufficient balance"}}"#),
        "http_error"
    );
    assert_eq!(code(200, r#"{"code":200,"message":"ok"}"#), "http_error");
}

/// A server a proxy could not reach ("dial tcp …: connection refused", "No connection could
/// be made because the target machine actively refused it") is out, in a body without a
/// status too.
#[test]
fn a_server_out_of_reach_is_an_outage() {
    let read = |body: &str| agent_error::http::classify_body(body).map(|e| e.code().to_owned());
    for body in [
        "Unable to round-trip http request to upstream: dial tcp 10.0.0.2:8000: i/o error",
        "No connection could be made because the target machine actively refused it.",
        "Failed to connect to the model server on port 8080",
        "上游连接被拒绝",
        "モデルサーバーへの接続に失敗しました",
        "Не удалось подключиться к серверу модели",
        "Impossible de se connecter au serveur du modèle",
        "Verbindung abgelehnt vom Modellserver",
    ] {
        assert_eq!(
            read(body).as_deref(),
            Some("provider_unavailable"),
            "{body}"
        );
    }
}

/// A server that crashed on the call (a recovered panic) failed on its side.
#[test]
fn a_server_crash_is_an_outage() {
    let body = r#"{"error":{"message":"Panic detected, error: runtime error: index out of range","type":"gateway_panic"}}"#;
    let e = agent_error::http::classify_body(body).unwrap();
    assert_eq!((e.code(), e.is_retryable()), ("provider_unavailable", true));
}

/// A capitalised `Error`, a status in `http_code`, and a provider's body that a wrapper
/// holds as a string (its `response` or `body`) are read as the body they stand for.
#[test]
fn a_body_held_as_a_string_or_under_a_capitalised_error_is_read() {
    let read = |body: &str| {
        agent_error::http::classify_body(body).map(|e| (e.code().to_owned(), e.status()))
    };
    let capitalised =
        r#"{"Error":{"message":"x","type":"invalid_request_error","code":"insufficient_quota"}}"#;
    assert_eq!(code(400, capitalised), "budget_exhausted");
    let wrapped = r#"{"result":"failed","response":{"http_code":402,"response":"{\"error\":{\"code\":\"insufficient_quota\",\"message\":\"no money\"}}"}}"#;
    assert_eq!(read(wrapped), Some(("budget_exhausted".to_owned(), 402)));
    let body = r#"{"message":"Upstream failed","body":"{\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"}"#;
    assert_eq!(code(502, body), "provider_unavailable");
    assert_eq!(
        read(body).map(|(code, _)| code).as_deref(),
        Some("provider_unavailable")
    );
    let status = r#"{"error":"Too Many Requests","http_code":429}"#;
    assert_eq!(read(status), Some(("rate_limit".to_owned(), 429)));
}
