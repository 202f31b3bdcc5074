//! Your own vocabulary: names and phrases that a service in front of its own gateway gives
//! its failures, installed once for the process and read before the built-in tables.

use std::borrow::Cow;
use std::fmt;
use std::sync::RwLock;
use std::sync::atomic::{AtomicBool, Ordering};

use super::kind::Kind;
use super::words::Compiled;

/// Names and phrases of your own, each with the code it means, read before the built-in
/// tables by every classification of a response or a body
/// ([`StatusError::from_parts`](super::StatusError::from_parts),
/// [`classify_body`](super::classify_body), a stream's error event).
///
/// - A **name** is matched whole, as written, wherever the built-in names are read
///   (`error.code`, `error.type`, a top-level `code` or `type`, …): it is specific evidence,
///   which wins over the words of the message.
/// - A **phrase** is matched in the message on word boundaries, in any case, outside quotes:
///   its words one after another (`"saldo agotado"`). A phrase that starts with a letter
///   outside ASCII (`"額度不足"`) is found anywhere, as Chinese needs. The word families'
///   pattern language works too: terms separated by ` ~ ` match words in order at most two
///   words apart, `|` lists alternatives, `*` ends a prefix.
///
/// A code is one of those a response can be classified as: `rate_limit`,
/// `provider_unavailable`, `timeout`, `budget_exhausted`, `request_too_large`,
/// `context_overflow`, `content_filtered`, `auth_error`, `not_found`, `invalid_input`.
///
/// ```
/// use agent_error::{AgentError, http::{Decision, StatusError, Vocabulary}};
/// use http::HeaderMap;
///
/// Vocabulary::new()
///     .name("WALLET_EMPTY", "budget_exhausted")?
///     .phrase("the hamsters are tired", "provider_unavailable")?
///     .install();
///
/// let e = StatusError::from_parts(400, &HeaderMap::new(), r#"{"error":{"code":"WALLET_EMPTY"}}"#);
/// assert_eq!(e.code(), "budget_exhausted");
/// assert_eq!(e.evidence(), Decision::YourName { name: "WALLET_EMPTY" });
///
/// let e = StatusError::from_parts(500, &HeaderMap::new(), "The hamsters are tired, sorry");
/// assert_eq!(e.code(), "provider_unavailable");
/// # Vocabulary::new().install();
/// # Ok::<(), agent_error::http::UnknownCode>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Vocabulary {
    names: Vec<(Cow<'static, str>, Kind)>,
    phrases: Vec<(Cow<'static, str>, Kind)>,
}

/// A code that a response cannot be classified as, given to a [`Vocabulary`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownCode(pub String);

impl fmt::Display for UnknownCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a code a response is classified as (rate_limit, budget_exhausted, …)",
            self.0
        )
    }
}

impl std::error::Error for UnknownCode {}

/// The installed vocabulary, its names and phrases kept for the life of the process, each
/// phrase read once as a pattern.
struct Installed {
    names: Vec<(&'static str, Kind)>,
    phrases: Vec<(&'static str, Kind, Compiled)>,
}

static INSTALLED: RwLock<Option<Installed>> = RwLock::new(None);
/// Whether a vocabulary is installed: the one load a classification makes without one.
static ANY: AtomicBool = AtomicBool::new(false);

impl Vocabulary {
    /// An empty vocabulary.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a name that means `code`.
    pub fn name(
        mut self,
        name: impl Into<Cow<'static, str>>,
        code: &str,
    ) -> Result<Self, UnknownCode> {
        self.names.push((name.into(), kind_of(code)?));
        Ok(self)
    }

    /// Adds a phrase that means `code`.
    pub fn phrase(
        mut self,
        phrase: impl Into<Cow<'static, str>>,
        code: &str,
    ) -> Result<Self, UnknownCode> {
        self.phrases.push((phrase.into(), kind_of(code)?));
        Ok(self)
    }

    /// Makes this the vocabulary every classification reads first, in place of the one
    /// installed before (an empty one removes it). Its strings are kept for the life of the
    /// process: install a vocabulary once, at start-up, not per request.
    pub fn install(self) {
        let keep = |text: Cow<'static, str>| -> &'static str {
            match text {
                Cow::Borrowed(text) => text,
                Cow::Owned(text) => Box::leak(text.into_boxed_str()),
            }
        };
        let installed = Installed {
            names: self.names.into_iter().map(|(n, k)| (keep(n), k)).collect(),
            phrases: self
                .phrases
                .into_iter()
                .map(|(p, k)| {
                    let pattern = keep(phrase_pattern(p));
                    (pattern, k, Compiled::new(pattern))
                })
                .collect(),
        };
        let any = !installed.names.is_empty() || !installed.phrases.is_empty();
        let mut slot = INSTALLED
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *slot = any.then_some(installed);
        ANY.store(any, Ordering::Release);
    }
}

/// A phrase as a pattern: its words one after another, in lowercase; a phrase written in
/// the pattern language, or one that starts outside ASCII, as it is.
fn phrase_pattern(phrase: Cow<'static, str>) -> Cow<'static, str> {
    if phrase.contains(" ~ ") || phrase.contains('|') || !phrase.starts_with(|c: char| c.is_ascii())
    {
        return phrase;
    }
    let words: Vec<String> = phrase
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    Cow::Owned(words.join("_"))
}

/// The kind a code stands for.
fn kind_of(code: &str) -> Result<Kind, UnknownCode> {
    Kind::CLASSIFIED
        .into_iter()
        .find(|kind| kind.doc().code == code)
        .ok_or_else(|| UnknownCode(code.to_owned()))
}

/// The kind your vocabulary gives `name`, and the name as installed.
pub(super) fn name(name: &str) -> Option<(Kind, &'static str)> {
    with_installed(|installed| {
        installed
            .names
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(known, kind)| (*kind, *known))
    })
}

/// The first of your phrases whose pattern `matches` accepts, with its kind and the phrase.
pub(super) fn phrase(mut matches: impl FnMut(&Compiled) -> bool) -> Option<(Kind, &'static str)> {
    with_installed(|installed| {
        installed
            .phrases
            .iter()
            .find(|(_, _, pattern)| matches(pattern))
            .map(|(text, kind, _)| (*kind, *text))
    })
}

/// What `read` finds in the installed vocabulary, when one is installed (without one, a
/// load and nothing else).
fn with_installed<T>(read: impl FnOnce(&Installed) -> Option<T>) -> Option<T> {
    if !ANY.load(Ordering::Acquire) {
        return None;
    }
    let installed = INSTALLED
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    read(installed.as_ref()?)
}
