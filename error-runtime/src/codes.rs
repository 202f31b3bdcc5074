//! The shared vocabulary of codes, and the grammar every code follows.
//! Use these constants so that different crates agree on what `"rate_limit"` means.

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

/// Every code of the shared vocabulary.
pub const ALL: [&str; 10] = [
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
];

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
    code.len() <= 64 && !code.is_empty() && code.split('.').all(is_valid_segment)
}

fn is_valid_segment(segment: &str) -> bool {
    let bytes = segment.as_bytes();
    let Some(first) = bytes.first() else {
        return false;
    };
    let rest = &bytes[1..];
    if first.is_ascii_lowercase() {
        rest.iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_')
    } else if first.is_ascii_uppercase() {
        rest.iter()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_')
    } else {
        false
    }
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
