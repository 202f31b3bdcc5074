//! A field as public renderings show it: `#[redact]` fields as `[redacted]`, an error
//! field as its public form, never its own text.

use core::fmt;
use std::error::Error as StdError;

use super::forward::DynError;
use crate::AgentError;

/// Stands in for a `#[redact]` field in public renderings.
pub struct Redacted;

/// The text a redacted field shows in public renderings.
pub const REDACTED: &str = "[redacted]";

impl fmt::Display for Redacted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(REDACTED)
    }
}

/// Every formatting trait a field may be written with (`{key:x}`, `{key:?}`, …) writes
/// `[redacted]`, so that a redacted field compiles wherever its value did.
macro_rules! redacted_as {
    ($($trait:ident)*) => {$(
        impl fmt::$trait for Redacted {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.pad(REDACTED)
            }
        }
    )*};
}

redacted_as!(Debug LowerHex UpperHex Octal Binary LowerExp UpperExp Pointer);

/// A field written into a public message: an error field shows its public form (an
/// `AgentError`'s public message, a foreign error's classification text, else
/// `[redacted]`), never its own Display; any other value is itself. Generated code calls
/// `(&&PublicField(binding)).public_field()` with the traits in scope, which picks by autoref specialization as [`Forward`](super::Forward) does.
pub struct PublicField<'a, T: ?Sized>(pub &'a T);

impl<T: ?Sized> Clone for PublicField<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for PublicField<'_, T> {}

pub trait PublicTyped<'a> {
    fn public_field(&self) -> PublicText<'a>;
}

impl<'a, T: AgentError + 'a> PublicTyped<'a> for &PublicField<'a, T> {
    #[inline]
    fn public_field(&self) -> PublicText<'a> {
        PublicText::Typed(self.0)
    }
}

pub trait PublicForeign<'a> {
    fn public_field(&self) -> PublicText<'a>;
}

impl<'a, T: StdError + 'static> PublicForeign<'a> for &&PublicField<'a, T> {
    #[inline]
    fn public_field(&self) -> PublicText<'a> {
        PublicText::Foreign(self.0)
    }
}

pub trait PublicDeref<'a> {
    fn public_field(&self) -> PublicText<'a>;
}

impl<'a, T: ?Sized> PublicDeref<'a> for PublicField<'a, T>
where
    T: core::ops::Deref,
    T::Target: DynError,
{
    #[inline]
    fn public_field(&self) -> PublicText<'a> {
        PublicText::Foreign(DynError::as_dyn(&**self.0))
    }
}

pub trait PublicValue<'a, T: ?Sized> {
    fn public_field(self) -> &'a T;
}

impl<'a, T: ?Sized> PublicValue<'a, T> for PublicField<'a, T> {
    #[inline]
    fn public_field(self) -> &'a T {
        self.0
    }
}

/// The public form of an error field (see [`PublicField`]).
#[derive(Clone, Copy)]
pub enum PublicText<'a> {
    Typed(&'a (dyn AgentError + 'a)),
    Foreign(&'a (dyn StdError + 'static)),
}

impl fmt::Display for PublicText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PublicText::Typed(e) => e.fmt_public_message(f),
            PublicText::Foreign(e) => match crate::classify(e) {
                Some(c) => c.fmt_public_message(f),
                None => f.pad(REDACTED),
            },
        }
    }
}

impl fmt::Debug for PublicText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
