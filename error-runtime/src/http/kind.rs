//! What a response means: the kinds of failure, the status table, and each kind's one
//! catalog entry, which is also where `StatusError` reads its code, policy, hints and recovery.
//! Which kind a response is, from all its evidence, is decided in `evidence.rs`.

use crate::catalog::CodeDoc;
use crate::{Recovery, RetryPolicy, codes};

/// The code of a status the table does not know, such as a redirect that was not followed.
pub const HTTP_ERROR: &str = "http_error";

/// What a response means, decided once from its status, body and headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    InvalidInput,
    ContextOverflow,
    /// The request alone exceeds a limit that waiting cannot lift (a byte cap, a per-request
    /// or per-minute token cap smaller than the request).
    RequestTooLarge,
    /// A refusal or a content filter (Azure's `content_filter`, …).
    ContentFiltered,
    Auth,
    NotFound,
    Timeout,
    RateLimit,
    /// Money, credits, a quota or a plan's limit is spent.
    BudgetExhausted,
    Unavailable,
    /// A status that is not an error, or not one this table knows.
    Other,
}

impl Kind {
    /// Every kind a response can be classified as (all but [`Other`](Kind::Other)).
    pub(super) const CLASSIFIED: [Kind; 10] = [
        Kind::InvalidInput,
        Kind::ContextOverflow,
        Kind::RequestTooLarge,
        Kind::ContentFiltered,
        Kind::Auth,
        Kind::NotFound,
        Kind::Timeout,
        Kind::RateLimit,
        Kind::BudgetExhausted,
        Kind::Unavailable,
    ];

    /// The status table.
    pub(crate) const fn of_status(status: u16) -> Kind {
        match status {
            401 | 403 => Kind::Auth,
            402 => Kind::BudgetExhausted,
            404 => Kind::NotFound,
            408 | 504 | 522 | 524 => Kind::Timeout,
            413 => Kind::RequestTooLarge,
            429 => Kind::RateLimit,
            // Groq's flex tier out of capacity: come back later.
            498 | 500..=599 => Kind::Unavailable,
            400..=499 => Kind::InvalidInput,
            _ => Kind::Other,
        }
    }

    /// Whether a response whose status is `status` can be of this kind by what its body
    /// says: a server error (5xx) is not a size limit, so no body makes it one. (It can be a
    /// context overflow: llama.cpp answers one with a 500 whose body says so, and sending
    /// the same prompt again fails the same way; and a content policy's refusal, which
    /// relays and streams relabel as a 500, unless its words say the filter itself failed.)
    pub(super) const fn fits(self, status: u16) -> bool {
        match self {
            Kind::RequestTooLarge => status < 500,
            _ => true,
        }
    }

    /// This kind's row of the table: code, docs, hints, policy, recovery.
    pub(crate) const fn doc(self) -> &'static CodeDoc {
        match self {
            Kind::InvalidInput => &INVALID_INPUT,
            Kind::ContextOverflow => &CONTEXT_OVERFLOW,
            Kind::RequestTooLarge => &REQUEST_TOO_LARGE,
            Kind::ContentFiltered => &CONTENT_FILTERED,
            Kind::Auth => &AUTH,
            Kind::NotFound => &NOT_FOUND,
            Kind::Timeout => &TIMEOUT,
            Kind::RateLimit => &RATE_LIMIT,
            Kind::BudgetExhausted => &BUDGET_EXHAUSTED,
            Kind::Unavailable => &UNAVAILABLE,
            Kind::Other => &OTHER,
        }
    }
}

/// Every kind's entry: `StatusError`'s catalog.
pub(super) const TABLE: [CodeDoc; 11] = [
    INVALID_INPUT,
    CONTEXT_OVERFLOW,
    REQUEST_TOO_LARGE,
    CONTENT_FILTERED,
    AUTH,
    NOT_FOUND,
    TIMEOUT,
    RATE_LIMIT,
    BUDGET_EXHAUSTED,
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
    "The prompt does not fit the model's context window: a 4xx (or a 413) whose body says so in a provider's words (OpenAI's `context_length_exceeded`, \"prompt is too long\", \"maximum context length\", \"input length and `max_tokens` exceed context limit\", \"too many tokens\", …), relayed through a gateway or not.",
    &["shorten the prompt: summarise or drop older turns"],
    RetryPolicy::NEVER,
    Recovery::Compact,
)
.with_status(400);

const REQUEST_TOO_LARGE: CodeDoc = row(
    codes::REQUEST_TOO_LARGE,
    "HTTP 413 (request too large)",
    "HTTP 413 Content Too Large: {body}",
    "The request alone exceeds a limit that waiting cannot lift: a 413 (Anthropic's `request_too_large`, Groq's 413 even when its body says `rate_limit_exceeded`), or a 429 whose message says the request is too large for the per-minute token limit (\"Request too large … on tokens per min\"). It fails the same way every time.",
    &["make the request smaller: compact the prompt, send fewer or smaller attachments, or lower max_tokens"],
    RetryPolicy::NEVER,
    Recovery::Compact,
)
.with_status(413);

const CONTENT_FILTERED: CodeDoc = row(
    codes::CONTENT_FILTERED,
    "HTTP 400 (content filtered)",
    "HTTP 400 Bad Request: {body}",
    "A content filter or the provider's policy refused the request: a 4xx whose body names it (Azure's `content_filter`, OpenAI's `content_policy_violation`, `cyber_policy`, `bio_policy`) or says so (a moderation refusal, \"flagged\").",
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
    "The model or resource does not exist (a 404 whatever its body's generic type: a missing model does not appear by waiting; a 404 whose words say the request asks what no endpoint supports is `invalid_input`).",
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

const BUDGET_EXHAUSTED: CodeDoc = row(
    codes::BUDGET_EXHAUSTED,
    "HTTP 402 (budget spent)",
    "HTTP 402 Payment Required: {body}",
    "Money, credits, a quota or a plan's limit is spent: a 402, or any error status whose body says so (OpenAI's `insufficient_quota`, Anthropic's credit balance, \"insufficient balance\", a spending or usage limit, a free tier whose limit is 0, a daily quota): waiting a minute does not help. A fallback moves on to the next candidate, which may have budget.",
    &["the account's budget is spent: add credit, raise the limit, or use another account or provider"],
    RetryPolicy::NEVER,
    Recovery::Escalate,
)
.with_status(402);

const UNAVAILABLE: CodeDoc = row(
    codes::PROVIDER_UNAVAILABLE,
    "HTTP 5xx, 529",
    "HTTP 503 Service Unavailable: {body}",
    "The provider is down or overloaded (also Anthropic's `overloaded_error` and 529, Groq's 498 when its flex tier is out of capacity, and any response the server marks `x-should-retry: true`).",
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
