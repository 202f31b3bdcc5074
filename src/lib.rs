//! Errors that say what kind of failure they are, for LLM agents and the services around them.
//!
//! Agents fail all the time — rate limits, timeouts, providers down, bad tool arguments,
//! context too long, budgets spent — and the code that reacts (a retry loop, a planner, a
//! fallback to another model, a person reading logs) needs to know *what kind* of failure it
//! is, not just a string. [`#[derive(AgentError)]`](derive@AgentError) on your own error
//! enum gives each variant a stable machine-readable **code**, a **retry policy** checked at
//! compile time, an `op [code]: message: cause` **Display**, **equality by code**, recovery
//! **hints** and a [**recovery**](Recovery) action; a small runtime finds a classified error
//! anywhere in a `dyn Error` chain ([`find`], [`classify`]), even behind `anyhow` or
//! `std::io::Error`, and classifies the errors of the ecosystem too.
//!
//! ```
//! use std::time::Duration;
//! use agent_error::{retry::Retrier, AgentError, Recovery};
//!
//! #[derive(Debug, AgentError)]
//! #[agent(op = "llm.generate")]
//! pub enum LlmError {
//!     #[agent(code = "rate_limit", rate_limited, hint = "lower the request rate or raise the quota")]
//!     #[error("provider returned 429")]
//!     RateLimited { #[retry_after] retry_after: Option<Duration> },
//!
//!     #[agent(code = "auth_error", hint = "check the key at {console}")]
//!     #[error("invalid api key for {console}")]
//!     Auth { console: String },
//! }
//!
//! # // Without the `registry` feature, a derived type is registered by hand.
//! # agent_error::register!(LlmError);
//! let auth = LlmError::Auth { console: "platform.openai.com".into() };
//! assert_eq!(auth.to_string(), "llm.generate [auth_error]: invalid api key for platform.openai.com");
//! assert_eq!((auth.code(), auth.is_retryable(), auth.recovery()), ("auth_error", false, Recovery::Abort));
//!
//! // The retrier obeys each failure: it waits out the 429 as the server asked, then succeeds.
//! let answer = Retrier::new().run_detailed_with_sleep(
//!     |attempt| match attempt {
//!         1 => Err(LlmError::RateLimited { retry_after: Some(Duration::from_millis(1)) }),
//!         _ => Ok("hello"),
//!     },
//!     |_delay| {},
//! );
//! assert_eq!((answer.result.unwrap(), answer.attempts), ("hello", 2));
//! ```
//!
//! # Classifying, in one sentence
//!
//! [`classify`] tells what any error chain is (its code, policy and recovery), from the
//! first link it recognises; [`find`] gives that link itself when it is one of your derived
//! types; [`is_retryable`] and [`has_code`] are the two questions asked most, answered
//! from the same walk; and [`register!`] or [`classifier!`] teach the walk a type it
//! cannot see by itself (a generic type, another crate's error).
//!
//! # Where to read on
//!
//! - [`derive@AgentError`]: the derive's attributes, its defaults, what it generates and the
//!   mistakes it refuses at compile time.
//! - [`guide`]: chapters with examples that run — [migrating from
//!   thiserror](guide::migrating), [in an agent loop](guide::agent_loop), [classifying foreign
//!   errors](guide::classifying), [HTTP and providers](guide::http), [tool results, people and
//!   redaction](guide::audiences), [across services](guide::across_services), [documenting
//!   your codes](guide::documenting_codes), [streams](guide::streams), [staying under a
//!   provider's limits](guide::pacing), [across a fleet](guide::fleet),
//!   [integrations](guide::integrations), [OpenAPI responses](guide::openapi), and
//!   [troubleshooting the derive](guide::troubleshooting) (its compile errors explained).
//! - The core, with no feature: [`retry`] (the retrier, policies, budgets, and the gates an
//!   attempt waits for), [`tool`] (tool results for a model), [`display`] (renderings for
//!   people and logs), [`catalog`](mod@catalog) (the documentation of your codes),
//!   [`codes`] (the shared vocabulary), [`chain`] (walking a chain by hand),
//!   [`recover::decide`] (what an agent loop does next), [`extend`] (for crates that
//!   connect another crate to this one).
//! - Each capability behind one feature: `recover` for [`recover`]'s fallback chains,
//!   circuit breakers and pacer, and the [`store`] their state lives in; `http` for [`http`]
//!   (statuses, server hints, provider bodies); `stream` for [`stream`] (failures after
//!   `200 OK`); `serde` for [`Report`] (the wire form); `tracing` for [`trace`]; and one
//!   module per integration, named after its crate.
//!
//! # Features
//!
//! | feature | default | what |
//! |---|---|---|
//! | `registry` | yes | derived types register themselves at link time, for [`find`], [`classify`], [`is_retryable`] and [`has_code`], and so for the retrier, which classifies each failure by them (the runtime's own types and classifiers always are); without it, name each derived type with [`register!`], or it is not known in a chain (a retrier then does not retry it, and `display::chain` prints it as a foreign error) |
//! | `recover` | no | fallback chains ([`recover::Fallback`]), circuit breakers, the pacer that stays under a provider's limits (fed by rate-limit headers with `http`), and the store their state lives in, [`recover::Store`] (adds nothing: code of this crate only) |
//! | `http` | no | [`http::StatusError`] (from the `http` crate's parts, with server hints and provider bodies), `classify_status`, `parse_retry_after` (adds `http`, `http-body`, `httpdate`; provider bodies are read by a small JSON reader of the runtime's own, so no `serde_json`) |
//! | `serde` | no | the wire form ([`Report`], problem+json); `Serialize` for tool results and catalog entries (adds `serde`) |
//! | `tracing` | no | [`trace::record`], `record_on_span`, `on_retry` (adds `tracing`) |
//! | `tokio` | no | `retry::tokio_sleep` for `Retrier::run_async`; `tokio::time::error::Elapsed` classified as `timeout` (adds `tokio` with its `time` feature) |
//! | `anyhow` | no | the retrier takes operations whose error is `anyhow::Error` (adds `anyhow`) |
//! | `stream` | no | [`stream::Watch`]: a provider's server-sent events watched, failures after `200 OK` classified; `Retrier::run_stream`, and with `recover` `Fallback::run_stream`; with `reqwest`, [`reqwest::watch`] (implies `http` and `tokio`, with tokio's `rt` for the idle timer; adds `sseer` for the line parsing, `bytes-utils`, `memchr`, `futures-core`) |
//! | `reqwest` | no | `reqwest::Error` classified; [`reqwest::check`] and `StatusError::from_reqwest` for responses (adds the crate `agent-error-reqwest`, with `reqwest` without default features: bring your own TLS choice) |
//! | `reqwest-middleware` | no | [`reqwest::RetryMiddleware`] (implies `reqwest`, `tokio` and `recover`; `agent-error-reqwest` adds `reqwest-middleware` 0.5, `async-trait`, `http-body`, `http-body-util`, `bytes`) |
//! | `tower` | no | [`tower::RetryLayer`], `ClassifiedRetry`, `ClassifyResponse`, `PaceLayer` (implies `http`, `tokio` and `recover`; adds the crate `agent-error-tower`, with `tower` 0.5 and its `retry` feature) |
//! | `axum` | no | [`axum::ApiError`]; with `stream`, `axum::error_event`, a failure as a provider's stream error event (implies `serde` and `http`; adds the crate `agent-error-axum`, with `axum` 0.8 without default features, `serde_json`) |
//! | `rmcp` | no | [`rmcp`]: errors as MCP tool results or JSON-RPC errors, read back into a `Report` (implies `serde`; adds the crate `agent-error-rmcp`, with `rmcp` and its `server` feature, `serde_json`) |
//! | `tonic` | no | [`tonic`]: errors as gRPC `Status` with AIP-193 details, and back (implies `serde`, `http`; adds the crate `agent-error-tonic`, with `tonic` without default features, `tonic-types`) |
//! | `redis` | no | [`redis::RedisStore`]: the [`recover::Store`] a fleet of replicas shares, so that cooldowns, circuit breakers, server-announced pauses, (opt-in) retry budgets and a `Pacer`'s budgets reach every replica (implies `recover` and `tokio`; adds the crate `agent-error-redis`, with `redis` 1.8 and its `tokio-comp`, `connection-manager` and `script` features, `tracing`) |
//! | `miette` | no | `#[agent(miette)]`: a derived type implements `miette::Diagnostic` from the same attributes (adds `miette` 7 without its default features) |
//! | `schemars` | no | [`Report`] and `report::Problem` implement `schemars::JsonSchema`, the code an enum of the catalog's codes (`report::known_codes`; implies `serde`; adds `schemars` 1 without its derive) |
//! | `opentelemetry` | no | [`opentelemetry`]: errors as the semantic conventions' `error.type` on spans and metrics; a model call as a GenAI operation span with a span each attempt (`http.request.resend_count`), `gen_ai.client.operation.duration`, and metrics of failures, retries, pauses, breaker transitions and pacing waits (implies `recover`; adds the crate `agent-error-opentelemetry`, with the `opentelemetry` 0.33 API crate and its `trace` and `metrics` features: the SDK is the application's) |
//! | `utoipa` | no | [`utoipa::ErrorResponses`]: every code a derived type answers with, as the OpenAPI responses of a `#[utoipa::path]`, one per status, each with a problem+json schema whose `code` is an enum of its codes and one example per code (implies `serde`; adds the crate `agent-error-utoipa`, with `utoipa` 6 and its `macros` feature, the one it needs to build, `serde_json`) |
//! | `async-openai` | no | [`openai`]: `OpenAIError` classified; with `stream`, `openai::watch_chat` classifies a streaming call's failures (implies `reqwest`; adds the crate `agent-error-openai`, with `async-openai` and its `middleware` feature and no TLS, `serde_json`; with `stream`, `serde`, `futures-core`) |
//! | `genai` | no | [`genai`]: genai's `Error` classified with no glue (statuses, headers and bodies, transports, streams); with `stream`, `genai::watch` ends a `ChatStream` cut before its `End` event in `stream_interrupted` (implies `http`; adds the crate `agent-error-genai`, with `genai` 0.7 without default features, so without TLS of its own, `http`; with `stream`, `futures-core`, `serde_json`) |
//! | `rig` | no | [`rig`]: rig-core's `ProviderError` classified with no glue (the reply rig keeps through the order of evidence, its in-band stream errors by their body, transports, truncations; implies `http`; adds the crate `agent-error-rig`, with `rig-core` 0.44 without default features, `http`, `reqwest`) |
//! | `guide` | no | the [`guide`]'s chapters built whole, and every feature above that their examples use (all of them); without it, each chapter's page points to the chapter on docs.rs |
//!
//! The documentation on docs.rs is built with every feature. The minimum supported Rust
//! version is 1.85 for this crate and the crates under it, with `registry`, `http`, `serde`,
//! `tracing`, `tokio`, `anyhow`, `miette` and `schemars`; `recover`, `stream` and the
//! integrations are built with Rust 1.95.
//!
//! Each integration is a crate of its own (`agent-error-<name>`, under `integrations/` in the
//! repository), built on the runtime's public API; the features above bring it in and
//! re-export it here under the foreign crate's name.
//!
// An item behind a feature is linked to where it is when the feature is on, else to its page
// on docs.rs (built with every feature): no link is dead whatever the features.
#![cfg_attr(
    feature = "http",
    doc = "[`http`]: http\n[`http::StatusError`]: http::StatusError"
)]
#![cfg_attr(
    not(feature = "http"),
    doc = "[`http`]: https://docs.rs/agent-error/latest/agent_error/http/index.html\n[`http::StatusError`]: https://docs.rs/agent-error/latest/agent_error/http/struct.StatusError.html"
)]
#![cfg_attr(
    feature = "recover",
    doc = "[`recover::Store`]: recover::Store\n[`recover::Fallback`]: recover::Fallback"
)]
#![cfg_attr(
    not(feature = "recover"),
    doc = "[`recover::Store`]: https://docs.rs/agent-error/latest/agent_error/recover/trait.Store.html\n[`recover::Fallback`]: https://docs.rs/agent-error/latest/agent_error/recover/struct.Fallback.html"
)]
#![cfg_attr(feature = "serde", doc = "[`Report`]: Report")]
#![cfg_attr(
    not(feature = "serde"),
    doc = "[`Report`]: https://docs.rs/agent-error/latest/agent_error/struct.Report.html"
)]
#![cfg_attr(
    feature = "tracing",
    doc = "[`trace`]: trace\n[`trace::record`]: trace::record"
)]
#![cfg_attr(
    not(feature = "tracing"),
    doc = "[`trace`]: https://docs.rs/agent-error/latest/agent_error/trace/index.html\n[`trace::record`]: https://docs.rs/agent-error/latest/agent_error/trace/fn.record.html"
)]
#![cfg_attr(
    feature = "stream",
    doc = "[`stream`]: stream\n[`stream::Watch`]: stream::Watch"
)]
#![cfg_attr(
    not(feature = "stream"),
    doc = "[`stream`]: https://docs.rs/agent-error/latest/agent_error/stream/index.html\n[`stream::Watch`]: https://docs.rs/agent-error/latest/agent_error/stream/struct.Watch.html"
)]
#![cfg_attr(
    all(feature = "reqwest", feature = "stream"),
    doc = "[`reqwest::watch`]: reqwest::watch"
)]
#![cfg_attr(
    not(all(feature = "reqwest", feature = "stream")),
    doc = "[`reqwest::watch`]: https://docs.rs/agent-error/latest/agent_error/reqwest/fn.watch.html"
)]
#![cfg_attr(feature = "reqwest", doc = "[`reqwest::check`]: reqwest::check")]
#![cfg_attr(
    not(feature = "reqwest"),
    doc = "[`reqwest::check`]: https://docs.rs/agent-error/latest/agent_error/reqwest/fn.check.html"
)]
#![cfg_attr(
    feature = "reqwest-middleware",
    doc = "[`reqwest::RetryMiddleware`]: reqwest::RetryMiddleware"
)]
#![cfg_attr(
    not(feature = "reqwest-middleware"),
    doc = "[`reqwest::RetryMiddleware`]: https://docs.rs/agent-error/latest/agent_error/reqwest/struct.RetryMiddleware.html"
)]
#![cfg_attr(feature = "tower", doc = "[`tower::RetryLayer`]: tower::RetryLayer")]
#![cfg_attr(
    not(feature = "tower"),
    doc = "[`tower::RetryLayer`]: https://docs.rs/agent-error/latest/agent_error/tower/struct.RetryLayer.html"
)]
#![cfg_attr(feature = "axum", doc = "[`axum::ApiError`]: axum::ApiError")]
#![cfg_attr(
    not(feature = "axum"),
    doc = "[`axum::ApiError`]: https://docs.rs/agent-error/latest/agent_error/axum/struct.ApiError.html"
)]
#![cfg_attr(feature = "rmcp", doc = "[`rmcp`]: rmcp")]
#![cfg_attr(
    not(feature = "rmcp"),
    doc = "[`rmcp`]: https://docs.rs/agent-error/latest/agent_error/rmcp/index.html"
)]
#![cfg_attr(feature = "tonic", doc = "[`tonic`]: tonic")]
#![cfg_attr(
    not(feature = "tonic"),
    doc = "[`tonic`]: https://docs.rs/agent-error/latest/agent_error/tonic/index.html"
)]
#![cfg_attr(feature = "redis", doc = "[`redis::RedisStore`]: redis::RedisStore")]
#![cfg_attr(
    not(feature = "redis"),
    doc = "[`redis::RedisStore`]: https://docs.rs/agent-error/latest/agent_error/redis/struct.RedisStore.html"
)]
#![cfg_attr(feature = "async-openai", doc = "[`openai`]: openai")]
#![cfg_attr(
    not(feature = "async-openai"),
    doc = "[`openai`]: https://docs.rs/agent-error/latest/agent_error/openai/index.html"
)]
#![cfg_attr(feature = "opentelemetry", doc = "[`opentelemetry`]: opentelemetry")]
#![cfg_attr(
    not(feature = "opentelemetry"),
    doc = "[`opentelemetry`]: https://docs.rs/agent-error/latest/agent_error/opentelemetry/index.html"
)]
#![cfg_attr(feature = "rig", doc = "[`rig`]: rig")]
#![cfg_attr(
    not(feature = "rig"),
    doc = "[`rig`]: https://docs.rs/agent-error/latest/agent_error/rig/index.html"
)]
#![cfg_attr(feature = "genai", doc = "[`genai`]: genai")]
#![cfg_attr(
    not(feature = "genai"),
    doc = "[`genai`]: https://docs.rs/agent-error/latest/agent_error/genai/index.html"
)]
#![cfg_attr(
    feature = "utoipa",
    doc = "[`utoipa::ErrorResponses`]: utoipa::ErrorResponses"
)]
#![cfg_attr(
    not(feature = "utoipa"),
    doc = "[`utoipa::ErrorResponses`]: https://docs.rs/agent-error/latest/agent_error/utoipa/struct.ErrorResponses.html"
)]
#![warn(missing_docs)]
#![forbid(unsafe_code)]
// On docs.rs (nightly, `--cfg docsrs`): each item says which feature brings it.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use agent_error_derive::AgentError;
pub use agent_error_runtime::*;

pub mod guide;
pub mod tool;

#[cfg(feature = "axum")]
pub use agent_error_axum as axum;
#[cfg(feature = "genai")]
pub use agent_error_genai as genai;
#[cfg(feature = "async-openai")]
pub use agent_error_openai as openai;
#[cfg(feature = "opentelemetry")]
pub use agent_error_opentelemetry as opentelemetry;
#[cfg(feature = "redis")]
pub use agent_error_redis as redis;
#[cfg(feature = "reqwest")]
pub use agent_error_reqwest as reqwest;
#[cfg(feature = "rig")]
pub use agent_error_rig as rig;
#[cfg(feature = "rmcp")]
pub use agent_error_rmcp as rmcp;
#[cfg(feature = "tonic")]
pub use agent_error_tonic as tonic;
#[cfg(feature = "tower")]
pub use agent_error_tower as tower;
#[cfg(feature = "utoipa")]
pub use agent_error_utoipa as utoipa;

/// The README's examples, tested with the rest (not part of the API). The second finds a
/// derived error behind `anyhow`, which needs `registry`.
#[cfg(all(doctest, feature = "registry"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
