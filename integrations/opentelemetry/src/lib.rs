//! OpenTelemetry for agent-error: classified errors written with the semantic conventions'
//! names on spans and metrics, from the attributes the error types already carry.
//!
//! Built on the `opentelemetry` API crate alone: the SDK, its exporters and where the data
//! goes are the application's. Without an SDK installed, everything here is a no-op.
//!
//! - [`record_error`] / [`error_attributes`]: an error on a span: `error.type` (its code),
//!   the span's status with the public chain as its description, where the `?` was
//!   (`code.file.path`, `code.line.number`, `code.column.number`).
//! - [`Telemetry`]: the instruments, and a model call as the GenAI conventions draw it: an
//!   operation span `{gen_ai.operation.name} {gen_ai.request.model}` with one child span an
//!   attempt (`http.request.resend_count` on each resend), the
//!   `gen_ai.client.operation.duration` histogram with `error.type`, and metrics of
//!   failures, retries, pauses, circuit breaker transitions and pacing waits by code and
//!   provider.
//! - [`error_types`]: the documented list of `error.type` values, from the catalog. A code
//!   this process does not know (read from a peer's report, an MCP tool result, a gRPC
//!   status) is [`OTHER`] on every metric, so that no peer can grow the series; a span keeps
//!   it, folded and capped, in `agent_error.peer_code`.
//!
//! Nothing here writes an error's own text: a foreign error (a path, a host, SQL) or a
//! `#[redact]` field never reaches a span or a metric. What a peer sent (finish reasons)
//! is folded to one line and capped.
//!
//! ```
//! use agent_error::opentelemetry::{GenAiCall, Telemetry};
//! use agent_error::retry::Retrier;
//! use agent_error::{codes, Error};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let telemetry = Telemetry::global();
//! let call = GenAiCall::new("chat").provider("openai").model("gpt-4o");
//! let outcome = telemetry
//!     .run(&Retrier::new(), &call, |attempt| async move {
//!         if attempt == 1 {
//!             Err(Error::new("llm.generate", codes::PROVIDER_UNAVAILABLE, "HTTP 503"))
//!         } else {
//!             Ok("hello")
//!         }
//!     }, agent_error::retry::tokio_sleep)
//!     .await;
//! assert_eq!(outcome.result.unwrap(), "hello");
//! # }
//! ```

#![forbid(unsafe_code)]
// On docs.rs (nightly, `--cfg docsrs`): each item says which feature brings it.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod error;
mod instruments;
mod known;
mod names;
mod operation;
mod telemetry;

pub use error::{error_attributes, error_type, error_types, record_error};
pub use known::OTHER;
pub use names::*;
pub use operation::{GenAiCall, Operation};
pub use telemetry::Telemetry;
