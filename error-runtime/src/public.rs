//! The public view of an error on one line (its redacted message and hints), shared by
//! the renderings that cross a trust boundary (tool results, people, the wire).

use std::fmt::Write as _;

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
    let _ = write!(message, "{}", crate::display::public(e));
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
