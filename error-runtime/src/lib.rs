//! The runtime of [agent-error](https://docs.rs/agent-error): the [`AgentError`] trait,
//! walking chains to classify errors, retry policies and the retrier, HTTP classification,
//! the dynamic [`Error`] and the shared vocabulary of [`codes`].
//!
//! Most users depend on the `agent-error` facade crate, which re-exports all of this
//! together with `#[derive(AgentError)]` and adds `tool::ToolError`. Depending on this
//! crate and `agent-error-derive` directly works too; derived code then needs
//! `#[agent(crate = "agent_error_runtime")]`.
//!
//! # Features
//! - `registry` (default): collect every non-generic derived type at link time, so that
//!   [`find`], [`is_retryable`] and [`has_code`] recognise it anywhere in a chain.
//!   Without it they recognise the runtime's own types only.
//! - `http` (default): [`http::StatusError`], status classification and `Retry-After` parsing.
//! - `serde`: the wire form, [`Report`] and RFC 9457 problem details, and serialization of
//!   [`tool::StructuredToolError`] and catalog entries.
//! - `tracing`: [`trace`], recording errors as `tracing` events or on spans.
//! - `tokio`: `retry::tokio_sleep`, tokio's sleep for [`retry::Retrier::run_async`].

#![warn(missing_docs)]

mod agent;
pub mod catalog;
mod chain;
pub mod codes;
pub mod display;
mod dynamic;
#[cfg(feature = "http")]
pub mod http;
mod public;
mod recovery;
mod registry;
#[cfg(feature = "serde")]
pub mod report;
pub mod retry;
pub mod tool;
#[cfg(feature = "tracing")]
pub mod trace;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use agent::AgentError;
pub use chain::{Links, find, has_code, is_retryable, links};
pub use dynamic::Error;
pub use recovery::{Recovery, UnknownRecovery};
#[cfg(feature = "serde")]
pub use report::Report;
pub use retry::{Jitter, RetryPolicy};
