//! Walking an error's source chain to classify it, as Go's `errors.As` and `errors.Is` do.
//! Works on any `&(dyn Error + 'static)`, whatever wraps the classified error.

use std::any::{Any, TypeId};
use std::error::Error as StdError;
use std::io;
use std::sync::Arc;

use crate::AgentError;
use crate::core::registry::cache::VtableCache;

/// The links of an error's chain: the error itself, then each cause in turn, at most
/// [`MAX_LINKS`] of them.
///
/// Unlike a plain `source()` loop it also visits the error inside a
/// [`std::io::Error`] or an `Arc<dyn Error>`: their `source()` skips the error they wrap
/// (it returns that error's own source), so a custom error inside
/// `io::Error::other(..)` would otherwise never be seen.
///
/// ```
/// use std::error::Error;
/// use agent_error::chain::links;
///
/// let inner = agent_error::Error::new("db.query", "timeout", "took too long");
/// let outer = std::io::Error::other(inner);
/// assert!(outer.source().is_none()); // io::Error skips what it wraps
/// assert_eq!(links(&outer).count(), 2); // links does not
/// let last = links(&outer).last().unwrap();
/// assert!(last.is::<agent_error::Error>());
/// ```
pub fn links<'a>(err: &'a (dyn StdError + 'static)) -> Links<'a> {
    Links {
        next: Some(err),
        given: None,
        left: MAX_LINKS,
    }
}

/// The most links a chain walk visits: every walk of this crate (`find`, `classify`,
/// `is_retryable`, `has_code`, `display::chain`, `Report::capture`, the retrier) stops
/// there, so a cyclic chain (an `Arc` pointing back at itself through `source()`) or an
/// absurdly deep one cannot hang it. Real chains are a handful of links.
pub const MAX_LINKS: usize = 1024;

/// The iterator returned by [`links`].
#[derive(Clone, Debug)]
pub struct Links<'a> {
    next: Option<&'a (dyn StdError + 'static)>,
    /// The link given last, whose cause is looked up only when the walk goes on: a walk
    /// that stops at the link it wanted does not pay for the next one.
    given: Option<&'a (dyn StdError + 'static)>,
    left: usize,
}

impl<'a> Iterator for Links<'a> {
    type Item = &'a (dyn StdError + 'static);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if let Some(given) = self.given.take() {
            self.next = if self.left == 0 {
                None
            } else {
                wrapped(given).or_else(|| given.source())
            };
        }
        let current = self.next?;
        self.left -= 1;
        self.given = Some(current);
        Some(current)
    }
}

/// The error inside a wrapper whose `source()` skips it: `std::io::Error` and
/// `Arc<dyn Error>` return the wrapped error's own source, not the wrapped error.
/// Such a wrapper also displays as the error it wraps.
pub(crate) fn wrapped<'a>(
    link: &'a (dyn StdError + 'static),
) -> Option<&'a (dyn StdError + 'static)> {
    // A link's size comes from its vtable without a call: only a link of a wrapper's size
    // can be one. Which wrapper a link of that size is (or that it is none, as a context
    // link holding a boxed cause is, of an `Arc`'s size) is remembered by its vtable, so
    // that a walk pays the downcasts once a type, not at every link.
    let size = std::mem::size_of_val(link);
    if size != std::mem::size_of::<io::Error>() && size != std::mem::size_of::<Arc<dyn StdError>>()
    {
        return None;
    }
    let as_kind = |kind: usize| unwrap_as(kind, link);
    let scan = || (0..WRAPPER_KINDS).find_map(|kind| as_kind(kind).map(|inner| (kind, inner)));
    WRAPPERS.recognise(link, as_kind, scan).flatten()
}

/// Which wrapper each vtable seen belongs to, if any (see [`wrapped`]).
static WRAPPERS: VtableCache = VtableCache::new();

/// The kinds of wrapper [`unwrap_as`] knows.
const WRAPPER_KINDS: usize = 4;

/// `link` as the wrapper of kind `kind` (`std::io::Error`, then `Arc<dyn Error>` with both
/// bounds, `Send` alone, none): `Some` of what it wraps (`None` for an `io::Error` that
/// wraps nothing) when it is one, else `None`.
#[allow(clippy::option_option)]
fn unwrap_as<'a>(
    kind: usize,
    link: &'a (dyn StdError + 'static),
) -> Option<Option<&'a (dyn StdError + 'static)>> {
    match kind {
        0 => link
            .downcast_ref::<io::Error>()
            .map(|io| io.get_ref().map(|inner| inner as &(dyn StdError + 'static))),
        1 => link
            .downcast_ref::<Arc<dyn StdError + Send + Sync>>()
            .map(|arc| Some(&**arc as &(dyn StdError + 'static))),
        2 => link
            .downcast_ref::<Arc<dyn StdError + Send>>()
            .map(|arc| Some(&**arc as &(dyn StdError + 'static))),
        3 => link
            .downcast_ref::<Arc<dyn StdError>>()
            .map(|arc| Some(&**arc)),
        _ => None,
    }
}

/// The first link of `err`'s chain that is an [`AgentError`]: `err` itself, then
/// each cause in turn (see [`links`]).
///
/// It recognises the runtime's own types and every non-generic derived type
/// (collected at link time, feature `registry`), wherever they sit: behind
/// `Box<dyn Error>`, `std::io::Error::other(..)`, `anyhow::Error` (pass
/// `err.as_ref()`), or any wrapper that returns them from `source()`.
///
/// It sees typed errors only; `classify` also classifies foreign links (`std::io::Error`,
/// `reqwest::Error`, the user's classifiers).
///
/// ```
/// use agent_error::{find, AgentError};
///
/// #[derive(Debug, AgentError)]
/// #[agent(op = "tool.search", code = "not_found")]
/// #[error("no results")]
/// struct NoResults;
///
/// let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(NoResults);
/// let io = std::io::Error::other(boxed);
/// assert_eq!(find(&io).map(|e| e.code()), Some("not_found"));
/// ```
pub fn find<'a>(err: &'a (dyn StdError + 'static)) -> Option<&'a (dyn AgentError + 'static)> {
    links(err).find_map(crate::core::registry::typed)
}

/// A value whose error chain can be walked: what the retrier accepts as an operation's
/// error. Implemented for every `E: Error + 'static`, for
/// `Box<dyn Error + Send + Sync>` (and its `Send`-only and plain forms), and with the
/// `anyhow` feature for `anyhow::Error`, none of which implement `Error` themselves.
///
/// The marker `M` tells the impls apart (a blanket impl over `E: Error` and one for
/// `anyhow::Error` would otherwise overlap under coherence); it is always inferred.
///
/// When a run must end before an attempt (a shared pause longer than the retrier may
/// wait), the retrier returns its own [`Error`](crate::Error) if the operation's error
/// type can hold one: `agent_error::Error` itself, a boxed `dyn Error` or `anyhow::Error`.
/// A type of the caller's own cannot; the attempt is then made at once.
pub trait ErrorChain<M>: 'static {
    /// The outermost link of the chain.
    fn error_chain(&self) -> &(dyn StdError + 'static);
}

/// `error` as a value of `E`, when `E` is one of the types that can hold the runtime's own
/// error: the error itself, a boxed `dyn Error` (each of its three forms) or, with the
/// `anyhow` feature, `anyhow::Error`. How the retrier ends a run with an error of its own.
pub(crate) fn held_as<E: 'static>(error: crate::Error) -> Option<E> {
    let wanted = TypeId::of::<E>();
    let held: Box<dyn Any> = if wanted == TypeId::of::<crate::Error>() {
        Box::new(error)
    } else if wanted == TypeId::of::<Box<dyn StdError + Send + Sync>>() {
        Box::new(Box::new(error) as Box<dyn StdError + Send + Sync>)
    } else if wanted == TypeId::of::<Box<dyn StdError + Send>>() {
        Box::new(Box::new(error) as Box<dyn StdError + Send>)
    } else if wanted == TypeId::of::<Box<dyn StdError>>() {
        Box::new(Box::new(error) as Box<dyn StdError>)
    } else {
        held_by_anyhow(error, wanted)?
    };
    held.downcast::<E>().ok().map(|held| *held)
}

#[cfg(feature = "anyhow")]
fn held_by_anyhow(error: crate::Error, wanted: TypeId) -> Option<Box<dyn Any>> {
    let anyhow = wanted == TypeId::of::<anyhow::Error>();
    anyhow.then(|| Box::new(anyhow::Error::new(error)) as Box<dyn Any>)
}

#[cfg(not(feature = "anyhow"))]
fn held_by_anyhow(_: crate::Error, _: TypeId) -> Option<Box<dyn Any>> {
    None
}

/// Markers of the [`ErrorChain`] impls, inferred, never named.
pub mod markers {
    /// Any `E: Error + 'static`.
    #[derive(Debug)]
    pub enum Typed {}
    /// A boxed `dyn Error`.
    #[derive(Debug)]
    pub enum Boxed {}
    /// `anyhow::Error`.
    #[derive(Debug)]
    pub enum Anyhow {}
}

impl<E: StdError + 'static> ErrorChain<markers::Typed> for E {
    fn error_chain(&self) -> &(dyn StdError + 'static) {
        self
    }
}

impl ErrorChain<markers::Boxed> for Box<dyn StdError + Send + Sync + 'static> {
    fn error_chain(&self) -> &(dyn StdError + 'static) {
        &**self
    }
}

impl ErrorChain<markers::Boxed> for Box<dyn StdError + Send + 'static> {
    fn error_chain(&self) -> &(dyn StdError + 'static) {
        &**self
    }
}

impl ErrorChain<markers::Boxed> for Box<dyn StdError + 'static> {
    fn error_chain(&self) -> &(dyn StdError + 'static) {
        &**self
    }
}

#[cfg(feature = "anyhow")]
impl ErrorChain<markers::Anyhow> for anyhow::Error {
    fn error_chain(&self) -> &(dyn StdError + 'static) {
        self.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paused() -> crate::Error {
        crate::Error::new("retry.pause", "rate_limit", "paused by the fleet")
    }

    fn holds_the_pause<E: ErrorChain<M>, M>(held: Option<E>) -> bool {
        held.is_some_and(|held| find(held.error_chain()).is_some_and(|e| e.code() == "rate_limit"))
    }

    #[test]
    fn the_runtime_error_is_held_by_the_types_that_can_hold_it() {
        assert!(holds_the_pause(held_as::<crate::Error>(paused())));
        type Boxed = Box<dyn StdError + Send + Sync>;
        assert!(holds_the_pause(held_as::<Boxed>(paused())));
        assert!(holds_the_pause(held_as::<Box<dyn StdError + Send>>(
            paused()
        )));
        assert!(holds_the_pause(held_as::<Box<dyn StdError>>(paused())));
        #[cfg(feature = "anyhow")]
        assert!(held_as::<anyhow::Error>(paused()).is_some_and(|e| e.is::<crate::Error>()));
    }

    #[test]
    fn a_type_of_the_callers_own_cannot_hold_it() {
        assert!(held_as::<std::io::Error>(paused()).is_none());
        assert!(held_as::<std::fmt::Error>(paused()).is_none());
        assert!(held_as::<Box<std::io::Error>>(paused()).is_none());
    }
}
