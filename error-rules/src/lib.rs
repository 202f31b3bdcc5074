//! The rules that [agent-error](https://docs.rs/agent-error)'s derive checks at compile time
//! and its runtime checks at run time, written once so that the two cannot drift apart:
//!
//! - [`codes`]: the grammar of codes and ops, the shared vocabulary of codes, and which of
//!   them are retried and how;
//! - [`Recovery`]: what an agent loop should do about a failure;
//! - [`Jitter`] and [`defaults`]: how a backoff delay is randomised, and the tuning of a
//!   retry policy when nothing else is said.
//!
//! Depend on `agent-error`, which re-exports all of it: `agent_error::codes`,
//! `agent_error::Recovery`, `agent_error::retry::Jitter` and the `DEFAULT_*` constants of
//! `agent_error::RetryPolicy`.

#![warn(missing_docs)]
#![forbid(unsafe_code)]
#![no_std]

pub mod codes;
pub mod defaults;
mod jitter;
mod recovery;

pub use jitter::Jitter;
pub use recovery::{Recovery, UnknownRecovery};
