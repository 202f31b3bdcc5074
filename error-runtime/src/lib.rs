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
//! - `http` (default): [`http::StatusError`], status classification and `Retry-After` parsing.
//! - `serde`: the wire form, [`Report`] and RFC 9457 problem details, and serialization of
//!   [`tool::StructuredToolError`] and catalog entries.
//! - `tracing`: [`trace`], recording errors as `tracing` events or on spans.
//! - `tokio`: `retry::tokio_sleep`, tokio's sleep for [`retry::Retrier::run_async`], and
//!   `tokio::time::error::Elapsed` classified as `timeout`.
//! - `anyhow`: the retrier takes operations whose error is `anyhow::Error`.
//! - `reqwest`: `reqwest::Error` classified (timeout, connect, status, builder), and
//!   [`reqwest::check`] / `http::StatusError::from_reqwest` for error responses.
//! - `reqwest-middleware`: `reqwest::RetryMiddleware`, a reqwest-middleware `Middleware`
//!   retrying transport errors and error responses by their classification.
//! - `tower`: `tower::RetryLayer`, a tower `Layer` retrying any service's classified errors
//!   and `http::Response` error statuses.
//! - `axum`: `axum::ApiError`, any `AgentError` as an axum response (status, `Retry-After`,
//!   problem+json).
//! - `rmcp`: [`rmcp`], errors as MCP tool results (`CallToolResult` with `is_error`) or, for
//!   protocol-class codes, JSON-RPC errors; a tool result read back into a [`Report`].
//! - `tonic`: [`tonic`], errors as gRPC `Status` with AIP-193 `ErrorInfo`/`RetryInfo`
//!   details; a `Status` classified and read back into a [`Report`].
//! - `async-openai`: [`openai`], async-openai's `OpenAIError` classified by status, error
//!   code and transport.

#![warn(missing_docs)]

mod agent;
#[cfg(feature = "axum")]
pub mod axum;
pub mod catalog;
mod cause;
mod chain;
mod classify;
mod code_doc;
pub mod codes;
pub mod display;
mod dynamic;
#[cfg(feature = "http")]
pub mod http;
mod io;
#[cfg(feature = "async-openai")]
pub mod openai;
mod public;
pub mod recover;
mod recovery;
mod registry;
#[cfg(feature = "serde")]
pub mod report;
#[cfg(feature = "reqwest")]
pub mod reqwest;
pub mod retry;
#[cfg(feature = "rmcp")]
pub mod rmcp;
#[cfg(feature = "tokio")]
mod tokio;
#[cfg(feature = "tonic")]
pub mod tonic;
pub mod tool;
#[cfg(feature = "tower")]
pub mod tower;
#[cfg(feature = "tracing")]
pub mod trace;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use agent::AgentError;
pub use chain::{ErrorChain, Links, MAX_LINKS, find, links, markers};
pub use classify::{Classified, classify, has_code, is_retryable};
pub use dynamic::Error;
pub use recovery::{Recovery, UnknownRecovery};
pub use registry::register_classifier;
#[cfg(feature = "serde")]
pub use report::Report;
pub use retry::{Jitter, RetryPolicy};
