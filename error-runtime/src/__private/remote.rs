//! A classification read back from another protocol's error, for the integrations that
//! read one (an MCP tool result, a gRPC status).

use crate::Report;
use crate::core::summary::{ELLIPSIS, MAX_HINT_BYTES, MAX_HINTS, MAX_SUMMARY_BYTES, one_line};
pub use crate::report::Remote;

/// The report of `remote`, checked like a report read from the wire. Another service's
/// text is untrusted input: the message and each hint are folded onto one line and capped
/// as every public rendering caps them ([`MAX_SUMMARY_BYTES`], [`MAX_HINT_BYTES`]), and at
/// most [`MAX_HINTS`] hints are kept, then one `…`.
pub fn remote_report(mut remote: Remote) -> Report {
    remote.message = one_line(&remote.message, MAX_SUMMARY_BYTES);
    remote.hints = bounded_hints(remote.hints.iter().map(String::as_str));
    Report::from_remote(remote)
}

/// Hints read from another service, folded, capped, at most [`MAX_HINTS`] then `…`; empty
/// ones dropped. Reads no more of `hints` than it keeps.
pub fn bounded_hints<'a>(hints: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut out = Vec::new();
    for hint in hints {
        if out.len() == MAX_HINTS {
            out.push(ELLIPSIS.to_owned());
            break;
        }
        let hint = one_line(hint, MAX_HINT_BYTES);
        let hint = hint.trim();
        if !hint.is_empty() {
            out.push(hint.to_owned());
        }
    }
    out
}
