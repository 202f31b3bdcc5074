//! Retry policies: how, and whether, a failure should be tried again.
//! Every classified error carries a [`RetryPolicy`]; retry loops read it instead of guessing.

mod policy;

pub use policy::{InvalidPolicy, Jitter, RetryPolicy, RetryPolicyBuilder};
