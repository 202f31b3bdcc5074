//! The gRPC integration (feature `tonic`): an error as a `tonic::Status` whose code follows
//! its classification, with AIP-193 `ErrorInfo` and `RetryInfo` details, and back.
//!
//! A server answers with [`to_status`]; any gRPC client reads the status code, a client
//! that reads `ErrorInfo` (AIP-193) gets the exact code as its `reason`, and a client of
//! this crate gets the whole classification back with [`read_status`]. A `tonic::Status` is
//! also classified, so a [`Retrier`](agent_error_runtime::retry::Retrier) retries a failed call
//! by what the server said, even a server that knows nothing of this crate (by the status
//! code alone).
//!
//! Classification → gRPC code ([`grpc_code`]):
//!
//! | code | gRPC code |
//! |---|---|
//! | `timeout` | `DEADLINE_EXCEEDED` |
//! | `rate_limit`, `budget_exhausted` | `RESOURCE_EXHAUSTED` |
//! | `provider_unavailable` | `UNAVAILABLE` |
//! | `invalid_input`, `context_overflow` | `INVALID_ARGUMENT` (the request as sent cannot succeed; `OUT_OF_RANGE` would tell a client to read on, as past the end of a file) |
//! | `auth_error` | `UNAUTHENTICATED` (the credentials are missing or wrong) |
//! | `guard_blocked` | `PERMISSION_DENIED` (the caller is known, the request is not allowed) |
//! | `not_found` | `NOT_FOUND` |
//! | any other code, with an HTTP status | the code of that status's class (`StatusError`'s table: 404 → `NOT_FOUND`, 503 → `UNAVAILABLE`, …) |
//! | any other code, rate-limited / retryable / neither | `RESOURCE_EXHAUSTED` / `UNAVAILABLE` / `INTERNAL` |
//! | unclassified | `UNKNOWN`, message "internal error" |
//!
//! gRPC code → classification, when the status carries no `ErrorInfo` ([`read_status`]):
//!
//! | gRPC code | code | retried |
//! |---|---|---|
//! | `DEADLINE_EXCEEDED` | `timeout` | yes |
//! | `RESOURCE_EXHAUSTED` | `rate_limit` | yes, rate-limited |
//! | `UNAVAILABLE` | `provider_unavailable` | yes |
//! | `INVALID_ARGUMENT`, `OUT_OF_RANGE`, `FAILED_PRECONDITION` | `invalid_input` | no |
//! | `UNAUTHENTICATED`, `PERMISSION_DENIED` | `auth_error` | no |
//! | `NOT_FOUND` | `not_found` | no |
//! | `UNKNOWN` | `unclassified` | no |
//! | `CANCELLED`, `ALREADY_EXISTS`, `ABORTED`, `UNIMPLEMENTED`, `INTERNAL`, `DATA_LOSS` | `grpc.cancelled`, `grpc.already_exists`, … | no |
//!
//! With an `ErrorInfo`, its `reason` is the code (when it is one by the grammar of codes),
//! and its `metadata` says the rest: `op`, `retryable`, `rateLimited`, `recovery` and
//! `hints` (one a line); what it leaves out comes from the gRPC code as above.
//! `RetryInfo.retry_delay` is the `retry_after` (a negative one is no delay).
//!
//! A `Status` met in a chain (classified by [`classify`](agent_error_runtime::classify)) is
//! a foreign link: its public message is its gRPC code's fixed description and it carries
//! no hints, whatever its message and `ErrorInfo` say.

#![forbid(unsafe_code)]
// On docs.rs (nightly, `--cfg docsrs`): each item says which feature brings it.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

use std::collections::HashMap;
use std::error::Error as StdError;

use std::time::Duration;

use ::tonic::{Code, Status};
use prost::Message as _;
use tonic_types::{ErrorDetails, StatusExt, pb};

use agent_error_runtime::report::{Remote, UNCLASSIFIED_MESSAGE};
use agent_error_runtime::{AgentError, Report, codes};

/// The op of a [`Report`] read from a status whose `ErrorInfo` names none.
pub const OP: &str = "grpc";

/// The `ErrorInfo.domain` of [`to_status`]: name your service's own with
/// [`to_status_in`].
pub const DOMAIN: &str = "agent-error";

/// `err`'s classification (see [`classify`](agent_error_runtime::classify)) as a gRPC status, with the
/// `ErrorInfo` domain [`DOMAIN`]: see [`to_status_in`].
///
/// ```
/// use agent_error::{tonic, http::StatusError};
/// use tonic_types::StatusExt;
///
/// let status = tonic::to_status(&StatusError::new(503).with_op("llm.generate"));
/// assert_eq!(status.code(), ::tonic::Code::Unavailable);
/// assert_eq!(status.get_details_error_info().unwrap().reason, "provider_unavailable");
/// ```
pub fn to_status(err: &(dyn StdError + 'static)) -> Status {
    to_status_in(err, DOMAIN)
}

/// `err`'s classification as a gRPC status: the code of [`grpc_code`], the public message
/// (`#[redact]` fields as `[redacted]`, no foreign cause's text), an AIP-193 `ErrorInfo`
/// whose `reason` is the code, `domain` is `domain`, and `metadata` holds `op`, `retryable`,
/// `rateLimited`, `recovery` and `hints`; and a `RetryInfo` when the error carries a
/// `retry_after`. An error that nothing classifies is `UNKNOWN` "internal error", with no
/// details.
pub fn to_status_in(err: &(dyn StdError + 'static), domain: &str) -> Status {
    match agent_error_runtime::classify(err) {
        Some(e) => status_of(&*e, domain),
        None => Status::new(Code::Unknown, UNCLASSIFIED_MESSAGE),
    }
}

/// One classified error as a gRPC status (see [`to_status_in`]).
pub fn status_of(e: &dyn AgentError, domain: &str) -> Status {
    let mut metadata = HashMap::new();
    if !e.op().is_empty() {
        metadata.insert("op".to_owned(), e.op().to_owned());
    }
    metadata.insert("retryable".to_owned(), e.is_retryable().to_string());
    metadata.insert("rateLimited".to_owned(), e.is_rate_limited().to_string());
    metadata.insert("recovery".to_owned(), e.recovery().as_str().to_owned());
    let hints: Vec<_> = e.hints().iter().map(|h| one_line(h)).collect();
    if !hints.is_empty() {
        metadata.insert("hints".to_owned(), hints.join("\n"));
    }
    let mut details = ErrorDetails::new();
    details.set_error_info(e.code(), domain, metadata);
    if let Some(delay) = e.retry_after() {
        details.set_retry_info(Some(delay));
    }
    let message = agent_error_runtime::display::public(e).to_string();
    Status::with_error_details(grpc_code(e), message, details)
}

/// The gRPC code for a classified error (the table in the [module docs](self)).
pub fn grpc_code(e: &dyn AgentError) -> Code {
    if let Some(code) = vocabulary_code(e.code()) {
        return code;
    }
    if let Some(status) = e.status()
        && let Some(code) =
            vocabulary_code(agent_error_runtime::http::StatusError::new(status).code())
    {
        return code;
    }
    if e.is_rate_limited() {
        Code::ResourceExhausted
    } else if e.is_retryable() {
        Code::Unavailable
    } else {
        Code::Internal
    }
}

fn vocabulary_code(code: &str) -> Option<Code> {
    Some(match code {
        codes::TIMEOUT => Code::DeadlineExceeded,
        codes::RATE_LIMIT | codes::BUDGET_EXHAUSTED => Code::ResourceExhausted,
        codes::PROVIDER_UNAVAILABLE => Code::Unavailable,
        codes::INVALID_INPUT | codes::CONTEXT_OVERFLOW => Code::InvalidArgument,
        codes::AUTH => Code::Unauthenticated,
        codes::GUARD_BLOCKED => Code::PermissionDenied,
        codes::NOT_FOUND => Code::NotFound,
        _ => return None,
    })
}

/// A gRPC status read back into a classified [`Report`] (the tables in the
/// [module docs](self)): from its `ErrorInfo` and `RetryInfo` when it has them, else by
/// its code alone, so a status from any gRPC server is classified. The message and the
/// hints are the status's own, read as untrusted input: folded onto one line and capped
/// (the message at [`MAX_SUMMARY_BYTES`](agent_error_runtime::display::MAX_SUMMARY_BYTES),
/// each hint at [`MAX_HINT_BYTES`](agent_error_runtime::display::MAX_HINT_BYTES), at most
/// [`MAX_HINTS`](agent_error_runtime::display::MAX_HINTS) hints). A negative `RetryInfo`
/// delay is no delay.
///
/// ```
/// use agent_error::{tonic, AgentError};
///
/// // A server that knows nothing of this crate.
/// let report = tonic::read_status(&::tonic::Status::unavailable("backend restarting"));
/// assert_eq!(report.code(), "provider_unavailable");
/// assert!(report.is_retryable());
/// assert_eq!(report.message(), "backend restarting");
/// ```
pub fn read_status(status: &Status) -> Report {
    let mut remote = classify_code(status.code());
    remote.message = status.message().to_owned();
    read_details(status, &mut remote);
    Report::from_remote(remote)
}

/// The classification of a bare gRPC code, with its fixed description as the message.
fn classify_code(code: Code) -> Remote {
    let (name, retryable, rate_limited) = match code {
        Code::DeadlineExceeded => (codes::TIMEOUT, true, false),
        Code::ResourceExhausted => (codes::RATE_LIMIT, true, true),
        Code::Unavailable => (codes::PROVIDER_UNAVAILABLE, true, false),
        Code::InvalidArgument | Code::OutOfRange | Code::FailedPrecondition => {
            (codes::INVALID_INPUT, false, false)
        }
        Code::Unauthenticated | Code::PermissionDenied => (codes::AUTH, false, false),
        Code::NotFound => (codes::NOT_FOUND, false, false),
        Code::Unknown | Code::Ok => (codes::UNCLASSIFIED, false, false),
        Code::Cancelled => ("grpc.cancelled", false, false),
        Code::AlreadyExists => ("grpc.already_exists", false, false),
        Code::Aborted => ("grpc.aborted", false, false),
        Code::Unimplemented => ("grpc.unimplemented", false, false),
        Code::Internal => ("grpc.internal", false, false),
        Code::DataLoss => ("grpc.data_loss", false, false),
    };
    Remote {
        op: OP.to_owned(),
        code: name.to_owned(),
        message: code.description().to_owned(),
        retryable,
        rate_limited,
        retry_after: None,
        recovery: None,
        hints: Vec::new(),
    }
}

/// The type URLs of the details read here.
const RETRY_INFO: &str = "type.googleapis.com/google.rpc.RetryInfo";
const ERROR_INFO: &str = "type.googleapis.com/google.rpc.ErrorInfo";

/// The `ErrorInfo` and `RetryInfo` of a status, decoded here: the details are the peer's,
/// and tonic-types' own conversion of a `RetryInfo` panics on a negative delay
/// (`seconds: i64::MIN`). Details that do not decode are left out.
fn details_of(status: &Status) -> (Option<pb::ErrorInfo>, Option<pb::RetryInfo>) {
    let (mut info, mut retry) = (None, None);
    let Ok(decoded) = pb::Status::decode(status.details()) else {
        return (None, None);
    };
    for any in decoded.details {
        match any.type_url.as_str() {
            ERROR_INFO if info.is_none() => info = pb::ErrorInfo::decode(&*any.value).ok(),
            RETRY_INFO if retry.is_none() => retry = pb::RetryInfo::decode(&*any.value).ok(),
            _ => {}
        }
    }
    (info, retry)
}

/// A delay from the peer as a `Duration`, never panicking: a negative one is no delay,
/// nanoseconds are bounded to below a second.
fn delay_of(seconds: i64, nanos: i32) -> Duration {
    match (u64::try_from(seconds), u32::try_from(nanos)) {
        (Ok(seconds), Ok(nanos)) => Duration::new(seconds, nanos.min(999_999_999)),
        (Ok(seconds), Err(_)) => Duration::from_secs(seconds),
        _ => Duration::ZERO,
    }
}

/// What `ErrorInfo` and `RetryInfo` say, over what the code said.
fn read_details(status: &Status, remote: &mut Remote) {
    let (info, retry) = details_of(status);
    if let Some(delay) = retry.and_then(|r| r.retry_delay) {
        remote.retry_after = Some(delay_of(delay.seconds, delay.nanos));
    }
    let Some(info) = info else {
        return;
    };
    if codes::is_valid_code(&info.reason) {
        if codes::ALL.contains(&info.reason.as_str()) {
            let policy = codes::default_policy(&info.reason);
            remote.retryable = policy.is_retryable();
            remote.rate_limited = policy.is_rate_limited();
        }
        remote.code = info.reason.clone();
    }
    let meta = &info.metadata;
    let flag = |key: &str| meta.get(key).and_then(|v| v.parse::<bool>().ok());
    if let Some(op) = meta.get("op").filter(|op| codes::is_valid_op(op)) {
        remote.op = op.clone();
    }
    if let Some(retryable) = flag("retryable") {
        remote.retryable = retryable;
    }
    if let Some(rate_limited) = flag("rateLimited") {
        remote.rate_limited = rate_limited;
    }
    remote.recovery = meta.get("recovery").and_then(|r| r.parse().ok());
    if let Some(hints) = meta.get("hints") {
        remote.set_hints(hints.lines());
    }
}

/// A `tonic::Status` as a foreign link: as [`read_status`] reads it, but with the gRPC
/// code's fixed description as its public message and no hints, since its text, hints
/// included, is another service's and never crosses a trust boundary.
fn classify_status(status: &Status) -> Option<agent_error_runtime::Error> {
    if status.code() == Code::Ok {
        return None;
    }
    let mut remote = classify_code(status.code());
    read_details(status, &mut remote);
    remote.hints.clear();
    Some(agent_error_runtime::Error::classification_of(
        &Report::from_remote(remote),
    ))
}

agent_error_runtime::extend::builtin_classifier!(Status, |e: &Status| classify_status(e)
    .map(Into::into));

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
