//! The fields generated code reads: a cause as `&dyn Error`, a `#[retry_after]` field, a
//! message written by the user's own function.

use core::fmt;
use std::error::Error as StdError;
use std::time::Duration;

/// Turns a cause field into `&dyn Error`, whether it is a concrete error or a boxed trait object.
#[diagnostic::on_unimplemented(
    message = "the cause `{Self}` is not an error",
    label = "a `#[source]` or `#[from]` field must implement `std::error::Error`",
    note = "mark another field as the cause, or wrap this value in an error type"
)]
pub trait AsDynError<'a> {
    fn as_dyn_error(&self) -> &(dyn StdError + 'a);
}

impl<'a, T: StdError + 'a> AsDynError<'a> for T {
    #[inline]
    fn as_dyn_error(&self) -> &(dyn StdError + 'a) {
        self
    }
}

impl<'a> AsDynError<'a> for dyn StdError + 'a {
    #[inline]
    fn as_dyn_error(&self) -> &(dyn StdError + 'a) {
        self
    }
}

impl<'a> AsDynError<'a> for dyn StdError + Send + 'a {
    #[inline]
    fn as_dyn_error(&self) -> &(dyn StdError + 'a) {
        self
    }
}

impl<'a> AsDynError<'a> for dyn StdError + Send + Sync + 'a {
    #[inline]
    fn as_dyn_error(&self) -> &(dyn StdError + 'a) {
        self
    }
}

/// Reads a `#[retry_after]` field: `Duration` or `Option<Duration>`.
pub trait RetryAfterField {
    fn retry_after(&self) -> Option<Duration>;
}

impl RetryAfterField for Duration {
    #[inline]
    fn retry_after(&self) -> Option<Duration> {
        Some(*self)
    }
}

impl RetryAfterField for Option<Duration> {
    #[inline]
    fn retry_after(&self) -> Option<Duration> {
        *self
    }
}

/// A message written by the user's function (`#[error(fmt = path)]`), as a format argument.
pub struct DisplayFn<F>(pub F);

impl<F: Fn(&mut fmt::Formatter<'_>) -> fmt::Result> fmt::Display for DisplayFn<F> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (self.0)(f)
    }
}
