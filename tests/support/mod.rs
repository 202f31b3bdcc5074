//! What the suite's tests share: servers on loopback that play a script, a provider that
//! enforces rate limits, the providers' streams, and a capture of `tracing` events. Each
//! helper is built with the features of the tests that use it, and each uses a part of it.
//! (`counting.rs`, a global allocator, is for the binaries that count allocations only.)
#![allow(dead_code)]

#[cfg(feature = "tracing")]
pub mod capture;
#[cfg(all(feature = "stream", feature = "reqwest"))]
pub mod providers;
#[cfg(all(feature = "recover", feature = "http"))]
pub mod rate_limited;
#[cfg(all(feature = "recover", feature = "http"))]
pub mod replicas;
#[cfg(feature = "http")]
pub mod replies;
#[cfg(any(feature = "reqwest-middleware", feature = "tower"))]
pub mod scripted;
#[cfg(all(feature = "stream", feature = "reqwest"))]
pub mod sse;
