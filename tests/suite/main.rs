//! The integration tests of `agent-error`, one module a behaviour, in one test binary: one
//! link of every dependency instead of one a file. A module needs the features named on its
//! line here, or in its own `#![cfg(...)]`.
//!
//! Beside this directory, in binaries of their own, are the tests that the suite's
//! process-wide state would disturb, or that would disturb it: `allocations.rs` and
//! `stream_allocations.rs` (a counting global allocator), `catalog_bless.rs` (an environment
//! variable the golden checks read), `classify_again.rs` (a classifier for every
//! `std::io::Error`) and `catalog.rs` (every type the binary registers, at the path it is
//! declared at). A test here that sets state for the whole process keeps to names of its
//! own: the vocabulary `http.rs` installs holds words no other test sends.
//!
//! The modules are `pub`, so that what a module declares `pub` for its readers (a field
//! only `Debug` shows) is not reported as unused.

#[path = "../support/mod.rs"]
mod support;

#[cfg(feature = "http")]
pub mod attempt_record;
#[cfg(feature = "http")]
pub mod axum_errors;
#[cfg(feature = "recover")]
pub mod breaker;
pub mod chain;
#[cfg(feature = "http")]
pub mod chain_runtime_types;
pub mod classify;
#[cfg(feature = "registry")]
pub mod classify_as_meant;
pub mod conformance;
pub mod crate_path;
pub mod decide;
pub mod declarative_macro;
pub mod defaults;
pub mod deprecated;
pub mod display;
pub mod display_modes;
pub mod dynamic;
pub mod equality;
#[cfg(feature = "http")]
pub mod error_codes_doc;
#[cfg(feature = "http")]
pub mod explain;
#[cfg(feature = "recover")]
pub mod fallback;
pub mod from_cause;
#[cfg(feature = "http")]
pub mod fuzz_json;
#[cfg(feature = "http")]
pub mod fuzz_retry_after;
pub mod fuzz_tool_text;
pub mod fuzz_wire;
pub mod gate;
// Its providers are `support::sse`'s servers, built with `stream` and `reqwest`.
#[cfg(feature = "reqwest")]
pub mod genai;
pub mod generics;
#[cfg(all(feature = "tonic", feature = "tokio"))]
pub mod grpc;
pub mod hints;
#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "serde")]
pub mod location;
#[cfg(all(feature = "rmcp", feature = "tokio"))]
pub mod mcp;
pub mod message;
#[cfg(feature = "miette")]
pub mod miette;
pub mod migration;
pub mod nested_retry;
pub mod object_safety;
#[cfg(all(feature = "async-openai", feature = "tokio"))]
pub mod openai_sdk;
#[cfg(all(feature = "recover", feature = "http"))]
pub mod pace;
#[cfg(all(feature = "reqwest-middleware", feature = "tower", feature = "tokio"))]
pub mod pace_layers;
#[cfg(feature = "http")]
pub mod pathological_chains;
#[cfg(all(feature = "reqwest-middleware", feature = "tower", feature = "tokio"))]
pub mod pause_layers;
pub mod people;
pub mod policy;
pub mod provider_corpus;
pub mod provider_evidence;
pub mod recovery;
pub mod redact;
pub mod reqwest_middleware;
#[cfg(feature = "http")]
pub mod retry;
// Its providers are `support::sse`'s servers, built with `stream` and `reqwest`.
#[cfg(all(feature = "stream", feature = "reqwest"))]
pub mod rig;
#[cfg(feature = "schemars")]
pub mod schema;
#[cfg(all(feature = "stream", feature = "reqwest", feature = "tokio"))]
pub mod stream;
#[cfg(all(
    feature = "stream",
    feature = "axum",
    feature = "reqwest",
    feature = "tokio"
))]
pub mod stream_axum;
#[cfg(all(feature = "stream", feature = "async-openai", feature = "tokio"))]
pub mod stream_openai;
#[cfg(all(feature = "stream", feature = "reqwest", feature = "tokio"))]
pub mod stream_providers;
#[cfg(all(
    feature = "stream",
    feature = "reqwest",
    feature = "tokio",
    feature = "recover"
))]
pub mod stream_retry;
pub mod tool;
pub mod tower_retry;
pub mod trace;
pub mod transparent;
#[cfg(feature = "http")]
pub mod transport;
pub mod trust_boundary;
#[cfg(feature = "http")]
pub mod wire;
pub mod wire_http;
