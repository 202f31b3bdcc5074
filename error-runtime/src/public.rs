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
            text = trim_start(text);
            if text.is_empty() {
                return Ok(());
            }
            self.skipping = false;
        }
        // The folded characters are ASCII, so cutting at them keeps every char whole.
        while let Some(i) = find_folded(text.as_bytes()) {
            self.out.push_str(&text[..i]);
            self.out.push(' ');
            text = &text[i + 1..];
        }
        self.out.push_str(text);
        Ok(())
    }
}

/// Whether `byte` is one of the characters that [`OneLine`] folds into a space.
fn is_folded(byte: &u8) -> bool {
    matches!(byte, b'\n' | b'\r' | b'\t')
}

/// The index of the first newline, carriage return or tab in `bytes`. Messages rarely hold
/// one, so eight bytes are looked at together, and one by one only when a byte of the eight
/// is below 14 (the three are 9, 10 and 13).
fn find_folded(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGH_BITS: u64 = ONES * 0x80;
    let mut words = bytes.chunks_exact(8);
    let mut start = 0;
    for chunk in &mut words {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_ne_bytes(word);
        // A byte below 14 borrows through its high bit, which it did not have set.
        if word.wrapping_sub(ONES * 14) & !word & HIGH_BITS != 0
            && let Some(i) = chunk.iter().position(is_folded)
        {
            return Some(start + i);
        }
        start += 8;
    }
    words
        .remainder()
        .iter()
        .position(is_folded)
        .map(|i| start + i)
}

/// Drops the trailing white space and periods of what was written after `start`.
fn trim_end_from(out: &mut String, start: usize) {
    if out.len() > start
        && out
            .as_bytes()
            .last()
            .is_some_and(|&b| solid(b) && b != b'.')
    {
        return;
    }
    let kept = out[start..]
        .trim_end_matches(|c: char| c == '.' || c.is_whitespace())
        .len();
    out.truncate(start + kept);
}

/// Whether `byte` is an ASCII character other than white space: text that starts or ends
/// with one has nothing to trim there. A byte of a multi-byte char is not one, and sends
/// the text to `str`'s own trimming (which knows Unicode's white space).
fn solid(byte: u8) -> bool {
    byte.is_ascii() && !char::from(byte).is_whitespace()
}

/// `text.trim_start()`, without decoding a char when the first is plain ASCII.
fn trim_start(text: &str) -> &str {
    match text.as_bytes().first() {
        Some(&b) if solid(b) => text,
        _ => text.trim_start(),
    }
}

/// `text.trim_end()`, without decoding a char when the last is plain ASCII.
fn trim_end(text: &str) -> &str {
    match text.as_bytes().last() {
        Some(&b) if solid(b) => text,
        _ => text.trim_end(),
    }
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
    push_one_line(out, trim_start(trim_end(hint)));
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
