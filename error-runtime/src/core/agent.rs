//! The `AgentError` trait: what every classified error can tell about itself.
//! Derived with `#[derive(AgentError)]`, or written by hand for special cases.

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

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
/// Hints are read two ways: [`hints`](AgentError::hints) returns them as a `Vec`, and
/// [`each_hint`](AgentError::each_hint) hands them one by one to a closure without
/// allocating, which is how the renderings (tool results, messages for people) read them.
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

    /// Writes the message as Display shows it: `#[redact]` fields as `[redacted]`, and
    /// everything else (a foreign cause written into the message) as
    /// [`fmt_message`](AgentError::fmt_message) writes it. The operator's chain for logs
    /// ([`display::chain`](crate::display::chain)) uses it.
    ///
    /// The default is [`fmt_message`](AgentError::fmt_message): a type without `#[redact]`
    /// fields has nothing to hide there. The derive writes it when a message shows one.
    fn fmt_redacted_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_message(f)
    }

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
        // `fmt::write` rather than `to_string`, whose machinery would be compiled again
        // for each type that implements the trait (the chain walk's vtable needs this).
        // A `Display` that fails (a bug of its own) leaves what it wrote: no panic here.
        let mut out = String::new();
        let _ = fmt::write(&mut out, format_args!("{}", Message(self)));
        out
    }

    /// The HTTP status for wire renderings (`#[agent(status = 503)]`), if any.
    fn status(&self) -> Option<u16> {
        None
    }

    /// The documentation URL of this code (`#[agent(docs_url = "https://…/{code}")]`), if any.
    fn docs_url(&self) -> Option<&str> {
        None
    }

    /// Where the error was made, when it records it: a derived variant's `#[location]`
    /// field, which the generated `From` fills with the `?` that converted the error. For
    /// the operator (`Debug`, [`Report`](crate::Report), traces); never in Display, tool
    /// text or text for people.
    fn location(&self) -> Option<&'static std::panic::Location<'static>> {
        None
    }

    /// Calls `each` with every hint, in order, as format arguments: the hints of
    /// [`hints`](AgentError::hints), read without building a `Vec` or a `String`. The
    /// renderings (tool results, messages for people) read hints this way.
    ///
    /// The default reads `hints`. The derive writes both from the same text, so they
    /// agree; an impl that overrides this method must give exactly what `hints` gives.
    ///
    /// ```
    /// use agent_error::AgentError;
    ///
    /// #[derive(Debug, AgentError)]
    /// #[agent(op = "fs.read", code = "not_found", hint = "check the path {path}", hint = "list the folder")]
    /// #[error("no file at {path}")]
    /// struct Missing { path: String }
    ///
    /// let mut out = String::new();
    /// Missing { path: "a.txt".into() }.each_hint(&mut |hint| {
    ///     out.push_str(&hint.to_string());
    ///     out.push('\n');
    /// });
    /// assert_eq!(out, "check the path a.txt\nlist the folder\n");
    /// ```
    fn each_hint(&self, each: &mut dyn FnMut(fmt::Arguments<'_>)) {
        each_hint_of(&self.hints(), each);
    }
}

/// Hands each of `hints`, held as text, to `each`: the body of `each_hint` for a type
/// that keeps its hints in a list (and of the default, over what `hints` returns).
pub(crate) fn each_hint_of<H: fmt::Display>(hints: &[H], each: &mut dyn FnMut(fmt::Arguments<'_>)) {
    for hint in hints {
        each(format_args!("{hint}"));
    }
}

/// Writes `op [code]: `, the head of every classified error's Display: `op [code]: message`,
/// then `: cause` ([`write_cause`]). The one writer of that form for the runtime's
/// own types and renderings; derived types write the same form in one `write!`.
/// Without an op (a report whose op was not valid, an `Error` built with `""`), the head is
/// `[code]: `, with no space before it.
pub(crate) fn write_head(f: &mut fmt::Formatter<'_>, op: &str, code: &str) -> fmt::Result {
    head_pieces(op, code)
        .into_iter()
        .try_for_each(|piece| f.write_str(piece))
}

/// The pieces of the head that [`write_head`] writes, in order: what a reader that skips
/// the head (`__private::WithoutHead`) must match.
pub(crate) fn head_pieces<'a>(op: &'a str, code: &'a str) -> [&'a str; 4] {
    if op.is_empty() {
        ["", "[", code, "]: "]
    } else {
        [op, " [", code, "]: "]
    }
}

/// Writes a cause after a message: `": {cause}"`, the tail of the runtime's own classified
/// errors' Display. A cause that is itself an [`AgentError`] shows without its
/// `op [code]: ` head, so that a line has one head. The caller's width and precision are
/// not passed on: they were meant for the whole error, not for its cause.
pub(crate) fn write_cause(
    f: &mut fmt::Formatter<'_>,
    cause: &(dyn std::error::Error + 'static),
) -> fmt::Result {
    match crate::find(cause) {
        Some(typed) if std::ptr::addr_eq(typed, cause) => {
            write!(f, ": {}", crate::core::head::WithoutHead::of(typed))
        }
        _ => write!(f, ": {cause}"),
    }
}

/// Displays an [`AgentError`]'s message alone, through [`AgentError::fmt_message`].
pub(crate) struct Message<'a, E: ?Sized>(pub(crate) &'a E);

impl<E: AgentError + ?Sized> fmt::Display for Message<'_, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt_message(f)
    }
}
