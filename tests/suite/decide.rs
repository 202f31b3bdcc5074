//! `recover::decide` (SPEC §9): one answer for loops that handle errors themselves.

use std::time::Duration;

use agent_error::recover::{Decision, decide};
use agent_error::{AgentError, Error, Recovery, RetryPolicy, codes};

fn e(code: &'static str) -> Error {
    Error::new("llm.generate", code, "failed")
}

#[test]
fn unclassified_errors_abort() {
    assert_eq!(
        decide(&std::io::Error::other("disk on fire"), 1),
        Decision::Abort
    );
}

#[test]
fn a_retryable_error_retries_after_the_backoff_then_falls_back() {
    let timeout = e(codes::TIMEOUT); // 3 attempts, base 200ms, factor 2
    assert_eq!(
        decide(&timeout, 0),
        Decision::Retry(Duration::from_millis(200))
    );
    assert_eq!(
        decide(&timeout, 1),
        Decision::Retry(Duration::from_millis(200))
    );
    assert_eq!(
        decide(&timeout, 2),
        Decision::Retry(Duration::from_millis(400))
    );
    assert_eq!(decide(&timeout, 3), Decision::Fallback);
}

#[test]
fn the_stream_codes_decide_as_the_vocabulary_says() {
    // A stream cut before its last event is retried like a timeout.
    let cut = e(codes::STREAM_INTERRUPTED);
    assert_eq!(decide(&cut, 1), Decision::Retry(Duration::from_millis(200)));
    assert_eq!(decide(&cut, 2), Decision::Retry(Duration::from_millis(400)));
    assert_eq!(decide(&cut, 3), Decision::Fallback);
    // Output in a broken format is tried once more, then another model.
    let garbled = e(codes::INVALID_OUTPUT);
    assert_eq!(
        decide(&garbled, 1),
        Decision::Retry(Duration::from_millis(200))
    );
    assert_eq!(decide(&garbled, 2), Decision::Fallback);
    // Output cut at its token limit goes on from what it has; a refusal changes the plan.
    assert_eq!(decide(&e(codes::OUTPUT_TRUNCATED), 1), Decision::Continue);
    assert_eq!(decide(&e(codes::CONTENT_FILTERED), 1), Decision::Replan);
}

#[test]
fn a_server_delay_is_the_delay_unless_it_is_longer_than_max_wait() {
    let asked = e(codes::RATE_LIMIT).with_retry_after(Duration::from_secs(7));
    assert_eq!(decide(&asked, 1), Decision::Retry(Duration::from_secs(7)));
    let too_long = e(codes::RATE_LIMIT).with_retry_after(Duration::from_secs(61));
    assert_eq!(decide(&too_long, 1), Decision::Fallback);
}

#[test]
fn other_recoveries_map_to_their_decision() {
    assert_eq!(decide(&e(codes::CONTEXT_OVERFLOW), 1), Decision::Compact);
    assert_eq!(decide(&e(codes::INVALID_INPUT), 1), Decision::Replan);
    assert_eq!(decide(&e(codes::AUTH), 1), Decision::Escalate);
    assert_eq!(decide(&e(codes::NOT_FOUND), 1), Decision::Abort);
    let retired = e("model_retired").with_recovery(Recovery::Fallback);
    assert_eq!(decide(&retired, 1), Decision::Fallback);
    // Continue is never turned into a retry, even on an error that is retryable: the
    // partial output was already delivered.
    let spoke = e("llm.partial")
        .with_policy(RetryPolicy::DEFAULT)
        .with_recovery(Recovery::Continue);
    assert!(spoke.is_retryable());
    assert_eq!(decide(&spoke, 1), Decision::Continue);
    // A recovery of retry on an error that is never retried.
    let odd = e("odd")
        .with_recovery(Recovery::Retry)
        .with_policy(RetryPolicy::NEVER);
    assert_eq!(odd.recovery(), Recovery::Retry);
    assert_eq!(decide(&odd, 1), Decision::Abort);
}

#[test]
fn the_classification_is_found_anywhere_in_the_chain() {
    let err = anyhow::Error::new(e(codes::CONTEXT_OVERFLOW)).context("step 3");
    assert_eq!(decide(err.as_ref(), 1), Decision::Compact);
    let io = std::io::Error::from(std::io::ErrorKind::TimedOut);
    assert_eq!(decide(&io, 1), Decision::Retry(Duration::from_millis(200)));
}

#[test]
fn decisions_display_for_logs() {
    assert_eq!(
        Decision::Retry(Duration::from_millis(200)).to_string(),
        "retry in 200ms"
    );
    assert_eq!(Decision::Compact.to_string(), "compact");
    assert_eq!(Decision::Continue.to_string(), "continue");
    assert_eq!(format!("[{:>9}]", Decision::Continue), "[ continue]");
    assert_eq!(Decision::Retry(Duration::ZERO).as_str(), "retry");
    assert_eq!(Decision::Continue.as_str(), "continue");
}

#[test]
fn after_a_retrier_gave_up_the_decision_is_not_another_retry() {
    use agent_error::recover::decide_after;
    use agent_error::retry::{Retrier, Stop};
    let outcome =
        Retrier::new().run_detailed_with_sleep(|_| Err::<(), _>(e(codes::RATE_LIMIT)), |_| {});
    assert_eq!(
        (outcome.attempts, outcome.stop),
        (3, Stop::AttemptsExhausted)
    );
    // The loop's own counter (1: its first call) would have said retry.
    assert!(matches!(
        decide(&e(codes::RATE_LIMIT), 1),
        Decision::Retry(_)
    ));
    assert_eq!(decide_after(&outcome), Some(Decision::Fallback));

    let outcome = Retrier::new()
        .run_detailed_with_sleep(|_| Err::<(), _>(e(codes::CONTEXT_OVERFLOW)), |_| {});
    assert_eq!(outcome.stop, Stop::Permanent);
    assert_eq!(decide_after(&outcome), Some(Decision::Compact));

    let outcome = Retrier::new()
        .run_detailed_with_sleep(|_| Err::<(), _>(e(codes::OUTPUT_TRUNCATED)), |_| {});
    assert_eq!((outcome.attempts, outcome.stop), (1, Stop::Permanent));
    assert_eq!(decide_after(&outcome), Some(Decision::Continue));

    let outcome =
        Retrier::new().run_detailed_with_sleep(|_| Err::<(), _>(e(codes::INVALID_OUTPUT)), |_| {});
    assert_eq!(
        (outcome.attempts, outcome.stop),
        (2, Stop::AttemptsExhausted)
    );
    assert_eq!(decide_after(&outcome), Some(Decision::Fallback));

    let outcome = Retrier::new().run_detailed_with_sleep(
        |_| Err::<(), _>(std::io::Error::other("disk on fire")),
        |_| {},
    );
    assert_eq!(decide_after(&outcome), Some(Decision::Abort));

    let outcome = Retrier::new().run_detailed_with_sleep(
        |attempt| {
            if attempt < 2 {
                Err(e(codes::TIMEOUT))
            } else {
                Ok(attempt)
            }
        },
        |_| {},
    );
    assert_eq!(decide_after(&outcome), None);
}

#[test]
fn after_an_empty_budget_the_decision_is_a_fallback() {
    use agent_error::recover::decide_after;
    use agent_error::retry::{Retrier, RetryBudget, Stop};
    let retrier = Retrier::new().budget(RetryBudget::with_costs(0, 5, 10, 1));
    let outcome = retrier.run_detailed_with_sleep(|_| Err::<(), _>(e(codes::TIMEOUT)), |_| {});
    assert_eq!((outcome.attempts, outcome.stop), (1, Stop::BudgetEmpty));
    assert_eq!(
        decide(outcome.result.as_ref().unwrap_err(), outcome.attempts),
        Decision::Retry(Duration::from_millis(200))
    );
    assert_eq!(decide_after(&outcome), Some(Decision::Fallback));
}
