//! The public view of an error on one line (its redacted message and hints), shared by
//! the renderings that cross a trust boundary (tool results, people, the wire, logs): the
//! one fold of text onto one line, and the caps on its length.

use std::fmt::{self, Write as _};

use crate::AgentError;

/// The most bytes of a summary (the public message on one line) that a public rendering
/// shows; a longer one is cut at a character boundary and ends with `…`.
pub const MAX_SUMMARY_BYTES: usize = 1024;

/// The most bytes of one hint that a public rendering shows; a longer one is cut at a
/// character boundary and ends with `…`.
pub const MAX_HINT_BYTES: usize = 256;

/// The most hints a public rendering shows; when an error has more, one more line reads
/// `…` in their place.
pub const MAX_HINTS: usize = 8;

/// What stands for text left out by a cap.
pub const ELLIPSIS: &str = "…";

/// The most bytes of a peer's identifier (a request id) that is kept: the providers' are
/// 20 to 60.
#[cfg(any(feature = "http", feature = "serde"))]
pub(crate) const MAX_ID_BYTES: usize = 128;

/// The largest index at most `index` that is a character boundary of `text` (its length
/// when `index` is past the end): `str::floor_char_boundary`, stable only from Rust 1.91.
pub(crate) fn floor_char_boundary(text: &str, index: usize) -> usize {
    if index >= text.len() {
        return text.len();
    }
    // 0 is always a boundary, and a character is at most 4 bytes: at most 3 steps back.
    (0..=index)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

/// A peer's identifier as kept: visible ASCII only (spaces, controls and anything else
/// dropped), at most [`MAX_ID_BYTES`] bytes; `None` when nothing is left. Read from response
/// headers (`http`) and from the wire (`serde`).
#[cfg(any(feature = "http", feature = "serde"))]
pub(crate) fn fold_id(value: &str) -> Option<String> {
    let id: String = value
        .chars()
        .filter(char::is_ascii_graphic)
        .take(MAX_ID_BYTES)
        .collect();
    (!id.is_empty()).then_some(id)
}

/// What the fold makes of `c`: a space for every line or paragraph break (`\n`, `\r`,
/// `\t`, VT, FF, FS, GS, RS, US, NEL, U+2028, U+2029), nothing for any other C0 or C1
/// control and for the bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E,
/// U+2066–U+2069), else `c` itself.
#[inline]
pub(crate) fn fold_char(c: char) -> Option<char> {
    match c {
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | '\u{1C}'..='\u{1F}' => Some(' '),
        '\u{85}' | '\u{2028}' | '\u{2029}' => Some(' '),
        '\0'..='\u{1F}' | '\u{7F}'..='\u{9F}' => None,
        '\u{061C}'
        | '\u{200E}'
        | '\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2066}'..='\u{2069}' => None,
        c => Some(c),
    }
}

/// Whether `byte` may start a character that [`fold_char`] changes: an ASCII control, or
/// the first byte of the UTF-8 form of a C1 control (`0xC2`), of U+061C (`0xD8`) or of the
/// breaks and bidirectional controls between U+2000 and U+2FFF (`0xE2`). Plain ASCII text
/// has none of them.
///
/// The tests are joined with `|`, not `||`: with `||` each byte is a chain of branches
/// that the compiler cannot turn into vector instructions (five times the instructions of
/// a `tool::render`'s fold).
#[inline(always)]
fn suspect(byte: u8) -> bool {
    (byte < 0x20) | (byte == 0x7F) | (byte == 0xC2) | (byte == 0xD8) | (byte == 0xE2)
}

/// The bytes [`find_suspect`] looks at together.
const LANES: usize = 16;

/// The index of the first byte in `bytes` that may start a character the fold changes.
/// Messages rarely hold one, so 16 bytes are looked at together (a loop the compiler turns
/// into vector instructions), and one by one only in a block that holds one. The last
/// bytes are looked at in a block that overlaps the one before.
fn find_suspect(bytes: &[u8]) -> Option<usize> {
    let Some(last) = bytes.last_chunk::<LANES>() else {
        return bytes.iter().position(|&b| suspect(b));
    };
    // `chunks_exact`, not `as_chunks` (Rust 1.88): each block is `LANES` bytes, so the
    // conversion to an array never fails and compiles to nothing.
    let blocks = bytes.chunks_exact(LANES);
    let rest = blocks.remainder();
    for (n, block) in blocks.enumerate() {
        if let Some(i) = suspect_in(block.try_into().expect("a block of LANES bytes")) {
            return Some(n * LANES + i);
        }
    }
    // No byte before this block is suspect: the first suspect byte in it is the first of all.
    if rest.is_empty() {
        None
    } else {
        suspect_in(last).map(|i| bytes.len() - LANES + i)
    }
}

/// The index of the first byte in `block` that [`suspect`] flags. One comparison a byte
/// first: a block of printable ASCII (no control, no DEL, no byte of a multi-byte
/// character) holds none, and only another block is looked at byte by byte.
#[inline(always)]
fn suspect_in(block: &[u8; LANES]) -> Option<usize> {
    if block
        .iter()
        .fold(false, |any, &b| any | (b.wrapping_sub(b' ') > b'~' - b' '))
    {
        block.iter().position(|&b| suspect(b))
    } else {
        None
    }
}

/// A writer that puts text on one line before it reaches `out`: the one fold of every
/// rendering that crosses a trust boundary (see [`fold_char`]), with a cap of `left` bytes
/// after which it writes [`ELLIPSIS`] once and drops the rest. It never fails on its own,
/// so a `Display` written through it never makes `to_string` panic.
pub(crate) struct OneLine<'a, W: fmt::Write + ?Sized> {
    out: &'a mut W,
    left: usize,
    cut: bool,
}

impl<'a, W: fmt::Write + ?Sized> OneLine<'a, W> {
    /// Folds what is written into `out`, keeping at most `cap` bytes of it.
    pub(crate) fn new(out: &'a mut W, cap: usize) -> Self {
        OneLine {
            out,
            left: cap,
            cut: false,
        }
    }

    /// Writes `piece`, which needs no fold, within the cap.
    #[inline]
    fn put(&mut self, piece: &str) -> fmt::Result {
        if piece.len() <= self.left {
            self.left -= piece.len();
            return self.out.write_str(piece);
        }
        let end = floor_char_boundary(piece, self.left);
        self.left = 0;
        self.cut = true;
        self.out.write_str(&piece[..end])?;
        self.out.write_str(ELLIPSIS)
    }
}

impl<W: fmt::Write + ?Sized> fmt::Write for OneLine<'_, W> {
    fn write_str(&mut self, mut rest: &str) -> fmt::Result {
        while !rest.is_empty() && !self.cut {
            let clean = find_suspect(rest.as_bytes()).unwrap_or(rest.len());
            if clean > 0 {
                self.put(&rest[..clean])?;
                rest = &rest[clean..];
                continue;
            }
            let Some(c) = rest.chars().next() else { break };
            rest = &rest[c.len_utf8()..];
            if let Some(kept) = fold_char(c) {
                self.put(kept.encode_utf8(&mut [0; 4]))?;
            }
        }
        Ok(())
    }
}

/// `text` folded onto one line, as every rendering that crosses a trust boundary folds it,
/// and cut after `cap` bytes with [`ELLIPSIS`]: line and paragraph breaks (`\n`, `\r`,
/// `\t`, VT, FF, FS, GS, RS, US, NEL, U+2028, U+2029) become spaces; every other C0 and C1
/// control and the bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E,
/// U+2066–U+2069) go.
///
/// ```
/// use agent_error::display;
///
/// assert_eq!(display::one_line("a\u{2028}b\u{1b}[31m\u{202e}c", 1024), "a b[31mc");
/// assert_eq!(display::one_line("abcdef", 3), "abc…");
/// ```
pub fn one_line(text: &str, cap: usize) -> String {
    let mut out = String::with_capacity(text.len().min(cap + ELLIPSIS.len()));
    let _ = OneLine::new(&mut out, cap).write_str(text);
    out
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

/// Drops the leading white space of what was written after `start`.
#[cold]
fn trim_start_from(out: &mut String, start: usize) {
    let written = &out[start..];
    let lead = written.len() - written.trim_start().len();
    out.replace_range(start..start + lead, "");
}

/// A writer into a `String` that keeps at most `left` bytes (cut at a character boundary)
/// and drops the rest: the cheap cap of [`push_folded`], which folds afterwards.
struct Capped<'a> {
    out: &'a mut String,
    left: usize,
    cut: bool,
}

impl fmt::Write for Capped<'_> {
    #[inline]
    fn write_str(&mut self, piece: &str) -> fmt::Result {
        if piece.len() <= self.left {
            self.left -= piece.len();
            self.out.push_str(piece);
        } else if !self.cut {
            self.out
                .push_str(&piece[..floor_char_boundary(piece, self.left)]);
            self.left = 0;
            self.cut = true;
        }
        Ok(())
    }
}

/// Folds what was written after `first` (a byte that [`suspect`] flags) as [`OneLine`]
/// does.
#[cold]
fn fold_tail(out: &mut String, first: usize) {
    let tail = out.split_off(first);
    out.extend(tail.chars().filter_map(fold_char));
}

/// Writes `text` into `out` folded onto one line (as [`OneLine`] folds) and capped at
/// `cap` bytes, then trims it: leading and trailing white space goes, and trailing
/// periods; a cut text ends with [`ELLIPSIS`]. The text is written straight into `out` and
/// looked at once, 16 bytes at a time: most messages need no change, and then nothing is
/// copied twice.
#[inline]
fn push_folded(out: &mut String, text: fmt::Arguments<'_>, cap: usize) {
    let start = out.len();
    let mut capped = Capped {
        out,
        left: cap,
        cut: false,
    };
    // Writing into a String cannot fail; a Display that fails leaves what it wrote.
    let _ = capped.write_fmt(text);
    let cut = capped.cut;
    if let Some(first) = find_suspect(&out.as_bytes()[start..]) {
        fold_tail(out, start + first);
    }
    if out.as_bytes().get(start).is_some_and(|&b| !solid(b)) {
        trim_start_from(out, start);
    }
    trim_end_from(out, start);
    if cut {
        out.push_str(ELLIPSIS);
    }
}

/// The message of `e` as [`AgentError::fmt_public_message`] writes it, unfolded.
struct Raw<'a>(&'a dyn AgentError);

impl fmt::Display for Raw<'_> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt_public_message(f)
    }
}

/// The summary: the public message on one line, at most [`MAX_SUMMARY_BYTES`], or the
/// code when that is empty.
pub(crate) fn push_summary(out: &mut String, e: &dyn AgentError) {
    let start = out.len();
    push_folded(out, format_args!("{}", Raw(e)), MAX_SUMMARY_BYTES);
    if out.len() == start {
        out.push_str(crate::core::codes::public_code(e.code()));
    }
}

/// Writes `prefix` and `hint` on one line, at most [`MAX_HINT_BYTES`] of it, or nothing
/// when the hint has nothing to say (empty, or only spaces and periods): the one rule for
/// hints in every rendering. Whether it wrote the hint.
pub(crate) fn push_hint(out: &mut String, prefix: &str, hint: fmt::Arguments<'_>) -> bool {
    let start = out.len();
    out.push_str(prefix);
    let before = out.len();
    push_folded(out, hint, MAX_HINT_BYTES);
    if out.len() == before {
        out.truncate(start);
        return false;
    }
    true
}

/// Writes the hints of `e` with [`push_hint`], each after `prefix`: at most [`MAX_HINTS`],
/// then one `prefix…` when there were more.
pub(crate) fn push_hints(out: &mut String, prefix: &str, e: &dyn AgentError) {
    let (mut shown, mut more) = (0, false);
    e.each_hint(&mut |hint| {
        if shown == MAX_HINTS {
            more = true;
        } else if push_hint(out, prefix, hint) {
            shown += 1;
        }
    });
    if more {
        out.push_str(prefix);
        out.push_str(ELLIPSIS);
    }
}

/// The hints of `e` as public renderings show them (see [`push_hints`]), one a `String`.
pub(crate) fn public_hints(e: &dyn AgentError) -> Vec<String> {
    let mut text = String::new();
    push_hints(&mut text, "\n", e);
    // Folded hints hold no newline: each one starts after one.
    text.split('\n').skip(1).map(str::to_owned).collect()
}

/// An error's public message as a `Display`: [`AgentError::fmt_public_message`], where
/// `#[redact]` fields read `[redacted]`, folded onto one line (line breaks become spaces;
/// control and bidirectional characters go) and cut after [`MAX_SUMMARY_BYTES`] with `…`.
/// It writes straight into the formatter.
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
        write!(OneLine::new(f, MAX_SUMMARY_BYTES), "{}", Raw(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blocks, their one-comparison filter and the overlapping last block find what a
    /// byte-by-byte search finds: every byte value at every place of texts up to 50 bytes,
    /// alone and after a multi-byte character that the filter flags but the fold keeps.
    #[test]
    fn find_suspect_is_the_first_suspect_byte() {
        for len in 0..50 {
            for at in 0..len {
                for byte in 0..=u8::MAX {
                    for lead in [None, Some(0xC3)] {
                        let mut text = vec![b'a'; len];
                        if let Some(lead) = lead.filter(|_| at > 0) {
                            text[at - 1] = lead;
                        }
                        text[at] = byte;
                        let expected = text.iter().position(|&b| suspect(b));
                        assert_eq!(find_suspect(&text), expected, "{text:?}");
                    }
                }
            }
        }
    }
}
