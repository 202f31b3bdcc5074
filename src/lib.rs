#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub use agent_error_derive::AgentError;
pub use agent_error_runtime::*;

pub mod tool;

#[cfg(feature = "axum")]
pub use agent_error_axum as axum;
#[cfg(feature = "async-openai")]
pub use agent_error_openai as openai;
#[cfg(feature = "reqwest")]
pub use agent_error_reqwest as reqwest;
#[cfg(feature = "rmcp")]
pub use agent_error_rmcp as rmcp;
#[cfg(feature = "tonic")]
pub use agent_error_tonic as tonic;
#[cfg(feature = "tower")]
pub use agent_error_tower as tower;
