#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub use agent_error_derive::AgentError;
pub use agent_error_runtime::*;

pub mod guide;
pub mod tool;
