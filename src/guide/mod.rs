//! The guide: how to use agent-error, chapter by chapter, with examples that run.
//!
//! The [derive's attributes](derive@crate::AgentError) and each module's page are the
//! reference; these chapters show how the pieces fit together.
//!
//! - [Migrating from thiserror](migrating): rename the derive, add an op, mark what may be
//!   retried.
//! - [In an agent loop](agent_loop): the retrier, fallback chains, circuit breakers and one
//!   decision for loops that handle errors themselves.
//! - [Classifying foreign errors](classifying): finding a classified error anywhere in a
//!   chain, the built-in classifiers, your own, and errors built at run time.
//! - [HTTP and providers](http): statuses, server hints and provider bodies, and a reqwest
//!   client without glue.
//! - [Tool results, people and redaction](audiences): what reaches the model, a person,
//!   logs and the operator, and the trust boundary between them.
//! - [Across services](across_services): the wire form, problem+json and tracing.
//! - [Documenting your codes](documenting_codes): the catalog, its renderers and a
//!   golden-file test.
//! - [Streams](streams): failures after `200 OK` in a provider's server-sent events, and
//!   retrying only a stream that has not spoken yet.
//! - [Staying under a provider's limits](pacing): pacing calls from the rate-limit headers
//!   providers send, a configured or adaptive rate where they send none, shared by a fleet.
//! - [Across a fleet](fleet): cooldowns, circuit breakers, pauses and budgets shared by
//!   replicas through a store, Redis's key layout and failure modes.
//! - [Integrations](integrations): reqwest-middleware, tower, axum, rmcp, tonic and
//!   async-openai.
//!
//! The chapters are built with every feature, as docs.rs builds them; a chapter whose
//! examples need optional features is present only when they are on.

#[doc = include_str!("../../docs/guide/migrating.md")]
pub mod migrating {}

#[doc = include_str!("../../docs/guide/agent_loop.md")]
pub mod agent_loop {}

#[doc = include_str!("../../docs/guide/classifying.md")]
pub mod classifying {}

#[cfg(all(
    feature = "http",
    feature = "reqwest",
    feature = "tokio",
    feature = "anyhow"
))]
#[doc = include_str!("../../docs/guide/http.md")]
pub mod http {}

#[doc = include_str!("../../docs/guide/audiences.md")]
pub mod audiences {}

#[cfg(all(feature = "serde", feature = "tracing"))]
#[doc = include_str!("../../docs/guide/across_services.md")]
pub mod across_services {}

#[cfg(all(feature = "stream", feature = "reqwest", feature = "tokio"))]
#[doc = include_str!("../../docs/guide/streams.md")]
pub mod streams {}

#[cfg(feature = "redis")]
#[doc = include_str!("../../docs/guide/fleet.md")]
pub mod fleet {}

#[cfg(all(
    feature = "http",
    feature = "redis",
    feature = "reqwest-middleware",
    feature = "tower"
))]
#[doc = include_str!("../../docs/guide/pacing.md")]
pub mod pacing {}

#[doc = include_str!("../../docs/guide/documenting_codes.md")]
pub mod documenting_codes {}

#[cfg(all(
    feature = "reqwest-middleware",
    feature = "tower",
    feature = "axum",
    feature = "rmcp",
    feature = "tonic",
    feature = "async-openai"
))]
#[doc = include_str!("../../docs/guide/integrations.md")]
pub mod integrations {}
