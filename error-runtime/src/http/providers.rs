//! What the providers say and how, as data: the error types and codes of OpenAI, Anthropic
//! and Google bodies, the phrases of plain-text bodies, and the providers' rate-limit
//! headers. The readers (`body`, `headers`, `json`, `ratelimit`) hold no provider name of
//! their own.

use super::kind::Kind;
use super::ratelimit::{Dimension, LimitFields, ResetForm};

/// The providers' ways of saying the prompt does not fit the context window.
pub(super) const CONTEXT_OVERFLOW_MARKERS: [&str; 7] = [
    "prompt is too long",
    "maximum context length",
    "context_length_exceeded",
    "max_tokens must be greater than thinking.budget_tokens",
    "input is too long",
    "exceeds the context window",
    // Google: "The input token count (1200000) exceeds the maximum number of tokens allowed".
    "input token count",
];

/// The providers' ways of saying the quota or credit is spent (not worth retrying).
pub(super) const QUOTA_MARKERS: [&str; 5] = [
    "insufficient_quota",
    "exceeded your current quota",
    "quota exceeded",
    "billing_hard_limit_reached",
    "credit balance is too low",
];

/// OpenAI's `error.code`, then `error.type`, and the names of the servers that speak its API
/// (vLLM, Ollama, OpenRouter, Azure); also a `code` at the top, as the Responses API's
/// `error` event has it.
pub(super) const OPENAI: &[(&str, Kind)] = &[
    ("insufficient_quota", Kind::QuotaSpent),
    ("billing_hard_limit_reached", Kind::QuotaSpent),
    ("credit_balance_exhausted", Kind::QuotaSpent),
    ("context_length_exceeded", Kind::ContextOverflow),
    ("invalid_api_key", Kind::Auth),
    ("rate_limit_exceeded", Kind::RateLimit),
    ("slow_down", Kind::RateLimit),
    ("too_many_requests", Kind::RateLimit),
    ("server_error", Kind::Unavailable),
    ("server_is_overloaded", Kind::Unavailable),
    ("api_error", Kind::Unavailable),
    ("content_filter", Kind::ContentFiltered),
    ("cyber_policy", Kind::ContentFiltered),
    ("bio_policy", Kind::ContentFiltered),
];

/// Text Generation Inference's `error_type`. A failed generation is the server's fault,
/// whatever 4xx it is sent with.
pub(super) const TGI: &[(&str, Kind)] = &[
    ("generation", Kind::Unavailable),
    ("incomplete_generation", Kind::Unavailable),
    ("overloaded", Kind::Unavailable),
    ("validation", Kind::InvalidInput),
];

/// Anthropic's `error.type`, under `"type": "error"`.
pub(super) const ANTHROPIC: &[(&str, Kind)] = &[
    ("overloaded_error", Kind::Unavailable),
    ("api_error", Kind::Unavailable),
    ("timeout_error", Kind::Timeout),
    ("billing_error", Kind::QuotaSpent),
    ("rate_limit_error", Kind::RateLimit),
    ("request_too_large", Kind::ContextOverflow),
    ("authentication_error", Kind::Auth),
    ("permission_error", Kind::Auth),
    ("not_found_error", Kind::NotFound),
    ("invalid_request_error", Kind::InvalidInput),
];

/// Google's `error.status` (a `google.rpc.Code` name).
pub(super) const GOOGLE: &[(&str, Kind)] = &[
    ("RESOURCE_EXHAUSTED", Kind::RateLimit),
    ("UNAVAILABLE", Kind::Unavailable),
    ("DEADLINE_EXCEEDED", Kind::Timeout),
    ("UNAUTHENTICATED", Kind::Auth),
    ("PERMISSION_DENIED", Kind::Auth),
    ("NOT_FOUND", Kind::NotFound),
    ("INVALID_ARGUMENT", Kind::InvalidInput),
];

/// The `@type` suffix of Google's `RetryInfo` error detail.
pub(super) const RETRY_INFO: &str = "google.rpc.RetryInfo";

/// OpenAI's two limits, each with the header saying what is left and the one saying when
/// it refills.
pub(super) const RATE_LIMITS: [(&str, &str); 2] = [
    (
        "x-ratelimit-remaining-requests",
        "x-ratelimit-reset-requests",
    ),
    ("x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"),
];

/// The rate-limit fields that name what they count, each limit with its capacity, what
/// remains and its reset: OpenAI's (Groq, vLLM and Azure use the same names), Anthropic's,
/// and the unsuffixed `x-ratelimit-*` of OpenRouter and GitHub-style APIs.
pub(super) const LIMIT_FIELDS: [LimitFields; 7] = [
    LimitFields {
        dimension: Dimension::Requests,
        limit: "x-ratelimit-limit-requests",
        remaining: "x-ratelimit-remaining-requests",
        reset: "x-ratelimit-reset-requests",
        reset_form: ResetForm::GoDuration,
        window: false,
    },
    LimitFields {
        dimension: Dimension::Tokens,
        limit: "x-ratelimit-limit-tokens",
        remaining: "x-ratelimit-remaining-tokens",
        reset: "x-ratelimit-reset-tokens",
        reset_form: ResetForm::GoDuration,
        window: false,
    },
    LimitFields {
        dimension: Dimension::Requests,
        limit: "anthropic-ratelimit-requests-limit",
        remaining: "anthropic-ratelimit-requests-remaining",
        reset: "anthropic-ratelimit-requests-reset",
        reset_form: ResetForm::Rfc3339,
        window: false,
    },
    LimitFields {
        dimension: Dimension::Tokens,
        limit: "anthropic-ratelimit-tokens-limit",
        remaining: "anthropic-ratelimit-tokens-remaining",
        reset: "anthropic-ratelimit-tokens-reset",
        reset_form: ResetForm::Rfc3339,
        window: false,
    },
    LimitFields {
        dimension: Dimension::InputTokens,
        limit: "anthropic-ratelimit-input-tokens-limit",
        remaining: "anthropic-ratelimit-input-tokens-remaining",
        reset: "anthropic-ratelimit-input-tokens-reset",
        reset_form: ResetForm::Rfc3339,
        window: false,
    },
    LimitFields {
        dimension: Dimension::OutputTokens,
        limit: "anthropic-ratelimit-output-tokens-limit",
        remaining: "anthropic-ratelimit-output-tokens-remaining",
        reset: "anthropic-ratelimit-output-tokens-reset",
        reset_form: ResetForm::Rfc3339,
        window: false,
    },
    LimitFields {
        dimension: Dimension::Requests,
        limit: "x-ratelimit-limit",
        remaining: "x-ratelimit-remaining",
        reset: "x-ratelimit-reset",
        reset_form: ResetForm::EpochOrDelta,
        window: true,
    },
];
