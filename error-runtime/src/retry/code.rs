//! A failure's code kept by value, for a run's streaks and the nested-retry mark: two codes
//! are compared byte for byte, never through a hash that two codes may share.

use std::fmt;

/// Bytes kept inline: every code the grammar allows (at most 64 ASCII bytes), so keeping
/// one allocates nothing.
const INLINE: usize = 64;

/// A copy of a failure's code.
#[derive(Clone)]
pub(crate) enum Code {
    /// A code of at most [`INLINE`] bytes: the first `len` bytes of `bytes`.
    Inline { len: u8, bytes: [u8; INLINE] },
    /// A longer code (outside the grammar, built at run time), kept whole.
    Long(Box<str>),
}

impl Code {
    /// A copy of `code`.
    #[inline]
    pub(crate) fn new(code: &str) -> Self {
        let code = code.as_bytes();
        match u8::try_from(code.len()) {
            Ok(len) if code.len() <= INLINE => {
                let mut bytes = [0; INLINE];
                bytes[..code.len()].copy_from_slice(code);
                Code::Inline { len, bytes }
            }
            _ => Code::Long(String::from_utf8_lossy(code).into()),
        }
    }

    /// Whether `code` is this code.
    #[inline]
    pub(crate) fn is(&self, code: &str) -> bool {
        self.as_bytes() == code.as_bytes()
    }

    fn as_bytes(&self) -> &[u8] {
        match self {
            Code::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Code::Long(code) => code.as_bytes(),
        }
    }
}

impl fmt::Debug for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&String::from_utf8_lossy(self.as_bytes()), f)
    }
}

#[cfg(test)]
mod tests {
    use super::Code;

    #[test]
    fn codes_are_told_apart_byte_for_byte_inline_and_beyond() {
        let short = Code::new("timeout");
        assert!(short.is("timeout"));
        assert!(!short.is("timeou") && !short.is("timeout2") && !short.is(""));
        let longest = "a".repeat(64);
        assert!(matches!(Code::new(&longest), Code::Inline { len: 64, .. }));
        assert!(Code::new(&longest).is(&longest));
        let long = format!("{longest}.x");
        let kept = Code::new(&long);
        assert!(matches!(kept, Code::Long(_)));
        assert!(kept.is(&long) && !kept.is(&longest) && !kept.is(&format!("{longest}.y")));
        assert!(Code::new("").is(""));
    }
}
