//! HTTP classification: statuses, Retry-After in every form, `StatusError` codes, and
//! recognising a context-window overflow anywhere in a chain.

#![cfg(feature = "http")]
use std::time::{Duration, SystemTime};

use agent_error::http::{
    StatusClass, StatusError, classify_status, is_context_overflow, parse_retry_after,
};
use agent_error::retry::{Retrier, Stop};
use agent_error::{AgentError, Recovery};
use proptest::prelude::*;

/// 1994-11-06 08:48:37 UTC, one minute before RFC 9110's example date.
fn now() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_717)
}

#[test]
fn statuses_are_classified() {
    for status in [408, 500, 502, 503, 504, 529, 599] {
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
        "1.5",
        "12s",
        "Sun, 06 Nov 1994 08:49:37",
        "99999999999999999999999",
    ] {
        assert_eq!(parse_retry_after(value, now()), None, "{value:?}");
    }
    assert_eq!(
        parse_retry_after("Sun, 06 Nov 1994 08:47:37 GMT", now()),
        None
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
        &StatusError::new(500).with_body("maximum context length")
    ));
    assert!(!is_context_overflow(
        &StatusError::new(400).with_body("missing field `model`")
    ));
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
