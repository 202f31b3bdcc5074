//! A classification read back from another protocol's error, for the integrations that
//! read one (an MCP tool result, a gRPC status).

use std::time::Duration;

use crate::{Recovery, Report};

/// A classification read back from another protocol's error (an MCP tool result, a gRPC
/// status), before it becomes a [`Report`].
pub struct Remote {
    pub op: String,
    pub code: String,
    pub message: String,
    pub retryable: bool,
    pub rate_limited: bool,
    pub retry_after: Option<Duration>,
    /// `None`: the code's default in the shared vocabulary, else `retry` or `abort`.
    pub recovery: Option<Recovery>,
    pub hints: Vec<String>,
}

/// The report of `remote`, checked like a report read from the wire.
pub fn remote_report(remote: Remote) -> Report {
    Report::from_remote(remote)
}
