//! The tokio integration (feature `tokio`): its sleep for the retrier, and the built-in
//! classifier of `tokio::time::error::Elapsed`, registered like a user's classifier.

use std::time::Duration;

use ::tokio::time::error::Elapsed;

use crate::codes::TIMEOUT;

/// Tokio's sleep, for the retrier's `run_async`.
pub async fn tokio_sleep(delay: Duration) {
    ::tokio::time::sleep(delay).await;
}

/// A `tokio::time::timeout` that elapsed is a `timeout`, retried with the default policy.
fn classify(_: &Elapsed) -> Option<crate::Error> {
    Some(crate::Error::new(
        "tokio.timeout",
        TIMEOUT,
        "the deadline elapsed",
    ))
}

crate::__private::register_classifier!(
    Elapsed,
    classify,
    crate::__private::ClassifierOrigin::Builtin
);
