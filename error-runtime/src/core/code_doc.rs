//! `CodeDoc`, what is known of one code, and the `Catalog` trait that lists a type's codes:
//! core types, built at compile time by derived code and collected by the registry.

use crate::{Recovery, RetryPolicy};

/// What the catalog knows of one code, as one variant declares it.
///
/// Derived types build these at compile time: see [`Catalog`]. The fields are public to
/// read; new fields may be added, so the struct cannot be built outside this crate.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct CodeDoc {
    /// The code.
    pub code: &'static str,
    /// The op, or `None` when it is set at run time (an `#[op]` field, `with_op`).
    pub op: Option<&'static str>,
    /// The declaring type, with its module path (`my_crate::llm::LlmError`).
    pub type_name: &'static str,
    /// The variant (the type's own name for a struct).
    pub variant: &'static str,
    /// The message's format string as written (`"deadline exceeded after {tokens} tokens"`).
    pub message: &'static str,
    /// The variant's `///` doc comment, lines joined with `\n` (empty when none).
    pub docs: &'static str,
    /// The hints as written, placeholders and all.
    pub hints: &'static [&'static str],
    /// Whether it is retried.
    pub retryable: bool,
    /// Whether it is a rate limit.
    pub rate_limited: bool,
    /// What an agent loop should do.
    pub recovery: Recovery,
    /// The retry policy (without a `retry_after`, which is known only at run time).
    pub policy: RetryPolicy,
    /// Whether the retrying comes from the cause at run time: a variant that says nothing
    /// about retrying and has a cause is retried as its cause's classification is, with
    /// its recovery. [`retryable`](Self::retryable), [`rate_limited`](Self::rate_limited),
    /// [`recovery`](Self::recovery) and [`policy`](Self::policy) then say what it is when
    /// nothing classifies the cause: not retried, `abort`.
    pub retry_from_cause: bool,
    /// Whether the retrying comes from the HTTP status the variant holds (a `#[status]`
    /// field or one typed `StatusCode`): rate-limited on 429, retried on 408, 498 and 5xx, not
    /// retried otherwise. The other fields say what it is for a status that is not retried.
    pub retry_from_status: bool,
    /// Whether the retrying is its code's in the shared vocabulary
    /// ([`codes`](crate::codes)): a cause-less variant that says nothing about retrying and
    /// whose code is `timeout`, say, is retried as a dynamic `Error` with that code is.
    pub retry_from_code: bool,
    /// The HTTP status for wire renderings (`#[agent(status = 503)]`); `None` too when the
    /// variant holds its status in a field, known only at run time.
    pub status: Option<u16>,
    /// Whether the variant holds an HTTP status in a field (`#[status]`, a `StatusCode`):
    /// without a declared [`status`](Self::status), its wire status is that field's, known
    /// only at run time, whatever decides its retrying.
    pub holds_status: bool,
    /// The documentation URL (`docs_url` with `{code}` filled in).
    pub url: Option<&'static str>,
    /// The version the code appeared in (`#[agent(since = "1.2")]`).
    pub since: Option<&'static str>,
    /// Why the code is deprecated and what to use instead.
    pub deprecated: Option<&'static str>,
}

impl CodeDoc {
    /// An entry for a hand-written [`AgentError`](crate::AgentError) impl's
    /// [`Catalog`]: the code, where it is declared, its policy and recovery. Add the rest
    /// with the `with_*` methods; all are `const`.
    ///
    /// ```
    /// use agent_error::catalog::{Catalog, CodeDoc};
    /// use agent_error::{Recovery, RetryPolicy};
    ///
    /// struct Busy;
    /// impl Catalog for Busy {
    ///     const CODES: &'static [CodeDoc] = &[CodeDoc::new("busy", "my_crate::Busy", "Busy", RetryPolicy::DEFAULT, Recovery::Retry)
    ///         .with_op("db.query")
    ///         .with_message("the database is busy")
    ///         .with_hints(&["try again in a moment"])];
    /// }
    /// assert!(Busy::CODES[0].retryable);
    /// ```
    pub const fn new(
        code: &'static str,
        type_name: &'static str,
        variant: &'static str,
        policy: RetryPolicy,
        recovery: Recovery,
    ) -> Self {
        CodeDoc {
            code,
            op: None,
            type_name,
            variant,
            message: "",
            docs: "",
            hints: &[],
            retryable: policy.is_retryable(),
            rate_limited: policy.is_rate_limited(),
            recovery,
            policy,
            retry_from_cause: false,
            retry_from_status: false,
            retry_from_code: false,
            status: None,
            holds_status: false,
            url: None,
            since: None,
            deprecated: None,
        }
    }

    /// With the op.
    pub const fn with_op(mut self, op: &'static str) -> Self {
        self.op = Some(op);
        self
    }

    /// With the message's format string.
    pub const fn with_message(mut self, message: &'static str) -> Self {
        self.message = message;
        self
    }

    /// With the docs.
    pub const fn with_docs(mut self, docs: &'static str) -> Self {
        self.docs = docs;
        self
    }

    /// With the hints.
    pub const fn with_hints(mut self, hints: &'static [&'static str]) -> Self {
        self.hints = hints;
        self
    }

    /// Retried as its cause is classified (see [`retry_from_cause`](Self::retry_from_cause)).
    pub const fn with_retry_from_cause(mut self) -> Self {
        self.retry_from_cause = true;
        self
    }

    /// Retried as the status it holds says (see [`retry_from_status`](Self::retry_from_status)).
    pub const fn with_retry_from_status(mut self) -> Self {
        self.retry_from_status = true;
        self
    }

    /// Retried as its code in the shared vocabulary is (see
    /// [`retry_from_code`](Self::retry_from_code)).
    pub const fn with_retry_from_code(mut self) -> Self {
        self.retry_from_code = true;
        self
    }

    /// With the HTTP status.
    pub const fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    /// Holding its HTTP status in a field (see [`holds_status`](Self::holds_status)).
    pub const fn with_held_status(mut self) -> Self {
        self.holds_status = true;
        self
    }

    /// With the documentation URL.
    pub const fn with_url(mut self, url: &'static str) -> Self {
        self.url = Some(url);
        self
    }

    /// With the version the code appeared in.
    pub const fn with_since(mut self, since: &'static str) -> Self {
        self.since = Some(since);
        self
    }

    /// Marked deprecated, saying what to use instead.
    pub const fn with_deprecated(mut self, deprecated: &'static str) -> Self {
        self.deprecated = Some(deprecated);
        self
    }

    /// The HTTP status an error of this entry answers with, as
    /// [`Report::http_status`](https://docs.rs/agent-error/latest/agent_error/struct.Report.html#method.http_status)
    /// gives it (and so an axum `ApiError`): the declared status ([`status`](Self::status))
    /// when it is 400–599, else the status of the code (429 `rate_limit`, 504 `timeout`,
    /// 400 `invalid_input`, … 500 for a code of your own).
    ///
    /// `None` when the status is known only at run time, and no status is declared: the
    /// variant holds it in a field ([`holds_status`](Self::holds_status),
    /// [`retry_from_status`](Self::retry_from_status)), or takes it from its cause
    /// ([`retry_from_cause`](Self::retry_from_cause)).
    ///
    /// ```
    /// use agent_error::{AgentError, catalog::Catalog};
    ///
    /// #[derive(Debug, AgentError)]
    /// #[agent(op = "billing.charge")]
    /// enum BillingError {
    ///     #[agent(code = "rate_limit", rate_limited)]
    ///     #[error("too many charges")]
    ///     Throttled,
    ///     #[agent(code = "card_declined", status = 402)]
    ///     #[error("the card was declined")]
    ///     Declined,
    ///     #[agent(code = "ledger_down")]
    ///     #[error("the ledger is down")]
    ///     LedgerDown,
    ///     #[agent(code = "upstream")]
    ///     #[error("the bank answered {status}")]
    ///     Upstream { #[status] status: u16 },
    /// }
    ///
    /// let statuses: Vec<Option<u16>> = BillingError::CODES.iter().map(|d| d.http_status()).collect();
    /// assert_eq!(statuses, [Some(429), Some(402), Some(500), None]);
    /// ```
    pub fn http_status(&self) -> Option<u16> {
        match self.status {
            Some(status) if crate::core::status::is_error_status(status) => Some(status),
            Some(_) => Some(crate::core::status::code_status(self.code)),
            None if self.holds_status || self.retry_from_status || self.retry_from_cause => None,
            None => Some(crate::core::status::code_status(self.code)),
        }
    }
}

/// Types whose codes are known at compile time. `#[derive(AgentError)]` implements it
/// with one entry per variant (transparent variants have none: their codes are their
/// field's).
///
/// ```
/// use agent_error::{catalog::Catalog, AgentError};
///
/// #[derive(Debug, AgentError)]
/// #[agent(op = "llm.generate")]
/// enum LlmError {
///     /// The provider is throttling this client.
///     #[agent(code = "rate_limit", rate_limited, hint = "lower the request rate")]
///     #[error("provider returned 429")]
///     RateLimited,
/// }
///
/// let doc = &LlmError::CODES[0];
/// assert_eq!((doc.code, doc.op, doc.variant), ("rate_limit", Some("llm.generate"), "RateLimited"));
/// assert_eq!(doc.docs, "The provider is throttling this client.");
/// assert!(doc.rate_limited);
/// ```
pub trait Catalog {
    /// The type's codes, one entry per variant, in declaration order. Transparent
    /// variants have no entry of their own: their codes are their field's type's.
    const CODES: &'static [CodeDoc];

    /// Adds [`CODES`](Self::CODES) to `out`, then the entries of the types that its
    /// transparent variants wrap, when those types have a catalog (a derived type, the
    /// runtime's `CircuitOpen`), theirs included: every code a value of this type can
    /// show. [`catalog!`](crate::catalog!) calls it. A transparent field whose type
    /// mentions a type parameter adds nothing: name that type in `catalog!` too.
    fn collect_codes(out: &mut Vec<&'static CodeDoc>)
    where
        Self: Sized,
    {
        out.extend(Self::CODES.iter());
    }
}

#[cfg(test)]
mod tests {
    use super::CodeDoc;
    use crate::{Recovery, RetryPolicy};

    fn entry(code: &'static str) -> CodeDoc {
        CodeDoc::new(code, "t::T", "V", RetryPolicy::NEVER, Recovery::Abort)
    }

    #[test]
    fn http_status_declared_then_code_then_unknown() {
        // The code's status, when none is declared.
        assert_eq!(entry("rate_limit").http_status(), Some(429));
        assert_eq!(entry("timeout").http_status(), Some(504));
        assert_eq!(entry("invalid_input").http_status(), Some(400));
        assert_eq!(entry("my.own").http_status(), Some(500));
        // A declared error status wins; one outside 400–599 leaves the code to decide.
        assert_eq!(entry("my.own").with_status(402).http_status(), Some(402));
        assert_eq!(entry("timeout").with_status(200).http_status(), Some(504));
        assert_eq!(entry("my.own").with_status(600).http_status(), Some(500));
        // Known only at run time: held in a field, or taken from the cause.
        assert_eq!(
            entry("timeout").with_retry_from_status().http_status(),
            None
        );
        assert_eq!(entry("timeout").with_retry_from_cause().http_status(), None);
        assert_eq!(entry("timeout").with_held_status().http_status(), None);
        // A declared status is known even where the retrying comes at run time.
        let declared = entry("my.own").with_retry_from_cause().with_status(503);
        assert_eq!(declared.http_status(), Some(503));
    }
}
