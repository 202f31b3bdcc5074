//! The Redis integration of [agent-error](https://docs.rs/agent-error): [`RedisStore`], a
//! [`Store`](agent_error_runtime::recover::Store) that a fleet of replicas shares, so that
//! what one replica learns — a provider said "wait 30 s", a tool keeps failing — every
//! replica knows, instead of N replicas sending N times the load a server asked them not
//! to send.
//!
//! Give the store to a `Fallback` (cooldowns), a `CircuitBreaker` (circuits, with one trial
//! call fleet-wide after a cooldown), a `Retrier` (server-announced pauses, under a key
//! such as `openai/acct-1/gpt-4o`), a `RetryBudget` (opt-in) or a `Pacer` (the budgets
//! of a provider's limits, so that the fleet together stays under them). No lock is held
//! across the caller's own call: the one trial is a token with a lease.
//!
//! ```no_run
//! use std::sync::Arc;
//! use agent_error::recover::{CircuitBreaker, Fallback, SharedPauses, Store};
//! use agent_error::redis::{RedisStore, Unavailable};
//! use agent_error::retry::Retrier;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let store: Arc<dyn Store> = Arc::new(
//!     RedisStore::builder("redis://127.0.0.1:6379")
//!         .prefix("my-agent")
//!         .when_unavailable(Unavailable::Local)
//!         .connect()
//!         .await?,
//! );
//! let models = Fallback::new(["gpt-4o", "claude-sonnet"]).store(store.clone());
//! let tools = CircuitBreaker::new().store(store.clone());
//! let retrier = Retrier::new().gate(SharedPauses::new(store, "openai/acct-1/gpt-4o"));
//! # Ok(()) }
//! ```
//!
//! On a Redis Cluster, make the store with [`RedisStore::cluster_builder`] instead.
//!
//! The guide's chapter "Across a fleet" gives the key layout and the failure modes.

#![forbid(unsafe_code)]
// On docs.rs (nightly, `--cfg docsrs`): each item says which feature brings it.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

mod pace;
mod scripts;
mod store;

pub use store::{RedisStore, RedisStoreBuilder, Unavailable};
