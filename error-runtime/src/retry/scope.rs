//! Nested retries that do not multiply: each attempt of a [`Retrier`](super::Retrier) run is a
//! scope, and a run nested in one that gives up on an error leaves a mark on it: the code it
//! gave up on, as a [`code_mark`].

use std::cell::Cell;
use std::num::NonZeroU64;

/// The code a nested run gave up on, as [`code_mark`] gives it: runs compare codes, they
/// never show them. Never zero, so that an `Option<Mark>` is one word.
pub(crate) type Mark = NonZeroU64;

/// `code` as a [`Mark`] (FNV-1a): equal codes give equal marks, and the few codes of a run
/// give different ones.
pub(crate) fn code_mark(code: &str) -> Mark {
    let hash = code.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    NonZeroU64::new(hash).unwrap_or(NonZeroU64::MIN)
}

thread_local! {
    /// How many retrier attempts enclose the code running on this thread.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// The mark that a run nested in the current attempt left, if one gave up.
    static GAVE_UP: Cell<Option<Mark>> = const { Cell::new(None) };
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
        AttemptScope {
            saved: GAVE_UP.with(Cell::take),
        }
    }

    /// The mark a nested run left during this scope, if one gave up.
    #[inline]
    pub(crate) fn take_mark(&self) -> Option<Mark> {
        GAVE_UP.with(Cell::take)
    }
}

impl Drop for AttemptScope {
    #[inline]
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
        GAVE_UP.with(|g| g.set(self.saved));
    }
}

/// Records that a run gave up on an error whose code has the mark `code`, when the run is
/// nested in another run's attempt on this thread; a top-level run leaves nothing behind.
pub(crate) fn gave_up(code: Option<Mark>) {
    if DEPTH.with(Cell::get) > 0 && code.is_some() {
        GAVE_UP.with(|g| g.set(code));
    }
}
