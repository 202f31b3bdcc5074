//! Support for the code that `#[derive(AgentError)]` generates. Not a public API:
//! it changes with the derive, which is pinned to this crate's exact version.

use core::fmt;
use std::error::Error as StdError;
use std::time::Duration;

pub use crate::registry::Registration;
#[cfg(feature = "registry")]
pub use inventory;

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

/// Stands in for a `#[redact]` field in public renderings.
pub struct Redacted;

/// The text a redacted field shows in public renderings.
pub const REDACTED: &str = "[redacted]";

impl fmt::Display for Redacted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(REDACTED)
    }
}

impl fmt::Debug for Redacted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(REDACTED)
    }
}

/// Writes a cause after a message: `": {cause}"`. The caller's width and precision
/// are not passed on: they were meant for the whole error, not for its cause.
#[inline]
pub fn write_cause(f: &mut fmt::Formatter<'_>, cause: &dyn StdError) -> fmt::Result {
    write!(f, ": {cause}")
}

#[cfg(feature = "registry")]
#[doc(hidden)]
#[macro_export]
macro_rules! __register_type {
    ($ty:ty) => {
        $crate::__private::inventory::submit! {
            $crate::__private::Registration::of::<$ty>()
        }
    };
}

#[cfg(not(feature = "registry"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __register_type {
    ($ty:ty) => {};
}

pub use crate::__register_type as register_type;

/// The message of `error!`: borrowed when the format string has no arguments.
pub fn format_message(args: fmt::Arguments<'_>) -> std::borrow::Cow<'static, str> {
    match args.as_str() {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(std::fmt::format(args)),
    }
}

/// A derived catalog entry without a status, URL or lifecycle (derived code adds those
/// with `CodeDoc::with_*` where the variant has them): fewer arguments a variant make a
/// large enum compile faster.
#[allow(clippy::too_many_arguments)]
pub const fn entry(
    code: &'static str,
    op: Option<&'static str>,
    type_name: &'static str,
    variant: &'static str,
    message: &'static str,
    docs: &'static str,
    hints: &'static [&'static str],
    recovery: crate::Recovery,
    policy: crate::RetryPolicy,
) -> crate::catalog::CodeDoc {
    code_doc(
        code, op, type_name, variant, message, docs, hints, recovery, policy, None, None, None,
        None,
    )
}

/// A catalog entry, built at compile time by derived code.
#[allow(clippy::too_many_arguments)]
pub const fn code_doc(
    code: &'static str,
    op: Option<&'static str>,
    type_name: &'static str,
    variant: &'static str,
    message: &'static str,
    docs: &'static str,
    hints: &'static [&'static str],
    recovery: crate::Recovery,
    policy: crate::RetryPolicy,
    status: Option<u16>,
    url: Option<&'static str>,
    since: Option<&'static str>,
    deprecated: Option<&'static str>,
) -> crate::catalog::CodeDoc {
    crate::catalog::CodeDoc {
        code,
        op,
        type_name,
        variant,
        message,
        docs,
        hints,
        retryable: policy.is_retryable(),
        rate_limited: policy.is_rate_limited(),
        recovery,
        policy,
        status,
        url,
        since,
        deprecated,
    }
}
