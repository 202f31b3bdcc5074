//! The dynamic `agent_error::Error`, the `error!` macro and the shared vocabulary in
//! `agent_error::codes` (SPEC §2.3).

use std::error::Error as _;
use std::io;
use std::time::Duration;

use agent_error::codes::{self, is_valid_code, is_valid_op};
use agent_error::retry::Jitter;
use agent_error::{AgentError, Error, Recovery, RetryPolicy, error};

#[test]
fn new_sets_op_code_and_message() {
    let e = Error::new("db.query", "invalid_input", "bad column name");
    assert_eq!(e.op(), "db.query");
    assert_eq!(e.code(), "invalid_input");
    assert_eq!(e.message(), "bad column name");
    assert_eq!(e.to_string(), "db.query [invalid_input]: bad column name");
    assert_eq!(
        agent_error::display::public(&e).to_string(),
        "bad column name"
    );
    assert!(e.source().is_none());
    assert!(e.hints().is_empty());
}

#[test]
fn new_takes_owned_strings() {
    let op = String::from("tool.run");
    let e = Error::new(op, String::from("tool_failed"), format!("exit {}", 2));
    assert_eq!(e.to_string(), "tool.run [tool_failed]: exit 2");
}

#[test]
fn with_source_adds_the_cause() {
    let e = Error::new("llm.generate", codes::TIMEOUT, "deadline exceeded")
        .with_source(io::Error::other("connection reset"));
    assert_eq!(
        e.to_string(),
        "llm.generate [timeout]: deadline exceeded: connection reset"
    );
    assert_eq!(e.message(), "deadline exceeded");
    assert_eq!(e.source().unwrap().to_string(), "connection reset");
}

#[test]
fn with_source_takes_a_string() {
    let e = Error::new("a.b", "c", "d").with_source("underlying");
    assert_eq!(e.to_string(), "a.b [c]: d: underlying");
}

#[test]
fn with_source_takes_an_agent_error() {
    let inner = Error::new("db.query", codes::NOT_FOUND, "no row");
    let e = Error::new("api.get", codes::TOOL_FAILED, "lookup failed").with_source(inner);
    // One head a line; the chain printer shows each link's.
    assert_eq!(
        e.to_string(),
        "api.get [tool_failed]: lookup failed: no row"
    );
    assert_eq!(
        agent_error::display::chain(&e).to_string(),
        "api.get [tool_failed]: lookup failed: db.query [not_found]: no row"
    );
    assert!(agent_error::has_code(&e, codes::NOT_FOUND));
}

#[test]
fn with_hint_appends_in_order() {
    let e = Error::new("a.b", "c", "d")
        .with_hint("first")
        .with_hint(String::from("second"));
    assert_eq!(e.hints(), ["first", "second"]);
}

#[test]
fn with_policy_replaces_the_policy() {
    let policy = RetryPolicy::builder()
        .max_attempts(7)
        .base_delay(Duration::from_millis(10))
        .build()
        .unwrap();
    let e = Error::new("a.b", "invalid_input", "d").with_policy(policy);
    assert!(e.is_retryable());
    assert_eq!(e.retry_policy(), policy);
    assert_eq!(e.retry_policy().max_attempts(), 7);
    assert_eq!(e.recovery(), Recovery::Retry);

    let never = Error::new("a.b", codes::TIMEOUT, "d").with_policy(RetryPolicy::NEVER);
    assert!(!never.is_retryable());
    assert_eq!(never.recovery(), Recovery::Abort);
}

#[test]
fn with_retry_after_sets_the_requested_delay() {
    let e = Error::new("llm.generate", codes::RATE_LIMIT, "429")
        .with_retry_after(Duration::from_secs(12));
    assert_eq!(e.retry_after(), Some(Duration::from_secs(12)));
    assert_eq!(
        e.retry_policy().retry_after(),
        Some(Duration::from_secs(12))
    );
    assert!(e.is_rate_limited());
}

#[test]
fn with_recovery_sets_the_recovery() {
    let e = Error::new("llm.generate", codes::CONTEXT_OVERFLOW, "too long")
        .with_recovery(Recovery::Compact);
    assert_eq!(e.recovery(), Recovery::Compact);
    assert!(!e.is_retryable());
}

#[test]
fn rate_limit_is_rate_limited_by_default() {
    let e = Error::new("llm.generate", codes::RATE_LIMIT, "429");
    assert!(e.is_retryable());
    assert!(e.is_rate_limited());
    assert_eq!(e.retry_policy(), RetryPolicy::RATE_LIMITED);
    assert_eq!(e.recovery(), Recovery::Retry);
}

#[test]
fn timeout_and_provider_unavailable_are_retryable_by_default() {
    for code in [codes::TIMEOUT, codes::PROVIDER_UNAVAILABLE] {
        let e = Error::new("llm.generate", code, "x");
        assert!(e.is_retryable(), "{code}");
        assert!(!e.is_rate_limited(), "{code}");
        let p = e.retry_policy();
        assert_eq!(p, RetryPolicy::DEFAULT, "{code}");
        assert_eq!(p.max_attempts(), 3);
        assert_eq!(p.base_delay(), Duration::from_millis(200));
        assert_eq!(p.max_delay(), Duration::from_secs(30));
        assert_eq!(p.factor(), 2.0);
        assert_eq!(p.jitter(), Jitter::Full);
        assert_eq!(p.max_wait(), Duration::from_secs(60));
        assert_eq!(e.recovery(), Recovery::Retry, "{code}");
    }
}

#[test]
fn other_codes_are_not_retryable_by_default() {
    // The recovery is the vocabulary's for its code, `abort` for a code outside it.
    for code in [
        codes::RATE_LIMIT,
        codes::TIMEOUT,
        codes::PROVIDER_UNAVAILABLE,
        codes::STREAM_INTERRUPTED,
        codes::INVALID_OUTPUT,
    ] {
        assert_eq!(
            Error::new("a.b", code, "x").recovery(),
            Recovery::Retry,
            "{code}"
        );
    }
    for (code, recovery) in [
        (codes::AUTH, Recovery::Escalate),
        (codes::INVALID_INPUT, Recovery::Replan),
        (codes::TOOL_FAILED, Recovery::Replan),
        (codes::GUARD_BLOCKED, Recovery::Replan),
        (codes::BUDGET_EXHAUSTED, Recovery::Escalate),
        (codes::NOT_FOUND, Recovery::Abort),
        (codes::CONTEXT_OVERFLOW, Recovery::Compact),
        (codes::OUTPUT_TRUNCATED, Recovery::Continue),
        (codes::CONTENT_FILTERED, Recovery::Replan),
        ("custom.code", Recovery::Abort),
    ] {
        let e = Error::new("a.b", code, "x");
        assert!(!e.is_retryable(), "{code}");
        assert_eq!(e.retry_policy(), RetryPolicy::NEVER, "{code}");
        assert_eq!(e.retry_policy().max_attempts(), 1);
        assert_eq!(e.recovery(), recovery, "{code}");
    }
}

#[test]
fn error_macro_without_arguments() {
    let e = error!("tool.read", codes::NOT_FOUND, "no such file");
    assert_eq!(e.to_string(), "tool.read [not_found]: no such file");
    assert_eq!(e.message(), "no such file");
    assert!(!e.is_retryable());
}

#[test]
fn error_macro_with_arguments() {
    let path = "/tmp/x";
    let e = error!(
        "tool.read",
        codes::NOT_FOUND,
        "no file at {} ({} bytes)",
        path,
        0
    );
    assert_eq!(
        e.to_string(),
        "tool.read [not_found]: no file at /tmp/x (0 bytes)"
    );
}

#[test]
fn error_macro_with_inline_arguments() {
    let attempts = 3;
    let e = error!(
        "llm.generate",
        codes::TIMEOUT,
        "gave up after {attempts} attempts"
    );
    assert_eq!(e.message(), "gave up after 3 attempts");
    assert!(e.is_retryable());
}

#[test]
fn error_macro_result_can_be_built_on() {
    let e = error!("llm.generate", codes::RATE_LIMIT, "429 from {}", "openai")
        .with_hint("wait")
        .with_source(io::Error::other("quota"));
    assert_eq!(
        e.to_string(),
        "llm.generate [rate_limit]: 429 from openai: quota"
    );
    assert_eq!(e.hints(), ["wait"]);
    assert!(e.is_rate_limited());
}

#[test]
fn the_vocabulary_has_the_spec_values() {
    assert_eq!(codes::RATE_LIMIT, "rate_limit");
    assert_eq!(codes::AUTH, "auth_error");
    assert_eq!(codes::TIMEOUT, "timeout");
    assert_eq!(codes::INVALID_INPUT, "invalid_input");
    assert_eq!(codes::TOOL_FAILED, "tool_failed");
    assert_eq!(codes::PROVIDER_UNAVAILABLE, "provider_unavailable");
    assert_eq!(codes::GUARD_BLOCKED, "guard_blocked");
    assert_eq!(codes::BUDGET_EXHAUSTED, "budget_exhausted");
    assert_eq!(codes::NOT_FOUND, "not_found");
    assert_eq!(codes::CONTEXT_OVERFLOW, "context_overflow");
    assert_eq!(codes::STREAM_INTERRUPTED, "stream_interrupted");
    assert_eq!(codes::OUTPUT_TRUNCATED, "output_truncated");
    assert_eq!(codes::CONTENT_FILTERED, "content_filtered");
    assert_eq!(codes::INVALID_OUTPUT, "invalid_output");
    assert_eq!(codes::REQUEST_TOO_LARGE, "request_too_large");
}

#[test]
fn all_lists_the_vocabulary_in_its_catalog_order() {
    use agent_error::catalog::Catalog;
    let catalog: Vec<&str> = codes::Vocabulary::CODES.iter().map(|d| d.code).collect();
    assert_eq!(catalog, codes::ALL);
    assert_eq!(
        codes::ALL,
        [
            "rate_limit",
            "auth_error",
            "timeout",
            "invalid_input",
            "tool_failed",
            "provider_unavailable",
            "guard_blocked",
            "budget_exhausted",
            "not_found",
            "context_overflow",
            "stream_interrupted",
            "output_truncated",
            "content_filtered",
            "invalid_output",
            "request_too_large",
        ]
    );
}

#[test]
fn stream_interrupted_is_retried_with_the_defaults() {
    let e = Error::new("llm.stream", codes::STREAM_INTERRUPTED, "connection closed");
    assert_eq!(e.retry_policy(), RetryPolicy::DEFAULT);
    assert_eq!((e.is_retryable(), e.is_rate_limited()), (true, false));
    assert_eq!(e.recovery(), Recovery::Retry);
}

#[test]
fn invalid_output_is_retried_once() {
    let e = Error::new(
        "llm.generate",
        codes::INVALID_OUTPUT,
        "malformed function call",
    );
    let p = e.retry_policy();
    assert_eq!((p.is_retryable(), p.is_rate_limited()), (true, false));
    assert_eq!(p.max_attempts(), 2);
    assert_eq!(p.base_delay(), Duration::from_millis(200));
    assert_eq!(p.max_delay(), Duration::from_secs(30));
    assert_eq!(p.factor(), 2.0);
    assert_eq!(p.jitter(), Jitter::Full);
    assert_eq!(p.max_wait(), Duration::from_secs(60));
    assert_eq!(p.retry_after(), None);
    assert_eq!(e.recovery(), Recovery::Retry);
    assert_eq!(codes::default_policy(codes::INVALID_OUTPUT), p);

    // A retrier makes the call twice, not three times.
    let mut calls = 0;
    let outcome = agent_error::retry::Retrier::new().run_detailed_with_sleep(
        |_| {
            calls += 1;
            Err::<(), _>(Error::new(
                "llm.generate",
                codes::INVALID_OUTPUT,
                "bad json",
            ))
        },
        |_| {},
    );
    assert_eq!(
        (calls, outcome.attempts, outcome.stop),
        (2, 2, agent_error::retry::Stop::AttemptsExhausted)
    );
}

#[test]
fn output_truncated_continues_and_content_filtered_replans() {
    let cut = Error::new(
        "llm.generate",
        codes::OUTPUT_TRUNCATED,
        "stopped at max_tokens",
    );
    assert_eq!(cut.retry_policy(), RetryPolicy::NEVER);
    assert_eq!(cut.recovery(), Recovery::Continue);
    let refused = Error::new("llm.generate", codes::CONTENT_FILTERED, "refused");
    assert_eq!(refused.retry_policy(), RetryPolicy::NEVER);
    assert_eq!(refused.recovery(), Recovery::Replan);
    // The vocabulary documents a hint for each; an `Error` carries only those it is given.
    assert!(cut.hints().is_empty() && refused.hints().is_empty());
    let hints = |code: &str| {
        use agent_error::catalog::Catalog;
        codes::Vocabulary::CODES
            .iter()
            .find(|d| d.code == code)
            .unwrap()
            .hints
    };
    assert_eq!(
        hints(codes::OUTPUT_TRUNCATED),
        ["continue from the partial output, or raise the output token limit"]
    );
    assert_eq!(
        hints(codes::CONTENT_FILTERED),
        ["change the request; the provider's policy refused it"]
    );
    assert_eq!(
        (
            codes::default_recovery(codes::OUTPUT_TRUNCATED),
            codes::default_recovery(codes::CONTENT_FILTERED),
            codes::default_recovery(codes::STREAM_INTERRUPTED),
            codes::default_recovery(codes::INVALID_OUTPUT),
        ),
        (
            Some(Recovery::Continue),
            Some(Recovery::Replan),
            Some(Recovery::Retry),
            Some(Recovery::Retry)
        )
    );
}

#[test]
fn every_vocabulary_code_is_valid() {
    for code in [
        codes::RATE_LIMIT,
        codes::AUTH,
        codes::TIMEOUT,
        codes::INVALID_INPUT,
        codes::TOOL_FAILED,
        codes::PROVIDER_UNAVAILABLE,
        codes::GUARD_BLOCKED,
        codes::BUDGET_EXHAUSTED,
        codes::NOT_FOUND,
        codes::CONTEXT_OVERFLOW,
        codes::STREAM_INTERRUPTED,
        codes::OUTPUT_TRUNCATED,
        codes::CONTENT_FILTERED,
        codes::INVALID_OUTPUT,
    ] {
        assert!(is_valid_code(code), "{code}");
    }
}

#[test]
fn valid_codes() {
    for code in [
        "a",
        "rate_limit",
        "auth.missing_api_key",
        "tool.INVALID_ARGS",
        "INVALID_ARGS",
        "a1",
        "a_",
        "x9_y.Z9_",
        &"a".repeat(64),
    ] {
        assert!(is_valid_code(code), "{code:?}");
    }
}

#[test]
fn invalid_codes() {
    for code in [
        "",
        "Auth",
        "aB",
        "Ab_c",
        "1abc",
        "_a",
        "a..b",
        ".a",
        "a.",
        "a-b",
        "a b",
        "ré",
        &"a".repeat(65),
    ] {
        assert!(!is_valid_code(code), "{code:?}");
    }
}

#[test]
fn a_code_of_64_characters_counts_dots() {
    let code = format!("{}.{}", "a".repeat(31), "b".repeat(32));
    assert_eq!(code.len(), 64);
    assert!(is_valid_code(&code));
    let longer = format!("{}.{}", "a".repeat(32), "b".repeat(32));
    assert!(!is_valid_code(&longer));
}

#[test]
fn valid_ops() {
    for op in ["llm", "llm.generate", "tool.read-file", "a1.b_2", "x.y.z"] {
        assert!(is_valid_op(op), "{op:?}");
    }
}

#[test]
fn invalid_ops() {
    for op in [
        "",
        "LLM",
        "llm.Generate",
        "1llm",
        "-llm",
        "_llm",
        "llm.",
        ".llm",
        "llm..x",
        "llm x",
        "llm/x",
    ] {
        assert!(!is_valid_op(op), "{op:?}");
    }
}

#[test]
fn with_source_takes_an_anyhow_error() {
    let cause =
        anyhow::Error::new(Error::new("llm.call", codes::TIMEOUT, "slow")).context("calling");
    let e = Error::new("agent.step", codes::TOOL_FAILED, "step failed").with_source(cause);
    assert_eq!(
        e.to_string(),
        "agent.step [tool_failed]: step failed: calling"
    );
    assert!(agent_error::has_code(&e, codes::TIMEOUT));
    assert!(!agent_error::is_retryable(&e));
}

#[test]
fn the_dynamic_error_is_one_pointer_wide() {
    // `Result<T, agent_error::Error>` stays small (and clippy's `result_large_err` quiet).
    assert_eq!(
        std::mem::size_of::<agent_error::Error>(),
        std::mem::size_of::<usize>()
    );
}

/// The grammar of codes as the SPEC writes it: 1 to 64 ASCII characters, `.`-separated
/// segments, each all-lowercase `[a-z][a-z0-9_]*` or all-uppercase `[A-Z][A-Z0-9_]*`.
fn code_by_the_grammar(code: &str) -> bool {
    let segment = |s: &str| {
        let mut chars = s.chars();
        match chars.next() {
            Some(c) if c.is_ascii_lowercase() => {
                chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            }
            Some(c) if c.is_ascii_uppercase() => {
                chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            }
            _ => false,
        }
    };
    (1..=64).contains(&code.len()) && code.split('.').all(segment)
}

proptest::proptest! {
    #[test]
    fn is_valid_code_follows_the_grammar(
        shaped in "[a-cA-C0-9_.é -]{0,70}",
        any in "\\PC{0,70}",
    ) {
        proptest::prop_assert_eq!(is_valid_code(&shaped), code_by_the_grammar(&shaped), "{:?}", shaped);
        proptest::prop_assert_eq!(is_valid_code(&any), code_by_the_grammar(&any), "{:?}", any);
    }
}
