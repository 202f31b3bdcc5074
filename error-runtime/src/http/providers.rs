//! What the providers say and how, as data: the names of failures in their error bodies
//! (each specific or generic), the phrase families of their messages, Google's quota
//! reading, and the providers' rate-limit headers. The readers (`body`, `headers`, `json`,
//! `ratelimit`) hold no provider name of their own; `evidence` says in what order each
//! piece counts.

use super::kind::Kind;
#[cfg(feature = "recover")]
use super::ratelimit::{LimitFields, ResetForm};
#[cfg(feature = "recover")]
use crate::store::Dimension;

/// How much a name in an error body tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Weight {
    /// It names this one failure (`insufficient_quota`, `context_length_exceeded`): it wins
    /// over the message's phrases.
    Specific,
    /// It names a class of failures (`invalid_request_error`, `rate_limit_exceeded`,
    /// `api_error`, Google's `RESOURCE_EXHAUSTED`): the message's phrases say more.
    Generic,
}

/// Every name the providers give a failure in a body, wherever it stands (`error.code`,
/// `error.type`, a top-level `type` or `code`, Google's `error.status` and
/// `details[].reason`, TGI's `error_type`, AWS's `__type` and `x-amzn-ErrorType`, Azure's
/// `innererror.code`), with what it means and how much it tells. Names are matched exactly.
#[rustfmt::skip]
pub(super) const NAMES: &[(&str, Kind, Weight)] = &[
    // Money, credits, quotas and plans.
    ("insufficient_quota", Kind::BudgetExhausted, Weight::Specific),         // OpenAI
    ("billing_hard_limit_reached", Kind::BudgetExhausted, Weight::Specific), // OpenAI
    ("credit_balance_exhausted", Kind::BudgetExhausted, Weight::Specific),
    ("billing_error", Kind::BudgetExhausted, Weight::Specific),              // Anthropic
    ("insufficient_balance", Kind::BudgetExhausted, Weight::Specific),
    ("insufficient_credits", Kind::BudgetExhausted, Weight::Specific),
    ("budget_exceeded", Kind::BudgetExhausted, Weight::Specific),            // LiteLLM's proxy
    ("ServiceQuotaExceededException", Kind::BudgetExhausted, Weight::Specific), // AWS
    ("exceeded_current_quota_error", Kind::BudgetExhausted, Weight::Specific), // Moonshot
    ("Arrearage", Kind::BudgetExhausted, Weight::Specific),                  // Alibaba
    // A request too large to ever pass.
    ("request_too_large", Kind::RequestTooLarge, Weight::Specific),          // Anthropic's 413
    // The context window.
    ("context_length_exceeded", Kind::ContextOverflow, Weight::Specific),    // OpenAI
    ("model_context_window_exceeded", Kind::ContextOverflow, Weight::Specific),
    ("exceed_context_size_error", Kind::ContextOverflow, Weight::Specific),  // llama.cpp
    ("string_above_max_length", Kind::ContextOverflow, Weight::Specific),    // OpenAI
    // Content policies.
    ("content_filter", Kind::ContentFiltered, Weight::Specific),             // Azure
    ("content_policy_violation", Kind::ContentFiltered, Weight::Specific),   // OpenAI
    ("ResponsibleAIPolicyViolation", Kind::ContentFiltered, Weight::Specific), // Azure
    ("cyber_policy", Kind::ContentFiltered, Weight::Specific),
    ("bio_policy", Kind::ContentFiltered, Weight::Specific),
    ("data_inspection_failed", Kind::ContentFiltered, Weight::Specific),     // Alibaba
    ("DataInspectionFailed", Kind::ContentFiltered, Weight::Specific),       // Alibaba
    // Credentials.
    ("invalid_api_key", Kind::Auth, Weight::Specific),                       // OpenAI
    ("authentication_error", Kind::Auth, Weight::Specific),                  // Anthropic
    ("permission_error", Kind::Auth, Weight::Specific),                      // Anthropic
    ("API_KEY_INVALID", Kind::Auth, Weight::Specific),                       // Google's reason
    ("API_KEY_SERVICE_BLOCKED", Kind::Auth, Weight::Specific),               // Google's reason
    ("AccessDeniedException", Kind::Auth, Weight::Specific),                 // AWS
    ("UnrecognizedClientException", Kind::Auth, Weight::Specific),           // AWS
    ("ExpiredTokenException", Kind::Auth, Weight::Specific),                 // AWS
    ("unsupported_country_region_territory", Kind::Auth, Weight::Specific),  // OpenAI
    ("InvalidApiKey", Kind::Auth, Weight::Specific),                         // Alibaba
    ("organization_restricted", Kind::Auth, Weight::Specific),               // Groq
    ("UNAUTHENTICATED", Kind::Auth, Weight::Generic),                        // Google
    ("PERMISSION_DENIED", Kind::Auth, Weight::Generic),                      // Google
    // What does not exist.
    ("model_not_found", Kind::NotFound, Weight::Specific),                   // OpenAI
    ("model_decommissioned", Kind::NotFound, Weight::Specific),              // Groq
    ("invalid_model", Kind::NotFound, Weight::Specific),                     // Mistral, Perplexity
    ("UnknownOperationException", Kind::NotFound, Weight::Specific),         // AWS
    ("model_not_available", Kind::NotFound, Weight::Specific),               // Together
    ("dedicated_endpoint_not_running", Kind::NotFound, Weight::Specific),    // Together
    ("not_found_error", Kind::NotFound, Weight::Specific),                   // Anthropic
    ("DeploymentNotFound", Kind::NotFound, Weight::Specific),                // Azure
    ("ResourceNotFoundException", Kind::NotFound, Weight::Specific),         // AWS
    ("NOT_FOUND", Kind::NotFound, Weight::Generic),                          // Google
    ("NotFoundError", Kind::NotFound, Weight::Generic),                      // vLLM
    // Time.
    ("timeout_error", Kind::Timeout, Weight::Specific),                      // Anthropic
    ("ModelTimeoutException", Kind::Timeout, Weight::Specific),              // AWS
    ("DEADLINE_EXCEEDED", Kind::Timeout, Weight::Generic),                   // Google
    // Throttling.
    ("ThrottlingException", Kind::RateLimit, Weight::Specific),              // AWS
    ("TooManyRequestsException", Kind::RateLimit, Weight::Specific),         // AWS
    ("rate_limit_exceeded", Kind::RateLimit, Weight::Generic),               // OpenAI
    ("rate_limit_error", Kind::RateLimit, Weight::Generic),                  // Anthropic
    ("slow_down", Kind::RateLimit, Weight::Generic),
    ("too_many_requests", Kind::RateLimit, Weight::Generic),
    ("RESOURCE_EXHAUSTED", Kind::RateLimit, Weight::Generic),                // Google
    ("RateLimitError", Kind::RateLimit, Weight::Generic),                    // Python SDKs' names
    // The server's side.
    ("ServiceUnavailableException", Kind::Unavailable, Weight::Specific),    // AWS
    ("ModelNotReadyException", Kind::Unavailable, Weight::Specific),         // AWS
    ("InternalServerException", Kind::Unavailable, Weight::Specific),        // AWS
    ("ModelErrorException", Kind::Unavailable, Weight::Specific),            // AWS
    ("engine_overloaded_error", Kind::Unavailable, Weight::Specific),        // Moonshot
    ("generation", Kind::Unavailable, Weight::Specific),                     // TGI
    ("incomplete_generation", Kind::Unavailable, Weight::Specific),          // TGI
    ("overloaded", Kind::Unavailable, Weight::Specific),                     // TGI
    ("server_is_overloaded", Kind::Unavailable, Weight::Generic),
    ("overloaded_error", Kind::Unavailable, Weight::Generic),                // Anthropic
    ("api_error", Kind::Unavailable, Weight::Generic),
    ("server_error", Kind::Unavailable, Weight::Generic),                    // OpenAI
    ("UNAVAILABLE", Kind::Unavailable, Weight::Generic),                     // Google
    ("INTERNAL", Kind::Unavailable, Weight::Generic),                        // Google
    ("InternalServerError", Kind::Unavailable, Weight::Generic),             // vLLM
    // Bad requests.
    ("invalid_request_error", Kind::InvalidInput, Weight::Generic),
    ("INVALID_ARGUMENT", Kind::InvalidInput, Weight::Generic),               // Google
    ("FAILED_PRECONDITION", Kind::InvalidInput, Weight::Generic),            // Google
    ("validation", Kind::InvalidInput, Weight::Generic),                     // TGI
    ("ValidationException", Kind::InvalidInput, Weight::Generic),            // AWS
    ("BadRequestError", Kind::InvalidInput, Weight::Generic),                // vLLM
];

/// The phrase families: what a provider's message says in words, whatever the body's
/// generic type, each family in order (the first that matches wins). Matched in ASCII
/// lowercase against at most the first 64 KiB of the message.
#[rustfmt::skip]
pub(super) const PHRASES: &[(Kind, &[&str])] = &[
    // Money and plan limits: waiting a minute does not help.
    (Kind::BudgetExhausted, &[
        "insufficient_quota",
        "exceeded your current quota",
        "exceeded current quota",
        "billing_hard_limit_reached",
        "credit balance is too low",
        "insufficient balance",
        "insufficient credits",
        "insufficient account balance",
        "credits exhausted",
        "run out of credits",
        "out of credits",
        "spending limit",
        "api usage limits",
        "usage limit reached",
        "reached your usage limit",
        "session usage limit",
        "hourly usage limit",
        "daily usage limit",
        "weekly usage limit",
        "monthly usage limit",
        "extra usage",
        "budget has been exceeded",
        "exceededtokenbudget",
        "exceeded budget",
        "max budget",
        "payment required",
        "calls / month",
        "free-models-per-day",
        "in good standing",
        "overdue payment",
        "arrears",
        "欠费",     // in arrears
        "余额不足", // insufficient balance
    ]),
    // A request that alone exceeds a limit waiting cannot lift.
    (Kind::RequestTooLarge, &[
        "request too large",
        "request exceeds the maximum size",
        "request entity too large",
        "payload too large",
        "image exceeds",
        "too many tokens in batch",
    ]),
    // The context window, in every provider's words.
    (Kind::ContextOverflow, &[
        "prompt is too long",
        "maximum context length",
        "context_length_exceeded",
        "max_tokens must be greater than thinking.budget_tokens",
        "input is too long",
        "exceeds the context window",
        "exceed context limit",
        "context window",
        "context length",
        "context size",
        // Google: "The input token count (1200000) exceeds the maximum number of tokens allowed".
        "input token count",
        "exceeds the maximum number of tokens",
        "too many tokens: total number of tokens",
        "too many tokens: size limit exceeded",
        "max_new_tokens` must be <=",
        "maximum prompt length",
        "reduce the length of the messages",
        "range of input length",
        "exceeded model token limit",
        "input_too_large",
    ]),
    // Content policies and moderation.
    (Kind::ContentFiltered, &[
        "content_policy_violation",
        "content management policy",
        "content policy",
        "content filtering",
        "content blocked",
        "guardrail",
        "safety system",
        "input was flagged",
        "moderation",
        "inappropriate content",
        "considered high risk",
        "content exists risk",
        "敏感内容", // sensitive content
    ]),
    // Who may call at all: a person must act.
    (Kind::Auth, &[
        "organization has been disabled",
        "organization has been restricted",
        "account has been disabled",
        "location is not supported",
    ]),
    // What does not exist.
    (Kind::NotFound, &[
        "model not found",
        "model identifier is invalid",
        "has been decommissioned",
        "模型不存在", // the model does not exist
    ]),
    // Throttling, said in words only.
    (Kind::RateLimit, &[
        "rate limit exceeded",
        "rate limit reached",
        "tokens per minute limit exceeded",
        "too many requests",
    ]),
    // A deadline passed, said in words only.
    (Kind::Timeout, &[
        "timed out waiting",
    ]),
    // The server failed, said in words only.
    (Kind::Unavailable, &[
        "server had an error",
        "temporarily unavailable",
        "capacity exceeded",
        "unable to process your request",
        "try your request again",
        "error was encountered while running the model",
        "failed to generate a response",
        "incomplete generation",
        "model busy",
        "currently loading",
        "overloaded",
    ]),
    // A parameter the server does not support, whatever status it is sent with.
    (Kind::InvalidInput, &[
        "unsupported param",
    ]),
];

/// Google's quota reading: a `QuotaFailure` whose `quotaId` counts per day is a plan's
/// limit, spent until the next day; so is a free tier whose limit is 0 (the model is not in
/// the plan at all). A per-minute quota is a rate limit.
pub(super) const DAILY_QUOTA: &str = "perday";
/// Google's message for a quota whose limit is 0 (the plan does not include it).
pub(super) const ZERO_LIMIT: &str = "limit: 0";
/// Google's status for a call the server cancelled (code 499).
pub(super) const CANCELLED: &str = "CANCELLED";
/// Google's message naming the quota that was exceeded.
pub(super) const QUOTA_METRIC: &str = "quota exceeded for metric";

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
#[cfg(feature = "recover")]
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
