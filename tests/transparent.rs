//! `#[error(transparent)]`: code, op, message, Display, retry policy, hints, recovery and
//! source all come from the one field; `#[from]` adds a `From` impl.

use std::error::Error as _;
use std::io;
use std::time::Duration;

use agent_error::{AgentError, Jitter, Recovery};

#[derive(Debug, AgentError)]
#[agent(op = "http.send")]
enum HttpError {
    #[agent(
        code = "rate_limit",
        rate_limited,
        retry(attempts = 5, base = "1s"),
        hint = "slow down",
        hint = "wait {seconds}s"
    )]
    #[error("429 from {host}")]
    TooManyRequests {
        host: String,
        seconds: u64,
        #[retry_after]
        retry_after: Duration,
        source: io::Error,
    },

    #[agent(code = "invalid_input", recovery = "replan")]
    #[error("400 from {host}")]
    BadRequest { host: String },
}

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum LlmError {
    #[agent(code = "timeout", retryable)]
    #[error("deadline exceeded")]
    Timeout,

    #[error(transparent)]
    Http(#[from] HttpError),

    #[error(transparent)]
    Other {
        #[from]
        inner: agent_error::Error,
    },
}

fn too_many_requests() -> HttpError {
    HttpError::TooManyRequests {
        host: "api.openai.com".into(),
        seconds: 3,
        retry_after: Duration::from_secs(3),
        source: io::Error::other("quota window"),
    }
}

#[test]
fn from_wraps_the_field() {
    let e: LlmError = too_many_requests().into();
    assert!(matches!(
        e,
        LlmError::Http(HttpError::TooManyRequests { .. })
    ));
}

#[test]
fn code_and_op_come_from_the_field() {
    let e = LlmError::from(too_many_requests());
    assert_eq!(e.code(), "rate_limit");
    assert_eq!(e.op(), "http.send");
}

#[test]
fn message_and_display_come_from_the_field() {
    let inner = too_many_requests();
    let expected = inner.to_string();
    let e = LlmError::from(inner);
    assert_eq!(e.message(), "429 from api.openai.com");
    assert_eq!(
        e.to_string(),
        "http.send [rate_limit]: 429 from api.openai.com: quota window"
    );
    assert_eq!(e.to_string(), expected);
}

#[test]
fn the_retry_policy_comes_from_the_field() {
    let e = LlmError::from(too_many_requests());
    assert!(e.is_retryable());
    assert!(e.is_rate_limited());
    assert_eq!(e.retry_after(), Some(Duration::from_secs(3)));
    let p = e.retry_policy();
    assert_eq!(p, too_many_requests().retry_policy());
    assert_eq!(p.max_attempts(), 5);
    assert_eq!(p.base_delay(), Duration::from_secs(1));
    assert_eq!(p.jitter(), Jitter::Full);
    assert_eq!(p.retry_after(), Some(Duration::from_secs(3)));
}

#[test]
fn hints_come_from_the_field() {
    let e = LlmError::from(too_many_requests());
    assert_eq!(e.hints(), ["slow down", "wait 3s"]);
}

#[test]
fn recovery_comes_from_the_field() {
    assert_eq!(
        LlmError::from(too_many_requests()).recovery(),
        Recovery::Retry
    );
    let bad = LlmError::from(HttpError::BadRequest { host: "h".into() });
    assert_eq!(bad.recovery(), Recovery::Replan);
    assert!(!bad.is_retryable());
    assert_eq!(bad.retry_after(), None);
}

#[test]
fn source_is_the_fields_source() {
    let e = LlmError::from(too_many_requests());
    assert_eq!(e.source().unwrap().to_string(), "quota window");
    let bad = LlmError::from(HttpError::BadRequest { host: "h".into() });
    assert!(bad.source().is_none());
}

#[test]
fn transparent_over_the_dynamic_error() {
    let inner = agent_error::Error::new("db.query", "not_found", "no row 7")
        .with_hint("check the id")
        .with_recovery(Recovery::Replan)
        .with_source(io::Error::other("empty result"));
    let e = LlmError::from(inner);
    assert!(matches!(e, LlmError::Other { .. }));
    assert_eq!(e.code(), "not_found");
    assert_eq!(e.op(), "db.query");
    assert_eq!(e.message(), "no row 7");
    assert_eq!(
        e.to_string(),
        "db.query [not_found]: no row 7: empty result"
    );
    assert_eq!(e.hints(), ["check the id"]);
    assert_eq!(e.recovery(), Recovery::Replan);
    assert!(!e.is_retryable());
    assert_eq!(e.source().unwrap().to_string(), "empty result");
}

#[test]
fn transparent_over_a_retryable_dynamic_error() {
    let inner = agent_error::Error::new("llm.call", "rate_limit", "slow down")
        .with_retry_after(Duration::from_millis(750));
    let e = LlmError::from(inner);
    assert!(e.is_retryable());
    assert!(e.is_rate_limited());
    assert_eq!(e.retry_after(), Some(Duration::from_millis(750)));
    assert_eq!(e.recovery(), Recovery::Retry);
}

#[test]
fn a_classified_variant_beside_transparent_ones_is_its_own() {
    let e = LlmError::Timeout;
    assert_eq!(e.to_string(), "llm.generate [timeout]: deadline exceeded");
    assert!(e.is_retryable());
}

#[derive(Debug, AgentError)]
#[error(transparent)]
struct Wrapper(HttpError);

#[test]
fn a_transparent_struct_forwards_everything() {
    let e = Wrapper(too_many_requests());
    assert_eq!(e.code(), "rate_limit");
    assert_eq!(e.op(), "http.send");
    assert_eq!(e.message(), "429 from api.openai.com");
    assert_eq!(
        e.to_string(),
        "http.send [rate_limit]: 429 from api.openai.com: quota window"
    );
    assert_eq!(e.hints(), ["slow down", "wait 3s"]);
    assert_eq!(e.retry_after(), Some(Duration::from_secs(3)));
    assert_eq!(e.recovery(), Recovery::Retry);
    assert_eq!(e.source().unwrap().to_string(), "quota window");
}

#[cfg(feature = "registry")]
#[test]
fn a_transparent_variant_is_found_in_a_chain_with_the_fields_code() {
    let e = io::Error::other(LlmError::from(too_many_requests()));
    let found = agent_error::find(&e).unwrap();
    assert_eq!(found.code(), "rate_limit");
    assert!(agent_error::is_retryable(&e));
    assert!(agent_error::has_code(&e, "rate_limit"));
}
