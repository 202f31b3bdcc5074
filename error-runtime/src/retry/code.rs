//! A failure's code kept by value, for a run's streaks: two codes are compared byte for
//! byte, never through a hash that two codes may share.

use std::fmt;

/// Bytes kept inline: every code the grammar allows (at most 64 ASCII bytes), so keeping
/// one allocates nothing.
const INLINE: usize = 64;

/// `len` of a slot that holds no code.
const EMPTY: u8 = u8::MAX;

/// `len` of a slot whose code is longer than [`INLINE`] bytes, kept in `long`.
const LONG: u8 = u8::MAX - 1;

/// A slot for the last failure's code, written in place: keeping a code copies its bytes
/// once, and moves no 64-byte array around.
pub(crate) struct CodeSlot {
    /// The code's length when it is inline; [`EMPTY`] or [`LONG`] otherwise.
    len: u8,
    bytes: [u8; INLINE],
    /// A code outside the grammar (built at run time) longer than [`INLINE`], kept whole.
    long: Option<Box<str>>,
}

impl CodeSlot {
    /// A slot that holds no code.
    pub(crate) const fn new() -> Self {
        CodeSlot {
            len: EMPTY,
            bytes: [0; INLINE],
            long: None,
        }
    }

    /// Whether the slot holds `code`.
    #[inline]
    pub(crate) fn is(&self, code: &str) -> bool {
        match self.len {
            EMPTY => false,
            LONG => self.long.as_deref() == Some(code),
            len => same(&self.bytes[..usize::from(len)], code.as_bytes()),
        }
    }

    /// Keeps `code`, in place of what the slot held.
    #[inline]
    pub(crate) fn set(&mut self, code: &str) {
        match u8::try_from(code.len()) {
            Ok(len) if code.len() <= INLINE => {
                self.bytes[..code.len()].copy_from_slice(code.as_bytes());
                self.len = len;
            }
            _ => {
                self.long = Some(code.into());
                self.len = LONG;
            }
        }
    }

    /// The code held, if any.
    pub(crate) fn get(&self) -> Option<&str> {
        match self.len {
            EMPTY => None,
            LONG => self.long.as_deref(),
            // Whole `str`s were copied in: the bytes are UTF-8.
            len => std::str::from_utf8(&self.bytes[..usize::from(len)]).ok(),
        }
    }
}

/// Whether two codes are the same bytes: those of up to 32 bytes (nearly all) by a few
/// overlapping word loads, without a call to `memcmp`.
#[inline]
fn same(kept: &[u8], code: &[u8]) -> bool {
    let n = kept.len();
    if n != code.len() {
        return false;
    }
    // The word of `N` bytes at `at` (within both: `at + N <= n`).
    fn word<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
        bytes
            .get(at..at + N)
            .and_then(|w| w.try_into().ok())
            .unwrap_or([0; N])
    }
    let words = |at: usize| word::<8>(kept, at) == word::<8>(code, at);
    match n {
        0..4 => kept == code,
        4..8 => {
            word::<4>(kept, 0) == word::<4>(code, 0)
                && word::<4>(kept, n - 4) == word::<4>(code, n - 4)
        }
        8..=16 => words(0) && words(n - 8),
        17..=32 => words(0) && words(8) && words(n - 16) && words(n - 8),
        _ => kept == code,
    }
}

impl fmt::Debug for CodeSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.get(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::CodeSlot;

    fn holding(code: &str) -> CodeSlot {
        let mut slot = CodeSlot::new();
        slot.set(code);
        slot
    }

    #[test]
    fn codes_are_told_apart_byte_for_byte_inline_and_beyond() {
        assert!(!CodeSlot::new().is("") && CodeSlot::new().get().is_none());
        let short = holding("timeout");
        assert!(short.is("timeout"));
        assert!(!short.is("timeou") && !short.is("timeout2") && !short.is(""));
        let longest = "a".repeat(64);
        assert_eq!(holding(&longest).get(), Some(&*longest));
        assert!(holding(&longest).is(&longest));
        let long = format!("{longest}.x");
        let kept = holding(&long);
        assert_eq!(kept.get(), Some(&*long));
        assert!(kept.is(&long) && !kept.is(&longest) && !kept.is(&format!("{longest}.y")));
        assert!(holding("").is("") && !holding("").is("x"));
    }

    #[test]
    fn codes_of_every_length_differing_anywhere_are_told_apart() {
        for len in 0..=70 {
            let code: String = (0..len)
                .map(|i| char::from(b'a' + (i % 26) as u8))
                .collect();
            let slot = holding(&code);
            assert!(slot.is(&code), "{len}");
            for at in 0..len {
                let mut other = code.clone().into_bytes();
                other[at] = b'_';
                let other = String::from_utf8(other).unwrap();
                assert!(!slot.is(&other), "{len} {at}");
            }
            assert!(
                !slot.is(&format!("{code}a")) && !slot.is(&code[..len.saturating_sub(1)])
                    || len == 0
            );
        }
    }

    #[test]
    fn a_slot_written_again_holds_only_the_new_code() {
        let mut slot = holding(&"b".repeat(80));
        slot.set("rate_limit");
        assert!(slot.is("rate_limit") && slot.get() == Some("rate_limit"));
        slot.set("timeout");
        assert!(slot.is("timeout") && !slot.is("timeoutlimit") && !slot.is("rate_limit"));
    }
}
