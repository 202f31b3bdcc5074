//! The retrier's record of each failed attempt: its code, the wait after it, and where that
//! wait came from (a header, the body, the message, the policy's backoff), capped.

use std::time::Duration;

use agent_error::http::StatusError;
use agent_error::retry::{AttemptRecord, Retrier, Stop, WaitSource};
use agent_error::{Error, RetryPolicy, codes};

fn timeout() -> Error {
    Error::new("llm.generate", codes::TIMEOUT, "deadline exceeded")
}

#[test]
fn each_failure_is_recorded_with_its_wait_and_where_it_came_from() {
    let retrier = Retrier::new().seed(3);
    let outcome = retrier.run_detailed_with_sleep(
        |attempt| match attempt {
            1 => Err(StatusError::new(429).with_retry_after(Duration::from_secs(2))),
            2 => Err(StatusError::new(503)),
            _ => Ok("done"),
        },
        |_| {},
    );
    assert_eq!((outcome.attempts, outcome.stop), (3, Stop::Succeeded));
    let attempts: Vec<_> = outcome.record.iter().collect();
    assert_eq!(attempts.len(), 2);
    assert_eq!(
        (attempts[0].number(), attempts[0].code()),
        (1, "rate_limit")
    );
    assert_eq!(
        attempts[0].wait(),
        Some((Duration::from_secs(2), WaitSource::Header))
    );
    assert_eq!(attempts[1].code(), "provider_unavailable");
    let (wait, source) = attempts[1].wait().unwrap();
    assert_eq!(source, WaitSource::Backoff);
    assert!(
        wait > Duration::ZERO && wait < Duration::from_secs(2),
        "{wait:?}"
    );
    let summary = outcome.summary().to_string();
    assert!(
        summary.starts_with(
            "3 attempts: rate_limit (waited 2.0s, header), provider_unavailable (waited "
        ),
        "{summary}"
    );
    assert!(summary.ends_with("ms, backoff); succeeded"), "{summary}");
}

#[test]
fn a_delay_read_from_the_body_or_the_message_says_so() {
    let body = r#"{"error":{"code":429,"message":"Resource exhausted.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"3s"}]}}"#;
    let from_body = StatusError::new(429).with_body(body);
    let message = r#"{"error":{"message":"Rate limit reached. Please try again in 1.5s.","type":"requests","code":"rate_limit_exceeded"}}"#;
    let from_message = StatusError::new(429).with_body(message);
    for (failure, source) in [
        (from_body, WaitSource::Body),
        (from_message, WaitSource::Message),
    ] {
        assert_eq!(
            failure.retry_after_source().map(|s| s.as_str()),
            Some(source.as_str())
        );
        let mut first = Some(failure);
        let outcome = Retrier::new().run_detailed_with_sleep(
            |_| match first.take() {
                Some(failure) => Err(failure),
                None => Ok(()),
            },
            |_| {},
        );
        assert_eq!(
            outcome.record.iter().next().unwrap().wait().map(|w| w.1),
            Some(source)
        );
    }
}

#[test]
fn the_last_failure_has_no_wait_and_a_permanent_one_is_recorded_too() {
    let outcome = Retrier::new().seed(1).run_detailed_with_sleep(
        |attempt| -> Result<(), Error> {
            if attempt == 1 {
                Err(timeout())
            } else {
                Err(Error::new("llm.generate", codes::AUTH, "bad key"))
            }
        },
        |_| {},
    );
    assert_eq!(outcome.stop, Stop::Permanent);
    let codes: Vec<_> = outcome
        .record
        .iter()
        .map(|a| (a.code(), a.wait().is_some()))
        .collect();
    assert_eq!(codes, [("timeout", true), ("auth_error", false)]);
    // An error no classifier knows is recorded as unclassified.
    let outcome = Retrier::new().run_detailed_with_sleep(
        |_| -> Result<(), std::fmt::Error> { Err(std::fmt::Error) },
        |_| {},
    );
    assert_eq!(outcome.record.iter().next().unwrap().code(), "unclassified");
}

#[test]
fn a_long_run_keeps_the_first_and_the_latest_attempts() {
    let patient = RetryPolicy::builder()
        .max_attempts(40)
        .base_delay(Duration::from_millis(1))
        .build()
        .unwrap();
    let retrier = Retrier::new().max_attempts(40).seed(1);
    let outcome = retrier.run_detailed_with_sleep(
        |_| -> Result<(), Error> { Err(timeout().with_policy(patient)) },
        |_| {},
    );
    assert_eq!(outcome.attempts, 40);
    let record = &outcome.record;
    assert!(
        outcome.attempts as usize > AttemptRecord::KEPT,
        "{}",
        outcome.attempts
    );
    assert_eq!(record.len(), AttemptRecord::KEPT);
    assert_eq!(
        record.omitted() as usize,
        outcome.attempts as usize - AttemptRecord::KEPT
    );
    assert_eq!(record.iter().next().unwrap().number(), 1);
    let numbers: Vec<u32> = record.iter().map(|a| a.number()).collect();
    assert_eq!(&numbers[..8], &[1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(numbers[8], outcome.attempts - 7);
    assert_eq!(record.last().unwrap().number(), outcome.attempts);
    assert!(
        record
            .to_string()
            .contains(&format!("… {} more", record.omitted()))
    );
}

#[test]
fn a_code_from_outside_the_grammar_is_not_carried() {
    let outcome = Retrier::new().run_detailed_with_sleep(
        |_| -> Result<(), Error> { Err(Error::new("x", "bad]\ncode", "m")) },
        |_| {},
    );
    assert_eq!(outcome.record.iter().next().unwrap().code(), "unclassified");
}
