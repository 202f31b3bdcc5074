//! What a response means: the kinds of failure, the status table, and each kind's one
//! catalog entry, which is also where `StatusError` reads its code, policy, hints and recovery.

use crate::catalog::CodeDoc;
use crate::{Recovery, RetryPolicy, codes};

/// The code of a status the table does not know, such as a redirect that was not followed.
pub const HTTP_ERROR: &str = "http_error";

/// What a response means, decided once from its status, body and headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    InvalidInput,
    ContextOverflow,
    /// A refusal or a content filter (Azure's `content_filter`, …).
    ContentFiltered,
    Auth,
    NotFound,
    Timeout,
    RateLimit,
    QuotaSpent,
    Unavailable,
    /// A status that is not an error, or not one this table knows.
    Other,
}

impl Kind {
    /// The status table.
    pub(crate) const fn of_status(status: u16) -> Kind {
        match status {
            400 => Kind::InvalidInput,
            401 | 403 => Kind::Auth,
            404 => Kind::NotFound,
            408 | 504 => Kind::Timeout,
            429 => Kind::RateLimit,
            500..=599 => Kind::Unavailable,
            402..=499 => Kind::InvalidInput,
            _ => Kind::Other,
        }
    }

    /// The kind of a response: the status's, refined by what the body names and overridden by
    /// the server's `x-should-retry: true`.
    ///
    /// The body's kind counts on an error status (400 and up), except that only a 4xx can be
    /// a context overflow: a server error is never the prompt's fault. `x-should-retry: true`
    /// turns a kind that is not retried into `Unavailable`.
    pub(super) fn resolve(status: u16, body: Option<Kind>, should_retry: Option<bool>) -> Kind {
        let by_status = Kind::of_status(status);
        let kind = match body {
            Some(Kind::ContextOverflow | Kind::ContentFiltered)
                if !(400..=499).contains(&status) =>
            {
                by_status
            }
            Some(kind) if status >= 400 => kind,
            _ => by_status,
        };
        if should_retry == Some(true) && !kind.doc().policy.is_retryable() {
            Kind::Unavailable
        } else {
            kind
        }
    }

    /// This kind's row of the table: code, docs, hints, policy, recovery.
    pub(crate) const fn doc(self) -> &'static CodeDoc {
        match self {
            Kind::InvalidInput => &INVALID_INPUT,
            Kind::ContextOverflow => &CONTEXT_OVERFLOW,
            Kind::ContentFiltered => &CONTENT_FILTERED,
            Kind::Auth => &AUTH,
            Kind::NotFound => &NOT_FOUND,
            Kind::Timeout => &TIMEOUT,
            Kind::RateLimit => &RATE_LIMIT,
            Kind::QuotaSpent => &QUOTA_SPENT,
            Kind::Unavailable => &UNAVAILABLE,
            Kind::Other => &OTHER,
        }
    }
}

/// Every kind's entry: `StatusError`'s catalog.
pub(super) const TABLE: [CodeDoc; 10] = [
    INVALID_INPUT,
    CONTEXT_OVERFLOW,
    CONTENT_FILTERED,
    AUTH,
    NOT_FOUND,
    TIMEOUT,
    RATE_LIMIT,
    QUOTA_SPENT,
    UNAVAILABLE,
    OTHER,
];

const fn row(
    code: &'static str,
    variant: &'static str,
    message: &'static str,
    docs: &'static str,
    hints: &'static [&'static str],
    policy: RetryPolicy,
    recovery: Recovery,
) -> CodeDoc {
    CodeDoc::new(
        code,
        "agent_error::http::StatusError",
        variant,
        policy,
        recovery,
    )
    .with_message(message)
    .with_docs(docs)
    .with_hints(hints)
}

const INVALID_INPUT: CodeDoc = row(
    codes::INVALID_INPUT,
    "HTTP 400",
    "HTTP 400 Bad Request: {body}",
    "The provider rejected the request as invalid (also any other 4xx the table does not name, Anthropic's `invalid_request_error`, Google's `INVALID_ARGUMENT`).",
    &["the provider rejected the request: check its parameters"],
    RetryPolicy::NEVER,
    Recovery::Replan,
)
.with_status(400);

const CONTEXT_OVERFLOW: CodeDoc = row(
    codes::CONTEXT_OVERFLOW,
    "HTTP 400 (context overflow)",
    "HTTP 400 Bad Request: {body}",
    "The prompt does not fit the model's context window: a 4xx whose body says so (OpenAI's `context_length_exceeded`, Anthropic's `request_too_large`, \"prompt is too long\", \"maximum context length\", …).",
    &["shorten the prompt: summarise or drop older turns"],
    RetryPolicy::NEVER,
    Recovery::Compact,
)
.with_status(400);

const CONTENT_FILTERED: CodeDoc = row(
    codes::CONTENT_FILTERED,
    "HTTP 400 (content filtered)",
    "HTTP 400 Bad Request: {body}",
    "A content filter or the provider's policy refused the request: a 4xx whose body names it (Azure's `content_filter`, OpenAI's `cyber_policy`, `bio_policy`).",
    &["change the request: the provider's policy refused it"],
    RetryPolicy::NEVER,
    Recovery::Replan,
)
.with_status(400);

const AUTH: CodeDoc = row(
    codes::AUTH,
    "HTTP 401, 403",
    "HTTP 401 Unauthorized: {body}",
    "The credentials are missing, invalid or not allowed.",
    &["check the API key and what it is allowed to do"],
    RetryPolicy::NEVER,
    Recovery::Escalate,
)
.with_status(401);

const NOT_FOUND: CodeDoc = row(
    codes::NOT_FOUND,
    "HTTP 404",
    "HTTP 404 Not Found: {body}",
    "The model or resource does not exist.",
    &[],
    RetryPolicy::NEVER,
    Recovery::Abort,
)
.with_status(404);

const TIMEOUT: CodeDoc = row(
    codes::TIMEOUT,
    "HTTP 408, 504",
    "HTTP 504 Gateway Timeout: {body}",
    "The request timed out on the way or at the provider.",
    &[],
    RetryPolicy::DEFAULT,
    Recovery::Retry,
)
.with_status(504);

const RATE_LIMIT: CodeDoc = row(
    codes::RATE_LIMIT,
    "HTTP 429",
    "HTTP 429 Too Many Requests: {body}",
    "The provider is throttling this client; `Retry-After`, `retry-after-ms`, OpenAI's `x-ratelimit-reset-*` and Google's `RetryInfo` are honoured.",
    &["wait before retrying, lower the request rate, or use another model"],
    RetryPolicy::RATE_LIMITED,
    Recovery::Retry,
)
.with_status(429);

const QUOTA_SPENT: CodeDoc = row(
    codes::BUDGET_EXHAUSTED,
    "HTTP 429 (quota spent)",
    "HTTP 429 Too Many Requests: {body}",
    "The account's quota or credit is spent (OpenAI's `insufficient_quota`, …): retrying cannot help.",
    &["the provider's quota is spent: check billing or raise the quota"],
    RetryPolicy::NEVER,
    Recovery::Escalate,
)
.with_status(429);

const UNAVAILABLE: CodeDoc = row(
    codes::PROVIDER_UNAVAILABLE,
    "HTTP 5xx, 529",
    "HTTP 503 Service Unavailable: {body}",
    "The provider is down or overloaded (also Anthropic's `overloaded_error`, and any response the server marks `x-should-retry: true`).",
    &[],
    RetryPolicy::DEFAULT,
    Recovery::Retry,
)
.with_status(503);

const OTHER: CodeDoc = row(
    HTTP_ERROR,
    "HTTP (other)",
    "HTTP {status}: {body}",
    "A status the table does not know, such as a redirect that was not followed.",
    &[],
    RetryPolicy::NEVER,
    Recovery::Abort,
);
