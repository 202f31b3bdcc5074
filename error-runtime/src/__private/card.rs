//! The Display of a derived variant that has nothing of its own to show beyond its message:
//! one helper for them all, so that each such variant costs no arm in the user's crate.

use std::fmt;

use crate::AgentError;

/// Writes `op [code]: message`, the message as [`AgentError::fmt_redacted_message`] writes
/// it: the derived `Display` of a variant with a fixed op and no cause to append.
#[inline]
pub fn card<E: AgentError + ?Sized>(e: &E, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    crate::core::agent::write_head(f, e.op(), e.code())?;
    e.fmt_redacted_message(f)
}
