//! One head a line: an `AgentError` written after another error's message, or into it,
//! shows without its own `op [code]: ` head.

use core::fmt::{self, Write as _};

use crate::AgentError;

/// An [`AgentError`] displayed without its `op [code]: ` head: its message and, as its
/// Display writes it, its cause after the message.
pub struct WithoutHead<'a, T: ?Sized>(pub(crate) &'a T);

impl<'a> WithoutHead<'a, dyn AgentError + 'a> {
    /// A classified error displayed without its head: a cause that the runtime's types
    /// write after their message (one head a line).
    pub(crate) fn of(e: &'a (dyn AgentError + 'a)) -> Self {
        WithoutHead(e)
    }
}

impl<T: AgentError + ?Sized> fmt::Display for WithoutHead<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = self.0;
        let head = crate::core::agent::head_pieces(e.op(), e.code());
        if f.width().is_none() && f.precision().is_none() {
            let mut out = SkipHead::new(f, head);
            write!(out, "{e}")?;
            return out.finish();
        }
        // A width or precision is for the text as shown, so it is shown first.
        let mut text = String::new();
        let mut out = SkipHead::new(&mut text, head);
        write!(out, "{e}")?;
        out.finish()?;
        f.pad(&text)
    }
}

impl<T: AgentError + ?Sized> fmt::Debug for WithoutHead<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Writes through to `out` everything but a leading `head`: a Display that does not
/// start with the head (a transparent variant over a foreign error) is written whole.
pub(crate) struct SkipHead<'h, W> {
    out: W,
    head: [&'h str; 4],
    /// The head's text matched so far: the piece, and the bytes of it.
    piece: usize,
    at: usize,
    done: bool,
}

impl<'h, W: fmt::Write> SkipHead<'h, W> {
    pub(crate) fn new(out: W, head: [&'h str; 4]) -> Self {
        SkipHead {
            out,
            head,
            piece: 0,
            at: 0,
            done: false,
        }
    }

    /// Gives up skipping: writes what was held back of the head.
    fn give_up(&mut self) -> fmt::Result {
        self.done = true;
        for piece in &self.head[..self.piece] {
            self.out.write_str(piece)?;
        }
        self.out.write_str(&self.head[self.piece][..self.at])
    }

    /// Ends the text: a Display shorter than the head is written as it was.
    pub(crate) fn finish(mut self) -> fmt::Result {
        if self.done {
            return Ok(());
        }
        self.give_up()
    }
}

impl<W: fmt::Write> fmt::Write for SkipHead<'_, W> {
    fn write_str(&mut self, mut s: &str) -> fmt::Result {
        while !self.done && !s.is_empty() {
            if self.piece == self.head.len() {
                self.done = true;
                break;
            }
            let rest = &self.head[self.piece][self.at..];
            let n = rest.len().min(s.len());
            if rest.as_bytes()[..n] != s.as_bytes()[..n] {
                self.give_up()?;
                break;
            }
            self.at += n;
            s = &s[n..];
            if self.at == self.head[self.piece].len() {
                self.piece += 1;
                self.at = 0;
                if self.piece == self.head.len() {
                    self.done = true;
                }
            }
        }
        if self.done {
            self.out.write_str(s)
        } else {
            Ok(())
        }
    }
}
