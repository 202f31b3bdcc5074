//! The runtime of [agent-error](https://docs.rs/agent-error): the [`AgentError`] trait,
//! walking chains to classify errors, retry policies and the retrier, HTTP classification,
//! the dynamic [`Error`] and the shared vocabulary of [`codes`], and [`recover`]: fallback
//! chains, circuit breakers and one decision function for agent loops.
//!
//! Most users depend on the `agent-error` facade crate, which re-exports all of this
//! together with `#[derive(AgentError)]` and adds `tool::ToolError`. Depending on this
//! crate and `agent-error-derive` directly works too; derived code then needs
//! `#[agent(crate = "agent_error_runtime")]`.
//!
//! # Features
//! - `registry` (default): every non-generic derived type registers itself at link time, so
//!   that [`find`], [`classify`], [`is_retryable`] and [`has_code`] recognise it anywhere in
//!   a chain. Without it they recognise the runtime's own types, the built-in classifiers,
//!   and what is registered explicitly ([`register!`], [`classifier!`],
//!   [`register_classifier`]).
//! - `recover`: [`recover`]'s fallback chains, circuit breakers and pacer, and the
//!   [`store`] their state lives in (`LocalStore`, and the traits a shared store
//!   implements). With `http`, what a response's rate-limit headers say
//!   (`http::RateLimits`), which feeds the pacer.
//! - `http`: [`http::StatusError`], status classification and `Retry-After` parsing.
//! - `serde`: the wire form, [`Report`] and RFC 9457 problem details, and serialization of
//!   [`tool::StructuredToolError`] and catalog entries.
//! - `tracing`: [`trace`], recording errors as `tracing` events or on spans.
//! - `tokio`: `retry::tokio_sleep`, tokio's sleep for [`retry::Retrier::run_async`], and
//!   `tokio::time::error::Elapsed` classified as `timeout`.
//! - `anyhow`: the retrier takes operations whose error is `anyhow::Error`.
//! - `stream`: [`stream::Watch`], failures after `200 OK` in a provider's server-sent events,
//!   and the retrier and fallback over streams.
//!
//! # Layers
//! Below everything, the rules the derive checks at compile time and this crate at run time
//! (the grammar of codes and ops, which codes of the vocabulary are retried, [`Recovery`],
//! `retry::Jitter`, the retry defaults) are written once, in the dependency-free
//! `agent-error-rules` crate, and re-exported here at their usual paths. The core (`AgentError`, the chain walk and [`classify`], the registry, the dynamic
//! [`Error`], the vocabulary of [`codes`], [`Recovery`], [`RetryPolicy`]) needs no feature and
//! imports nothing above it. Built on it, with no feature either: [`retry`] (the retrier knows
//! what an attempt waits for only as [`retry::Gate`]s), [`tool`], [`display`],
//! [`catalog`](mod@catalog) and [`recover::decide`]. The capabilities, each behind its
//! feature, are built on those: [`http`], [`Report`], [`trace`], [`stream`], and `recover`'s
//! fallback chains, breakers, pacer and store. Integrations with
//! foreign crates (reqwest, tower, axum, rmcp, tonic, async-openai, redis) are crates of their own,
//! `agent-error-<name>`, built on this crate's public API and re-exported by the facade
//! behind features named after the foreign crate.

#![warn(missing_docs)]
#![forbid(unsafe_code)]
// On docs.rs (nightly, `--cfg docsrs`): each item says which feature brings it.
#![cfg_attr(docsrs, feature(doc_cfg))]

// The core layer: no feature, and no import from the capabilities below.
mod core;

// Capabilities, built on the core.
pub mod catalog;
pub mod chain;
pub mod display;
pub mod extend;
#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "recover")]
mod pace;
pub mod recover;
#[cfg(feature = "serde")]
pub mod report;
pub mod retry;
// The state that retry and recover keep, and where it lives: below both.
pub mod store;
#[cfg(feature = "stream")]
pub mod stream;
#[cfg(feature = "tokio")]
mod tokio;
pub mod tool;
#[cfg(feature = "tracing")]
pub mod trace;

#[doc(hidden)]
pub mod __private;

pub use crate::core::agent::AgentError;
pub use crate::core::chain::find;
pub use crate::core::classify::{Classified, classify, has_code, is_retryable};
pub use crate::core::codes;
pub use crate::core::dynamic::Error;
pub use crate::core::policy::RetryPolicy;
pub use crate::core::registry::register_classifier;
pub use agent_error_rules::{Recovery, UnknownRecovery};
#[cfg(feature = "serde")]
pub use report::Report;
