//! Classifying any error chain: a typed `AgentError` anywhere in the chain wins;
//! else the first foreign link a classifier knows, from the outside in.

use std::borrow::Cow;
use std::error::Error as StdError;
use std::fmt;
use std::ops::Deref;

use crate::core::chain::links;
use crate::core::registry;
use crate::{AgentError, Recovery, RetryPolicy};

/// The public message that renderings give an error nothing classifies (with the code
/// [`codes::UNCLASSIFIED`](crate::core::codes::UNCLASSIFIED)).
pub const UNCLASSIFIED_MESSAGE: &str = "internal error";

/// What an error chain is, as [`classify`] decides: a classified error, and the link of
/// the chain it came from.
///
/// It derefs to [`dyn AgentError`](AgentError): code, op, retry policy, hints, recovery,
/// `retry_after` and the public message. For a typed link that is the link's own
/// [`AgentError`]; for a foreign link it is the classification its classifier returned,
/// whose public message is the classifier's fixed text ("connection refused"), never the
/// foreign error's own text (which may carry paths, hosts or SQL).
pub struct Classified<'a> {
    link: &'a (dyn StdError + 'static),
    how: How<'a>,
}

enum How<'a> {
    Typed(&'a (dyn AgentError + 'static)),
    /// A foreign classifier's answer, built for this link.
    Foreign(crate::Error),
    /// A built-in classifier's fixed answer: a `static`, nothing built.
    Fixed(&'static FixedClassification),
}

/// What a classifier of a foreign type answers: a classification built for the link (what
/// `classifier!` returns), or a fixed answer kept in a `static`
/// ([`extend::builtin_classifier!`](crate::extend::builtin_classifier)).
#[derive(Debug)]
pub enum Classification {
    /// Built for the link.
    Built(crate::Error),
    /// Fixed, whatever the link says beyond what chose it.
    Fixed(&'static FixedClassification),
}

impl From<crate::Error> for Classification {
    fn from(e: crate::Error) -> Self {
        Classification::Built(e)
    }
}

impl From<&'static FixedClassification> for Classification {
    fn from(fixed: &'static FixedClassification) -> Self {
        Classification::Fixed(fixed)
    }
}

/// A built-in classifier's fixed answer (a timed-out `io::Error`, an elapsed tokio timeout):
/// op, code and public message known at compile time, and the policy and recovery that a
/// dynamic [`Error`](crate::Error) made with that code would have. Kept in a `static`, so
/// classifying a link with it allocates nothing.
#[derive(Debug)]
pub struct FixedClassification {
    op: &'static str,
    code: &'static str,
    message: &'static str,
    policy: RetryPolicy,
    recovery: Recovery,
}

impl FixedClassification {
    /// The classification that `Error::new(op, code, message)` is: the vocabulary's policy
    /// and recovery for `code`.
    pub const fn new(op: &'static str, code: &'static str, message: &'static str) -> Self {
        let (policy, recovery) = crate::core::codes::defaults_of(code);
        FixedClassification {
            op,
            code,
            message,
            policy,
            recovery,
        }
    }
}

impl fmt::Display for FixedClassification {
    /// `op [code]: message`, as a dynamic `Error` writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::core::agent::write_head(f, self.op, self.code)?;
        f.write_str(self.message)
    }
}

impl StdError for FixedClassification {}

impl AgentError for FixedClassification {
    fn code(&self) -> &str {
        self.code
    }

    fn op(&self) -> &str {
        self.op
    }

    fn fmt_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message)
    }

    fn fmt_public_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message)
    }

    fn retry_policy(&self) -> RetryPolicy {
        self.policy
    }

    fn hints(&self) -> Vec<Cow<'static, str>> {
        Vec::new()
    }

    fn recovery(&self) -> Recovery {
        self.recovery
    }

    fn message(&self) -> String {
        self.message.to_owned()
    }
}

impl<'a> Classified<'a> {
    /// The link of the chain that was classified.
    pub fn link(&self) -> &'a (dyn StdError + 'static) {
        self.link
    }

    /// The typed [`AgentError`] of the link, when the link is one (`None` when a
    /// classifier of a foreign type classified it).
    pub fn typed(&self) -> Option<&'a (dyn AgentError + 'static)> {
        match self.how {
            How::Typed(e) => Some(e),
            How::Foreign(_) | How::Fixed(_) => None,
        }
    }

    /// Whether a classifier of a foreign type classified the link.
    pub fn is_foreign(&self) -> bool {
        matches!(self.how, How::Foreign(_) | How::Fixed(_))
    }

    /// The code, when it lives as long as the chain: a typed link's, or a foreign
    /// classification's `&'static str` code.
    pub(crate) fn lasting_code(&self) -> Option<&'a str> {
        match &self.how {
            How::Typed(e) => Some(e.code()),
            How::Foreign(e) => e.static_code(),
            How::Fixed(e) => Some(e.code),
        }
    }

    /// The op, when it lives as long as the chain (see [`lasting_code`](Self::lasting_code)).
    pub(crate) fn lasting_op(&self) -> Option<&'a str> {
        match &self.how {
            How::Typed(e) => Some(e.op()),
            How::Foreign(e) => e.static_op(),
            How::Fixed(e) => Some(e.op),
        }
    }
}

impl Deref for Classified<'_> {
    type Target = dyn AgentError;

    fn deref(&self) -> &Self::Target {
        match &self.how {
            How::Typed(e) => *e,
            How::Foreign(e) => e,
            How::Fixed(e) => *e,
        }
    }
}

impl fmt::Debug for Classified<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Classified")
            .field("code", &self.code())
            .field("op", &self.op())
            .field("foreign", &self.is_foreign())
            .finish_non_exhaustive()
    }
}

/// Classifies `err`'s chain (see [`links`](crate::chain::links)):
///
/// 1. a typed [`AgentError`] anywhere in the chain wins: the first one, as [`find`](crate::find)
///    gives it (derived types, the runtime's own, [`register!`](crate::register)ed ones);
/// 2. only when there is none, each link from the outside in is offered to the classifiers
///    of foreign types: the user's ([`classifier!`](crate::classifier!),
///    [`register_classifier`](crate::register_classifier)) before the built-in ones;
/// 3. else `None`: the error is unclassified, and not retried.
///
/// Built-in classifications, into the shared vocabulary ([`codes`](crate::codes)):
///
/// | foreign link | code | retried | public message |
/// |---|---|---|---|
/// | `std::io::Error` of kind `TimedOut` | `timeout` | yes | "the operation timed out" |
/// | `ConnectionRefused`, `ConnectionReset`, `ConnectionAborted`, `NotConnected`, `BrokenPipe`, `UnexpectedEof`, `HostUnreachable`, `NetworkUnreachable`, `NetworkDown` | `provider_unavailable` | yes | "connection refused", … |
/// | `NotFound` | `not_found` | no | "not found" |
/// | `PermissionDenied` | `auth_error` | no | "permission denied" |
/// | other `io::ErrorKind`s | unclassified | no | |
/// | `tokio::time::error::Elapsed` (feature `tokio`) | `timeout` | yes | "the deadline elapsed" |
/// | `reqwest::Error` (feature `reqwest`): timeout, connect, status, builder | `timeout`, `provider_unavailable`, as `StatusError`, `invalid_input` | | |
///
/// ```
/// use std::io;
/// use agent_error::{classify, AgentError};
///
/// let err = anyhow::Error::new(io::Error::from(io::ErrorKind::ConnectionRefused)).context("calling the model");
/// let c = classify(err.as_ref()).unwrap();
/// assert_eq!(c.code(), "provider_unavailable");
/// assert!(c.is_retryable());
/// assert_eq!(agent_error::display::public(&*c).to_string(), "connection refused");
/// assert!(c.is_foreign());
///
/// // A typed error anywhere in the chain wins over the foreign links.
/// let typed = agent_error::Error::new("llm.generate", "budget_exhausted", "no credit left")
///     .with_source(io::Error::from(io::ErrorKind::TimedOut));
/// assert_eq!(classify(&typed).unwrap().code(), "budget_exhausted");
/// ```
pub fn classify<'a>(err: &'a (dyn StdError + 'static)) -> Option<Classified<'a>> {
    for link in links(err) {
        if let Some(e) = registry::typed(link) {
            return Some(typed(link, e));
        }
    }
    links(err).find_map(classify_foreign)
}

/// [`classify`], handing the classification to `f` where it was found instead of returning
/// a [`Classified`]: for the retrier, which decides on every failure and would otherwise
/// move the classification out of the walk each time.
#[inline]
pub(crate) fn classify_then<R>(
    err: &(dyn StdError + 'static),
    f: impl FnOnce(&dyn AgentError) -> R,
) -> Option<R> {
    for link in links(err) {
        if let Some(e) = registry::typed(link) {
            return Some(f(e));
        }
    }
    let answer = links(err).find_map(registry::foreign)?;
    Some(match answer {
        Classification::Fixed(fixed) => f(fixed),
        Classification::Built(e) => f(&e.without_source()),
    })
}

/// A typed link's classification.
fn typed<'a>(
    link: &'a (dyn StdError + 'static),
    e: &'a (dyn AgentError + 'static),
) -> Classified<'a> {
    Classified {
        link,
        how: How::Typed(e),
    }
}

/// A foreign link's classification, from its classifier's answer.
#[inline]
fn foreign<'a>(link: &'a (dyn StdError + 'static), answer: Classification) -> Classified<'a> {
    Classified {
        link,
        how: match answer {
            Classification::Built(e) => How::Foreign(e.without_source()),
            Classification::Fixed(e) => How::Fixed(e),
        },
    }
}

/// One link's own classification: its typed [`AgentError`], else its foreign classifier's.
pub(crate) fn classify_link<'a>(link: &'a (dyn StdError + 'static)) -> Option<Classified<'a>> {
    match registry::typed(link) {
        Some(e) => Some(typed(link, e)),
        None => classify_foreign(link),
    }
}

fn classify_foreign<'a>(link: &'a (dyn StdError + 'static)) -> Option<Classified<'a>> {
    registry::foreign(link).map(|answer| foreign(link, answer))
}

/// Whether `err` should be retried: its classification decides (see [`classify`]), so a bare
/// `io::ErrorKind::TimedOut` is retried like a derived `timeout`; unclassified errors are not
/// retryable.
///
/// ```
/// use std::io;
/// assert!(agent_error::is_retryable(&io::Error::from(io::ErrorKind::TimedOut)));
/// assert!(!agent_error::is_retryable(&io::Error::other("disk on fire")));
/// ```
pub fn is_retryable(err: &(dyn StdError + 'static)) -> bool {
    classify(err).is_some_and(|e| e.is_retryable())
}

/// Whether any link of `err`'s chain is classified with the code `code`: a typed link by
/// its own code, a foreign link by its classifier's.
///
/// ```
/// use std::io;
/// use agent_error::{codes, has_code, Error};
///
/// let e = Error::new("llm.generate", codes::PROVIDER_UNAVAILABLE, "all retries failed")
///     .with_source(io::Error::from(io::ErrorKind::TimedOut));
/// assert!(has_code(&e, codes::PROVIDER_UNAVAILABLE));
/// assert!(has_code(&e, codes::TIMEOUT));
/// assert!(!has_code(&e, codes::RATE_LIMIT));
/// ```
pub fn has_code(err: &(dyn StdError + 'static), code: &str) -> bool {
    links(err).any(|link| classify_link(link).is_some_and(|e| e.code() == code))
}
