//! The `AgentError` trait: what every classified error can tell about itself.
//! Derived with `#[derive(AgentError)]`, or written by hand for special cases.

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use crate::retry::{Retrier, Stop, Tally};
use crate::{Recovery, RetryPolicy};

/// An error that knows what kind of failure it is.
///
/// On top of [`std::error::Error`] it gives a stable machine-readable
/// [`code`](AgentError::code), the [`op`](AgentError::op) that failed, its
/// [`retry_policy`](AgentError::retry_policy), recovery [`hints`](AgentError::hints) and
/// the [`recovery`](AgentError::recovery) an agent loop should take.
///
/// The trait is object safe: code that reacts to failures works with
/// `&dyn AgentError`, usually found in a chain with [`find`](crate::find).
///
/// Derived types display as `{op} [{code}]: {message}` followed by `: {cause}` when
/// there is a cause. [`fmt_message`](AgentError::fmt_message) writes the message alone.
///
/// The trait also has two hidden methods, which are not part of the contract and which a
/// hand-written impl leaves alone: one hands each hint to the renderings without building
/// a `Vec` (the derive writes it beside `hints`), and one makes the retrier's decision in
/// the implementing type, so that its policy and code cost what a `match` costs (it
/// cannot be overridden).
///
/// ```
/// use agent_error::AgentError;
///
/// #[derive(Debug, AgentError)]
/// #[agent(op = "llm.generate")]
/// enum LlmError {
///     #[agent(code = "timeout", retryable, hint = "raise the timeout")]
///     #[error("deadline exceeded after {tokens} tokens")]
///     Timeout { tokens: u32 },
/// }
///
/// let e: &dyn AgentError = &LlmError::Timeout { tokens: 12 };
/// assert_eq!(e.code(), "timeout");
/// assert_eq!(e.op(), "llm.generate");
/// assert_eq!(e.message(), "deadline exceeded after 12 tokens");
/// assert_eq!(e.to_string(), "llm.generate [timeout]: deadline exceeded after 12 tokens");
/// assert!(e.is_retryable());
/// assert_eq!(e.hints(), ["raise the timeout"]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a classified error: it does not implement `AgentError`",
    label = "expected an `AgentError` here",
    note = "derive it with `#[derive(AgentError)]`; for a foreign error, use `agent_error::classify(&err)`, or make it the field of an `#[error(transparent)]` variant, which classifies it"
)]
pub trait AgentError: std::error::Error {
    /// The stable machine-readable code (`"rate_limit"`, `"auth.missing_api_key"`).
    fn code(&self) -> &str;

    /// The operation that failed (`"llm.generate"`).
    fn op(&self) -> &str;

    /// Writes the message alone: no op, no code, no cause.
    fn fmt_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;

    /// Writes the message with `#[redact]` fields shown as `[redacted]`.
    ///
    /// Every public rendering (tool results, messages for people, the wire form)
    /// uses this instead of [`fmt_message`](AgentError::fmt_message).
    fn fmt_public_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;

    /// Whether and how to retry.
    fn retry_policy(&self) -> RetryPolicy;

    /// Recovery hints for people and for LLMs, in order.
    fn hints(&self) -> Vec<Cow<'static, str>>;

    /// What an agent loop should do about this failure.
    fn recovery(&self) -> Recovery;

    /// Whether the failure may succeed if tried again.
    fn is_retryable(&self) -> bool {
        self.retry_policy().is_retryable()
    }

    /// Whether the failure is a rate limit.
    fn is_rate_limited(&self) -> bool {
        self.retry_policy().is_rate_limited()
    }

    /// The delay the server asked for, when it asked.
    fn retry_after(&self) -> Option<Duration> {
        self.retry_policy().retry_after()
    }

    /// The message alone, as a `String`.
    fn message(&self) -> String {
        Message(self).to_string()
    }

    /// The HTTP status for wire renderings (`#[agent(status = 503)]`), if any.
    fn status(&self) -> Option<u16> {
        None
    }

    /// The documentation URL of this code (`#[agent(docs_url = "https://…/{code}")]`), if any.
    fn docs_url(&self) -> Option<&str> {
        None
    }

    /// Calls `each` with every hint of [`hints`](AgentError::hints), in order, as format
    /// arguments: how the renderings read hints without building a `Vec` or a `String`.
    /// Hidden, not part of the contract: the derive writes it beside `hints`, from the same
    /// text; a hand-written impl keeps this default, which reads `hints`.
    #[doc(hidden)]
    fn __each_hint(&self, each: &mut dyn FnMut(fmt::Arguments<'_>)) {
        each_hint_of(&self.hints(), each);
    }

    /// The retrier's decision after a failure, made in the implementing type. Hidden and
    /// sealed (`Tally` cannot be named outside this crate): not part of the contract.
    #[doc(hidden)]
    fn __retry_decision(
        &self,
        this: &dyn AgentError,
        tally: &mut Tally,
        retrier: &Retrier,
    ) -> Result<Duration, Stop> {
        crate::retry::decide(self, this, tally, retrier)
    }
}

/// Hands each of `hints`, held as text, to `each`: the body of `__each_hint` for a type
/// that keeps its hints in a list (and of the default, over what `hints` returns).
pub(crate) fn each_hint_of<H: fmt::Display>(hints: &[H], each: &mut dyn FnMut(fmt::Arguments<'_>)) {
    for hint in hints {
        each(format_args!("{hint}"));
    }
}

/// Writes `op [code]: `, the head of every classified error's Display: `op [code]: message`,
/// then `: cause` (`__private::write_cause`). The one writer of that form for the runtime's
/// own types and renderings; derived types write the same form in one `write!`.
pub(crate) fn write_head(f: &mut fmt::Formatter<'_>, op: &str, code: &str) -> fmt::Result {
    f.write_str(op)?;
    f.write_str(" [")?;
    f.write_str(code)?;
    f.write_str("]: ")
}

/// Displays an [`AgentError`]'s message alone, through [`AgentError::fmt_message`].
struct Message<'a, E: ?Sized>(&'a E);

impl<E: AgentError + ?Sized> fmt::Display for Message<'_, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt_message(f)
    }
}
