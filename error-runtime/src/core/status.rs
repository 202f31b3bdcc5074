//! What an HTTP status says about retrying, without the `http` feature: the one table that
//! `http::classify_status` and a derived variant holding a status (`#[status]`) both read.

use crate::RetryPolicy;

/// The retry policy an HTTP status calls for: rate-limited on 429, retried with the
/// defaults on 408, 498 (Groq's flex tier out of capacity) and 5xx, not retried otherwise.
pub(crate) const fn status_policy(status: u16) -> RetryPolicy {
    match status {
        429 => RetryPolicy::RATE_LIMITED,
        408 | 498 | 500..=599 => RetryPolicy::DEFAULT,
        _ => RetryPolicy::NEVER,
    }
}

#[cfg(test)]
mod tests {
    use super::status_policy;
    use crate::RetryPolicy;

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
}
