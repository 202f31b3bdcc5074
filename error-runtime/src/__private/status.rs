//! What a derived variant that holds an HTTP status (`#[status]`, or a field typed
//! `StatusCode`) takes from it: the runtime's one status table, without the `http` feature.

use std::time::Duration;

use crate::{Recovery, RetryPolicy};

/// The policy of a variant classified by the HTTP status it holds (`#[status]`, or a field
/// typed `StatusCode`), with the delay of its `#[retry_after]` field if any.
#[inline]
pub fn status_policy(status: u16, retry_after: Option<Duration>) -> RetryPolicy {
    crate::core::status::status_policy(status).with_retry_after(retry_after)
}

/// Whether a variant classified by the status it holds is retried (see [`status_policy`]).
#[inline]
pub fn status_is_retryable(status: u16) -> bool {
    crate::core::status::status_policy(status).is_retryable()
}

/// Whether a variant classified by the status it holds is rate-limited (see [`status_policy`]).
#[inline]
pub fn status_is_rate_limited(status: u16) -> bool {
    crate::core::status::status_policy(status).is_rate_limited()
}

/// The recovery of a variant classified by the status it holds: `retry` when the status is
/// retried, else `abort` (see [`status_policy`]).
#[inline]
pub fn status_recovery(status: u16) -> Recovery {
    Recovery::default_for(status_is_retryable(status))
}
