//! The public view of an error: its redacted message on one line, and its hints.
//! Shared by the renderings that cross a trust boundary (tool results, people, the wire).

use std::fmt::{self, Write as _};

use crate::AgentError;

/// Displays an error's public message (`fmt_public_message`).
pub(crate) struct PublicMessage<'a>(pub &'a dyn AgentError);

impl fmt::Display for PublicMessage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt_public_message(f)
    }
}

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
    let _ = write!(message, "{}", PublicMessage(e));
    let start = out.len();
    push_one_line(out, message.trim_start());
    if out.len() == start {
        out.push_str(e.code());
    }
}
