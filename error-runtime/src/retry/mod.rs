//! Retrying: the policy each error carries, and the retrier that obeys it.
//! [`RetryPolicy`] says whether and how; [`Retrier`] runs the loop; [`RetryBudget`] caps the load.

mod budget;
mod jitter;
mod retrier;
mod scope;

pub use crate::core::policy::{InvalidPolicy, Jitter, RetryPolicy, RetryPolicyBuilder};
#[cfg(feature = "tokio")]
pub use crate::tokio::tokio_sleep;
pub use budget::RetryBudget;
pub use jitter::{JitterSource, delay as jittered_delay};
pub(crate) use retrier::HandBack;
pub use retrier::{Outcome, Retrier, RetryState, Stop};
