//! `#[error(transparent)]`: code, op, message, Display, retry policy, hints, recovery and
//! source all come from the one field; `#[from]` adds a `From` impl.

// Without `registry`, the tests that need a derived type known in a chain are left out, and
// what only they use goes unused.
#![cfg_attr(not(feature = "registry"), allow(dead_code, unused_imports))]

use std::error::Error as _;
use std::io;
use std::time::Duration;

use agent_error::retry::Jitter;
use agent_error::{AgentError, Recovery};

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

// A foreign error under `#[error(transparent)]`: Display is the field's, and the rest is
// the field's classification (SPEC §7), or the variant's default code when it has none.

#[derive(Debug, AgentError)]
#[agent(op = "fs.read")]
enum ReadError {
    #[agent(code = "too_large")]
    #[error("{size} bytes is too large")]
    TooLarge { size: u64 },

    #[error(transparent)]
    Io(#[from] io::Error),
}

fn timed_out() -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        "read of /srv/data/users.db timed out",
    )
}

#[test]
fn a_classified_foreign_field_gives_its_classification() {
    let e = ReadError::from(timed_out());
    assert_eq!(e.code(), "timeout");
    assert_eq!(e.op(), "fs.read");
    assert!(e.is_retryable());
    assert!(!e.is_rate_limited());
    assert_eq!(e.retry_after(), None);
    assert_eq!(e.retry_policy().max_attempts(), 3);
    assert_eq!(e.recovery(), Recovery::Retry);
    assert!(e.hints().is_empty());
    assert_eq!(e.status(), None);
    assert_eq!(e.docs_url(), None);
    assert_eq!(e.to_string(), "read of /srv/data/users.db timed out");
    assert_eq!(e.message(), "read of /srv/data/users.db timed out");
    assert_eq!(
        agent_error::display::public(&e).to_string(),
        "the operation timed out"
    );
    assert_eq!(
        agent_error::tool::render(&e),
        "[error:timeout] the operation timed out"
    );
    assert!(e.source().is_none());
}

#[test]
fn an_unclassified_foreign_field_gets_the_variants_default_code() {
    let e = ReadError::from(io::Error::other("disk at /dev/sda1 on fire"));
    assert_eq!(e.code(), "io");
    assert_eq!(e.op(), "fs.read");
    assert!(!e.is_retryable());
    assert!(!e.is_rate_limited());
    assert_eq!(e.retry_policy(), agent_error::RetryPolicy::NEVER);
    assert_eq!(e.recovery(), Recovery::Abort);
    assert!(e.hints().is_empty());
    assert_eq!(e.to_string(), "disk at /dev/sda1 on fire");
    assert_eq!(
        agent_error::display::public(&e).to_string(),
        "internal error"
    );
    assert_eq!(agent_error::tool::render(&e), "[error:io] internal error");
}

#[test]
fn question_mark_converts_the_foreign_error() {
    fn read() -> Result<(), ReadError> {
        Err(timed_out())?;
        Ok(())
    }
    let e = read().unwrap_err();
    assert!(matches!(e, ReadError::Io(_)));
    assert_eq!(e.code(), "timeout");
}

#[test]
fn equality_is_by_the_forwarded_code() {
    let a = ReadError::from(timed_out());
    let b = ReadError::from(io::Error::from(io::ErrorKind::TimedOut));
    let c = ReadError::from(io::Error::other("x"));
    let d = ReadError::from(io::Error::other("y"));
    assert_eq!(a, b);
    assert_eq!(c, d);
    assert_ne!(a, c);
    assert_ne!(c, ReadError::TooLarge { size: 1 });
}

#[cfg(feature = "registry")]
#[test]
fn the_chain_functions_see_the_forwarded_classification() {
    let e = ReadError::from(timed_out());
    assert!(agent_error::is_retryable(&e));
    let c = agent_error::classify(&e).unwrap();
    assert_eq!(c.code(), "timeout");
    assert!(!c.is_foreign());
    assert_eq!(c.message(), "read of /srv/data/users.db timed out");

    let wrapped = anyhow::Error::new(ReadError::from(io::Error::other("no")));
    assert!(!agent_error::is_retryable(wrapped.as_ref()));
    assert!(agent_error::has_code(wrapped.as_ref(), "io"));
}

#[cfg(feature = "serde")]
#[test]
fn a_report_shows_the_classification_not_the_foreign_text() {
    let e = ReadError::from(timed_out());
    let report = agent_error::Report::capture(&e);
    assert_eq!(
        serde_json::to_value(&report).unwrap(),
        serde_json::json!({
            "op": "fs.read",
            "code": "timeout",
            "message": "the operation timed out",
            "retryable": true,
            "rate_limited": false,
            "recovery": "retry",
        })
    );
    let other = agent_error::Report::capture(&ReadError::from(io::Error::other("secret")));
    assert_eq!(
        serde_json::to_value(&other).unwrap(),
        serde_json::json!({
            "op": "fs.read",
            "code": "io",
            "message": "internal error",
            "retryable": false,
            "rate_limited": false,
            "recovery": "abort",
        })
    );
}

// Without an op anywhere, a foreign field's op is its classification's.
#[derive(Debug, AgentError)]
#[error(transparent)]
struct IoOnly(#[from] io::Error);

#[test]
fn without_an_op_the_classifications_op_is_used() {
    let e = IoOnly::from(timed_out());
    assert_eq!((e.op(), e.code()), ("io", "timeout"));
    let other = IoOnly::from(io::Error::other("x"));
    assert_eq!((other.op(), other.code()), ("", "io_only"));
}

#[derive(Debug, AgentError)]
#[agent(op = "net.fetch")]
#[error(transparent)]
struct Fetch(#[from] io::Error);

#[test]
fn a_transparent_structs_op_is_used_for_a_foreign_field() {
    let e = Fetch::from(timed_out());
    assert_eq!((e.op(), e.code()), ("net.fetch", "timeout"));
}

#[derive(Debug, AgentError)]
#[agent(
    op = "agent.step",
    rename_all = "SCREAMING_SNAKE_CASE",
    namespace = "runner"
)]
enum StepError {
    #[error(transparent)]
    Other(#[from] anyhow::Error),

    #[agent(op = "agent.boxed")]
    #[error(transparent)]
    Boxed(Box<dyn std::error::Error + Send + Sync>),

    #[error(transparent)]
    Llm(LlmError),
}

#[test]
fn an_anyhow_field_is_classified_by_its_chain() {
    let e = StepError::from(anyhow::Error::new(timed_out()).context("loading users"));
    assert_eq!(e.code(), "timeout");
    assert_eq!(e.op(), "agent.step");
    assert!(e.is_retryable());
    assert_eq!(e.to_string(), "loading users");
    assert_eq!(
        agent_error::display::public(&e).to_string(),
        "the operation timed out"
    );
    assert_eq!(
        e.source().unwrap().to_string(),
        "read of /srv/data/users.db timed out"
    );
}

#[test]
fn the_default_code_follows_rename_all_and_namespace() {
    let e = StepError::from(anyhow::anyhow!("something odd"));
    assert_eq!(e.code(), "runner.OTHER");
    assert!(!e.is_retryable());
    assert_eq!(e.recovery(), Recovery::Abort);
    assert_eq!(
        agent_error::display::public(&e).to_string(),
        "internal error"
    );

    let boxed = StepError::Boxed("no route".into());
    assert_eq!((boxed.code(), boxed.op()), ("runner.BOXED", "agent.boxed"));
    assert_eq!(boxed.to_string(), "no route");
}

#[test]
fn a_typed_field_beside_foreign_ones_keeps_forwarding_everything() {
    let e = StepError::Llm(LlmError::from(too_many_requests()));
    assert_eq!((e.op(), e.code()), ("http.send", "rate_limit"));
    assert_eq!(e.hints(), ["slow down", "wait 3s"]);
    assert_eq!(e.retry_after(), Some(Duration::from_secs(3)));
}

// A user's classifier makes a foreign field classified.
#[cfg(feature = "registry")]
#[derive(Debug)]
struct PoolExhausted {
    dsn: &'static str,
}

#[cfg(feature = "registry")]
impl std::fmt::Display for PoolExhausted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no free connection to {}", self.dsn)
    }
}

#[cfg(feature = "registry")]
impl std::error::Error for PoolExhausted {}

#[cfg(feature = "registry")]
agent_error::classifier!(
    PoolExhausted,
    |_: &PoolExhausted| -> Option<agent_error::Error> {
        Some(
            agent_error::Error::new(
                "db.pool",
                agent_error::codes::PROVIDER_UNAVAILABLE,
                "the connection pool is exhausted",
            )
            .with_hint("lower the concurrency"),
        )
    }
);

#[cfg(feature = "registry")]
#[derive(Debug, AgentError)]
enum DbError {
    #[error(transparent)]
    Pool(#[from] PoolExhausted),
}

#[cfg(feature = "registry")]
#[test]
fn a_user_classifier_classifies_a_foreign_field() {
    let e = DbError::from(PoolExhausted {
        dsn: "postgres://admin@10.0.0.7/users",
    });
    assert_eq!(e.code(), "provider_unavailable");
    assert_eq!(e.op(), "db.pool");
    assert!(e.is_retryable());
    assert_eq!(e.hints(), ["lower the concurrency"]);
    assert_eq!(
        e.to_string(),
        "no free connection to postgres://admin@10.0.0.7/users"
    );
    assert_eq!(
        agent_error::tool::render(&e),
        "[error:provider_unavailable] the connection pool is exhausted\nhint: lower the concurrency"
    );
}

/// A provider SDK's error whose classifier builds its code at run time from the SDK's own
/// error code, as `provider.{code}`.
#[derive(Debug)]
struct SdkError(u32);

impl std::fmt::Display for SdkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "sdk error {}", self.0)
    }
}

impl std::error::Error for SdkError {}

agent_error::classifier!(SdkError, |e: &SdkError| -> Option<agent_error::Error> {
    Some(
        agent_error::Error::new(
            "sdk.call",
            format!("provider.c{}", e.0),
            "the provider failed",
        )
        .with_policy(agent_error::RetryPolicy::DEFAULT),
    )
});

/// The program declares one of the codes the classifier builds.
#[derive(Debug, AgentError)]
#[agent(op = "sdk.call")]
enum Declares {
    #[agent(code = "provider.c7")]
    #[error("provider code 7")]
    Seven,
}

#[derive(Debug, AgentError)]
#[agent(op = "agent.step")]
enum OverSdk {
    #[error(transparent)]
    Sdk(SdkError),
}

// Derived types are known in a chain through their registration (feature `registry`).
#[cfg(feature = "registry")]
#[test]
fn a_code_built_at_run_time_never_changes_however_many_are_seen() {
    let _ = Declares::Seven;
    let first = OverSdk::Sdk(SdkError(1000)).code().to_owned();
    // Many distinct codes, more than any table of them would keep.
    for n in 0..2_000 {
        let e = OverSdk::Sdk(SdkError(n));
        let expected = if n == 7 { "provider.c7" } else { "sdk" };
        assert_eq!(e.code(), expected, "{n}");
        assert!(
            e.is_retryable(),
            "the classification still decides the policy"
        );
    }
    assert_eq!(OverSdk::Sdk(SdkError(1000)).code(), first);
    assert_eq!(first, "sdk");
    // The classification itself keeps the code it built.
    let e = OverSdk::Sdk(SdkError(1000));
    let inner = e.source();
    assert!(
        inner.is_none(),
        "a transparent variant's source is its field's"
    );
    let c = agent_error::classify(&SdkError(1000)).unwrap();
    assert_eq!(c.code(), "provider.c1000");
}
