//! The runtime's own hand-written classified types (`Error`, `StatusError`, `Report`) are found
//! in a chain with or without the `registry` feature, which collects derived types (SPEC §2.2).

use std::error::Error as StdError;
use std::io;

use agent_error::{find, has_code};

fn code_found<'a>(err: &'a (dyn StdError + 'static)) -> Option<&'a str> {
    find(err).map(|e| e.code())
}

#[test]
fn the_dynamic_error_is_found() {
    let e = io::Error::other(agent_error::Error::new("db.query", "timeout", "slow"));
    assert_eq!(code_found(&e), Some("timeout"));
    assert!(agent_error::is_retryable(&e));
}

/// `ToolError` is derived (in the facade), so like users' types it is found through the registry.
#[cfg(feature = "registry")]
#[test]
fn the_tool_error_is_found() {
    let e = io::Error::other(agent_error::tool::ToolError::NotUnique {
        tool: "fs.edit".into(),
        matches: 3,
    });
    assert_eq!(code_found(&e), Some("NOT_UNIQUE"));
    assert!(has_code(&e, "NOT_UNIQUE"));
}

#[cfg(feature = "http")]
#[test]
fn the_http_status_error_is_found() {
    let e = io::Error::other(agent_error::http::StatusError::new(429));
    assert_eq!(code_found(&e), Some("rate_limit"));
    assert!(agent_error::is_retryable(&e));
}
