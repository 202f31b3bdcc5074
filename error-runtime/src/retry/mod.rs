//! Retrying: the policy each error carries, and the retrier that obeys it.
//! [`RetryPolicy`] says whether and how; [`Retrier`] runs the loop; [`RetryBudget`] caps the load.
//!
//! The failing error's own policy decides, found in its chain as
//! [`classify`](crate::classify) finds it: an unclassified or permanent error returns at
//! once, a server's `retry_after` is waited (up to `max_wait`), anything else waits a
//! jittered backoff. [`Retrier::run`] gives the last error back unchanged, and
//! [`Retrier::run_detailed`] also says how the run ended ([`Stop`]) and after how many
//! attempts.
//!
//! ```
//! use std::time::Duration;
//! use agent_error::{AgentError, retry::{Retrier, Stop}};
//!
//! #[derive(Debug, AgentError)]
//! #[agent(op = "llm.generate")]
//! enum LlmError {
//!     #[agent(code = "timeout", retryable, retry(attempts = 3, base = "1ms"))]
//!     #[error("deadline exceeded")]
//!     Timeout,
//!     #[agent(code = "auth_error")]
//!     #[error("bad key")]
//!     Auth,
//! }
//!
//! let retrier = Retrier::new().seed(7);
//! let outcome = retrier.run_detailed_with_sleep(
//!     |attempt| if attempt < 3 { Err(LlmError::Timeout) } else { Ok("done") },
//!     |_delay: Duration| {},
//! );
//! assert_eq!((outcome.attempts, outcome.stop), (3, Stop::Succeeded));
//!
//! let mut calls = 0;
//! let failed = retrier.run(|_| -> Result<(), _> { calls += 1; Err(LlmError::Auth) });
//! assert_eq!((failed.unwrap_err().code(), calls), ("auth_error", 1));
//! ```

mod budget;
mod gate;
mod record;
mod retrier;
mod scope;
mod state;
#[cfg(feature = "stream")]
pub(crate) mod stream;

pub use crate::core::jitter::JitterSource;
pub use crate::core::policy::{InvalidPolicy, Jitter, RetryPolicy, RetryPolicyBuilder};
#[cfg(feature = "tokio")]
pub use crate::tokio::tokio_sleep;
pub use budget::RetryBudget;
pub use gate::{Gate, Turn};
pub use record::{Attempt, AttemptRecord, WaitSource};
#[cfg(feature = "recover")]
pub(crate) use retrier::MakeAttempt;
pub use retrier::Retrier;
#[cfg(feature = "recover")]
pub(crate) use state::HandBack;
pub use state::{Outcome, RetryState, Stop};
#[cfg(feature = "stream")]
pub use stream::{RunStream, StreamOutcome};
