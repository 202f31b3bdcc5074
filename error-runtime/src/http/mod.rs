//! HTTP: classifying provider responses by status, server hints and body, and reading `Retry-After`.
//! `StatusError` turns a failed response into a classified error with the right code.
//!
//! - [`StatusError`]: the error and its table: statuses, then what bodies and headers change.
//! - Server hints, read from headers: [`parse_retry_after`], [`parse_rate_limit_reset`],
//!   [`server_delay`], `retry-after-ms` and `x-should-retry` (see [`StatusError::from_parts`]).
//! - Rate limits, read from any response's headers: [`RateLimits`], what OpenAI's,
//!   Anthropic's, the IETF and the `X-RateLimit-*` fields say remains of each limit and when
//!   it resets.
//! - Provider bodies: the error JSON of OpenAI, Anthropic, Google, AWS and the servers that
//!   speak their APIs, and the providers' phrases in text; [`classify_body`] for a body that
//!   came without a status. Which piece of evidence wins when they disagree is one ordered
//!   table, on [`StatusError::from_parts`].
//!
//! A failed response, from whatever client read it, becomes a classified error; wrapped in
//! your own enum with `#[error(transparent)]` it keeps that classification.
//!
//! ```
//! use std::time::Duration;
//! use agent_error::{http::StatusError, AgentError};
//! use http::{HeaderMap, HeaderValue, StatusCode};
//!
//! // The provider throttles this client and says when to come back.
//! let mut headers = HeaderMap::new();
//! headers.insert("retry-after", HeaderValue::from_static("7"));
//! let body = r#"{"error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}"#;
//! let err = StatusError::from_parts(StatusCode::TOO_MANY_REQUESTS, &headers, body);
//! assert_eq!(err.code(), "rate_limit");
//! assert!(err.is_retryable());
//! assert_eq!(err.retry_after(), Some(Duration::from_secs(7)));
//!
//! // A 429 whose body says the quota is spent: waiting will not help.
//! let quota = StatusError::from_parts(429, &HeaderMap::new(), r#"{"error":{"type":"insufficient_quota"}}"#);
//! assert_eq!((quota.code(), quota.is_retryable()), ("budget_exhausted", false));
//! ```

use std::error::Error as StdError;

use crate::codes;
use crate::core::agent::Message;

pub(crate) mod body;
pub(crate) mod delay;
mod duration;
pub(crate) mod evidence;
mod headers;
pub(crate) mod json;
pub(crate) mod kind;
mod providers;
#[cfg(feature = "recover")]
mod ratelimit;
mod response;
mod status_error;
#[cfg(feature = "recover")]
mod timestamp;
mod vocabulary;
mod words;

pub use evidence::Decision;
pub use headers::{parse_rate_limit_reset, parse_retry_after, server_delay};
pub use kind::HTTP_ERROR;
#[cfg(feature = "recover")]
pub use ratelimit::{LimitReading, RateLimits};
pub use status_error::{RetryAfterSource, StatusError};
pub use vocabulary::{UnknownCode, Vocabulary};

/// A status as the functions of this module take it: an integer literal (`429`), a `u16`,
/// or the `http` crate's `StatusCode`. A number outside 0–65535 reads as 0, a status no
/// server sends, classified as an unknown error.
///
/// ```
/// use agent_error::{AgentError, http::StatusError};
///
/// let headers = http::HeaderMap::new();
/// assert_eq!(StatusError::from_parts(429, &headers, "").code(), "rate_limit");
/// assert_eq!(StatusError::from_parts(http::StatusCode::GATEWAY_TIMEOUT, &headers, "").code(), "timeout");
/// assert_eq!(StatusError::new(http::StatusCode::NOT_FOUND).code(), "not_found");
/// ```
pub trait IntoStatus {
    /// The status as a number.
    fn into_status(self) -> u16;
}

impl IntoStatus for u16 {
    fn into_status(self) -> u16 {
        self
    }
}

/// Integer literals are `i32` unless something says otherwise.
impl IntoStatus for i32 {
    fn into_status(self) -> u16 {
        u16::try_from(self).unwrap_or(0)
    }
}

impl IntoStatus for u32 {
    fn into_status(self) -> u16 {
        u16::try_from(self).unwrap_or(0)
    }
}

impl IntoStatus for ::http::StatusCode {
    fn into_status(self) -> u16 {
        self.as_u16()
    }
}

impl IntoStatus for &::http::StatusCode {
    fn into_status(self) -> u16 {
        self.as_u16()
    }
}

/// What a status says about retrying.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StatusClass {
    /// 408, 498 (Groq's flex tier out of capacity), 500–599 and 529: the same request may
    /// succeed later.
    Retryable,
    /// 429: the client is being throttled.
    RateLimited,
    /// Anything else: the same request will fail again.
    Permanent,
}

/// Classifies a status: `Retryable` for 408, 498, 500–599 and 529, `RateLimited` for 429,
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
    let policy = crate::core::status::status_policy(status);
    if policy.is_rate_limited() {
        StatusClass::RateLimited
    } else if policy.is_retryable() {
        StatusClass::Retryable
    } else {
        StatusClass::Permanent
    }
}

/// Whether any link of `err`'s chain says the prompt overflowed the context window.
///
/// A link classified `context_overflow` is one; a [`StatusError`] has read its body as
/// [`StatusError::from_parts`] describes, so its code decides and a 5xx is never an
/// overflow, whatever its body. Any other link's text (at most
/// [`StatusError::MAX_BODY`] bytes of it), classified or not, is read the same way as a body: a
/// provider's JSON error, or plain text with one of the providers' messages ("prompt is
/// too long", "maximum context length", "context_length_exceeded", "max_tokens must be
/// greater than thinking.budget_tokens", "input token count", …).
///
/// ```
/// use agent_error::http::{is_context_overflow, StatusError};
///
/// let e = StatusError::new(400).with_body(r#"{"error":{"code":"context_length_exceeded"}}"#);
/// assert!(is_context_overflow(&e));
/// assert!(!is_context_overflow(&StatusError::new(500)));
///
/// let anthropic = r#"{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 197626 + 8192 > 200000, decrease input length or `max_tokens` and try again"}}"#;
/// assert!(is_context_overflow(&StatusError::new(400).with_body(anthropic)));
/// // A request too large is not an overflow (both compact).
/// let bytes = r#"{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}"#;
/// assert!(!is_context_overflow(&StatusError::new(413).with_body(bytes)));
/// assert!(is_context_overflow(&std::io::Error::other("prompt is too long: 210000 tokens")));
///
/// // Whatever code it was given, a provider's message still says it.
/// let e = agent_error::Error::new("llm.generate", "invalid_input", "prompt is too long: 210000 tokens > 200000 maximum");
/// assert!(is_context_overflow(&e));
/// ```
pub fn is_context_overflow(err: &(dyn StdError + 'static)) -> bool {
    crate::chain::links(err).any(|link| match crate::core::classify::classify_link(link) {
        Some(classified) if classified.code() == codes::CONTEXT_OVERFLOW => true,
        // A response's code already says what its status and body say.
        Some(_) if link.is::<StatusError>() => false,
        // A wrapper such as `io::Error` displays as the error it wraps, the next link.
        None if crate::core::chain::wrapped(link).is_some() => false,
        classified => match classified.and_then(|c| c.typed()) {
            // A typed link by its message alone (its cause is the next link): an error built
            // from a provider's message keeps the message whatever code it was given.
            Some(typed) => says_overflow(&body::display_prefix(&Message(typed))),
            // A foreign link, classified or not, by its own text.
            None => says_overflow(&body::display_prefix(&link)),
        },
    })
}

/// Whether `text` reads as a provider's context-window message.
fn says_overflow(text: &str) -> bool {
    let body = body::read(text);
    evidence::Evidence {
        body,
        ..evidence::Evidence::default()
    }
    .kind()
        == Some(kind::Kind::ContextOverflow)
}

/// Classifies an error body that came without a status — a stream's error event, a
/// framework's error document, a body a client kept apart from its response — by the same
/// reader as [`StatusError::from_parts`]: the body's specific names, the phrase families of its
/// message, its generic type, and a number in it that stands for a status (`"code": 503`,
/// `"http_status_code": 429`). `None` when the body says nothing this crate reads. At most
/// [`StatusError::MAX_BODY`] bytes are read; any bytes are accepted, and it never panics.
///
/// ```
/// use agent_error::{AgentError, http::classify_body};
///
/// let event = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
/// let e = classify_body(event).unwrap();
/// assert_eq!((e.code(), e.is_retryable()), ("provider_unavailable", true));
///
/// let credit = r#"{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}"#;
/// let e = classify_body(credit).unwrap();
/// assert_eq!((e.code(), e.is_retryable()), ("budget_exhausted", false));
///
/// assert!(classify_body("<html>bad gateway</html>").is_none());
/// ```
pub fn classify_body(body: impl AsRef<[u8]>) -> Option<StatusError> {
    StatusError::from_body(body.as_ref())
}
