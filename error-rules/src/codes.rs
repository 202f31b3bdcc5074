//! The shared vocabulary of codes, what each means to a retrier and an agent loop when an
//! error says nothing else, and the grammar every code and op follows.
//!
//! The runtime publishes the codes and the grammar at `agent_error::codes`, and the defaults
//! as `codes::default_policy` and `codes::default_recovery`; the derive gives a variant whose
//! code is one of these, and that says nothing about retrying, the same policy.

use crate::Recovery;

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

/// How the vocabulary retries a code when the error says nothing else: whether it is
/// rate-limited, and its attempts in all (the rest of the tuning is [`crate::defaults`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retried {
    /// Whether the code means a rate limit (the retrier then honours the server's delay).
    pub rate_limited: bool,
    /// Attempts in all, the first call included.
    pub attempts: u32,
}

const DEFAULT: Option<Retried> = Some(Retried {
    rate_limited: false,
    attempts: crate::defaults::MAX_ATTEMPTS,
});
const NEVER: Option<Retried> = None;

/// Each code of the vocabulary, its recovery, and how it is retried.
#[rustfmt::skip]
const VOCABULARY: [(&str, Recovery, Option<Retried>); 15] = [
    (RATE_LIMIT, Recovery::Retry, Some(Retried { rate_limited: true, attempts: crate::defaults::MAX_ATTEMPTS })),
    (AUTH, Recovery::Escalate, NEVER),
    (TIMEOUT, Recovery::Retry, DEFAULT),
    (INVALID_INPUT, Recovery::Replan, NEVER),
    (TOOL_FAILED, Recovery::Replan, NEVER),
    (PROVIDER_UNAVAILABLE, Recovery::Retry, DEFAULT),
    (GUARD_BLOCKED, Recovery::Replan, NEVER),
    (BUDGET_EXHAUSTED, Recovery::Escalate, NEVER),
    (NOT_FOUND, Recovery::Abort, NEVER),
    (CONTEXT_OVERFLOW, Recovery::Compact, NEVER),
    (STREAM_INTERRUPTED, Recovery::Retry, DEFAULT),
    (OUTPUT_TRUNCATED, Recovery::Continue, NEVER),
    (CONTENT_FILTERED, Recovery::Replan, NEVER),
    // Retried once: a model that broke its format once may well not again.
    (INVALID_OUTPUT, Recovery::Retry, Some(Retried { rate_limited: false, attempts: 2 })),
    (REQUEST_TOO_LARGE, Recovery::Compact, NEVER),
];

/// Every code of the shared vocabulary.
pub const ALL: [&str; 15] = {
    let mut all = [""; 15];
    let mut i = 0;
    while i < all.len() {
        all[i] = VOCABULARY[i].0;
        i += 1;
    }
    all
};

/// The place of `code` in the vocabulary, if it is one of its codes.
const fn position(code: &str) -> Option<usize> {
    let mut i = 0;
    while i < VOCABULARY.len() {
        if same_bytes(VOCABULARY[i].0.as_bytes(), code.as_bytes()) {
            return Some(i);
        }
        i += 1;
    }
    None
}

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

/// The recovery of a vocabulary code when the error names none; `None` for other codes.
pub const fn recovery_of(code: &str) -> Option<Recovery> {
    match position(code) {
        Some(i) => Some(VOCABULARY[i].1),
        None => None,
    }
}

/// How a vocabulary code is retried when the error says nothing else; `None` for a code
/// that is not retried, or not of the vocabulary.
pub const fn retried(code: &str) -> Option<Retried> {
    match position(code) {
        Some(i) => VOCABULARY[i].2,
        None => None,
    }
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
    if let Some(&first) = bytes.first() {
        let class = CODE_BYTES[usize::from(first)];
        if matches!(class, LOWER | UPPER) && shared & class != 0 {
            return true;
        }
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
    extern crate std;
    use std::format;

    use super::{ALL, VOCABULARY, is_valid_code, recovery_of, retried};
    use crate::{Jitter, Recovery, defaults};

    #[test]
    fn the_vocabulary_follows_its_own_grammar() {
        for (i, code) in ALL.into_iter().enumerate() {
            assert!(is_valid_code(code), "{code}");
            assert_eq!(VOCABULARY[i].0, code);
            assert!(!ALL[..i].contains(&code), "{code} twice");
        }
        assert!(!is_valid_code(&"a".repeat(65)));
        assert!(is_valid_code(&"a".repeat(64)));
    }

    #[test]
    fn retried_codes_recover_by_retrying_and_only_rate_limit_is_rate_limited() {
        for code in ALL {
            let recovery = recovery_of(code).unwrap();
            match retried(code) {
                Some(r) => {
                    assert_eq!(recovery, Recovery::Retry, "{code}");
                    assert_eq!(r.rate_limited, code == super::RATE_LIMIT, "{code}");
                    assert!(r.attempts >= 2 && r.attempts <= defaults::MAX_ATTEMPTS);
                }
                None => assert_ne!(recovery, Recovery::Retry, "{code}"),
            }
        }
        assert_eq!(retried("custom.timeout"), None);
        assert_eq!(recovery_of("timeout.custom"), None);
    }

    /// The derive names a variant by its `Debug`, and the runtime parses names back.
    #[test]
    fn names_and_variants() {
        for (i, r) in Recovery::ALL.into_iter().enumerate() {
            assert_eq!(r.as_str().parse(), Ok(r));
            assert_eq!(format!("{r:?}").to_lowercase(), r.as_str());
            assert!(!Recovery::ALL[..i].contains(&r));
        }
        for j in Jitter::ALL {
            assert_eq!(format!("{j:?}").to_lowercase(), j.as_str());
        }
    }
}
