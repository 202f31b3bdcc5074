//! A derived variant's message written from its Display: for a variant whose Display is
//! `op [code]: message` and nothing else, the derive writes the format string once.

use core::fmt::{self, Write as _};

use crate::AgentError;
use crate::core::head::SkipHead;

/// Writes `e`'s message as its Display writes it, without the `op [code]: ` head: the
/// derived `fmt_message` of a variant that shows no cause and no `#[redact]` field. The
/// text goes straight to `f`, with no buffer.
pub fn message_from_display<E: AgentError + ?Sized>(
    e: &E,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    let mut out = SkipHead::new(f, crate::core::agent::head_pieces(e.op(), e.code()));
    write!(out, "{e}")?;
    out.finish()
}
