//! What a derived variant takes from its cause: the classification of a variant that says
//! nothing about retrying, and a derived cause written into a message without its head.

use core::fmt;
use std::borrow::Cow;
use std::error::Error as StdError;
use std::time::Duration;

use super::forward::Forwarded;
pub use crate::core::head::WithoutHead;
use crate::{AgentError, Recovery, RetryPolicy};

/// The retry policy of a variant that takes it from its cause (`Error::source`): the
/// cause's classification (`classify`: the first classified link of its chain), with its
/// `retry_after`; never retried when nothing classifies the cause. Each `cause_*` reads the
/// cause as a transparent variant reads its foreign field ([`Forwarded`]).
pub fn cause_policy(cause: Option<&(dyn StdError + 'static)>) -> RetryPolicy {
    cause.map_or(RetryPolicy::NEVER, |c| Forwarded(c).retry_policy())
}

/// Whether the cause's classification is retried (see [`cause_policy`]).
pub fn cause_is_retryable(cause: Option<&(dyn StdError + 'static)>) -> bool {
    cause.is_some_and(|c| Forwarded(c).is_retryable())
}

/// Whether the cause's classification is a rate limit (see [`cause_policy`]).
pub fn cause_is_rate_limited(cause: Option<&(dyn StdError + 'static)>) -> bool {
    cause.is_some_and(|c| Forwarded(c).is_rate_limited())
}

/// The delay the cause's classification asks for (see [`cause_policy`]).
pub fn cause_retry_after(cause: Option<&(dyn StdError + 'static)>) -> Option<Duration> {
    cause.and_then(|c| Forwarded(c).retry_after())
}

/// The cause's recovery, or `Abort` when nothing classifies it (see [`cause_policy`]).
pub fn cause_recovery(cause: Option<&(dyn StdError + 'static)>) -> Recovery {
    cause.map_or(Recovery::Abort, |c| Forwarded(c).recovery())
}

/// The cause's hints, for a variant that declares none (see [`cause_policy`]).
pub fn cause_hints(cause: Option<&(dyn StdError + 'static)>) -> Vec<Cow<'static, str>> {
    cause.map_or_else(Vec::new, |c| Forwarded(c).hints())
}

/// Hands each of the cause's hints to `each`, without a `Vec` (see [`cause_hints`]).
pub fn cause_each_hint(
    cause: Option<&(dyn StdError + 'static)>,
    each: &mut dyn FnMut(fmt::Arguments<'_>),
) {
    if let Some(c) = cause {
        Forwarded(c).each_hint(each);
    }
}

/// The cause's HTTP status, for a variant that declares none (see [`cause_policy`]).
pub fn cause_status(cause: Option<&(dyn StdError + 'static)>) -> Option<u16> {
    cause.and_then(|c| Forwarded(c).status())
}

/// A field written into a message with `{field}`. Generated code calls
/// `(&&HeadFree(binding)).head_free()` with the traits in scope, which picks by autoref specialization (as `PublicField` does):
/// an [`AgentError`] field, or a `Box`, `Arc`, `Rc` or reference to one, displays as
/// [`WithoutHead`], its Display after the `op [code]: ` head, so that nested derived errors
/// show one head; any other value (a foreign error, a number, a type parameter) is itself.
pub struct HeadFree<'a, T: ?Sized>(pub &'a T);

impl<T: ?Sized> Clone for HeadFree<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for HeadFree<'_, T> {}

/// [`HeadFree`] of an [`AgentError`] field.
pub trait HeadFreeTyped<'a, T> {
    /// The field without its head.
    fn head_free(&self) -> WithoutHead<'a, T>;
}

impl<'a, T: AgentError> HeadFreeTyped<'a, T> for &HeadFree<'a, T> {
    #[inline]
    fn head_free(&self) -> WithoutHead<'a, T> {
        WithoutHead(self.0)
    }
}

/// [`HeadFree`] of a pointer to an [`AgentError`] (`Box`, `Arc`, `Rc`, a reference): what
/// it points to, without its head, as [`HeadFreeTyped`] shows a field that is one.
pub trait HeadFreePointer<'a, T: ?Sized> {
    /// The pointee without its head.
    fn head_free(&self) -> WithoutHead<'a, T>;
}

impl<'a, P, T> HeadFreePointer<'a, T> for HeadFree<'a, P>
where
    P: std::ops::Deref<Target = T> + ?Sized,
    T: AgentError + ?Sized,
{
    #[inline]
    fn head_free(&self) -> WithoutHead<'a, T> {
        WithoutHead(&**self.0)
    }
}

/// [`HeadFree`] of any other value: the value itself.
pub trait HeadFreeValue<'a, T: ?Sized> {
    /// The field itself.
    fn head_free(self) -> &'a T;
}

impl<'a, T: ?Sized> HeadFreeValue<'a, T> for HeadFree<'a, T> {
    #[inline]
    fn head_free(self) -> &'a T {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use crate::core::head::SkipHead;
    use core::fmt::Write as _;

    fn skipped(chunks: &[&str]) -> String {
        let mut text = String::new();
        let mut out = SkipHead::new(&mut text, ["llm", " [", "timeout", "]: "]);
        for chunk in chunks {
            out.write_str(chunk).unwrap();
        }
        out.finish().unwrap();
        text
    }

    #[test]
    fn the_head_is_left_out_however_the_text_is_cut() {
        assert_eq!(skipped(&["llm [timeout]: slow: reset"]), "slow: reset");
        assert_eq!(skipped(&["ll", "m [time", "out]", ": slow"]), "slow");
        assert_eq!(skipped(&["llm", " [", "timeout", "]: ", "", "x"]), "x");
    }

    #[test]
    fn a_text_without_the_head_is_written_whole() {
        assert_eq!(skipped(&["connection reset"]), "connection reset");
        assert_eq!(skipped(&["llm [time", "d out]"]), "llm [timed out]");
        assert_eq!(skipped(&["llm [timeout"]), "llm [timeout");
        assert_eq!(skipped(&[]), "");
    }
}
