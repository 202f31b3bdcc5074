//! The Redis store's integration tests, one module a behaviour, in one test binary, each
//! against a `redis-server` (or a cluster) of its own on a free loopback port.
//!
//! `untrusted_pacing_values.rs` is a binary of its own, beside this directory: it installs
//! the process's global `tracing` subscriber to read the store's warnings.

#[path = "../support/mod.rs"]
mod support;

mod any_stored_value;
mod cluster;
mod fleet;
mod one_thread_runtime;
mod pacing;
mod untrusted_values;
