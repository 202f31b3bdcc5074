//! `StatusError`: a failed HTTP response, classified from its status, headers and body.
//! Its code, policy, hints and recovery are read from the kinds' table in `kind.rs`.

use std::borrow::Cow;
use std::error::Error as StdError;
use std::fmt::{self, Write as _};
use std::time::{Duration, SystemTime};

use super::IntoStatus;
use super::body;
use super::evidence::{Decision, Evidence};
use super::headers::{ServerHints, parse_retry_after};
use super::kind::{Kind, TABLE};
use super::providers::Weight;
use crate::catalog::{Catalog, CodeDoc};
use crate::core::summary::{ELLIPSIS, OneLine, fold_id};
use crate::{AgentError, Recovery, RetryPolicy};

/// The hint of a response the server said not to retry, in place of its kind's.
const DO_NOT_RETRY_HINT: &str =
    "the server asked not to retry this request: use another provider or model";

/// A failed HTTP response, classified.
///
/// By its status alone:
///
/// | status | code | retried | recovery |
/// |---|---|---|---|
/// | 400 | `invalid_input` | no | replan |
/// | 401, 403 | `auth_error` | no | escalate |
/// | 402 | `budget_exhausted` | no | escalate |
/// | 404 | `not_found` | no | abort |
/// | 408, 504 | `timeout` | yes | retry |
/// | 413 | `request_too_large` | no | compact |
/// | 429 | `rate_limit` | yes, rate-limited | retry |
/// | 498 (Groq's flex tier out of capacity), other 5xx, 529 | `provider_unavailable` | yes | retry |
/// | other 4xx | `invalid_input` | no | replan |
/// | anything else (a redirect not followed, a non-standard status) | `http_error` | no | abort |
///
/// On an error status (400 and up) the headers and the body say more, and when they disagree
/// the order of evidence decides (see [`from_parts`](Self::from_parts)): server hints, then a
/// status whose meaning is specific (402, 404, 413, 498, 529), then the body's specific names,
/// then the phrase families of its message (a spent budget, a request too large, a context
/// overflow, a content policy), then its generic type, and last the status class.
///
/// The server's delay, when given, is the policy's `retry_after`, and
/// [`retry_after_source`](Self::retry_after_source) says where it came from;
/// [`request_id`](Self::request_id) is the provider's id for the request. Display shows
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
    /// `None` for a body read without a status ([`classify_body`](super::classify_body)).
    status: Option<u16>,
    /// From a header, or `with_retry_after`.
    retry_after: Option<Duration>,
    body: String,
    /// `x-should-retry`.
    should_retry: Option<bool>,
    /// What else the response says, when it says anything: boxed, so that a
    /// `Result<T, StatusError>` stays small.
    facts: Option<Box<Facts>>,
    op: Cow<'static, str>,
    source: Option<Box<dyn StdError + Send + Sync + 'static>>,
    kind: Kind,
}

/// What a response says besides its status, body and header delay.
#[derive(Debug, Default)]
struct Facts {
    /// The wait the body gives (a field, else its message's text).
    body_wait: Option<(Duration, RetryAfterSource)>,
    /// On a 429 the server gave no verdict on, the reset of OpenAI's spent limit.
    reset: Option<Duration>,
    /// The provider's request id, folded and cut.
    request_id: Option<Box<str>>,
    /// What decided the code, when the body or a header did (else the status).
    decided: Option<Decision>,
    /// The failure's name in `x-amzn-ErrorType`, specific and generic, for the body's
    /// reading.
    header_names: [Option<body::Hint>; 2],
}

impl StatusError {
    /// The most of a body that is kept, in bytes: provider error bodies are small, and a
    /// body is read and kept in memory with the error.
    ///
    /// ```
    /// use agent_error::http::StatusError;
    ///
    /// let e = StatusError::new(500).with_body("x".repeat(100_000));
    /// assert_eq!(e.body().len(), StatusError::MAX_BODY);
    /// ```
    pub const MAX_BODY: usize = body::MAX_BODY;

    /// The most characters of the body's first line that its message shows.
    pub const FIRST_LINE_CHARS: usize = 200;

    /// A failed response with this status and no body.
    ///
    /// ```
    /// use agent_error::{http::StatusError, AgentError};
    ///
    /// assert_eq!(StatusError::new(404).code(), "not_found");
    /// ```
    pub fn new(status: impl IntoStatus) -> Self {
        let status = status.into_status();
        Self::blank(Some(status), Kind::of_status(status))
    }

    /// A failed response of `kind` with nothing else said: no body, no headers, no cause.
    fn blank(status: Option<u16>, kind: Kind) -> Self {
        StatusError {
            status,
            retry_after: None,
            body: String::new(),
            should_retry: None,
            facts: None,
            op: Cow::Borrowed("http"),
            source: None,
            kind,
        }
    }

    /// A body that came without a status, classified by what it says, or `None` when it says
    /// nothing this crate reads. See [`classify_body`](super::classify_body).
    pub(super) fn from_body(body: &[u8]) -> Option<Self> {
        let body = body::keep(body);
        let hints = body::read(&body);
        let status = hints.status.filter(|status| *status >= 400);
        let (kind, decided) = Evidence {
            status,
            body: hints,
            ..Evidence::default()
        }
        .decide()?;
        let mut e = Self::blank(status, kind);
        e.body = body;
        e.facts_mut().body_wait = body_wait(&hints);
        e.set_decided(decided);
        e.drop_empty_facts();
        Some(e)
    }

    /// A failed response from the `http` crate's parts: the status, the headers and the body
    /// (of which at most [`MAX_BODY`](Self::MAX_BODY) bytes are kept, as lossy UTF-8).
    ///
    /// Server hints read from the headers (names in any case; values that are not visible
    /// ASCII are ignored):
    /// - `retry-after-ms`: milliseconds, integer or decimal (`"1500"`, `"250.5"`);
    /// - `Retry-After`: delay-seconds or an HTTP-date ([`parse_retry_after`]), when there is
    ///   no valid `retry-after-ms`;
    /// - `x-should-retry: true|false`: the server's verdict over the status's. `false`: not
    ///   retried, and what would have been retried (429, 5xx, timeouts) gets recovery
    ///   `fallback` ("not here: use another provider"); the rest keep their recovery.
    ///   `true`: what would not have been retried becomes `provider_unavailable`, retried
    ///   with the default policy.
    /// - on a 429 without `x-should-retry`, OpenAI's `x-ratelimit-reset-requests` and
    ///   `x-ratelimit-reset-tokens` ([`parse_rate_limit_reset`](super::parse_rate_limit_reset)):
    ///   the reset of the limit that `x-ratelimit-remaining-*` says is `0` (the later one when
    ///   both are), else the sooner of the two, when nothing else gives a wait;
    /// - `x-amzn-ErrorType`: AWS's name for the failure, read as the same name in the body;
    /// - `x-request-id`, `request-id`, `x-amzn-requestid`, else `cf-ray`: the provider's
    ///   request id ([`request_id`](Self::request_id)).
    ///
    /// When the status, the headers and the body disagree, the first of these that says
    /// anything decides:
    ///
    /// | # | evidence | examples | gives |
    /// |---|---|---|---|
    /// | 1 | server hints | `x-should-retry`, `retry-after-ms`, `Retry-After` | retrying and the wait |
    /// | 2 | a status whose meaning is specific | 402, 404 (unless its words blame the request: "No endpoints found that support tool use"), 413 (a context overflow if the body says so), 498, 529 | `budget_exhausted`, `not_found`, `request_too_large`, `provider_unavailable` |
    /// | 3 | the body's specific names | `error.code`, a specific `error.type` (`insufficient_quota`, `context_length_exceeded`, `content_policy_violation`, `model_not_found`, `billing_error`, `request_too_large`), Google's `details[].reason` (`API_KEY_INVALID`) and quotas (per day, or a limit of 0: `budget_exhausted`; per minute: `rate_limit`), AWS's `__type`, Azure's `innererror.code`, TGI's `error_type`, a moderation flag | what they name |
    /// | 4 | phrase families in the message | a spent budget ("credit balance is too low", "insufficient balance", "usage limit reached"), a request too large ("Request too large … tokens per min"), a context overflow ("prompt is too long", "maximum context length", "input length and `max_tokens` exceed context limit", …), a content policy, and a few more | `budget_exhausted`, `request_too_large`, `context_overflow`, `content_filtered`, … |
    /// | 5 | the body's generic type | `rate_limit_exceeded`, `rate_limit_error`, `overloaded_error`, `api_error`, `server_error`, Google's `RESOURCE_EXHAUSTED`, `UNAVAILABLE` | what it names |
    /// | 6 | the status class | the table on [`StatusError`] | |
    ///
    /// A generic type that says only "invalid request" (`invalid_request_error`,
    /// `INVALID_ARGUMENT`) counts only without a status or on a 5xx (a relay's 500 around a
    /// provider's refusal); a 5xx is never made a request too
    /// large by its body (it is an overflow when its body says so, and a filtered request
    /// when its words say a policy refused it and not that the filter failed); a
    /// gateway's relayed body (OpenRouter's `metadata.raw`) is read one level deep. The
    /// message is `error.message` (or its `error` string), a string `error`, `message` or
    /// `detail`, or a plain-text body; the guide's HTTP chapter lists what each provider
    /// sends and how it reads.
    ///
    /// The wait of a failure that is retried, first found: the headers above, a field of the
    /// body (Google's `RetryInfo.retryDelay`, Hugging Face's `estimated_time`), the message's
    /// text ("Please try again in 11.054s"), OpenAI's rate-limit reset. A wait from the
    /// message or from `estimated_time` longer than 31 days (or too large to hold) is 31 days:
    /// a very long wait, which ends a run at its `max_wait` instead of being retried at once.
    ///
    /// ```
    /// use std::time::Duration;
    /// use agent_error::{http::StatusError, AgentError, Recovery};
    /// use http::{HeaderMap, HeaderValue, StatusCode};
    ///
    /// let mut headers = HeaderMap::new();
    /// headers.insert("retry-after-ms", HeaderValue::from_static("1500"));
    /// let e = StatusError::from_parts(StatusCode::TOO_MANY_REQUESTS, &headers, "slow down");
    /// assert_eq!(e.retry_after(), Some(Duration::from_millis(1500)));
    ///
    /// let overloaded = br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    /// let e = StatusError::from_parts(529u16, &HeaderMap::new(), overloaded);
    /// assert_eq!(e.code(), "provider_unavailable");
    ///
    /// headers.insert("x-should-retry", HeaderValue::from_static("false"));
    /// let e = StatusError::from_parts(503u16, &headers, "");
    /// assert!(!e.is_retryable());
    /// assert_eq!(e.recovery(), Recovery::Fallback);
    /// ```
    pub fn from_parts(
        status: impl IntoStatus,
        headers: &::http::HeaderMap,
        body: impl AsRef<[u8]>,
    ) -> Self {
        Self::from_parts_at(status, headers, body, SystemTime::now())
    }

    /// A failed response classified from its status and headers alone, for a middleware that
    /// must not read the body: the server hints of [`from_parts`](Self::from_parts), no
    /// provider body.
    ///
    /// ```
    /// use std::time::Duration;
    /// use agent_error::{http::StatusError, AgentError};
    /// use http::{HeaderMap, HeaderValue, StatusCode};
    ///
    /// let mut headers = HeaderMap::new();
    /// headers.insert("retry-after", HeaderValue::from_static("3"));
    /// let e = StatusError::from_head(StatusCode::SERVICE_UNAVAILABLE, &headers);
    /// assert_eq!(e.code(), "provider_unavailable");
    /// assert_eq!(e.retry_after(), Some(Duration::from_secs(3)));
    /// ```
    pub fn from_head(status: impl IntoStatus, headers: &::http::HeaderMap) -> Self {
        Self::from_parts(status, headers, b"")
    }

    /// [`from_parts`](Self::from_parts) with the clock that HTTP-dates in `Retry-After`
    /// are measured against, for tests.
    ///
    /// ```
    /// use std::time::{Duration, SystemTime};
    /// use agent_error::{http::StatusError, AgentError};
    /// use http::{HeaderMap, HeaderValue};
    ///
    /// let now = SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_717); // 1994-11-06 08:48:37 UTC
    /// let mut headers = HeaderMap::new();
    /// headers.insert("retry-after", HeaderValue::from_static("Sun, 06 Nov 1994 08:49:37 GMT"));
    /// let e = StatusError::from_parts_at(503u16, &headers, "", now);
    /// assert_eq!(e.retry_after(), Some(Duration::from_secs(60)));
    /// ```
    pub fn from_parts_at(
        status: impl IntoStatus,
        headers: &::http::HeaderMap,
        body: impl AsRef<[u8]>,
        now: SystemTime,
    ) -> Self {
        let status = status.into_status();
        let mut e = Self::new(status);
        let server = ServerHints::read(headers, status, now);
        e.retry_after = server.retry_after;
        e.should_retry = server.should_retry;
        if let Some(name) = server.error_name.as_deref() {
            e.facts_mut().header_names = [
                body::name_of(name, Weight::Specific),
                body::name_of(name, Weight::Generic),
            ];
        }
        let facts = e.facts_mut();
        facts.reset = server.reset;
        facts.request_id = server.request_id;
        e.set_body(body::keep(body.as_ref()));
        e
    }

    /// A failed response from its parts: the status, the `Retry-After` header if any
    /// (read with [`parse_retry_after`] against `now`) and the body.
    ///
    /// ```
    /// use std::time::{Duration, SystemTime};
    /// use agent_error::{http::StatusError, AgentError};
    ///
    /// let e = StatusError::from_response(503, Some("2"), "", SystemTime::now());
    /// assert_eq!(e.retry_after(), Some(Duration::from_secs(2)));
    /// ```
    pub fn from_response(
        status: impl IntoStatus,
        retry_after: Option<&str>,
        body: impl Into<String>,
        now: SystemTime,
    ) -> Self {
        let mut e = Self::new(status).with_body(body);
        e.retry_after = retry_after.and_then(|v| parse_retry_after(v, now));
        e
    }

    /// Sets the body (at most [`MAX_BODY`](Self::MAX_BODY) bytes are kept, cut at a
    /// character boundary), which may change the code (quota spent, context overflow, a
    /// provider's error type) and give a delay (Google's `RetryInfo`).
    ///
    /// ```
    /// use agent_error::{http::StatusError, AgentError};
    ///
    /// let e = StatusError::new(400).with_body("prompt is too long: 210000 tokens > 200000 maximum");
    /// assert_eq!(e.code(), "context_overflow");
    /// ```
    #[must_use]
    pub fn with_body(mut self, body: impl Into<String>) -> Self {
        self.set_body(body::truncate(body.into()));
        self
    }

    /// Sets the server's requested delay.
    ///
    /// ```
    /// use std::time::Duration;
    /// use agent_error::{http::StatusError, AgentError};
    ///
    /// let e = StatusError::new(429).with_retry_after(Duration::from_secs(3));
    /// assert_eq!(e.retry_after(), Some(Duration::from_secs(3)));
    /// ```
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

    /// Sets the provider's request id (folded to visible ASCII and cut to 128 bytes), for a
    /// client that read it from somewhere other than the headers
    /// [`from_parts`](Self::from_parts) reads.
    ///
    /// ```
    /// use agent_error::http::StatusError;
    ///
    /// let e = StatusError::new(500).with_request_id("req_\n123");
    /// assert_eq!(e.request_id(), Some("req_123"));
    /// ```
    #[must_use]
    pub fn with_request_id(mut self, id: &str) -> Self {
        self.facts_mut().request_id = fold_id(id).map(Into::into);
        self.drop_empty_facts();
        self
    }

    /// The HTTP status; 0 for a body read without one ([`classify_body`](super::classify_body)
    /// of a document that names no status).
    pub fn status(&self) -> u16 {
        self.status.unwrap_or(0)
    }

    /// The response body, as kept.
    pub fn body(&self) -> &str {
        &self.body
    }

    /// The provider's request id, to quote to the provider: the first of `x-request-id`,
    /// `request-id` (Anthropic), `x-amzn-requestid` (AWS) and, as a last resort, `cf-ray`,
    /// folded to visible ASCII and cut to 128 bytes. It is in [`Debug`](fmt::Debug) and the
    /// wire form, never in Display, tool text or text for people.
    ///
    /// ```
    /// use agent_error::http::StatusError;
    /// use http::{HeaderMap, HeaderValue};
    ///
    /// let mut headers = HeaderMap::new();
    /// headers.insert("request-id", HeaderValue::from_static("req_018EeWyXxfu5pfWkrYcMdjWG"));
    /// let e = StatusError::from_parts(529u16, &headers, "");
    /// assert_eq!(e.request_id(), Some("req_018EeWyXxfu5pfWkrYcMdjWG"));
    /// assert!(!e.to_string().contains("req_"));
    /// ```
    pub fn request_id(&self) -> Option<&str> {
        self.facts.as_ref()?.request_id.as_deref()
    }

    /// Where [`retry_after`](AgentError::retry_after) came from, when there is one: a
    /// header (`retry-after-ms`, `Retry-After`, or [`with_retry_after`](Self::with_retry_after)),
    /// a field of the body (Google's `RetryInfo`), the message's text ("try again in
    /// 11.054s"), or OpenAI's rate-limit reset header. The first of these that gives a delay
    /// is the one used.
    ///
    /// ```
    /// use std::time::Duration;
    /// use agent_error::{AgentError, http::{RetryAfterSource, StatusError}};
    ///
    /// let body = r#"{"error":{"message":"Rate limit reached for gpt-4o. Please try again in 1.5s.","type":"requests","code":"rate_limit_exceeded"}}"#;
    /// let e = StatusError::new(429).with_body(body);
    /// assert_eq!(e.retry_after(), Some(Duration::from_millis(1500)));
    /// assert_eq!(e.retry_after_source(), Some(RetryAfterSource::Message));
    /// ```
    pub fn retry_after_source(&self) -> Option<RetryAfterSource> {
        self.retry_policy()
            .retry_after()
            .and(self.wait().map(|(_, source)| source))
    }

    /// The wait the response asks for and where it came from, retried or not.
    fn wait(&self) -> Option<(Duration, RetryAfterSource)> {
        let facts = self.facts.as_deref();
        let reset = facts.and_then(|f| f.reset);
        self.retry_after
            .map(|delay| (delay, RetryAfterSource::Header))
            .or(facts.and_then(|f| f.body_wait))
            .or(reset.map(|delay| (delay, RetryAfterSource::RateLimitReset)))
    }

    fn set_body(&mut self, body: String) {
        let mut hints = body::read(&body);
        let [specific, generic] = self
            .facts
            .as_deref()
            .map_or([None; 2], |facts| facts.header_names);
        hints.named = hints.named.or(specific);
        hints.generic = hints.generic.or(generic);
        self.body = body;
        self.facts_mut().body_wait = body_wait(&hints);
        self.drop_empty_facts();
        let (kind, decided) = Evidence {
            status: self.status,
            should_retry: self.should_retry,
            body: hints,
        }
        .decide()
        .unwrap_or((Kind::Other, Decision::Nothing));
        self.kind = kind;
        self.set_decided(decided);
    }

    /// Keeps what decided the code when it is more than the status.
    fn set_decided(&mut self, decided: Decision) {
        match decided {
            Decision::Status(_) | Decision::Nothing => {
                if let Some(facts) = &mut self.facts {
                    facts.decided = None;
                }
                self.drop_empty_facts();
            }
            decided => self.facts_mut().decided = Some(decided),
        }
    }

    /// What decided this error's code: the step of the order of evidence and what it read
    /// there (a specific status, a name, a word family of the message, Google's quota
    /// reading), or [`Decision::Status`] when the status alone did. For logs, traces and
    /// the wire form: it may name what the provider's body said, so it is never in text for
    /// people or the model.
    ///
    /// ```
    /// use agent_error::http::{Decision, StatusError};
    /// use http::HeaderMap;
    ///
    /// let body = r#"{"error":{"type":"invalid_request_error","message":"Your credit balance is too low"}}"#;
    /// let e = StatusError::from_parts(400, &HeaderMap::new(), body);
    /// assert!(matches!(e.evidence(), Decision::MessageWords { family: "money", .. }));
    /// ```
    pub fn evidence(&self) -> Decision {
        self.facts
            .as_deref()
            .and_then(|facts| facts.decided)
            .or(self.status.map(Decision::Status))
            .unwrap_or(Decision::Nothing)
    }

    fn facts_mut(&mut self) -> &mut Facts {
        self.facts.get_or_insert_default()
    }

    /// Frees the facts when they say nothing.
    fn drop_empty_facts(&mut self) {
        if self.facts.as_ref().is_some_and(|f| {
            f.body_wait.is_none()
                && f.reset.is_none()
                && f.request_id.is_none()
                && f.decided.is_none()
                && f.header_names == [None; 2]
        }) {
            self.facts = None;
        }
    }

    /// The server said not to retry what would otherwise have been retried.
    fn retry_refused(&self) -> bool {
        self.should_retry == Some(false) && self.kind.doc().policy.is_retryable()
    }

    fn write_status(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(status) = self.status else {
            return f.write_str("provider error");
        };
        write!(f, "HTTP {status}")?;
        match reason(status) {
            Some(reason) => write!(f, " {reason}"),
            None => Ok(()),
        }
    }
}

/// Where a [`StatusError`]'s wait came from, first found first: the server's headers, a
/// field of its body, the text of its message, or OpenAI's rate-limit reset.
///
/// ```
/// use agent_error::http::RetryAfterSource;
///
/// assert_eq!(RetryAfterSource::Message.as_str(), "message");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RetryAfterSource {
    /// `retry-after-ms` or `Retry-After` (or a delay the caller set).
    Header,
    /// A field of the body: Google's `RetryInfo.retryDelay`.
    BodyField,
    /// The message's text: "Please try again in 11.054s", "Please retry in 33s".
    Message,
    /// On a 429, OpenAI's `x-ratelimit-reset-*` of the spent limit.
    RateLimitReset,
}

impl RetryAfterSource {
    /// The name on the wire: `header`, `body`, `message` or `reset`.
    pub const fn as_str(self) -> &'static str {
        match self {
            RetryAfterSource::Header => "header",
            RetryAfterSource::BodyField => "body",
            RetryAfterSource::Message => "message",
            RetryAfterSource::RateLimitReset => "reset",
        }
    }

    /// The source a wire name names (see [`as_str`](Self::as_str)).
    pub fn from_name(name: &str) -> Option<Self> {
        [
            RetryAfterSource::Header,
            RetryAfterSource::BodyField,
            RetryAfterSource::Message,
            RetryAfterSource::RateLimitReset,
        ]
        .into_iter()
        .find(|source| source.as_str() == name)
    }
}

impl fmt::Display for RetryAfterSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The wait a body gives: a field of it, else its message's text.
fn body_wait(hints: &body::BodyHints) -> Option<(Duration, RetryAfterSource)> {
    hints
        .retry_delay
        .map(|delay| (delay, RetryAfterSource::BodyField))
        .or(hints
            .message_delay
            .map(|delay| (delay, RetryAfterSource::Message)))
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

inventory::submit! { crate::core::registry::Registration::of::<StatusError>() }

impl fmt::Display for StatusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::core::agent::write_head(f, &self.op, self.code())?;
        self.fmt_message(f)?;
        match &self.source {
            Some(source) => crate::core::agent::write_cause(f, &**source),
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
        self.kind.doc().code
    }

    fn op(&self) -> &str {
        &self.op
    }

    /// `HTTP 429 Too Many Requests`, then `: ` and the body's first line: at most
    /// [`FIRST_LINE_CHARS`](Self::FIRST_LINE_CHARS) characters, cut on a character
    /// boundary with `…` after it, folded as every text that leaves the process is (a line
    /// break is a space; ESC, BEL and the other controls, and bidi overrides, are dropped),
    /// so that a body cannot forge log lines or move a terminal's cursor.
    fn fmt_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_status(f)?;
        let first = self.body.lines().map(str::trim).find(|l| !l.is_empty());
        let Some(line) = first else {
            return Ok(());
        };
        f.write_str(": ")?;
        let cut = line
            .char_indices()
            .nth(Self::FIRST_LINE_CHARS)
            .map(|(at, _)| at);
        OneLine::new(f, usize::MAX).write_str(cut.map_or(line, |at| &line[..at]))?;
        if cut.is_some() {
            f.write_str(ELLIPSIS)?;
        }
        Ok(())
    }

    /// `HTTP 429 Too Many Requests`: the body stays out of public renderings.
    fn fmt_public_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_status(f)
    }

    fn retry_policy(&self) -> RetryPolicy {
        let policy = self.kind.doc().policy;
        if self.should_retry == Some(false) || !policy.is_retryable() {
            return RetryPolicy::NEVER;
        }
        policy.with_retry_after(self.wait().map(|(delay, _)| delay))
    }

    fn hints(&self) -> Vec<Cow<'static, str>> {
        if self.retry_refused() {
            return vec![Cow::Borrowed(DO_NOT_RETRY_HINT)];
        }
        self.kind
            .doc()
            .hints
            .iter()
            .map(|hint| Cow::Borrowed(*hint))
            .collect()
    }

    fn status(&self) -> Option<u16> {
        self.status
    }

    fn recovery(&self) -> Recovery {
        if self.retry_refused() {
            Recovery::Fallback
        } else {
            self.kind.doc().recovery
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

impl Catalog for StatusError {
    /// One entry per kind of the table above; the op is set at run time (`"http"` by
    /// default). `x-should-retry` changes a response's retrying at run time, not its code.
    const CODES: &'static [CodeDoc] = &TABLE;
}

#[cfg(test)]
mod tests {
    use super::StatusError;
    use crate::retry::{Retrier, Stop};
    use std::time::Duration;

    /// How a run of a retrier with a `max_wait` of a minute ends on a 503 with `body`: its
    /// attempts and its stop.
    fn run_on_503(body: &str) -> (u32, Stop) {
        let retrier = Retrier::new().max_wait(Duration::from_secs(60));
        let outcome = retrier.run_detailed_with_sleep(
            |_| {
                Err::<(), _>(StatusError::from_parts(
                    503u16,
                    &::http::HeaderMap::new(),
                    body,
                ))
            },
            |_| {},
        );
        (outcome.attempts, outcome.stop)
    }

    #[test]
    fn a_wait_in_the_message_too_long_to_believe_ends_the_run() {
        let huge = format!("Please try again in 1{}s.", "0".repeat(30));
        for message in [
            "Please try again in 720h.",
            "Please try again in 1080h.",
            "Service unavailable, retry in 5000000000s",
            "try again in 99999999h",
            &huge,
        ] {
            let body = format!(r#"{{"error":{{"message":"{message}","type":"server_error"}}}}"#);
            assert_eq!(run_on_503(&body), (1, Stop::WaitTooLong), "{message}");
            assert_eq!(run_on_503(message), (1, Stop::WaitTooLong), "{message}");
        }
    }

    #[test]
    fn an_estimated_time_too_long_to_believe_ends_the_run() {
        for seconds in ["1e19", "1e20", "1e308", "1.7976931348623157e308"] {
            let body =
                format!(r#"{{"error":"Model is currently loading","estimated_time":{seconds}}}"#);
            assert_eq!(run_on_503(&body), (1, Stop::WaitTooLong), "{seconds}");
        }
        // A negative time is not a wait: the 503 is retried on backoff.
        let body = r#"{"error":"Model is currently loading","estimated_time":-1}"#;
        assert_eq!(run_on_503(body).1, Stop::AttemptsExhausted);
    }

    /// A `Result<T, StatusError>` stays under clippy's `result_large_err` threshold (128
    /// bytes): what a response rarely says lives behind one box.
    #[test]
    fn a_status_error_stays_small() {
        assert!(
            size_of::<StatusError>() <= 112,
            "{}",
            size_of::<StatusError>()
        );
    }
}
