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

/// The provider is throttling this client (rate-limited, retryable).
pub const RATE_LIMIT: &str = "rate_limit";
/// The credentials are missing, invalid or not allowed.
pub const AUTH: &str = "auth_error";
/// A deadline passed (retryable).
pub const TIMEOUT: &str = "timeout";
/// The request or the arguments are invalid.
pub const INVALID_INPUT: &str = "invalid_input";
/// A tool ran and failed.
pub const TOOL_FAILED: &str = "tool_failed";
/// The provider is down or overloaded (retryable).
pub const PROVIDER_UNAVAILABLE: &str = "provider_unavailable";
/// A guardrail or policy blocked the request.
pub const GUARD_BLOCKED: &str = "guard_blocked";
/// A budget (tokens, money, quota, steps) is spent.
pub const BUDGET_EXHAUSTED: &str = "budget_exhausted";
/// The thing asked for does not exist.
pub const NOT_FOUND: &str = "not_found";
/// The prompt does not fit the model's context window.
pub const CONTEXT_OVERFLOW: &str = "context_overflow";
/// A stream ended, or its transport failed, before the provider's last event (retryable).
pub const STREAM_INTERRUPTED: &str = "stream_interrupted";
/// The output was cut at its token limit; continue from the partial output.
pub const OUTPUT_TRUNCATED: &str = "output_truncated";
/// A refusal or a content filter stopped the output.
pub const CONTENT_FILTERED: &str = "content_filtered";
/// The model broke its own output format, such as a malformed function call (retryable once).
pub const INVALID_OUTPUT: &str = "invalid_output";
/// The request alone exceeds a limit that waiting cannot lift (a byte cap, a per-request or
/// per-minute token cap smaller than the request): not retried; compact it.
pub const REQUEST_TOO_LARGE: &str = "request_too_large";

/// Not a code of the vocabulary: the code that renderings (the wire form, tool results)
/// give an error that nothing classifies.
pub const UNCLASSIFIED: &str = "unclassified";

/// Every code of the shared vocabulary.
pub const ALL: [&str; 15] = [
    RATE_LIMIT,
    AUTH,
    TIMEOUT,
    INVALID_INPUT,
    TOOL_FAILED,
    PROVIDER_UNAVAILABLE,
    GUARD_BLOCKED,
    BUDGET_EXHAUSTED,
    NOT_FOUND,
    CONTEXT_OVERFLOW,
    STREAM_INTERRUPTED,
    OUTPUT_TRUNCATED,
    CONTENT_FILTERED,
    INVALID_OUTPUT,
    REQUEST_TOO_LARGE,
];

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
    let entries = <Vocabulary as Catalog>::CODES;
    let mut i = 0;
    while i < entries.len() {
        let entry = &entries[i];
        if same_bytes(entry.code.as_bytes(), code.as_bytes()) {
            let retryable = entry.policy.is_retryable();
            // As `Error::recovery` answers for an error told nothing about its recovery.
            let recovery = if !retryable && !matches!(entry.recovery, Recovery::Retry) {
                entry.recovery
            } else {
                Recovery::default_for(retryable)
            };
            return (entry.policy, recovery);
        }
        i += 1;
    }
    (RetryPolicy::NEVER, Recovery::default_for(false))
}

/// `a == b`, in a `const fn`.
const fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The vocabulary's entry for `code`: the one place the shared codes' behaviour is declared.
fn vocabulary_entry(code: &str) -> Option<&'static CodeDoc> {
    Vocabulary::CODES.iter().find(|d| d.code == code)
}

/// The policy of a code that is worth one more try and no more: the default tuning with
/// 2 attempts in all.
const RETRIED_ONCE: RetryPolicy = super::policy::tuned(
    false,
    2,
    RetryPolicy::DEFAULT_BASE_DELAY,
    RetryPolicy::DEFAULT_MAX_DELAY,
    RetryPolicy::DEFAULT_FACTOR,
    RetryPolicy::DEFAULT_JITTER,
    RetryPolicy::DEFAULT_MAX_WAIT,
);

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
    recovery: Recovery,
    policy: RetryPolicy,
) -> CodeDoc {
    CodeDoc::new(code, "agent_error::codes", variant, policy, recovery)
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
            Recovery::Retry,
            RetryPolicy::RATE_LIMITED,
        ),
        entry(
            AUTH,
            "AUTH",
            "The credentials are missing, invalid or not allowed.",
            &["check the API key and what it is allowed to do"],
            Recovery::Escalate,
            RetryPolicy::NEVER,
        ),
        entry(
            TIMEOUT,
            "TIMEOUT",
            "A deadline passed.",
            &[],
            Recovery::Retry,
            RetryPolicy::DEFAULT,
        ),
        entry(
            INVALID_INPUT,
            "INVALID_INPUT",
            "The request or the arguments are invalid.",
            &["fix the request before sending it again"],
            Recovery::Replan,
            RetryPolicy::NEVER,
        ),
        entry(
            TOOL_FAILED,
            "TOOL_FAILED",
            "A tool ran and failed.",
            &["read the tool's output and change the call"],
            Recovery::Replan,
            RetryPolicy::NEVER,
        ),
        entry(
            PROVIDER_UNAVAILABLE,
            "PROVIDER_UNAVAILABLE",
            "The provider is down or overloaded.",
            &[],
            Recovery::Retry,
            RetryPolicy::DEFAULT,
        ),
        entry(
            GUARD_BLOCKED,
            "GUARD_BLOCKED",
            "A guardrail or policy blocked the request.",
            &["change the request so that it complies with the policy"],
            Recovery::Replan,
            RetryPolicy::NEVER,
        ),
        entry(
            BUDGET_EXHAUSTED,
            "BUDGET_EXHAUSTED",
            "A budget (tokens, money, quota, steps) is spent.",
            &["raise the budget or stop"],
            Recovery::Escalate,
            RetryPolicy::NEVER,
        ),
        entry(
            NOT_FOUND,
            "NOT_FOUND",
            "The thing asked for does not exist.",
            &[],
            Recovery::Abort,
            RetryPolicy::NEVER,
        ),
        entry(
            CONTEXT_OVERFLOW,
            "CONTEXT_OVERFLOW",
            "The prompt does not fit the model's context window.",
            &["shorten the prompt: summarise or drop older turns"],
            Recovery::Compact,
            RetryPolicy::NEVER,
        ),
        entry(
            STREAM_INTERRUPTED,
            "STREAM_INTERRUPTED",
            "A stream ended, or its transport failed, before the provider's last event.",
            &[],
            Recovery::Retry,
            RetryPolicy::DEFAULT,
        ),
        entry(
            OUTPUT_TRUNCATED,
            "OUTPUT_TRUNCATED",
            "The output was cut at its token limit.",
            &["continue from the partial output, or raise the output token limit"],
            Recovery::Continue,
            RetryPolicy::NEVER,
        ),
        entry(
            CONTENT_FILTERED,
            "CONTENT_FILTERED",
            "A refusal or a content filter stopped the output.",
            &["change the request; the provider's policy refused it"],
            Recovery::Replan,
            RetryPolicy::NEVER,
        ),
        entry(
            INVALID_OUTPUT,
            "INVALID_OUTPUT",
            "The model broke its own output format, such as a malformed function call.",
            &[],
            Recovery::Retry,
            RETRIED_ONCE,
        ),
        entry(
            REQUEST_TOO_LARGE,
            "REQUEST_TOO_LARGE",
            "The request alone exceeds a limit that waiting cannot lift.",
            &["make the request smaller: compact the prompt, or send less at once"],
            Recovery::Compact,
            RetryPolicy::NEVER,
        ),
    ];
}

/// Whether `code` follows the grammar of codes: ASCII, 1 to 64 characters,
/// `.`-separated segments, each all-lowercase `[a-z][a-z0-9_]*` or all-uppercase
/// `[A-Z][A-Z0-9_]*`. The derive checks the same rule at compile time.
///
/// ```
/// use agent_error::codes::is_valid_code;
///
/// assert!(is_valid_code("auth.missing_api_key"));
/// assert!(is_valid_code("tool.INVALID_ARGS"));
/// assert!(!is_valid_code("Auth"));
/// assert!(!is_valid_code("a..b"));
/// assert!(!is_valid_code(""));
/// ```
pub fn is_valid_code(code: &str) -> bool {
    if code.len() > 64 {
        return false;
    }
    let bytes = code.as_bytes();
    // The common case, one segment: every byte shares a case with the first, a letter. No
    // branch a byte; anything else (dots, a mix of cases, no letter first) is looked at below.
    let shared = bytes.iter().fold(LOWER | UPPER, |shared, &b| {
        shared & CODE_BYTES[usize::from(b)]
    });
    if let Some(&first) = bytes.first()
        && matches!(CODE_BYTES[usize::from(first)], LOWER | UPPER)
        && shared & CODE_BYTES[usize::from(first)] != 0
    {
        return true;
    }
    // One pass over the bytes, keeping the class of the current segment's first letter
    // (`0` at the start of a segment): a later byte must share a bit with it.
    let mut segment = 0;
    for &b in bytes {
        let class = CODE_BYTES[usize::from(b)];
        if segment == 0 {
            if class != LOWER && class != UPPER {
                return false;
            }
            segment = class;
        } else if class == DOT {
            segment = 0;
        } else if class & segment == 0 {
            return false;
        }
    }
    // Neither empty nor ending in an empty segment.
    segment != 0
}

/// Classes of the bytes of a code: a lowercase letter, an uppercase one, a digit or `_`
/// (both, as they go in either case of segment), the separator, or none (`0`).
const LOWER: u8 = 1;
const UPPER: u8 = 2;
const DOT: u8 = 4;
const CODE_BYTES: [u8; 256] = {
    let mut classes = [0; 256];
    let mut b = 0;
    while b < 256 {
        classes[b] = match b as u8 {
            b'a'..=b'z' => LOWER,
            b'A'..=b'Z' => UPPER,
            b'0'..=b'9' | b'_' => LOWER | UPPER,
            b'.' => DOT,
            _ => 0,
        };
        b += 1;
    }
    classes
};

/// `code` where it crosses a trust boundary (tool results, the wire, logs): itself when it
/// follows the grammar of codes, else [`UNCLASSIFIED`]. A code is only ever checked at
/// compile time by the derive; one built at run time ([`Error::new`](crate::Error::new))
/// or read from elsewhere could carry a `]` or a newline into a tool result.
pub(crate) fn public_code(code: &str) -> &str {
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

/// Whether `op` follows the grammar of operations: `.`-separated lowercase
/// segments `[a-z][a-z0-9_-]*`.
///
/// ```
/// use agent_error::codes::is_valid_op;
///
/// assert!(is_valid_op("llm.generate"));
/// assert!(is_valid_op("tool.read-file"));
/// assert!(!is_valid_op("LLM"));
/// ```
pub fn is_valid_op(op: &str) -> bool {
    !op.is_empty()
        && op.split('.').all(|segment| {
            let bytes = segment.as_bytes();
            matches!(bytes.first(), Some(b) if b.is_ascii_lowercase())
                && bytes[1..].iter().all(|b| {
                    b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_' || *b == b'-'
                })
        })
}

#[cfg(test)]
mod tests {
    use super::{ALL, CONTENT_FILTERED, INVALID_OUTPUT, OUTPUT_TRUNCATED, STREAM_INTERRUPTED};
    use super::{RETRIED_ONCE, defaults_of};
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
        assert_eq!(defaults_of(INVALID_OUTPUT), (RETRIED_ONCE, Recovery::Retry));
        assert_eq!(RETRIED_ONCE.max_attempts(), 2);
        assert_eq!(
            RETRIED_ONCE,
            RetryPolicy::builder().max_attempts(2).build().unwrap()
        );
    }
}
