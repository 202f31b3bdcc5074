//! A classification read back from another protocol's error, for the integrations that
//! read one (an MCP tool result, a gRPC status).

use crate::Report;
pub use crate::report::Remote;

/// The report of `remote`, checked like a report read from the wire.
pub fn remote_report(remote: Remote) -> Report {
    Report::from_remote(remote)
}
