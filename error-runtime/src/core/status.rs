//! HTTP statuses without the `http` feature: what a status says about retrying (read by
//! `http::classify_status` and a variant holding a status), and the status a code answers with.

use crate::RetryPolicy;
use crate::core::codes;

/// The retry policy an HTTP status calls for: rate-limited on 429, retried with the
/// defaults on 408, 498 (Groq's flex tier out of capacity) and 5xx, not retried otherwise.
pub(crate) const fn status_policy(status: u16) -> RetryPolicy {
    match status {
        429 => RetryPolicy::RATE_LIMITED,
        408 | 498 | 500..=599 => RetryPolicy::DEFAULT,
        _ => RetryPolicy::NEVER,
    }
}

/// The status an error with `code` answers with when it has none of its own: 429 for
/// `rate_limit` and `budget_exhausted`, 504 `timeout`, 503 `provider_unavailable`, 401
/// `auth_error`, 403 `guard_blocked`, 404 `not_found`, 413 `request_too_large`, 400
/// `invalid_input` and `context_overflow`, 500 otherwise. `Report::http_status` and
/// `CodeDoc::http_status` both read it, so that a service's documentation says what it answers.
pub(crate) fn code_status(code: &str) -> u16 {
    match code {
        codes::RATE_LIMIT | codes::BUDGET_EXHAUSTED => 429,
        codes::TIMEOUT => 504,
        codes::PROVIDER_UNAVAILABLE => 503,
        codes::AUTH => 401,
        codes::GUARD_BLOCKED => 403,
        codes::NOT_FOUND => 404,
        codes::REQUEST_TOO_LARGE => 413,
        codes::INVALID_INPUT | codes::CONTEXT_OVERFLOW => 400,
        _ => 500,
    }
}

/// Whether `status` is one an error answers with: 4xx or 5xx.
pub(crate) const fn is_error_status(status: u16) -> bool {
    matches!(status, 400..=599)
}

#[cfg(test)]
mod tests {
    use super::{code_status, is_error_status, status_policy};
    use crate::{RetryPolicy, codes};

    #[test]
    fn each_class_of_status() {
        assert_eq!(status_policy(429), RetryPolicy::RATE_LIMITED);
        for retried in [408, 498, 500, 503, 529, 599] {
            assert_eq!(status_policy(retried), RetryPolicy::DEFAULT, "{retried}");
        }
        for permanent in [0, 200, 400, 401, 404, 600, u16::MAX] {
            assert_eq!(status_policy(permanent), RetryPolicy::NEVER, "{permanent}");
        }
    }

    #[test]
    fn each_code_of_the_table() {
        let table = [
            (codes::RATE_LIMIT, 429),
            (codes::BUDGET_EXHAUSTED, 429),
            (codes::TIMEOUT, 504),
            (codes::PROVIDER_UNAVAILABLE, 503),
            (codes::AUTH, 401),
            (codes::GUARD_BLOCKED, 403),
            (codes::NOT_FOUND, 404),
            (codes::REQUEST_TOO_LARGE, 413),
            (codes::INVALID_INPUT, 400),
            (codes::CONTEXT_OVERFLOW, 400),
            (codes::TOOL_FAILED, 500),
            (codes::UNCLASSIFIED, 500),
            ("billing.card_declined", 500),
            ("", 500),
        ];
        for (code, status) in table {
            assert_eq!(code_status(code), status, "{code}");
        }
    }

    #[test]
    fn error_statuses_are_4xx_and_5xx() {
        for status in [400, 429, 499, 500, 599] {
            assert!(is_error_status(status), "{status}");
        }
        for status in [0, 101, 200, 304, 399, 600, u16::MAX] {
            assert!(!is_error_status(status), "{status}");
        }
    }
}
