//! The shared vocabulary of codes, and the grammar every code follows.
//! Use these constants so that different crates agree on what `"rate_limit"` means.
//!
//! A dynamic [`Error`](crate::Error) built with one of them takes its default policy and
//! recovery ([`default_policy`], [`default_recovery`]); [`is_valid_code`] and
//! [`is_valid_op`] check the grammar of codes and ops.
//!
//! ```
//! use agent_error::{AgentError, Error, Recovery, codes};
//!
//! let e = Error::new("llm.generate", codes::RATE_LIMIT, "slow down");
//! assert!(e.is_rate_limited() && e.is_retryable());
//! assert_eq!(codes::default_recovery(codes::CONTEXT_OVERFLOW), Some(Recovery::Compact));
//! assert!(codes::is_valid_code("auth.missing_api_key"));
//! assert!(!codes::is_valid_code("Rate-Limit"));
//!
//! // Output cut at its token limit is not retried: the loop continues from what it got.
//! let cut = Error::new("llm.generate", codes::OUTPUT_TRUNCATED, "stopped at max_tokens");
//! assert_eq!((cut.is_retryable(), cut.recovery()), (false, Recovery::Continue));
//! ```

use crate::core::code_doc::{Catalog, CodeDoc};
use crate::{Recovery, RetryPolicy};

pub use agent_error_rules::codes::{
    ALL, AUTH, BUDGET_EXHAUSTED, CONTENT_FILTERED, CONTEXT_OVERFLOW, GUARD_BLOCKED, INVALID_INPUT,
    INVALID_OUTPUT, NOT_FOUND, OUTPUT_TRUNCATED, PROVIDER_UNAVAILABLE, RATE_LIMIT,
    REQUEST_TOO_LARGE, STREAM_INTERRUPTED, TIMEOUT, TOOL_FAILED, UNCLASSIFIED, is_valid_code,
    is_valid_op,
};

/// The recovery an error with a shared code takes unless it says otherwise: `retry` for
/// `rate_limit`, `timeout`, `provider_unavailable`, `stream_interrupted` and
/// `invalid_output`; `continue` for `output_truncated`; `replan` for `invalid_input`,
/// `tool_failed`, `guard_blocked` and `content_filtered`; `escalate` for `auth_error` and
/// `budget_exhausted`; `abort` for `not_found`; `compact` for `context_overflow` and
/// `request_too_large`. `None` for other codes.
pub fn default_recovery(code: &str) -> Option<Recovery> {
    vocabulary_entry(code).map(|d| d.recovery)
}

/// The retry policy an error with a shared code has unless it says otherwise:
/// rate-limited for `rate_limit`; retryable with the defaults for `timeout`,
/// `provider_unavailable` and `stream_interrupted`; retried once (2 attempts in all, the
/// default delays) for `invalid_output`; not retryable for the rest.
///
/// ```
/// use agent_error::{codes, RetryPolicy};
///
/// assert_eq!(codes::default_policy(codes::STREAM_INTERRUPTED), RetryPolicy::DEFAULT);
/// assert_eq!(codes::default_policy(codes::INVALID_OUTPUT).max_attempts(), 2);
/// assert!(!codes::default_policy(codes::OUTPUT_TRUNCATED).is_retryable());
/// ```
pub fn default_policy(code: &str) -> RetryPolicy {
    vocabulary_entry(code).map_or(RetryPolicy::NEVER, |d| d.policy)
}

/// What a dynamic [`Error`](crate::Error) made with `code` and nothing else has, worked out
/// at compile time: its retry policy and its recovery. A built-in classifier's fixed answer
/// is made of these, and says what `Error::new(op, code, message)` would.
pub(crate) const fn defaults_of(code: &str) -> (RetryPolicy, Recovery) {
    let policy = policy_of(code);
    let retryable = policy.is_retryable();
    // As `Error::recovery` answers for an error told nothing about its recovery.
    let recovery = match agent_error_rules::codes::recovery_of(code) {
        Some(recovery) if !retryable && !matches!(recovery, Recovery::Retry) => recovery,
        _ => Recovery::default_for(retryable),
    };
    (policy, recovery)
}

/// The policy the vocabulary gives `code`: its retrying (rate-limited or not, attempts)
/// with the default tuning, or never retried.
const fn policy_of(code: &str) -> RetryPolicy {
    match agent_error_rules::codes::retried(code) {
        Some(retried) => super::policy::tuned(
            retried.rate_limited,
            retried.attempts,
            RetryPolicy::DEFAULT_BASE_DELAY,
            RetryPolicy::DEFAULT_MAX_DELAY,
            RetryPolicy::DEFAULT_FACTOR,
            RetryPolicy::DEFAULT_JITTER,
            RetryPolicy::DEFAULT_MAX_WAIT,
        ),
        None => RetryPolicy::NEVER,
    }
}

/// The vocabulary's entry for `code`: the one place the shared codes' behaviour is declared.
fn vocabulary_entry(code: &str) -> Option<&'static CodeDoc> {
    Vocabulary::CODES.iter().find(|d| d.code == code)
}

/// The shared vocabulary as a catalog, so that documentation can list it and
/// `catalog::conflicts` can check a type against it:
/// `catalog::conflicts(&catalog![Vocabulary, MyError])`.
#[derive(Clone, Copy, Debug)]
pub struct Vocabulary;

const fn entry(
    code: &'static str,
    variant: &'static str,
    docs: &'static str,
    hint: &'static [&'static str],
) -> CodeDoc {
    let recovery = match agent_error_rules::codes::recovery_of(code) {
        Some(recovery) => recovery,
        None => Recovery::Abort,
    };
    CodeDoc::new(
        code,
        "agent_error::codes",
        variant,
        policy_of(code),
        recovery,
    )
    .with_docs(docs)
    .with_hints(hint)
}

impl Catalog for Vocabulary {
    const CODES: &'static [CodeDoc] = &[
        entry(
            RATE_LIMIT,
            "RATE_LIMIT",
            "The provider is throttling this client.",
            &["wait for the Retry-After delay, lower the request rate, or use another model"],
        ),
        entry(
            AUTH,
            "AUTH",
            "The credentials are missing, invalid or not allowed.",
            &["check the API key and what it is allowed to do"],
        ),
        entry(TIMEOUT, "TIMEOUT", "A deadline passed.", &[]),
        entry(
            INVALID_INPUT,
            "INVALID_INPUT",
            "The request or the arguments are invalid.",
            &["fix the request before sending it again"],
        ),
        entry(
            TOOL_FAILED,
            "TOOL_FAILED",
            "A tool ran and failed.",
            &["read the tool's output and change the call"],
        ),
        entry(
            PROVIDER_UNAVAILABLE,
            "PROVIDER_UNAVAILABLE",
            "The provider is down or overloaded.",
            &[],
        ),
        entry(
            GUARD_BLOCKED,
            "GUARD_BLOCKED",
            "A guardrail or policy blocked the request.",
            &["change the request so that it complies with the policy"],
        ),
        entry(
            BUDGET_EXHAUSTED,
            "BUDGET_EXHAUSTED",
            "A budget (tokens, money, quota, steps) is spent.",
            &["raise the budget or stop"],
        ),
        entry(
            NOT_FOUND,
            "NOT_FOUND",
            "The thing asked for does not exist.",
            &[],
        ),
        entry(
            CONTEXT_OVERFLOW,
            "CONTEXT_OVERFLOW",
            "The prompt does not fit the model's context window.",
            &["shorten the prompt: summarise or drop older turns"],
        ),
        entry(
            STREAM_INTERRUPTED,
            "STREAM_INTERRUPTED",
            "A stream ended, or its transport failed, before the provider's last event.",
            &[],
        ),
        entry(
            OUTPUT_TRUNCATED,
            "OUTPUT_TRUNCATED",
            "The output was cut at its token limit.",
            &["continue from the partial output, or raise the output token limit"],
        ),
        entry(
            CONTENT_FILTERED,
            "CONTENT_FILTERED",
            "A refusal or a content filter stopped the output.",
            &["change the request; the provider's policy refused it"],
        ),
        entry(
            INVALID_OUTPUT,
            "INVALID_OUTPUT",
            "The model broke its own output format, such as a malformed function call.",
            &[],
        ),
        entry(
            REQUEST_TOO_LARGE,
            "REQUEST_TOO_LARGE",
            "The request alone exceeds a limit that waiting cannot lift.",
            &["make the request smaller: compact the prompt, or send less at once"],
        ),
    ];
}

/// `code` where it crosses a trust boundary (tool results, the wire, logs): itself when it
/// follows the grammar of codes, else [`UNCLASSIFIED`]. A code is only ever checked at
/// compile time by the derive; one built at run time ([`Error::new`](crate::Error::new))
/// or read from elsewhere could carry a `]` or a newline into a tool result.
///
/// ```
/// use agent_error::codes::{public_code, UNCLASSIFIED};
///
/// assert_eq!(public_code("billing.card_declined"), "billing.card_declined");
/// assert_eq!(public_code("rate limit]\nforged"), UNCLASSIFIED);
/// ```
pub fn public_code(code: &str) -> &str {
    if is_valid_code(code) {
        code
    } else {
        UNCLASSIFIED
    }
}

/// `op` where it crosses a trust boundary: itself when it follows the grammar of ops, else `""`.
pub(crate) fn public_op(op: &str) -> &str {
    if is_valid_op(op) { op } else { "" }
}

#[cfg(test)]
mod tests {
    use super::{ALL, CONTENT_FILTERED, INVALID_OUTPUT, OUTPUT_TRUNCATED, STREAM_INTERRUPTED};
    use super::{defaults_of, policy_of};
    use crate::{AgentError, Error, Recovery, RetryPolicy};

    /// A built-in classifier's fixed answer is what `Error::new` with that code has.
    #[test]
    fn defaults_of_is_what_a_dynamic_error_has() {
        for code in ALL.into_iter().chain(["custom.code"]) {
            let e = Error::new("a.b", code, "x");
            assert_eq!(
                defaults_of(code),
                (e.retry_policy(), e.recovery()),
                "{code}"
            );
        }
    }

    #[test]
    fn defaults_of_the_stream_codes() {
        assert_eq!(
            defaults_of(STREAM_INTERRUPTED),
            (RetryPolicy::DEFAULT, Recovery::Retry)
        );
        assert_eq!(
            defaults_of(OUTPUT_TRUNCATED),
            (RetryPolicy::NEVER, Recovery::Continue)
        );
        assert_eq!(
            defaults_of(CONTENT_FILTERED),
            (RetryPolicy::NEVER, Recovery::Replan)
        );
        let once = policy_of(INVALID_OUTPUT);
        assert_eq!(defaults_of(INVALID_OUTPUT), (once, Recovery::Retry));
        assert_eq!(
            once,
            RetryPolicy::builder().max_attempts(2).build().unwrap()
        );
    }
}
