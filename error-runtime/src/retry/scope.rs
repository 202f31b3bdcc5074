//! Nested retries that do not multiply: each attempt of a [`Retrier`](super::Retrier) run is a
//! scope, and a run nested in one that gives up on an error leaves a mark on it.

use std::cell::Cell;

/// The code a nested run gave up on. Boxed: an attempt moves one pointer in and out, and
/// only a give-up inside a nested run (once, at its end) allocates.
pub(crate) type Mark = Box<str>;

thread_local! {
    /// How many retrier attempts enclose the code running on this thread.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// The code of the error that a retrier nested in the current attempt gave up on.
    static GAVE_UP: Cell<Option<Mark>> = const { Cell::new(None) };
    /// Whether `GAVE_UP` holds a code: read first, so that an attempt with no mark (nearly
    /// all of them) moves no code in or out.
    static MARKED: Cell<bool> = const { Cell::new(false) };
}

/// The mark of the current attempt, taken (none is left).
#[inline]
fn take() -> Option<Mark> {
    if MARKED.with(|m| m.replace(false)) {
        GAVE_UP.with(Cell::take)
    } else {
        None
    }
}

/// Sets the mark of the current attempt.
#[inline]
fn set(code: Option<Mark>) {
    if code.is_some() || MARKED.with(Cell::get) {
        MARKED.with(|m| m.set(code.is_some()));
        GAVE_UP.with(|g| g.set(code));
    }
}

/// One attempt of a run, or one poll of an async attempt: a retrier run that ends inside it
/// giving up marks it ([`gave_up`]). Leaving (dropping, a panic included) restores the
/// enclosing attempt's mark, so scopes nest like the calls and polls that make them.
pub(crate) struct AttemptScope {
    saved: Option<Mark>,
}

impl AttemptScope {
    #[inline]
    pub(crate) fn enter() -> Self {
        DEPTH.with(|d| d.set(d.get() + 1));
        AttemptScope { saved: take() }
    }

    /// The code a nested run gave up on during this scope, if one did. Taken: leaving the
    /// scope restores the enclosing attempt's mark anyway.
    #[inline]
    pub(crate) fn take_mark(&self) -> Option<Mark> {
        take()
    }
}

impl Drop for AttemptScope {
    #[inline]
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
        // Nearly always: no enclosing mark to restore, and none left by this attempt.
        if self.saved.is_some() || MARKED.with(Cell::get) {
            restore(self.saved.take());
        }
    }
}

/// Puts back the enclosing attempt's mark (or clears the slot): out of line, as it is rare.
#[cold]
#[inline(never)]
fn restore(saved: Option<Mark>) {
    set(saved);
}

/// Records that a run gave up on an error of the code `code()`, when the run is nested in
/// another run's attempt on this thread; a top-level run leaves nothing behind, and does
/// not read its code.
pub(crate) fn gave_up<'c>(code: impl FnOnce() -> Option<&'c str>) {
    if DEPTH.with(Cell::get) > 0
        && let Some(code) = code()
    {
        set(Some(code.into()));
    }
}
