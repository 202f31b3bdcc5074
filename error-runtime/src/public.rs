//! The public view of an error on one line (its redacted message and hints), shared by
//! the renderings that cross a trust boundary (tool results, people, the wire).

use std::fmt::{self, Write as _};

use crate::AgentError;

/// Writes `text` on one line: newlines, carriage returns and tabs become spaces, and
/// trailing white space and periods go.
pub(crate) fn push_one_line(out: &mut String, text: &str) {
    let start = out.len();
    out.extend(text.chars().map(|c| {
        if matches!(c, '\n' | '\r' | '\t') {
            ' '
        } else {
            c
        }
    }));
    let kept = out[start..]
        .trim_end_matches(|c: char| c == '.' || c.is_whitespace())
        .len();
    out.truncate(start + kept);
}

/// The summary: the public message on one line, or the code when that is empty.
pub(crate) fn push_summary(out: &mut String, e: &dyn AgentError) {
    let mut message = String::new();
    // Writing into a String cannot fail.
    let _ = write!(message, "{}", public(e));
    let start = out.len();
    push_one_line(out, message.trim_start());
    if out.len() == start {
        out.push_str(crate::codes::public_code(e.code()));
    }
}

/// Writes `prefix` and `hint` on one line, or nothing when the hint has nothing to say
/// (empty, or only spaces and periods): the one rule for hints in every rendering.
pub(crate) fn push_hint(out: &mut String, prefix: &str, hint: &str) {
    let start = out.len();
    out.push_str(prefix);
    let before = out.len();
    push_one_line(out, hint.trim());
    if out.len() == before {
        out.truncate(start);
    }
}

/// An error's public message as a `Display`: [`AgentError::fmt_public_message`], where
/// `#[redact]` fields read `[redacted]`. It writes straight into the formatter.
///
/// ```
/// use agent_error::{display, AgentError};
///
/// #[derive(Debug, AgentError)]
/// #[agent(op = "llm.generate", code = "auth_error")]
/// #[error("key {key} rejected")]
/// struct KeyRejected { #[redact] key: String }
///
/// let e = KeyRejected { key: "sk-live-123".into() };
/// assert_eq!(display::public(&e).to_string(), "key [redacted] rejected");
/// ```
pub fn public(e: &dyn AgentError) -> Public<'_> {
    Public(e)
}

/// The Display of an error's public message, returned by [`public`].
#[derive(Clone, Copy)]
pub struct Public<'a>(&'a dyn AgentError);

impl fmt::Debug for Public<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Public<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt_public_message(f)
    }
}
