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
//! - [JSON Schema for the wire form](schema): `Report` and problem+json as JSON Schema,
//!   the code an enum of every code the process knows.
//! - [OpenAPI responses](openapi): every code an error type answers with, in a service's
//!   OpenAPI document (utoipa), one response a status with its schema and examples.
//! - [miette]: a derived type as a `miette::Diagnostic`, code, help and docs link
//!   from the same attributes.
//! - [OpenTelemetry](opentelemetry): the code as `error.type` on spans and metrics, a model
//!   call as a GenAI operation span with a span each attempt, and metrics of failures,
//!   retries, pauses, breakers and pacing.
//! - [Where the `?` was](location): `#[location]` records the line that converted an
//!   error, for `Debug`, the wire form and traces.
//! - [Test your agent against a bad day](bad_day): a provider farm on loopback that
//!   throttles, overloads, cuts and silences streams on a seeded schedule, and the
//!   benchmark of each retry strategy against it.
//! - [Troubleshooting the derive](troubleshooting): the compile errors that puzzle
//!   newcomers, why each is an error, and what to write instead.
//!
//! The chapters' examples use every optional feature, so the chapters are built with the
//! `guide` feature, which turns all of them on; docs.rs builds every feature.
//!
#![cfg_attr(
    not(feature = "guide"),
    doc = "**This build leaves the chapters out**: each page above only points to the \
           chapter [on docs.rs](https://docs.rs/agent-error/latest/agent_error/guide/index.html). \
           To read them here, build the documentation with `cargo doc --features guide`."
)]

/// One chapter: its Markdown page with the `guide` feature, else a page that points to it
/// on docs.rs, so that a link to a chapter is never dead.
macro_rules! chapter {
    ($name:ident, $title:literal) => {
        #[cfg(feature = "guide")]
        #[doc = include_str!(concat!("../../docs/guide/", stringify!($name), ".md"))]
        pub mod $name {}

        #[cfg(not(feature = "guide"))]
        #[doc = concat!(
            "# ", $title, "\n\n",
            "This chapter is built with the `guide` feature (`cargo doc --features guide`), \
             which turns on every feature its examples use. Read it [on docs.rs]",
            "(https://docs.rs/agent-error/latest/agent_error/guide/", stringify!($name),
            "/index.html), which builds every feature."
        )]
        pub mod $name {}
    };
}

chapter!(migrating, "Migrating from thiserror");
chapter!(agent_loop, "In an agent loop");
chapter!(classifying, "Classifying foreign errors");
chapter!(http, "HTTP and providers");
chapter!(audiences, "Tool results, people and redaction");
chapter!(across_services, "Across services");
chapter!(documenting_codes, "Documenting your codes");
chapter!(streams, "Streams: failures after `200 OK`");
chapter!(pacing, "Staying under a provider's limits");
chapter!(fleet, "Across a fleet");
chapter!(integrations, "Integrations");
chapter!(schema, "JSON Schema for the wire form");
chapter!(openapi, "OpenAPI responses");
chapter!(miette, "miette");
chapter!(opentelemetry, "OpenTelemetry");
chapter!(location, "Where the `?` was");
chapter!(bad_day, "Test your agent against a bad day");
chapter!(troubleshooting, "Troubleshooting the derive");
