//! `Error`, the classified error built at run time, for code that does not derive.
//! It speaks the same vocabulary as derived types and is found by the same chain walk.

use std::borrow::Cow;
use std::error::Error as StdError;
use std::fmt;
use std::time::Duration;

use crate::{AgentError, Recovery, RetryPolicy, codes};

/// A classified error built at run time: op, code, message, optional cause,
/// retry policy, hints and recovery.
///
/// The retry policy follows from the code unless set with
/// [`with_policy`](Error::with_policy): [`codes::RATE_LIMIT`] is rate-limited,
/// [`codes::TIMEOUT`], [`codes::PROVIDER_UNAVAILABLE`] and [`codes::STREAM_INTERRUPTED`]
/// are retryable with the default tuning, [`codes::INVALID_OUTPUT`] is retried once, every
/// other code is not retryable ([`codes::default_policy`]). The recovery is the shared
/// vocabulary's for its code ([`codes::default_recovery`]: `replan` for `invalid_input`,
/// `continue` for `output_truncated`, `compact` for `context_overflow`, …), and for other
/// codes [`Recovery::Retry`] when
/// retryable and [`Recovery::Abort`] otherwise, unless set with
/// [`with_recovery`](Error::with_recovery).
///
/// Display, like derived types: `{op} [{code}]: {message}`, then `: {cause}`.
/// Two `Error`s are equal when their codes are.
///
/// ```
/// use agent_error::{codes, AgentError, Error};
///
/// let io = std::io::Error::other("connection reset");
/// let e = Error::new("llm.generate", codes::TIMEOUT, "deadline exceeded")
///     .with_source(io)
///     .with_hint("raise the timeout");
/// assert_eq!(e.to_string(), "llm.generate [timeout]: deadline exceeded: connection reset");
/// assert!(e.is_retryable());
/// assert_eq!(e.hints(), ["raise the timeout"]);
/// ```
pub struct Error {
    // Boxed so that `Result<T, Error>` stays small: one pointer for the error side.
    inner: Box<Inner>,
}

struct Inner {
    op: Cow<'static, str>,
    code: Cow<'static, str>,
    message: Cow<'static, str>,
    source: Option<Box<dyn StdError + Send + Sync + 'static>>,
    policy: RetryPolicy,
    hints: Vec<Cow<'static, str>>,
    recovery: Option<Recovery>,
}

impl Error {
    /// A new error; its retry policy follows from `code` (see [`Error`]).
    ///
    /// Neither `op` nor `code` is checked against the grammar here; use
    /// [`codes::is_valid_code`] and [`codes::is_valid_op`] where input is untrusted.
    pub fn new(
        op: impl Into<Cow<'static, str>>,
        code: impl Into<Cow<'static, str>>,
        message: impl Into<Cow<'static, str>>,
    ) -> Self {
        let code = code.into();
        let policy = codes::default_policy(&code);
        let inner = Inner {
            op: op.into(),
            code,
            message: message.into(),
            source: None,
            policy,
            hints: Vec::new(),
            recovery: None,
        };
        Error {
            inner: Box::new(inner),
        }
    }

    /// Sets the cause.
    #[must_use]
    pub fn with_source(
        mut self,
        source: impl Into<Box<dyn StdError + Send + Sync + 'static>>,
    ) -> Self {
        self.inner.source = Some(source.into());
        self
    }

    /// Adds a recovery hint after the ones already there.
    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<Cow<'static, str>>) -> Self {
        self.inner.hints.push(hint.into());
        self
    }

    /// Replaces the retry policy.
    #[must_use]
    pub fn with_policy(mut self, policy: RetryPolicy) -> Self {
        self.inner.policy = policy;
        self
    }

    /// Sets the delay the server asked for.
    #[must_use]
    pub fn with_retry_after(mut self, retry_after: Duration) -> Self {
        self.inner.policy = self.inner.policy.with_retry_after(Some(retry_after));
        self
    }

    /// Sets the recovery.
    #[must_use]
    pub fn with_recovery(mut self, recovery: Recovery) -> Self {
        self.inner.recovery = Some(recovery);
        self
    }
}

impl Error {
    /// The same classification without its cause: a foreign link's classification stands
    /// for the link alone.
    pub(crate) fn without_source(mut self) -> Self {
        self.inner.source = None;
        self
    }

    /// The code, when it is a `&'static str` (every constant of [`codes`]).
    pub(crate) fn static_code(&self) -> Option<&'static str> {
        match self.inner.code {
            Cow::Borrowed(code) => Some(code),
            Cow::Owned(_) => None,
        }
    }

    /// The op, when it is a `&'static str`.
    pub(crate) fn static_op(&self) -> Option<&'static str> {
        match self.inner.op {
            Cow::Borrowed(op) => Some(op),
            Cow::Owned(_) => None,
        }
    }

    /// A classification copied into a dynamic error, as a foreign classifier returns it:
    /// code, op, public message, policy (with `retry_after`), recovery and hints; no
    /// source. For a classifier that answers with another error's classification:
    ///
    /// ```
    /// use agent_error::{AgentError, Error, codes};
    ///
    /// let original = Error::new("llm.generate", codes::RATE_LIMIT, "slow down").with_hint("wait");
    /// let copy = Error::classification_of(&original);
    /// assert_eq!(copy.code(), "rate_limit");
    /// assert!(copy.is_rate_limited());
    /// assert_eq!(copy.hints(), ["wait"]);
    /// ```
    pub fn classification_of(e: &dyn AgentError) -> Self {
        let mut out = Error::new(
            e.op().to_owned(),
            e.code().to_owned(),
            crate::core::summary::public(e).to_string(),
        )
        .with_policy(e.retry_policy())
        .with_recovery(e.recovery());
        for hint in e.hints() {
            out = out.with_hint(hint);
        }
        out
    }
}

inventory::submit! { crate::core::registry::Registration::uncatalogued::<Error>() }

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.inner;
        f.debug_struct("Error")
            .field("op", &i.op)
            .field("code", &i.code)
            .field("message", &i.message)
            .field("source", &i.source)
            .field("policy", &i.policy)
            .field("hints", &i.hints)
            .field("recovery", &i.recovery)
            .finish()
    }
}

impl fmt::Display for Error {
    /// `op [code]: message`, then `: cause`, one head a line: a cause that is itself an
    /// `AgentError` (another `Error` too) follows without its head. A chain of `Error`s is
    /// written link by link in a loop, so a deep one cannot overflow the stack.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut current = self;
        crate::core::agent::write_head(f, &self.inner.op, &self.inner.code)?;
        loop {
            let i = &current.inner;
            f.write_str(&i.message)?;
            let Some(source) = &i.source else {
                return Ok(());
            };
            match source.downcast_ref::<Error>() {
                Some(next) => {
                    f.write_str(": ")?;
                    current = next;
                }
                None => return crate::core::agent::write_cause(f, &**source),
            }
        }
    }
}

impl Drop for Error {
    /// Drops a chain of `Error`s link by link, so a deep one cannot overflow the stack.
    fn drop(&mut self) {
        let mut next = self.inner.source.take();
        while let Some(source) = next {
            next = match source.downcast::<Error>() {
                Ok(mut link) => link.inner.source.take(),
                Err(_) => None,
            };
        }
    }
}

impl StdError for Error {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.inner
            .source
            .as_deref()
            .map(|e| e as &(dyn StdError + 'static))
    }
}

impl AgentError for Error {
    fn code(&self) -> &str {
        &self.inner.code
    }

    fn op(&self) -> &str {
        &self.inner.op
    }

    fn fmt_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.inner.message)
    }

    fn fmt_public_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.inner.message)
    }

    fn retry_policy(&self) -> RetryPolicy {
        self.inner.policy
    }

    fn hints(&self) -> Vec<Cow<'static, str>> {
        self.inner.hints.clone()
    }

    fn each_hint(&self, each: &mut dyn FnMut(fmt::Arguments<'_>)) {
        crate::core::agent::each_hint_of(&self.inner.hints, each);
    }

    /// The recovery set with [`with_recovery`](Error::with_recovery); else `retry` when
    /// retryable, else the vocabulary's for the code (`escalate` for `auth_error`, `replan`
    /// for `invalid_input`, …) and `abort` for other codes.
    fn recovery(&self) -> Recovery {
        if let Some(recovery) = self.inner.recovery {
            return recovery;
        }
        let retryable = self.inner.policy.is_retryable();
        match codes::default_recovery(&self.inner.code) {
            Some(recovery) if !retryable && recovery != Recovery::Retry => recovery,
            _ => Recovery::default_for(retryable),
        }
    }

    fn message(&self) -> String {
        self.inner.message.clone().into_owned()
    }
}

impl PartialEq for Error {
    /// Equal when the codes are, as derived types.
    fn eq(&self, other: &Self) -> bool {
        self.inner.code == other.inner.code
    }
}

impl Eq for Error {}

/// The message of `error!`: borrowed when the format string has no arguments.
pub fn format_message(args: fmt::Arguments<'_>) -> std::borrow::Cow<'static, str> {
    match args.as_str() {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(std::fmt::format(args)),
    }
}
