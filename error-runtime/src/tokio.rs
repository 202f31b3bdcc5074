//! Tokio (feature `tokio`): its sleep for the retrier, the sleep the async integrations
//! await between attempts, and the built-in classifier of `tokio::time::error::Elapsed`.

use std::future::Future;
use std::time::Duration;

use ::tokio::time::error::Elapsed;

use crate::core::classify::{Classification, FixedClassification};
use crate::core::codes::TIMEOUT;

/// Tokio's sleep, for the retrier's `run_async`.
pub async fn tokio_sleep(delay: Duration) {
    ::tokio::time::sleep(delay).await;
}

/// A `tokio::time::timeout` that elapsed is a `timeout`, retried with the default policy.
static ELAPSED: FixedClassification =
    FixedClassification::new("tokio.timeout", TIMEOUT, "the deadline elapsed");

/// The classification of a link of any type: [`ELAPSED`] for an `Elapsed`, registered as
/// every classifier is.
fn classify_link(link: &(dyn std::error::Error + 'static)) -> Option<Classification> {
    link.is::<Elapsed>()
        .then_some(Classification::Fixed(&ELAPSED))
}

inventory::submit! {
    crate::core::registry::ClassifierRegistration::of::<Elapsed>(
        classify_link,
        crate::core::registry::Origin::Builtin,
    )
}

/// The sleep an integration awaits between attempts: tokio's, unless the user gave one
/// (another runtime's, or a fake one in tests).
#[derive(Clone, Default)]
pub struct Sleeper(Option<std::sync::Arc<SleepFn>>);

/// A boxed sleep.
pub type BoxSleep = std::pin::Pin<Box<dyn Future<Output = ()> + Send>>;

type SleepFn = dyn Fn(Duration) -> BoxSleep + Send + Sync;

impl Sleeper {
    /// A sleeper that awaits `sleep(delay)`.
    pub fn new<F, Fut>(sleep: F) -> Self
    where
        F: Fn(Duration) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        Sleeper(Some(std::sync::Arc::new(move |delay| {
            Box::pin(sleep(delay)) as BoxSleep
        })))
    }

    /// The sleep for `delay`.
    pub fn sleep(&self, delay: Duration) -> BoxSleep {
        match &self.0 {
            Some(sleep) => sleep(delay),
            None => Box::pin(::tokio::time::sleep(delay)),
        }
    }
}

impl std::fmt::Debug for Sleeper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "custom" } else { "tokio" })
    }
}
