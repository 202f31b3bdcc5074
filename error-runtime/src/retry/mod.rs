//! Retrying: the policy each error carries, and the retrier that obeys it.
//! [`RetryPolicy`] says whether and how; [`Retrier`] runs the loop; [`RetryBudget`] caps the load.

mod budget;
mod jitter;
mod policy;
mod retrier;

pub use budget::RetryBudget;
pub use jitter::{JitterSource, delay as jittered_delay};
pub use policy::{InvalidPolicy, Jitter, RetryPolicy, RetryPolicyBuilder};
pub use retrier::{Outcome, Retrier, Stop};

/// Tokio's sleep, for [`Retrier::run_async`].
#[cfg(feature = "tokio")]
pub async fn tokio_sleep(delay: std::time::Duration) {
    tokio::time::sleep(delay).await;
}
