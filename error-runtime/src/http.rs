//! HTTP: classifying provider responses by status and body, and reading `Retry-After`.
//! `StatusError` turns a failed response into a classified error with the right code.

use std::borrow::Cow;
use std::error::Error as StdError;
use std::fmt;
use std::time::{Duration, SystemTime};

use crate::catalog::{Catalog, CodeDoc};
use crate::{AgentError, Recovery, RetryPolicy, codes};

/// What a status says about retrying.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StatusClass {
    /// 408, 500–599 and 529: the same request may succeed later.
    Retryable,
    /// 429: the client is being throttled.
    RateLimited,
    /// Anything else: the same request will fail again.
    Permanent,
}

/// Classifies a status: `Retryable` for 408, 500–599 and 529, `RateLimited` for 429,
/// `Permanent` otherwise.
///
/// ```
/// use agent_error::http::{classify_status, StatusClass};
///
/// assert_eq!(classify_status(503), StatusClass::Retryable);
/// assert_eq!(classify_status(529), StatusClass::Retryable);
/// assert_eq!(classify_status(429), StatusClass::RateLimited);
/// assert_eq!(classify_status(404), StatusClass::Permanent);
/// ```
pub const fn classify_status(status: u16) -> StatusClass {
    match status {
        429 => StatusClass::RateLimited,
        408 | 500..=599 => StatusClass::Retryable,
        _ => StatusClass::Permanent,
    }
}

/// Reads a `Retry-After` value: delay-seconds (`"120"`) or an HTTP-date in any of the
/// three forms of RFC 9110 (`"Sun, 06 Nov 1994 08:49:37 GMT"`, `"Sunday, 06-Nov-94
/// 08:49:37 GMT"`, `"Sun Nov  6 08:49:37 1994"`), as the delay from `now`.
///
/// `None` for anything invalid, negative, or a date in the past. Never panics.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use agent_error::http::parse_retry_after;
///
/// let now = SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_717); // 1994-11-06 08:48:37 UTC
/// assert_eq!(parse_retry_after("120", now), Some(Duration::from_secs(120)));
/// assert_eq!(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now), Some(Duration::from_secs(60)));
/// assert_eq!(parse_retry_after("-1", now), None);
/// assert_eq!(parse_retry_after("soon", now), None);
/// ```
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        return value.parse::<u64>().ok().map(Duration::from_secs);
    }
    let date = httpdate::parse_http_date(value).ok()?;
    date.duration_since(now).ok()
}

/// The providers' ways of saying the prompt does not fit the context window.
const CONTEXT_OVERFLOW_MARKERS: [&str; 6] = [
    "prompt is too long",
    "maximum context length",
    "context_length_exceeded",
    "max_tokens must be greater than thinking.budget_tokens",
    "input is too long",
    "exceeds the context window",
];

/// The providers' ways of saying the quota or credit is spent (not worth retrying).
const QUOTA_MARKERS: [&str; 5] = [
    "insufficient_quota",
    "exceeded your current quota",
    "quota exceeded",
    "billing_hard_limit_reached",
    "credit balance is too low",
];

fn contains_any(haystack: &str, needles: &[&str]) -> bool {
    let haystack = haystack.to_ascii_lowercase();
    needles.iter().any(|n| haystack.contains(n))
}

/// Whether any link of `err`'s chain says the prompt overflowed the context window: a
/// classified link with code `context_overflow`, or a link whose text carries one of the
/// providers' messages ("prompt is too long", "maximum context length",
/// "context_length_exceeded", "max_tokens must be greater than thinking.budget_tokens", …).
/// A server error (5xx) is never taken for an overflow, whatever its body.
///
/// ```
/// use agent_error::http::{is_context_overflow, StatusError};
///
/// let e = StatusError::new(400).with_body(r#"{"error":{"code":"context_length_exceeded"}}"#);
/// assert!(is_context_overflow(&e));
/// assert!(!is_context_overflow(&StatusError::new(500)));
/// ```
pub fn is_context_overflow(err: &(dyn StdError + 'static)) -> bool {
    crate::links(err).any(|link| {
        if let Some(status) = link.downcast_ref::<StatusError>() {
            return status.kind == Kind::ContextOverflow;
        }
        if crate::classify::classify_link(link).is_some_and(|e| e.code() == codes::CONTEXT_OVERFLOW)
        {
            return true;
        }
        contains_any(&link.to_string(), &CONTEXT_OVERFLOW_MARKERS)
    })
}

/// The code of a status the table does not know, such as a redirect that was not followed.
pub const HTTP_ERROR: &str = "http_error";

/// What a response means, decided once from its status and body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    InvalidInput,
    ContextOverflow,
    Auth,
    NotFound,
    Timeout,
    RateLimit,
    QuotaSpent,
    Unavailable,
    /// A status that is not an error, or not one this table knows.
    Other,
}

/// A failed HTTP response, classified.
///
/// | status | code | retried | recovery |
/// |---|---|---|---|
/// | 400 | `invalid_input` | no | replan |
/// | 400 whose body shows a context overflow | `context_overflow` | no | compact |
/// | 401, 403 | `auth_error` | no | escalate |
/// | 404 | `not_found` | no | abort |
/// | 408, 504 | `timeout` | yes | retry |
/// | 429 | `rate_limit` | yes, rate-limited | retry |
/// | 429 whose body says the quota is spent (`insufficient_quota`, …) | `budget_exhausted` | no | escalate |
/// | other 5xx, 529 | `provider_unavailable` | yes | retry |
/// | other 4xx | `invalid_input` | no | replan |
/// | anything else (a redirect not followed, a non-standard status) | `http_error` | no | abort |
///
/// The `Retry-After` delay, when given, is the policy's `retry_after`. Display shows
/// `http [code]: HTTP 429 Too Many Requests: <first line of the body>`; the public
/// message leaves the body out.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use agent_error::{http::StatusError, AgentError};
///
/// let e = StatusError::from_response(429, Some("7"), "slow down", SystemTime::now());
/// assert_eq!(e.code(), "rate_limit");
/// assert!(e.is_rate_limited());
/// assert_eq!(e.retry_after(), Some(Duration::from_secs(7)));
/// assert_eq!(e.to_string(), "http [rate_limit]: HTTP 429 Too Many Requests: slow down");
///
/// let quota = StatusError::new(429).with_body(r#"{"error":{"type":"insufficient_quota"}}"#);
/// assert_eq!(quota.code(), "budget_exhausted");
/// assert!(!quota.is_retryable());
/// ```
#[derive(Debug)]
pub struct StatusError {
    status: u16,
    retry_after: Option<Duration>,
    body: String,
    op: Cow<'static, str>,
    source: Option<Box<dyn StdError + Send + Sync + 'static>>,
    kind: Kind,
}

impl StatusError {
    /// A failed response with this status and no body.
    pub fn new(status: u16) -> Self {
        StatusError {
            status,
            retry_after: None,
            body: String::new(),
            op: Cow::Borrowed("http"),
            source: None,
            kind: kind(status, ""),
        }
    }

    /// A failed response from its parts: the status, the `Retry-After` header if any
    /// (read with [`parse_retry_after`] against `now`) and the body.
    pub fn from_response(
        status: u16,
        retry_after: Option<&str>,
        body: impl Into<String>,
        now: SystemTime,
    ) -> Self {
        let mut e = Self::new(status).with_body(body);
        e.retry_after = retry_after.and_then(|v| parse_retry_after(v, now));
        e
    }

    /// Sets the body, which may change the code (quota spent, context overflow).
    #[must_use]
    pub fn with_body(mut self, body: impl Into<String>) -> Self {
        self.body = body.into();
        self.kind = kind(self.status, &self.body);
        self
    }

    /// Sets the server's requested delay.
    #[must_use]
    pub fn with_retry_after(mut self, delay: Duration) -> Self {
        self.retry_after = Some(delay);
        self
    }

    /// Sets the operation (`"http"` by default), such as `"llm.generate"`.
    #[must_use]
    pub fn with_op(mut self, op: impl Into<Cow<'static, str>>) -> Self {
        self.op = op.into();
        self
    }

    /// Sets the cause (a transport error, say).
    #[must_use]
    pub fn with_source(
        mut self,
        source: impl Into<Box<dyn StdError + Send + Sync + 'static>>,
    ) -> Self {
        self.source = Some(source.into());
        self
    }

    /// The HTTP status.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The response body.
    pub fn body(&self) -> &str {
        &self.body
    }

    fn write_status(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HTTP {}", self.status)?;
        match reason(self.status) {
            Some(reason) => write!(f, " {reason}"),
            None => Ok(()),
        }
    }
}

fn kind(status: u16, body: &str) -> Kind {
    match status {
        400 if contains_any(body, &CONTEXT_OVERFLOW_MARKERS) => Kind::ContextOverflow,
        413 if contains_any(body, &CONTEXT_OVERFLOW_MARKERS) => Kind::ContextOverflow,
        400 => Kind::InvalidInput,
        401 | 403 => Kind::Auth,
        404 => Kind::NotFound,
        408 | 504 => Kind::Timeout,
        429 if contains_any(body, &QUOTA_MARKERS) => Kind::QuotaSpent,
        429 => Kind::RateLimit,
        500..=599 => Kind::Unavailable,
        402..=499 => Kind::InvalidInput,
        _ => Kind::Other,
    }
}

fn reason(status: u16) -> Option<&'static str> {
    Some(match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Content Too Large",
        422 => "Unprocessable Content",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => return None,
    })
}

inventory::submit! { crate::registry::Registration::of::<StatusError>() }

impl fmt::Display for StatusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}]: ", self.op, self.code())?;
        self.fmt_message(f)?;
        match &self.source {
            Some(source) => crate::__private::write_cause(f, &**source),
            None => Ok(()),
        }
    }
}

impl StdError for StatusError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn StdError + 'static))
    }
}

impl AgentError for StatusError {
    fn code(&self) -> &str {
        match self.kind {
            Kind::InvalidInput => codes::INVALID_INPUT,
            Kind::ContextOverflow => codes::CONTEXT_OVERFLOW,
            Kind::Auth => codes::AUTH,
            Kind::NotFound => codes::NOT_FOUND,
            Kind::Timeout => codes::TIMEOUT,
            Kind::RateLimit => codes::RATE_LIMIT,
            Kind::QuotaSpent => codes::BUDGET_EXHAUSTED,
            Kind::Unavailable => codes::PROVIDER_UNAVAILABLE,
            Kind::Other => HTTP_ERROR,
        }
    }

    fn op(&self) -> &str {
        &self.op
    }

    /// `HTTP 429 Too Many Requests`, then `: ` and the body's first line (at most 200 characters).
    fn fmt_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_status(f)?;
        let first = self.body.lines().map(str::trim).find(|l| !l.is_empty());
        match first {
            Some(line) => {
                let cut = line.char_indices().nth(200).map_or(line.len(), |(i, _)| i);
                write!(f, ": {}", &line[..cut])
            }
            None => Ok(()),
        }
    }

    /// `HTTP 429 Too Many Requests`: the body stays out of public renderings.
    fn fmt_public_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_status(f)
    }

    fn retry_policy(&self) -> RetryPolicy {
        let policy = match self.kind {
            Kind::RateLimit => RetryPolicy::RATE_LIMITED,
            Kind::Timeout | Kind::Unavailable => RetryPolicy::DEFAULT,
            _ => return RetryPolicy::NEVER,
        };
        policy.with_retry_after(self.retry_after)
    }

    fn hints(&self) -> Vec<Cow<'static, str>> {
        let hint = match self.kind {
            Kind::ContextOverflow => "shorten the prompt: summarise or drop older turns",
            Kind::Auth => "check the API key and what it is allowed to do",
            Kind::RateLimit => "wait before retrying, lower the request rate, or use another model",
            Kind::QuotaSpent => "the provider's quota is spent: check billing or raise the quota",
            Kind::InvalidInput => "the provider rejected the request: check its parameters",
            _ => return Vec::new(),
        };
        vec![Cow::Borrowed(hint)]
    }

    fn status(&self) -> Option<u16> {
        Some(self.status)
    }

    fn recovery(&self) -> Recovery {
        match self.kind {
            Kind::InvalidInput => Recovery::Replan,
            Kind::ContextOverflow => Recovery::Compact,
            Kind::Auth | Kind::QuotaSpent => Recovery::Escalate,
            Kind::Timeout | Kind::RateLimit | Kind::Unavailable => Recovery::Retry,
            Kind::NotFound | Kind::Other => Recovery::Abort,
        }
    }
}

impl PartialEq for StatusError {
    /// Equal when the codes are, as derived types.
    fn eq(&self, other: &Self) -> bool {
        self.code() == other.code()
    }
}

impl Eq for StatusError {}

#[allow(clippy::too_many_arguments)]
const fn status_doc(
    code: &'static str,
    variant: &'static str,
    message: &'static str,
    docs: &'static str,
    hints: &'static [&'static str],
    recovery: Recovery,
    policy: RetryPolicy,
    status: Option<u16>,
) -> CodeDoc {
    crate::__private::code_doc(
        code,
        None,
        "agent_error::http::StatusError",
        variant,
        message,
        docs,
        hints,
        recovery,
        policy,
        status,
        None,
        None,
        None,
    )
}

impl Catalog for StatusError {
    /// One entry per row of the table above; the op is set at run time (`"http"` by default).
    const CODES: &'static [CodeDoc] = &[
        status_doc(
            codes::INVALID_INPUT,
            "HTTP 400",
            "HTTP 400 Bad Request: {body}",
            "The provider rejected the request as invalid (also any other 4xx the table does not name).",
            &["the provider rejected the request: check its parameters"],
            Recovery::Replan,
            RetryPolicy::NEVER,
            Some(400),
        ),
        status_doc(
            codes::CONTEXT_OVERFLOW,
            "HTTP 400 (context overflow)",
            "HTTP 400 Bad Request: {body}",
            "The prompt does not fit the model's context window; the body says so (\"prompt is too long\", \"maximum context length\", …).",
            &["shorten the prompt: summarise or drop older turns"],
            Recovery::Compact,
            RetryPolicy::NEVER,
            Some(400),
        ),
        status_doc(
            codes::AUTH,
            "HTTP 401, 403",
            "HTTP 401 Unauthorized: {body}",
            "The credentials are missing, invalid or not allowed.",
            &["check the API key and what it is allowed to do"],
            Recovery::Escalate,
            RetryPolicy::NEVER,
            Some(401),
        ),
        status_doc(
            codes::NOT_FOUND,
            "HTTP 404",
            "HTTP 404 Not Found: {body}",
            "The model or resource does not exist.",
            &[],
            Recovery::Abort,
            RetryPolicy::NEVER,
            Some(404),
        ),
        status_doc(
            codes::TIMEOUT,
            "HTTP 408, 504",
            "HTTP 504 Gateway Timeout: {body}",
            "The request timed out on the way or at the provider.",
            &[],
            Recovery::Retry,
            RetryPolicy::DEFAULT,
            Some(504),
        ),
        status_doc(
            codes::RATE_LIMIT,
            "HTTP 429",
            "HTTP 429 Too Many Requests: {body}",
            "The provider is throttling this client; `Retry-After` is honoured.",
            &["wait before retrying, lower the request rate, or use another model"],
            Recovery::Retry,
            RetryPolicy::RATE_LIMITED,
            Some(429),
        ),
        status_doc(
            codes::BUDGET_EXHAUSTED,
            "HTTP 429 (quota spent)",
            "HTTP 429 Too Many Requests: {body}",
            "The account's quota or credit is spent (`insufficient_quota`, …): retrying cannot help.",
            &["the provider's quota is spent: check billing or raise the quota"],
            Recovery::Escalate,
            RetryPolicy::NEVER,
            Some(429),
        ),
        status_doc(
            codes::PROVIDER_UNAVAILABLE,
            "HTTP 5xx, 529",
            "HTTP 503 Service Unavailable: {body}",
            "The provider is down or overloaded.",
            &[],
            Recovery::Retry,
            RetryPolicy::DEFAULT,
            Some(503),
        ),
        status_doc(
            HTTP_ERROR,
            "HTTP (other)",
            "HTTP {status}: {body}",
            "A status the table does not know, such as a redirect that was not followed.",
            &[],
            Recovery::Abort,
            RetryPolicy::NEVER,
            None,
        ),
    ];
}
