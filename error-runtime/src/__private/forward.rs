//! The field of an `#[error(transparent)]` variant, forwarded to by autoref specialization:
//! a typed field answers for itself, a foreign one by its classification.

use core::fmt;
use std::borrow::Cow;
use std::collections::HashSet;
use std::error::Error as StdError;
use std::sync::OnceLock;
use std::time::Duration;

use crate::{AgentError, Recovery, RetryPolicy};

/// The field of an `#[error(transparent)]` variant. Generated code calls
/// `(&&Forward(field)).forwarded()` with the four `Forward*` traits in scope; method
/// resolution tries them in order of the receiver they take, and so picks:
/// 1. [`ForwardTyped`] when the field is an [`AgentError`];
/// 2. else [`ForwardForeign`] when it is an `Error + 'static`;
/// 3. else [`ForwardDeref`] when it derefs to `dyn Error` (`anyhow::Error`, `Box<dyn Error>`);
/// 4. else [`ForwardNonError`], whose bound no type meets, so that rustc reports
///    [`TransparentField`]'s message at the field instead of "no method named `forwarded`".
pub struct Forward<'a, T>(pub &'a T);

impl<T> Clone for Forward<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Forward<'_, T> {}

/// [`Forward`] of an [`AgentError`] field: everything comes from the field.
pub trait ForwardTyped<'a> {
    type Field;
    fn forwarded(&self) -> Self::Field;
}

impl<'a, T: AgentError + 'a> ForwardTyped<'a> for &Forward<'a, T> {
    type Field = Typed<'a, T>;
    #[inline]
    fn forwarded(&self) -> Typed<'a, T> {
        Typed(self.0)
    }
}

/// [`Forward`] of a foreign error field: its classification when it has one.
pub trait ForwardForeign<'a> {
    fn forwarded(&self) -> Forwarded<'a>;
}

impl<'a, T: StdError + 'static> ForwardForeign<'a> for &&Forward<'a, T> {
    #[inline]
    fn forwarded(&self) -> Forwarded<'a> {
        Forwarded(self.0)
    }
}

/// [`Forward`] of a field that is no error itself but derefs to one: `anyhow::Error`,
/// `Box<dyn Error + Send + Sync>`. Forwarded as the error inside, a foreign one.
pub trait ForwardDeref<'a> {
    fn forwarded(&self) -> Forwarded<'a>;
}

impl<'a, T> ForwardDeref<'a> for Forward<'a, T>
where
    T: core::ops::Deref,
    T::Target: DynError,
{
    #[inline]
    fn forwarded(&self) -> Forwarded<'a> {
        Forwarded(DynError::as_dyn(&**self.0))
    }
}

/// The `dyn Error` types a [`ForwardDeref`] field may deref to.
pub trait DynError {
    fn as_dyn(&self) -> &(dyn StdError + 'static);
}

impl DynError for dyn StdError + 'static {
    fn as_dyn(&self) -> &(dyn StdError + 'static) {
        self
    }
}

impl DynError for dyn StdError + Send + 'static {
    fn as_dyn(&self) -> &(dyn StdError + 'static) {
        self
    }
}

impl DynError for dyn StdError + Send + Sync + 'static {
    fn as_dyn(&self) -> &(dyn StdError + 'static) {
        self
    }
}

/// [`Forward`] of a field that is no error (or an error that is neither an [`AgentError`]
/// nor `'static`): chosen last, and never callable, for its diagnostic.
pub trait ForwardNonError<'a, T> {
    fn forwarded(self) -> Forwarded<'a>
    where
        T: TransparentField;
}

impl<'a, T> ForwardNonError<'a, T> for Forward<'a, T> {
    fn forwarded(self) -> Forwarded<'a>
    where
        T: TransparentField,
    {
        unreachable!("no type implements TransparentField")
    }
}

/// Implemented by no type: the bound of [`ForwardNonError`], there for its message.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an error, so #[error(transparent)] cannot forward to it",
    label = "not an error",
    note = "#[error(transparent)] forwards to a field that is an `AgentError`, a `std::error::Error + 'static` like `std::io::Error`, or derefs to `dyn Error` like `anyhow::Error`",
    note = "for a value that is not an error, replace `transparent` with a message that shows it, like #[error(\"{{0}}\")]"
)]
pub trait TransparentField {}

/// A transparent variant's [`AgentError`] field: every accessor is a static call on the
/// field's own type, so it costs what a hand-written forward costs.
pub struct Typed<'a, T>(&'a T);

impl<T> Clone for Typed<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Typed<'_, T> {}

impl<'a, T: AgentError + 'a> Typed<'a, T> {
    #[inline]
    pub fn code(self, _default: &'static str) -> &'a str {
        self.0.code()
    }

    #[inline]
    pub fn op(self, _own: &'static str) -> &'a str {
        self.0.op()
    }

    #[inline]
    pub fn fmt_display(self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.0, f)
    }

    #[inline]
    pub fn source(self) -> Option<&'a (dyn StdError + 'static)> {
        self.0.source()
    }

    #[inline]
    pub fn fmt_message(self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt_message(f)
    }

    #[inline]
    pub fn fmt_redacted_message(self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt_redacted_message(f)
    }

    #[inline]
    pub fn fmt_public_message(self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt_public_message(f)
    }

    #[inline]
    pub fn retry_policy(self) -> RetryPolicy {
        self.0.retry_policy()
    }

    #[inline]
    pub fn is_retryable(self) -> bool {
        self.0.is_retryable()
    }

    #[inline]
    pub fn is_rate_limited(self) -> bool {
        self.0.is_rate_limited()
    }

    #[inline]
    pub fn retry_after(self) -> Option<Duration> {
        self.0.retry_after()
    }

    #[inline]
    pub fn hints(self) -> Vec<Cow<'static, str>> {
        self.0.hints()
    }

    #[inline]
    pub fn recovery(self) -> Recovery {
        self.0.recovery()
    }

    #[inline]
    pub fn status(self) -> Option<u16> {
        self.0.status()
    }

    #[inline]
    pub fn docs_url(self) -> Option<&'a str> {
        self.0.docs_url()
    }
}

/// A foreign error as a variant's accessors read it: its classification when it has one,
/// else the variant's defaults. A transparent variant's field, and the cause of a variant
/// that takes its classification from its cause (`cause_*`).
#[derive(Clone, Copy)]
pub struct Forwarded<'a>(pub(super) &'a (dyn StdError + 'static));

impl<'a> Forwarded<'a> {
    /// The classification's code when it outlives the classification (a constant, or a code
    /// the program declares: see `declared`), else `default` (the variant's default code).
    /// A code built at run time that nothing declares is not kept: keeping each would let
    /// memory grow with every new code a classifier builds (from a provider's or a peer's
    /// text), and keeping only some would make the code change once a limit was reached.
    pub fn code(self, default: &'static str) -> &'a str {
        crate::classify(self.0)
            .and_then(|c| {
                c.lasting_code()
                    .or_else(|| declared(&DECLARED.get_or_init(Declared::gather).codes, c.code()))
            })
            .unwrap_or(default)
    }

    /// `own` (the variant's or the type's op) if there is one (`""` when not), else the
    /// classification's, else `""`.
    pub fn op(self, own: &'static str) -> &'a str {
        if !own.is_empty() {
            return own;
        }
        crate::classify(self.0)
            .and_then(|c| {
                c.lasting_op()
                    .or_else(|| declared(&DECLARED.get_or_init(Declared::gather).ops, c.op()))
            })
            .unwrap_or("")
    }

    /// The variant's Display: the field's own.
    pub fn fmt_display(self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.0, f)
    }

    /// The field's `source()`: a transparent variant is its field, so its cause is the field's.
    pub fn source(self) -> Option<&'a (dyn StdError + 'static)> {
        self.0.source()
    }

    pub fn fmt_message(self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.0, f)
    }

    pub fn fmt_redacted_message(self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.0, f)
    }

    /// The classification's fixed text, never the foreign error's own.
    pub fn fmt_public_message(self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match crate::classify(self.0) {
            Some(c) => c.fmt_public_message(f),
            None => f.write_str(crate::core::classify::UNCLASSIFIED_MESSAGE),
        }
    }

    pub fn retry_policy(self) -> RetryPolicy {
        crate::classify(self.0).map_or(RetryPolicy::NEVER, |c| c.retry_policy())
    }

    /// The classification's own answer, as `agent_error::is_retryable` gives it.
    pub fn is_retryable(self) -> bool {
        crate::classify(self.0).is_some_and(|c| c.is_retryable())
    }

    pub fn is_rate_limited(self) -> bool {
        crate::classify(self.0).is_some_and(|c| c.is_rate_limited())
    }

    pub fn retry_after(self) -> Option<Duration> {
        crate::classify(self.0).and_then(|c| c.retry_after())
    }

    pub fn hints(self) -> Vec<Cow<'static, str>> {
        crate::classify(self.0).map_or_else(Vec::new, |c| c.hints())
    }

    /// The classification's hints, handed to `each` without a `Vec`.
    pub fn each_hint(self, each: &mut dyn FnMut(fmt::Arguments<'_>)) {
        if let Some(c) = crate::classify(self.0) {
            c.each_hint(each);
        }
    }

    pub fn recovery(self) -> Recovery {
        crate::classify(self.0).map_or(Recovery::Abort, |c| c.recovery())
    }

    pub fn status(self) -> Option<u16> {
        crate::classify(self.0).and_then(|c| c.status())
    }

    pub fn docs_url(self) -> Option<&'a str> {
        None
    }
}

/// The codes and ops the program declares, as `&'static str`: the shared vocabulary and
/// the catalogs of every registered type. Gathered once, on the first code a classifier
/// built at run time; the registry is complete by then (it is collected at link time).
struct Declared {
    codes: HashSet<&'static str>,
    ops: HashSet<&'static str>,
}

static DECLARED: OnceLock<Declared> = OnceLock::new();

impl Declared {
    fn gather() -> Declared {
        let entries = crate::core::registry::catalogs().flatten();
        let mut codes: HashSet<&'static str> = crate::codes::ALL.into_iter().collect();
        let mut ops = HashSet::new();
        for entry in entries {
            codes.insert(entry.code);
            ops.extend(entry.op);
        }
        Declared { codes, ops }
    }
}

/// `text` as the `&'static str` the program declares, if it does.
fn declared(set: &HashSet<&'static str>, text: &str) -> Option<&'static str> {
    set.get(text).copied()
}
