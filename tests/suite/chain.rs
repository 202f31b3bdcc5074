//! Walking a chain: `find`, `is_retryable`, `has_code` and `links` through every kind of
//! wrapper (SPEC §2.2). Derived types are recognised through the `registry` feature; the
//! runtime's own types without it too (`chain_runtime_types.rs`).

#![cfg(feature = "registry")]

use std::borrow::Cow;
use std::error::Error as StdError;
use std::fmt;
use std::io;

use agent_error::chain::links;
use agent_error::{AgentError, Recovery, RetryPolicy, find, has_code, is_retryable};
use anyhow::Context as _;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum LlmError {
    #[agent(code = "timeout", retryable)]
    #[error("deadline exceeded")]
    Timeout,

    #[agent(code = "auth_error")]
    #[error("invalid api key")]
    Auth,
}

#[derive(Debug, AgentError)]
#[agent(op = "agent.step", code = "step_failed")]
#[error("step {step} failed")]
struct StepFailed {
    step: u32,
    source: LlmError,
}

#[derive(Debug, AgentError)]
#[agent(op = "agent.step", retryable = false)]
#[error("step failed")]
struct PinnedStep {
    source: LlmError,
}

#[derive(Debug, thiserror::Error)]
#[error("while planning")]
struct Planning {
    #[source]
    inner: LlmError,
}

#[derive(Debug, thiserror::Error)]
#[error("while running the tool")]
struct ToolRun {
    #[source]
    inner: Box<dyn StdError + Send + Sync>,
}

fn code_found<'a>(err: &'a (dyn StdError + 'static)) -> Option<&'a str> {
    find(err).map(|e| e.code())
}

#[test]
fn the_error_itself() {
    let e = LlmError::Timeout;
    assert_eq!(code_found(&e), Some("timeout"));
    assert!(is_retryable(&e));
    assert!(has_code(&e, "timeout"));
    assert!(!has_code(&e, "auth_error"));
    let auth = LlmError::Auth;
    assert_eq!(code_found(&auth), Some("auth_error"));
    assert!(!is_retryable(&auth));
}

#[test]
fn behind_a_box() {
    let boxed: Box<dyn StdError + Send + Sync> = Box::new(LlmError::Timeout);
    assert_eq!(code_found(&*boxed), Some("timeout"));
    assert!(is_retryable(&*boxed));
    assert!(has_code(&*boxed, "timeout"));
}

#[test]
fn behind_a_box_that_is_another_errors_source() {
    let e = ToolRun {
        inner: Box::new(LlmError::Auth),
    };
    assert_eq!(code_found(&e), Some("auth_error"));
    assert!(!is_retryable(&e));
    assert!(has_code(&e, "auth_error"));
}

#[test]
fn inside_an_io_error() {
    let e = io::Error::other(LlmError::Timeout);
    // `io::Error::source()` skips the error it wraps: the walk must not.
    assert!(e.source().is_none());
    assert_eq!(code_found(&e), Some("timeout"));
    assert!(is_retryable(&e));
    assert!(has_code(&e, "timeout"));
}

#[test]
fn inside_an_io_error_with_a_kind() {
    let e = io::Error::new(io::ErrorKind::TimedOut, LlmError::Timeout);
    assert_eq!(code_found(&e), Some("timeout"));
}

#[test]
fn inside_an_io_error_whose_inner_error_has_a_cause() {
    let step = StepFailed {
        step: 2,
        source: LlmError::Timeout,
    };
    let e = io::Error::other(step);
    assert_eq!(code_found(&e), Some("step_failed"));
    assert!(has_code(&e, "timeout"));
    // `StepFailed` says nothing about retrying: it is retried as its cause is.
    assert!(is_retryable(&e));
}

#[test]
fn inside_anyhow_with_context() {
    let err = anyhow::Error::new(LlmError::Timeout).context("loading the plan");
    assert_eq!(err.to_string(), "loading the plan");
    assert_eq!(code_found(err.as_ref()), Some("timeout"));
    assert!(is_retryable(err.as_ref()));
    assert!(has_code(&*err, "timeout"));
}

#[test]
fn inside_anyhow_from_a_result_with_context() {
    let result: Result<(), LlmError> = Err(LlmError::Auth);
    let err = result
        .context("calling the model")
        .context("running step 3")
        .unwrap_err();
    assert_eq!(code_found(err.as_ref()), Some("auth_error"));
    assert!(has_code(err.as_ref(), "auth_error"));
    assert!(!is_retryable(err.as_ref()));
}

#[test]
fn inside_anyhow_without_context() {
    let err = anyhow::Error::from(LlmError::Timeout);
    assert_eq!(code_found(err.as_ref()), Some("timeout"));
}

#[test]
fn behind_a_thiserror_wrapper() {
    let e = Planning {
        inner: LlmError::Timeout,
    };
    assert_eq!(code_found(&e), Some("timeout"));
    assert!(is_retryable(&e));
    assert!(has_code(&e, "timeout"));
}

#[test]
fn several_levels_deep() {
    let boxed: Box<dyn StdError + Send + Sync> = Box::new(LlmError::Timeout);
    let io = io::Error::other(boxed);
    let tool = ToolRun {
        inner: Box::new(io),
    };
    let err = anyhow::Error::new(tool).context("step 4");
    assert_eq!(code_found(err.as_ref()), Some("timeout"));
    assert!(is_retryable(err.as_ref()));
    assert!(has_code(err.as_ref(), "timeout"));
    let shown: Vec<String> = links(err.as_ref()).map(|e| e.to_string()).collect();
    assert_eq!(
        shown,
        [
            "step 4",
            "while running the tool",
            "llm.generate [timeout]: deadline exceeded",
            "llm.generate [timeout]: deadline exceeded",
        ]
    );
}

#[test]
fn a_chain_without_a_classified_error() {
    let e = io::Error::other("connection reset");
    assert!(find(&e).is_none());
    assert!(!is_retryable(&e));
    assert!(!has_code(&e, "timeout"));
    let err = anyhow::anyhow!("plain").context("outer");
    assert!(find(err.as_ref()).is_none());
    assert!(!is_retryable(err.as_ref()));
}

#[test]
fn find_returns_the_first_classified_link() {
    let e = StepFailed {
        step: 1,
        source: LlmError::Timeout,
    };
    assert_eq!(code_found(&e), Some("step_failed"));
    // The outer error decides: it says nothing about retrying, so it takes its cause's
    // classification; pinned with `retryable = false`, it is not retried.
    assert!(is_retryable(&e));
    let pinned = PinnedStep {
        source: LlmError::Timeout,
    };
    assert_eq!(code_found(&pinned), Some("pinned_step"));
    assert!(!is_retryable(&pinned));
}

#[test]
fn has_code_matches_an_inner_link() {
    let e = StepFailed {
        step: 1,
        source: LlmError::Timeout,
    };
    assert!(has_code(&e, "step_failed"));
    assert!(has_code(&e, "timeout"));
    assert!(!has_code(&e, "auth_error"));
}

#[test]
fn links_visit_each_link_in_order() {
    let e = Planning {
        inner: LlmError::Auth,
    };
    let shown: Vec<String> = links(&e).map(|l| l.to_string()).collect();
    assert_eq!(
        shown,
        [
            "while planning",
            "llm.generate [auth_error]: invalid api key"
        ]
    );
}

#[test]
fn links_of_an_error_without_a_cause() {
    let shown: Vec<String> = links(&fmt::Error).map(|l| l.to_string()).collect();
    assert_eq!(shown, ["an error occurred when formatting an argument"]);
}

#[test]
fn links_include_the_error_inside_an_io_error() {
    let e = io::Error::other(LlmError::Auth);
    let shown: Vec<String> = links(&e).map(|l| l.to_string()).collect();
    assert_eq!(
        shown,
        [
            "llm.generate [auth_error]: invalid api key",
            "llm.generate [auth_error]: invalid api key"
        ]
    );
    assert!(links(&e).nth(1).unwrap().is::<LlmError>());
}

#[test]
fn the_dynamic_error_is_found() {
    let inner = agent_error::Error::new("db.query", "timeout", "slow query");
    let e = ToolRun {
        inner: Box::new(inner),
    };
    assert_eq!(code_found(&e), Some("timeout"));
    assert!(is_retryable(&e));
    let err = anyhow::Error::new(agent_error::Error::new("db.query", "not_found", "no row"))
        .context("loading user");
    assert_eq!(code_found(err.as_ref()), Some("not_found"));
    assert!(!is_retryable(err.as_ref()));
}

#[test]
fn the_dynamic_error_as_a_cause_of_a_derived_error() {
    let e = StepFailedDyn {
        source: agent_error::Error::new("db.query", "timeout", "slow"),
    };
    assert_eq!(code_found(&e), Some("step_failed"));
    assert!(has_code(&e, "timeout"));
}

#[derive(Debug, AgentError)]
#[agent(op = "agent.step", code = "step_failed")]
#[error("step failed")]
struct StepFailedDyn {
    source: agent_error::Error,
}

/// An `AgentError` written by hand, found once registered.
#[derive(Debug)]
struct HandWritten;

impl fmt::Display for HandWritten {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("hand.written [manual]: by hand")
    }
}

impl StdError for HandWritten {}

impl AgentError for HandWritten {
    fn code(&self) -> &str {
        "manual"
    }
    fn op(&self) -> &str {
        "hand.written"
    }
    fn fmt_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("by hand")
    }
    fn fmt_public_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("by hand")
    }
    fn retry_policy(&self) -> RetryPolicy {
        RetryPolicy::DEFAULT
    }
    fn hints(&self) -> Vec<Cow<'static, str>> {
        Vec::new()
    }
    fn recovery(&self) -> Recovery {
        Recovery::Retry
    }
}

// `register!` also puts the type's codes in `catalog::all()`, so it needs a `Catalog`.
impl agent_error::catalog::Catalog for HandWritten {
    const CODES: &'static [agent_error::catalog::CodeDoc] = &[agent_error::catalog::CodeDoc::new(
        "manual",
        "chain::HandWritten",
        "HandWritten",
        RetryPolicy::DEFAULT,
        Recovery::Retry,
    )];
}

agent_error::register!(HandWritten);

#[test]
fn a_registered_hand_written_impl_is_found() {
    let e = io::Error::other(HandWritten);
    assert_eq!(code_found(&e), Some("manual"));
    let listed = agent_error::catalog::explain("manual");
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].declared_at(), "HandWritten");
    assert!(is_retryable(&e));
    assert_eq!(find(&e).unwrap().message(), "by hand");
}

mod first {
    #[derive(Debug, agent_error::AgentError)]
    #[agent(op = "first.op")]
    pub enum Same {
        #[error("first")]
        FromFirst,
    }
}

mod second {
    #[derive(Debug, agent_error::AgentError)]
    #[agent(op = "second.op")]
    pub enum Same {
        #[error("second")]
        FromSecond,
    }
}

#[test]
fn types_with_the_same_name_in_different_modules_are_both_found() {
    let a = io::Error::other(first::Same::FromFirst);
    let b = io::Error::other(second::Same::FromSecond);
    assert_eq!(code_found(&a), Some("from_first"));
    assert_eq!(code_found(&b), Some("from_second"));
}

#[test]
fn a_type_declared_inside_a_function_is_found() {
    #[derive(Debug, AgentError)]
    #[agent(op = "local.op", code = "local_code")]
    #[error("declared locally")]
    struct Local;

    let e = io::Error::other(Local);
    assert_eq!(code_found(&e), Some("local_code"));
}

#[derive(Debug, AgentError)]
#[agent(op = "agent.step", code = "step_failed")]
#[error("step failed")]
struct StepFailedAnyhow {
    #[source]
    cause: anyhow::Error,
}

#[test]
fn behind_an_anyhow_cause_of_a_derived_error() {
    let e = StepFailedAnyhow {
        cause: anyhow::Error::new(LlmError::Timeout).context("calling the model"),
    };
    assert_eq!(code_found(&e), Some("step_failed"));
    assert!(has_code(&e, "timeout"));
}

#[test]
fn inside_an_io_error_inside_anyhow() {
    let err = anyhow::Error::new(io::Error::other(LlmError::Timeout)).context("reading");
    assert_eq!(code_found(err.as_ref()), Some("timeout"));
    assert!(is_retryable(err.as_ref()));
}

#[derive(Debug, thiserror::Error)]
#[error("shared failure")]
struct SharedFailure {
    #[source]
    inner: std::sync::Arc<dyn StdError + Send + Sync>,
}

#[test]
fn behind_a_shared_arc_of_dyn_error() {
    // `Arc<E>::source()` is `E::source()`: like `io::Error` it skips the error it holds.
    let e = SharedFailure {
        inner: std::sync::Arc::new(LlmError::Timeout),
    };
    assert_eq!(code_found(&e), Some("timeout"));
    assert!(is_retryable(&e));
    assert!(has_code(&e, "timeout"));
}

#[derive(Debug, AgentError)]
#[agent(op = "agent.step", code = "step_failed")]
#[error("step failed")]
struct StepFailedShared {
    source: std::sync::Arc<LlmError>,
}

#[test]
fn behind_a_shared_arc_of_a_derived_error() {
    let e = StepFailedShared {
        source: std::sync::Arc::new(LlmError::Timeout),
    };
    assert_eq!(code_found(&e), Some("step_failed"));
    assert!(has_code(&e, "timeout"));
}

/// A context link the size of an `Arc<dyn Error>` (it holds a boxed cause) that is no
/// wrapper: its cause is its `source()`.
#[derive(Debug)]
struct Boxed(Box<dyn StdError + Send + Sync>);

impl fmt::Display for Boxed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("while reading")
    }
}

impl StdError for Boxed {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        Some(&*self.0)
    }
}

#[test]
fn wrappers_and_links_of_their_size_are_told_apart_walk_after_walk() {
    // Which wrapper a link is, if any, is remembered by its type after the first walk: the
    // later walks must find the same links.
    for _ in 0..3 {
        let inner = Boxed(Box::new(io::Error::other(LlmError::Timeout)));
        let e = SharedFailure {
            inner: std::sync::Arc::new(inner),
        };
        // The failure, the `Arc`, the context, the `io::Error`, the typed error.
        assert_eq!(links(&e).count(), 5);
        assert_eq!(code_found(&e), Some("timeout"));
        let plain = Boxed(Box::new(LlmError::Auth));
        assert_eq!(links(&plain).count(), 2);
        assert_eq!(code_found(&plain), Some("auth_error"));
        let empty = io::Error::from(io::ErrorKind::TimedOut);
        assert_eq!(links(&empty).count(), 1);
    }
}
