//! The public view of an error on one line (its redacted message and hints), shared by
//! the renderings that cross a trust boundary (tool results, people, the wire).

use std::fmt::{self, Write as _};

use crate::AgentError;

/// A writer that puts text on one line as it comes: leading white space is skipped (when
/// asked), newlines, carriage returns and tabs become spaces. The caller trims the end.
struct OneLine<'a> {
    out: &'a mut String,
    /// Whether leading white space is still being skipped.
    skipping: bool,
}

impl fmt::Write for OneLine<'_> {
    fn write_str(&mut self, mut text: &str) -> fmt::Result {
        if self.skipping {
            text = text.trim_start();
            if text.is_empty() {
                return Ok(());
            }
            self.skipping = false;
        }
        // The folded characters are ASCII, so splitting at them keeps every char whole.
        let mut pieces = text.split(['\n', '\r', '\t']);
        if let Some(first) = pieces.next() {
            self.out.push_str(first);
        }
        for piece in pieces {
            self.out.push(' ');
            self.out.push_str(piece);
        }
        Ok(())
    }
}

/// Drops the trailing white space and periods of what was written after `start`.
fn trim_end_from(out: &mut String, start: usize) {
    let kept = out[start..]
        .trim_end_matches(|c: char| c == '.' || c.is_whitespace())
        .len();
    out.truncate(start + kept);
}

/// Writes `text` on one line: newlines, carriage returns and tabs become spaces, and
/// trailing white space and periods go.
pub(crate) fn push_one_line(out: &mut String, text: &str) {
    let start = out.len();
    let _ = OneLine {
        out,
        skipping: false,
    }
    .write_str(text);
    trim_end_from(out, start);
}

/// The summary: the public message on one line, or the code when that is empty. The message
/// is written straight into `out`, folded as it comes.
pub(crate) fn push_summary(out: &mut String, e: &dyn AgentError) {
    let start = out.len();
    // Writing into a String cannot fail; an error's Display that fails leaves what it wrote.
    let _ = write!(
        OneLine {
            out,
            skipping: true,
        },
        "{}",
        public(e)
    );
    trim_end_from(out, start);
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
