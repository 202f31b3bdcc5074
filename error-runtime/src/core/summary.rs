//! The public view of an error on one line (its redacted message and hints), shared by
//! the renderings that cross a trust boundary (tool results, people, the wire).

use std::fmt::{self, Write as _};

use crate::AgentError;

/// Whether `byte` is one of the characters that [`fold_from`] turns into a space.
fn is_folded(byte: &u8) -> bool {
    matches!(byte, b'\n' | b'\r' | b'\t')
}

/// The index of the first newline, carriage return or tab in `bytes`. Messages rarely hold
/// one, so 16 bytes are looked at together (a loop the compiler turns into vector
/// instructions), and one by one only when a byte of the 16 is below 14 (the three are 9,
/// 10 and 13). The last bytes are looked at in a block that overlaps the one before.
fn find_folded(bytes: &[u8]) -> Option<usize> {
    let Some(last) = bytes.last_chunk::<LANES>() else {
        return bytes.iter().position(is_folded);
    };
    let (blocks, rest) = bytes.as_chunks::<LANES>();
    for (n, block) in blocks.iter().enumerate() {
        if let Some(i) = folded_in(block) {
            return Some(n * LANES + i);
        }
    }
    // No byte before this block is folded: the first folded byte in it is the first of all.
    if rest.is_empty() {
        None
    } else {
        folded_in(last).map(|i| bytes.len() - LANES + i)
    }
}

/// The bytes [`find_folded`] looks at together.
const LANES: usize = 16;

/// The index of the first newline, carriage return or tab in `block`.
#[inline(always)]
fn folded_in(block: &[u8; LANES]) -> Option<usize> {
    if block.iter().fold(false, |low, &b| low | (b < 14)) {
        block.iter().position(is_folded)
    } else {
        None
    }
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

/// Puts what was written after `start` on one line: leading and trailing white space goes,
/// and trailing periods; newlines, carriage returns and tabs become spaces.
///
/// The text is written first and looked at once, 16 bytes at a time: most messages need no
/// change, and then nothing is copied twice.
#[inline]
fn fold_from(out: &mut String, start: usize) {
    if out.as_bytes().get(start).is_some_and(|&b| !solid(b)) {
        trim_start_from(out, start);
    }
    if let Some(first) = find_folded(&out.as_bytes()[start..]) {
        fold_at(out, start + first);
    }
    trim_end_from(out, start);
}

/// Drops the leading white space of what was written after `start`.
#[cold]
fn trim_start_from(out: &mut String, start: usize) {
    let written = &out[start..];
    let lead = written.len() - written.trim_start().len();
    out.replace_range(start..start + lead, "");
}

/// Turns every newline, carriage return and tab from `first` on (the first of them) into a
/// space.
#[cold]
fn fold_at(out: &mut String, first: usize) {
    // The folded characters are ASCII, so cutting at them keeps every char whole.
    let tail = out.split_off(first);
    let mut pieces = tail.split(['\n', '\r', '\t']);
    out.push_str(pieces.next().unwrap_or_default());
    for piece in pieces {
        out.push(' ');
        out.push_str(piece);
    }
}

/// The summary: the public message on one line, or the code when that is empty. The message
/// is written straight into `out`, then folded there.
pub(crate) fn push_summary(out: &mut String, e: &dyn AgentError) {
    let start = out.len();
    // Writing into a String cannot fail; an error's Display that fails leaves what it wrote.
    let _ = write!(out, "{}", public(e));
    fold_from(out, start);
    if out.len() == start {
        out.push_str(crate::core::codes::public_code(e.code()));
    }
}

/// Writes `prefix` and `hint` on one line, or nothing when the hint has nothing to say
/// (empty, or only spaces and periods): the one rule for hints in every rendering.
pub(crate) fn push_hint(out: &mut String, prefix: &str, hint: fmt::Arguments<'_>) {
    let start = out.len();
    out.push_str(prefix);
    let before = out.len();
    // Writing into a String cannot fail; a hint's Display that fails leaves what it wrote.
    let _ = out.write_fmt(hint);
    fold_from(out, before);
    if out.len() == before {
        out.truncate(start);
    }
}

/// Writes every hint of `e` with [`push_hint`], each after `prefix`.
pub(crate) fn push_hints(out: &mut String, prefix: &str, e: &dyn AgentError) {
    e.each_hint(&mut |hint| push_hint(out, prefix, hint));
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
