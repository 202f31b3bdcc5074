//! The wire form (feature `serde`): `Report`, a serializable tree of an error's classified
//! links that keeps code, retryability and hints across services, and RFC 9457 problem+json.
//!
//! [`Report::capture`] walks a chain into the tree, with public messages only; a report read
//! back implements [`AgentError`], so a client classifies a remote failure
//! as the server did. [`Report::to_problem`] and [`Report::from_problem`] convert to and from
//! problem details.
//!
//! ```
//! use agent_error::{AgentError, Report, codes, Error};
//!
//! let server_side = Error::new("llm.generate", codes::RATE_LIMIT, "slow down");
//! let json = serde_json::to_string(&Report::capture(&server_side)).unwrap();
//! let client_side: Report = serde_json::from_str(&json).unwrap();
//! assert_eq!(client_side.code(), "rate_limit");
//! assert!(client_side.is_rate_limited());
//! ```

use std::borrow::Cow;
use std::error::Error as StdError;
use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use lenient::{Lenient, Strings};

use crate::core::summary::{
    ELLIPSIS, MAX_HINT_BYTES, MAX_HINTS, MAX_SUMMARY_BYTES, fold_id, one_line,
};
use crate::{AgentError, Recovery, RetryPolicy};

mod lenient;
#[cfg(feature = "schemars")]
mod schema;

#[cfg(feature = "schemars")]
pub use schema::known_codes;

/// An error as it crosses a process boundary: the classified links of a chain, each with
/// its public message, as a tree of causes.
///
/// JSON shape, optional members left out when absent and unknown members ignored:
///
/// ```json
/// {"op":"llm.generate","code":"rate_limit","message":"provider returned 429",
///  "retryable":true,"rate_limited":true,"retry_after_ms":2000,"recovery":"retry",
///  "hints":["lower the request rate"],"status":429,"docs_url":"https://…",
///  "request_id":"req_123","retry_after_source":"header","cause":{…}}
/// ```
///
/// `request_id`, `retry_after_source` and `evidence` are a failed response's
/// ([`StatusError::request_id`](crate::http::StatusError::request_id),
/// [`retry_after_source`](crate::http::StatusError::retry_after_source),
/// [`evidence`](crate::http::StatusError::evidence)): what to quote to the provider, why the
/// retrier waited, and what decided the code. `location` (`"src/tools.rs:42:17"`) is where an
/// error that records it was made ([`AgentError::location`]: a derived variant's
/// `#[location]` field, filled by the `?` that converted it).
///
/// `code` and `message` are required on input. A deserialized `Report` implements
/// [`AgentError`] and [`std::error::Error`], so [`find`](crate::find),
/// [`is_retryable`](crate::is_retryable) and the retrier treat a remote failure exactly as the
/// server classified it. Its retry tuning is the defaults (the wire carries whether and when
/// to retry, not how often).
///
/// ```
/// use agent_error::{AgentError, Report, http::StatusError};
///
/// let server_side = StatusError::new(429).with_op("llm.generate").with_retry_after(std::time::Duration::from_secs(2));
/// let json = serde_json::to_string(&Report::capture(&server_side)).unwrap();
/// assert_eq!(json, r#"{"op":"llm.generate","code":"rate_limit","message":"HTTP 429 Too Many Requests","retryable":true,"rate_limited":true,"retry_after_ms":2000,"recovery":"retry","hints":["wait before retrying, lower the request rate, or use another model"],"status":429,"retry_after_source":"header"}"#);
///
/// let client_side: Report = serde_json::from_str(&json).unwrap();
/// assert!(agent_error::is_retryable(&client_side));
/// assert_eq!(client_side.retry_after(), Some(std::time::Duration::from_secs(2)));
/// ```
#[derive(Clone)]
pub struct Report {
    // Boxed so that `Result<T, Report>` stays one pointer wide on the error side.
    inner: Box<Inner>,
}

#[derive(Clone, Debug)]
struct Inner {
    op: String,
    code: String,
    message: String,
    retryable: bool,
    rate_limited: bool,
    retry_after: Option<Duration>,
    recovery: Recovery,
    hints: Vec<String>,
    status: Option<u16>,
    docs_url: Option<String>,
    /// The provider's request id (a `StatusError`'s), folded and capped.
    request_id: Option<String>,
    /// Where `retry_after` came from: `header`, `body`, `message` or `reset`.
    retry_after_source: Option<&'static str>,
    /// Where the error was made (`file:line:column`), folded and capped.
    location: Option<String>,
    /// What decided a failed response's code (`StatusError::evidence`), folded and capped.
    evidence: Option<String>,
    cause: Option<Box<Report>>,
}

/// The names a wait's source has on the wire.
const WAIT_SOURCES: [&str; 4] = ["header", "body", "message", "reset"];

impl Report {
    /// A report of `inner` (a private constructor: rustdoc shows no `From` of a private type).
    fn from_inner(inner: Inner) -> Report {
        Report {
            inner: Box::new(inner),
        }
    }
}

inventory::submit! { crate::core::registry::Registration::uncatalogued::<Report>() }

impl fmt::Debug for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}

/// The code of a [`Report`] captured from an error with no classification.
pub const UNCLASSIFIED: &str = crate::core::codes::UNCLASSIFIED;

/// The public message of an error that nothing classifies (code [`UNCLASSIFIED`]): its
/// own text may carry a path, a host or SQL, so renderings that leave the process say this.
pub use crate::core::classify::UNCLASSIFIED_MESSAGE;

impl Report {
    /// The most links a captured report keeps: JSON readers bound nesting (serde_json at
    /// 128 levels), and a report must read back what it writes.
    pub const MAX_DEPTH: usize = 64;

    /// Walks `err`'s chain (see [`links`](crate::chain::links)) into a tree of its classified
    /// links, each with its public message (`#[redact]` fields as `[redacted]`).
    ///
    /// The top of the tree is the chain's classification (see [`classify`](crate::classify));
    /// every classified link after it follows as a cause. A foreign link that a classifier
    /// knows keeps its code and the classifier's fixed text; foreign links that no
    /// classifier knows are left out, since their text may carry paths, SQL or ids. An error
    /// with no classification gives a report with code [`UNCLASSIFIED`] and the message
    /// "internal error".
    ///
    /// At most [`Report::MAX_DEPTH`] links are kept (the outermost ones), so that what is
    /// captured always serializes into JSON that `Report` reads back.
    pub fn capture(err: &(dyn StdError + 'static)) -> Report {
        let Some(top) = crate::classify(err) else {
            return Report::new(
                "",
                UNCLASSIFIED,
                crate::core::classify::UNCLASSIFIED_MESSAGE,
            );
        };
        let mut below: Vec<crate::Classified<'_>> = crate::chain::links(err)
            .skip_while(|link| !std::ptr::addr_eq(*link, top.link()))
            .skip(1)
            .filter_map(crate::core::classify::classify_link)
            .take(Report::MAX_DEPTH - 1)
            .collect();
        let mut cause = None;
        while let Some(link) = below.pop() {
            cause = Some(Report::of(&link, cause));
        }
        Report::of(&top, cause)
    }

    /// One classified link, with the report of its cause.
    fn of(link: &crate::Classified<'_>, cause: Option<Report>) -> Report {
        let e: &dyn AgentError = &**link;
        let (request_id, retry_after_source, evidence) = response_facts(link.link());
        Report::from_inner(Inner {
            op: crate::core::codes::public_op(e.op()).to_string(),
            code: crate::core::codes::public_code(e.code()).to_string(),
            message: crate::display::public(e).to_string(),
            retryable: e.is_retryable(),
            rate_limited: e.is_rate_limited(),
            retry_after: e.retry_after(),
            recovery: e.recovery(),
            hints: e.hints().into_iter().map(Cow::into_owned).collect(),
            status: e.status(),
            docs_url: e.docs_url().map(str::to_string),
            request_id,
            retry_after_source,
            location: e.location().map(|l| l.to_string()),
            evidence,
            cause: cause.map(Box::new),
        })
    }

    /// Where the error was made, as `file:line:column`, when it recorded it (a derived
    /// variant's `#[location]` field: the `?` that converted it). It travels on the wire
    /// (`location`), for the operator; never in text for people or the model.
    pub fn location_text(&self) -> Option<&str> {
        self.inner.location.as_deref()
    }

    /// The provider's request id, when the error was a failed response that carried one
    /// ([`StatusError::request_id`](crate::http::StatusError::request_id)): to quote to the
    /// provider. It travels on the wire (`request_id`), never in text for people or the
    /// model.
    pub fn request_id(&self) -> Option<&str> {
        self.inner.request_id.as_deref()
    }

    /// What decided the code of a failed response, as text
    /// ([`StatusError::evidence`](crate::http::StatusError::evidence): `"the message's
    /// words, family money (…)"`), when more than its status did. It travels on the wire (`evidence`), for the
    /// operator; never in text for people or the model.
    pub fn evidence(&self) -> Option<&str> {
        self.inner.evidence.as_deref()
    }

    /// Where the wait ([`retry_after`](AgentError::retry_after)) came from, when the error was
    /// a failed response that gave one: `"header"`, `"body"` (a field such as Google's
    /// `RetryInfo`), `"message"` (its text) or `"reset"` (a rate-limit reset header); see
    /// [`RetryAfterSource`](crate::http::RetryAfterSource).
    pub fn retry_after_source(&self) -> Option<&str> {
        self.inner.retry_after_source
    }

    /// A report built by hand: not retryable, recovery `abort`, no hints. A `code` outside
    /// the grammar of codes becomes [`UNCLASSIFIED`], an `op` outside the grammar of ops
    /// `""`, as for a report read from the wire.
    pub fn new(
        op: impl Into<String>,
        code: impl Into<String>,
        message: impl Into<String>,
    ) -> Report {
        Report::from_inner(Inner {
            op: valid_op(Some(op.into())),
            code: valid_code(code.into()),
            message: message.into(),
            retryable: false,
            rate_limited: false,
            retry_after: None,
            recovery: Recovery::Abort,
            hints: Vec::new(),
            status: None,
            docs_url: None,
            request_id: None,
            retry_after_source: None,
            location: None,
            evidence: None,
            cause: None,
        })
    }

    /// The message (already the public one).
    pub fn message_text(&self) -> &str {
        &self.inner.message
    }

    /// The cause's report, if any.
    pub fn cause(&self) -> Option<&Report> {
        self.inner.cause.as_deref()
    }

    /// The HTTP status to answer with: the error's own (`#[agent(status)]`, a
    /// `StatusError`'s), else one that fits its code: 429 for `rate_limit` and
    /// `budget_exhausted`, 504 `timeout`, 503 `provider_unavailable`, 401 `auth_error`,
    /// 403 `guard_blocked`, 404 `not_found`, 413 `request_too_large`, 400 `invalid_input`
    /// and `context_overflow`, 500 otherwise. Always an error status (400–599): a status outside it (a relayed
    /// report that says `200`, `101` or `304`) is not the error's, and the code decides.
    pub fn http_status(&self) -> u16 {
        match self.inner.status {
            Some(status) if crate::core::status::is_error_status(status) => status,
            _ => crate::core::status::code_status(&self.inner.code),
        }
    }

    /// Sets the delay the server asked for (from a `Retry-After` header, say), when the
    /// report has none of its own.
    #[must_use]
    pub fn or_retry_after(mut self, delay: Option<Duration>) -> Report {
        self.inner.retry_after = self.inner.retry_after.or(delay);
        self
    }

    /// The report as RFC 9457 problem details: `type` from the docs URL or `about:blank`,
    /// `title` the code, `status`, `detail` the message, and the extension members `code`,
    /// `op`, `retryable`, `rate_limited`, `retry_after_ms`, `recovery` and `hints`.
    pub fn to_problem(&self) -> Problem {
        Problem {
            type_uri: self
                .inner
                .docs_url
                .clone()
                .unwrap_or_else(|| Problem::ABOUT_BLANK.to_string()),
            title: Some(self.inner.code.clone()),
            status: Some(self.http_status()),
            detail: Some(self.inner.message.clone()),
            instance: None,
            code: Some(self.inner.code.clone()),
            op: (!self.inner.op.is_empty()).then(|| self.inner.op.clone()),
            retryable: Some(self.inner.retryable),
            rate_limited: Some(self.inner.rate_limited),
            retry_after_ms: self.inner.retry_after.map(millis),
            recovery: Some(self.inner.recovery.as_str().to_string()),
            hints: self.inner.hints.clone(),
        }
    }

    /// Reads problem details from another service as a classified report. With a `code`
    /// member, its extension members say how to classify it; without one, the status is
    /// classified as [`http::StatusError`](crate::http::StatusError) would (a 429 is a
    /// rate limit, a 503 retryable, a 400 whose detail shows a context overflow is
    /// `context_overflow`, …).
    ///
    /// What comes from the other service is checked: a `code` outside the grammar of codes
    /// is ignored (the status decides), an `op` outside the grammar of ops is dropped, a
    /// status outside 100–599 is ignored. Explicit `retryable` and `rate_limited` members
    /// win over what the status suggests.
    #[cfg(feature = "http")]
    pub fn from_problem(problem: Problem) -> Report {
        let op = valid_op(problem.op);
        let status = valid_status(problem.status);
        let Some(code) = problem
            .code
            .filter(|c| crate::core::codes::is_valid_code(c))
        else {
            let body = problem.detail.or(problem.title).unwrap_or_default();
            let from_status = crate::http::StatusError::new(status.unwrap_or(0)).with_body(body);
            let mut report = Report::capture(&from_status);
            report.inner.op = op;
            report.inner.retry_after = problem.retry_after_ms.map(Duration::from_millis);
            // The problem's own members say when to come back, not its detail's words.
            report.inner.retry_after_source = None;
            if let Some(retryable) = problem.retryable {
                report.inner.retryable = retryable;
            }
            if let Some(rate_limited) = problem.rate_limited {
                report.inner.rate_limited = rate_limited;
            }
            if problem.type_uri != Problem::ABOUT_BLANK {
                report.inner.docs_url = Some(problem.type_uri);
            }
            return report;
        };
        let class = crate::http::classify_status(status.unwrap_or(0));
        let rate_limited = problem
            .rate_limited
            .unwrap_or(class == crate::http::StatusClass::RateLimited);
        let retryable = problem
            .retryable
            .unwrap_or(rate_limited || class != crate::http::StatusClass::Permanent);
        Report::from_inner(Inner {
            op,
            recovery: parse_recovery(problem.recovery.as_deref(), retryable),
            code,
            message: problem.detail.or(problem.title).unwrap_or_default(),
            retryable,
            rate_limited,
            retry_after: problem.retry_after_ms.map(Duration::from_millis),
            hints: problem.hints,
            status,
            docs_url: (problem.type_uri != Problem::ABOUT_BLANK).then_some(problem.type_uri),
            request_id: None,
            retry_after_source: None,
            location: None,
            evidence: None,
            cause: None,
        })
    }
}

/// The most bytes of a location read from the wire.
const MAX_LOCATION_BYTES: usize = 512;

/// A location from the wire, on one line and at most [`MAX_LOCATION_BYTES`] long (cut at a
/// character boundary); `None` when nothing is left.
fn fold_location(value: &str) -> Option<String> {
    let mut out = String::new();
    for c in value.chars().filter_map(crate::core::summary::fold_char) {
        if out.len() + c.len_utf8() > MAX_LOCATION_BYTES {
            break;
        }
        out.push(c);
    }
    let trimmed = out.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

/// What decided a response's code, as read from the wire: folded to one line and capped.
fn fold_evidence(value: &str) -> Option<String> {
    let mut out = String::new();
    for c in value.chars().filter_map(crate::core::summary::fold_char) {
        if out.len() + c.len_utf8() > MAX_EVIDENCE_BYTES {
            break;
        }
        out.push(c);
    }
    let trimmed = out.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

/// The most of a report's `evidence` kept from the wire, in bytes.
const MAX_EVIDENCE_BYTES: usize = 512;

/// The request id, the wait's source and what decided the code, of a link that is a
/// failed response.
type ResponseFacts = (Option<String>, Option<&'static str>, Option<String>);

/// The facts of a link that is a failed response.
fn response_facts(link: &(dyn StdError + 'static)) -> ResponseFacts {
    #[cfg(feature = "http")]
    if let Some(response) = link.downcast_ref::<crate::http::StatusError>() {
        let evidence = match response.evidence() {
            crate::http::Decision::Status(_) | crate::http::Decision::Nothing => None,
            decided => Some(decided.to_string()),
        };
        return (
            response.request_id().map(str::to_string),
            response.retry_after_source().map(|source| source.as_str()),
            evidence,
        );
    }
    let _ = link;
    (None, None, None)
}

/// A status from the wire, when it is one HTTP can send (100–599).
fn valid_status(status: Option<u16>) -> Option<u16> {
    status.filter(|s| (100..=599).contains(s))
}

/// A code from the wire, when it follows the grammar of codes; else [`UNCLASSIFIED`].
fn valid_code(code: String) -> String {
    if crate::core::codes::is_valid_code(&code) {
        code
    } else {
        UNCLASSIFIED.to_string()
    }
}

/// An op from the wire, when it follows the grammar of ops; else none (`""`).
fn valid_op(op: Option<String>) -> String {
    op.filter(|op| crate::core::codes::is_valid_op(op))
        .unwrap_or_default()
}

/// A classification that another protocol carried (a gRPC status and its details, an MCP
/// tool result), read by an integration, before it becomes a [`Report`] through
/// [`Report::from_remote`]. Every field is the peer's word: untrusted until
/// `from_remote` has checked it.
///
/// ```
/// use agent_error::report::Remote;
/// use agent_error::{AgentError, Report};
///
/// let mut remote = Remote {
///     op: "tools.search".into(),
///     code: "rate_limit".into(),
///     message: "slow down\nplease".into(),
///     rate_limited: true,
///     ..Remote::default()
/// };
/// remote.set_hints("wait a minute\n\ntry a smaller query".lines());
/// let report = Report::from_remote(remote);
/// assert!(report.is_rate_limited());
/// assert_eq!(report.message(), "slow down please");
/// assert_eq!(report.hints().len(), 2);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Remote {
    /// The operation, kept when it follows the grammar of ops, else `""`.
    pub op: String,
    /// The code, kept when it follows the grammar of codes, else [`UNCLASSIFIED`].
    pub code: String,
    /// The peer's message, folded onto one line and capped.
    pub message: String,
    /// Whether the peer says trying again can help.
    pub retryable: bool,
    /// Whether the peer says the call was rate-limited (which makes it retryable too).
    pub rate_limited: bool,
    /// The wait the peer asks for. The retrier's own caps still bound it.
    pub retry_after: Option<Duration>,
    /// `None`: the code's default in the shared vocabulary, else `retry` or `abort`.
    pub recovery: Option<Recovery>,
    /// The peer's hints, each folded onto one line and capped; at most as many as a report
    /// keeps, then `…`.
    pub hints: Vec<String>,
}

impl Remote {
    /// Sets [`hints`](Remote::hints) from `hints`, folded, capped, empty ones dropped, at
    /// most as many as a report keeps then `…`. Reads no more of `hints` than it keeps, so
    /// a peer's text of any size costs what is kept.
    pub fn set_hints<'a>(&mut self, hints: impl IntoIterator<Item = &'a str>) {
        self.hints = bounded_hints(hints);
    }
}

/// Hints read from another service, folded, capped, at most [`MAX_HINTS`] then `…`; empty
/// ones dropped. Reads no more of `hints` than it keeps.
fn bounded_hints<'a>(hints: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut out = Vec::new();
    for hint in hints {
        if out.len() == MAX_HINTS {
            out.push(ELLIPSIS.to_owned());
            break;
        }
        let hint = one_line(hint, MAX_HINT_BYTES);
        let hint = hint.trim();
        if !hint.is_empty() {
            out.push(hint.to_owned());
        }
    }
    out
}

impl Report {
    /// The report of a classification another protocol carried, checked like a report
    /// read from the wire: a code outside the grammar becomes [`UNCLASSIFIED`], an op
    /// outside it `""`; the message and each hint are folded onto one line and capped as
    /// every public rendering caps them, and at most as many hints are kept as a report
    /// keeps, then `…`.
    pub fn from_remote(r: Remote) -> Report {
        let retryable = r.retryable || r.rate_limited;
        let code = valid_code(r.code);
        let recovery = r
            .recovery
            .or_else(|| crate::core::codes::default_recovery(&code))
            .unwrap_or(Recovery::default_for(retryable));
        Report::from_inner(Inner {
            op: valid_op(Some(r.op)),
            code,
            message: one_line(&r.message, MAX_SUMMARY_BYTES),
            retryable,
            rate_limited: r.rate_limited,
            retry_after: r.retry_after,
            recovery,
            hints: bounded_hints(r.hints.iter().map(String::as_str)),
            status: None,
            docs_url: None,
            request_id: None,
            retry_after_source: None,
            location: None,
            evidence: None,
            cause: None,
        })
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// A recovery read from the wire; an unknown or missing one falls back to the default.
fn parse_recovery(name: Option<&str>, retryable: bool) -> Recovery {
    name.and_then(|n| n.parse().ok())
        .unwrap_or(Recovery::default_for(retryable))
}

impl fmt::Display for Report {
    /// `op [code]: message`, then `: cause` for each cause, written in a loop.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut current = self;
        loop {
            let i = &current.inner;
            crate::core::agent::write_head(f, &i.op, &i.code)?;
            f.write_str(&i.message)?;
            match &i.cause {
                Some(cause) => {
                    f.write_str(": ")?;
                    current = cause;
                }
                None => return Ok(()),
            }
        }
    }
}

impl Drop for Report {
    /// Drops the causes one by one, so a deep report cannot overflow the stack.
    fn drop(&mut self) {
        let mut next = self.inner.cause.take();
        while let Some(mut cause) = next {
            next = cause.inner.cause.take();
        }
    }
}

impl StdError for Report {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.inner
            .cause
            .as_deref()
            .map(|c| c as &(dyn StdError + 'static))
    }
}

impl AgentError for Report {
    fn code(&self) -> &str {
        &self.inner.code
    }

    fn op(&self) -> &str {
        &self.inner.op
    }

    fn fmt_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.inner.message)
    }

    fn fmt_public_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.inner.message)
    }

    fn retry_policy(&self) -> RetryPolicy {
        let policy = match (self.inner.retryable, self.inner.rate_limited) {
            (false, _) => return RetryPolicy::NEVER,
            (true, true) => RetryPolicy::RATE_LIMITED,
            (true, false) => RetryPolicy::DEFAULT,
        };
        policy.with_retry_after(self.inner.retry_after)
    }

    fn hints(&self) -> Vec<Cow<'static, str>> {
        self.inner.hints.iter().cloned().map(Cow::Owned).collect()
    }

    fn each_hint(&self, each: &mut dyn FnMut(fmt::Arguments<'_>)) {
        crate::core::agent::each_hint_of(&self.inner.hints, each);
    }

    fn recovery(&self) -> Recovery {
        self.inner.recovery
    }

    fn is_retryable(&self) -> bool {
        self.inner.retryable
    }

    fn is_rate_limited(&self) -> bool {
        self.inner.rate_limited
    }

    fn retry_after(&self) -> Option<Duration> {
        self.inner.retry_after
    }

    fn message(&self) -> String {
        self.inner.message.clone()
    }

    fn status(&self) -> Option<u16> {
        valid_status(self.inner.status)
    }

    fn docs_url(&self) -> Option<&str> {
        self.inner.docs_url.as_deref()
    }
}

impl PartialEq for Report {
    /// Equal when the codes are, as derived types.
    fn eq(&self, other: &Self) -> bool {
        self.inner.code == other.inner.code
    }
}

impl Eq for Report {}

/// The JSON members of a [`Report`], as read (see [`lenient`]).
#[derive(Default)]
struct WireReport {
    op: Option<String>,
    code: Option<String>,
    message: Option<String>,
    retryable: Option<bool>,
    rate_limited: Option<bool>,
    retry_after_ms: Option<u64>,
    recovery: Option<String>,
    hints: Vec<String>,
    status: Option<u16>,
    docs_url: Option<String>,
    request_id: Option<String>,
    retry_after_source: Option<String>,
    location: Option<String>,
    evidence: Option<String>,
    cause: Option<Box<Report>>,
}

impl<'de> Deserialize<'de> for Report {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ReportVisitor;
        impl<'de> serde::de::Visitor<'de> for ReportVisitor {
            type Value = Report;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an error report (a JSON object with `code` and `message`)")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Report, A::Error> {
                let mut w = WireReport::default();
                lenient::read_members(map, |key, map| {
                    match key {
                        "op" => w.op = map.next_value::<Lenient<String>>()?.0,
                        "code" => w.code = map.next_value::<Lenient<String>>()?.0,
                        "message" => w.message = map.next_value::<Lenient<String>>()?.0,
                        "retryable" => w.retryable = map.next_value::<Lenient<bool>>()?.0,
                        "rate_limited" => w.rate_limited = map.next_value::<Lenient<bool>>()?.0,
                        "retry_after_ms" => w.retry_after_ms = map.next_value::<Lenient<u64>>()?.0,
                        "recovery" => w.recovery = map.next_value::<Lenient<String>>()?.0,
                        "hints" => w.hints = map.next_value::<Strings>()?.0,
                        "status" => w.status = map.next_value::<Lenient<u16>>()?.0,
                        "docs_url" => w.docs_url = map.next_value::<Lenient<String>>()?.0,
                        "request_id" => w.request_id = map.next_value::<Lenient<String>>()?.0,
                        "retry_after_source" => {
                            w.retry_after_source = map.next_value::<Lenient<String>>()?.0
                        }
                        "location" => w.location = map.next_value::<Lenient<String>>()?.0,
                        "evidence" => w.evidence = map.next_value::<Lenient<String>>()?.0,
                        "cause" => w.cause = map.next_value::<Option<Box<Report>>>()?,
                        _ => return Ok(false),
                    }
                    Ok(true)
                })?;
                let code = w
                    .code
                    .take()
                    .ok_or_else(|| serde::de::Error::missing_field("code"))?;
                let message = w
                    .message
                    .take()
                    .ok_or_else(|| serde::de::Error::missing_field("message"))?;
                Ok(Report::from_wire(w, code, message))
            }
        }
        deserializer.deserialize_map(ReportVisitor)
    }
}

impl Report {
    /// A report read from another service: a `code` outside the grammar of codes becomes
    /// [`UNCLASSIFIED`] and an `op` outside the grammar of ops is dropped, so that nothing
    /// forged (a `]` or a newline) reaches a tool result; a status outside 100–599 is
    /// dropped; `rate_limited` alone implies `retryable`, an explicit `retryable` wins. A
    /// member of the wrong type or range is ignored (see `lenient`), and where a key repeats
    /// the last one counts; only a missing or non-text `code` or `message` refuses it.
    fn from_wire(w: WireReport, code: String, message: String) -> Report {
        let rate_limited = w.rate_limited.unwrap_or(false);
        let retryable = w.retryable.unwrap_or(rate_limited);
        let code = valid_code(code);
        Report::from_inner(Inner {
            recovery: parse_recovery(w.recovery.as_deref(), retryable),
            op: valid_op(w.op),
            code,
            message,
            retryable,
            rate_limited,
            retry_after: w.retry_after_ms.map(Duration::from_millis),
            hints: w.hints,
            status: valid_status(w.status),
            docs_url: w.docs_url,
            request_id: w.request_id.as_deref().and_then(fold_id),
            retry_after_source: w
                .retry_after_source
                .and_then(|name| WAIT_SOURCES.into_iter().find(|known| *known == name)),
            location: w.location.as_deref().and_then(fold_location),
            evidence: w.evidence.as_deref().and_then(fold_evidence),
            cause: w.cause,
        })
    }
}

/// The JSON members of a [`Report`], as written: borrowed, so that serializing is linear in
/// the size of the report.
#[derive(Serialize)]
struct WireRef<'a> {
    op: &'a str,
    code: &'a str,
    message: &'a str,
    retryable: bool,
    rate_limited: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    retry_after_ms: Option<u64>,
    recovery: &'a str,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    hints: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    docs_url: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    request_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    retry_after_source: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    location: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    evidence: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cause: Option<&'a Report>,
}

impl Serialize for Report {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let i = &self.inner;
        WireRef {
            op: &i.op,
            code: &i.code,
            message: &i.message,
            retryable: i.retryable,
            rate_limited: i.rate_limited,
            retry_after_ms: i.retry_after.map(millis),
            recovery: i.recovery.as_str(),
            hints: &i.hints,
            status: i.status,
            docs_url: i.docs_url.as_deref(),
            request_id: i.request_id.as_deref(),
            retry_after_source: i.retry_after_source,
            location: i.location.as_deref(),
            evidence: i.evidence.as_deref(),
            cause: i.cause.as_deref(),
        }
        .serialize(serializer)
    }
}

/// RFC 9457 problem details, with this crate's extension members. Serialize it as the body
/// of a response with content type [`Problem::CONTENT_TYPE`]; unknown members are ignored
/// when reading.
///
/// ```
/// use agent_error::{AgentError, Report, report::Problem};
///
/// let problem: Problem = serde_json::from_str(r#"{"type":"about:blank","title":"Service Unavailable","status":503}"#).unwrap();
/// let report = Report::from_problem(problem);
/// assert_eq!(report.code(), "provider_unavailable");
/// assert!(report.is_retryable());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// A URI naming the problem type; `about:blank` when there is none.
    #[serde(rename = "type")]
    pub type_uri: String,
    /// A short summary of the problem type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The HTTP status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// What happened this time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// A URI for this occurrence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    /// Extension: the error code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Extension: the operation that failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub op: Option<String>,
    /// Extension: whether trying again may succeed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
    /// Extension: whether it is a rate limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_limited: Option<bool>,
    /// Extension: the delay to wait before trying again, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
    /// Extension: what an agent loop should do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery: Option<String>,
    /// Extension: recovery hints.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<String>,
}

impl Problem {
    /// The media type of problem details in JSON.
    pub const CONTENT_TYPE: &'static str = "application/problem+json";
    /// The `type` of a problem with no documentation of its own.
    pub const ABOUT_BLANK: &'static str = "about:blank";
}

impl Default for Problem {
    /// A problem with no member but `type`, `about:blank`.
    fn default() -> Self {
        Problem {
            type_uri: Problem::ABOUT_BLANK.to_string(),
            title: None,
            status: None,
            detail: None,
            instance: None,
            code: None,
            op: None,
            retryable: None,
            rate_limited: None,
            retry_after_ms: None,
            recovery: None,
            hints: Vec::new(),
        }
    }
}

impl<'de> Deserialize<'de> for Problem {
    /// Read leniently, as a [`Report`] is: a member of the wrong type or range is ignored
    /// (a status that is not a whole number up to 65535 among them), the last of a repeated
    /// key counts, and unknown members are skipped.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ProblemVisitor;
        impl<'de> serde::de::Visitor<'de> for ProblemVisitor {
            type Value = Problem;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("problem details (a JSON object)")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Problem, A::Error> {
                let mut p = Problem::default();
                lenient::read_members(map, |key, map| {
                    let text = |map: &mut A| map.next_value::<Lenient<String>>().map(|l| l.0);
                    match key {
                        "type" => {
                            p.type_uri =
                                text(map)?.unwrap_or_else(|| Problem::ABOUT_BLANK.to_string())
                        }
                        "title" => p.title = text(map)?,
                        "status" => p.status = map.next_value::<Lenient<u16>>()?.0,
                        "detail" => p.detail = text(map)?,
                        "instance" => p.instance = text(map)?,
                        "code" => p.code = text(map)?,
                        "op" => p.op = text(map)?,
                        "retryable" => p.retryable = map.next_value::<Lenient<bool>>()?.0,
                        "rate_limited" => p.rate_limited = map.next_value::<Lenient<bool>>()?.0,
                        "retry_after_ms" => p.retry_after_ms = map.next_value::<Lenient<u64>>()?.0,
                        "recovery" => p.recovery = text(map)?,
                        "hints" => p.hints = map.next_value::<Strings>()?.0,
                        _ => return Ok(false),
                    }
                    Ok(true)
                })?;
                Ok(p)
            }
        }
        deserializer.deserialize_map(ProblemVisitor)
    }
}
