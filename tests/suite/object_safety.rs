//! `AgentError` is object safe: code that reacts to failures holds `&dyn AgentError`
//! or `Box<dyn AgentError + Send + Sync>`.

use std::io;
use std::time::Duration;

use agent_error::{AgentError, Recovery};

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum LlmError {
    #[agent(code = "rate_limit", rate_limited, hint = "slow down")]
    #[error("throttled")]
    RateLimited {
        #[retry_after]
        retry_after: Duration,
    },

    #[agent(code = "timeout", retryable)]
    #[error("deadline exceeded")]
    Timeout { source: io::Error },
}

fn describe(e: &dyn AgentError) -> String {
    format!(
        "{} {} {} retry={} rate_limited={} after={:?} recovery={:?} hints={:?} msg={}",
        e,
        e.code(),
        e.op(),
        e.is_retryable(),
        e.is_rate_limited(),
        e.retry_after(),
        e.recovery(),
        e.hints(),
        e.message()
    )
}

#[test]
fn a_reference_to_dyn_agent_error() {
    let e = LlmError::RateLimited {
        retry_after: Duration::from_secs(1),
    };
    assert_eq!(
        describe(&e),
        "llm.generate [rate_limit]: throttled rate_limit llm.generate retry=true rate_limited=true after=Some(1s) recovery=Retry hints=[\"slow down\"] msg=throttled"
    );
}

#[test]
fn a_boxed_send_sync_agent_error() {
    let errors: Vec<Box<dyn AgentError + Send + Sync>> = vec![
        Box::new(LlmError::Timeout {
            source: io::Error::other("reset"),
        }),
        Box::new(agent_error::Error::new("db.query", "not_found", "no row")),
    ];
    let codes: Vec<&str> = errors.iter().map(|e| e.code()).collect();
    assert_eq!(codes, ["timeout", "not_found"]);
    let shown: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(
        shown,
        [
            "llm.generate [timeout]: deadline exceeded: reset",
            "db.query [not_found]: no row"
        ]
    );
    assert_eq!(errors[0].recovery(), Recovery::Retry);
    assert_eq!(errors[1].recovery(), Recovery::Abort);
    assert_eq!(errors[0].source().unwrap().to_string(), "reset");
}

#[test]
fn a_boxed_agent_error_can_move_across_threads() {
    let e: Box<dyn AgentError + Send + Sync> = Box::new(LlmError::RateLimited {
        retry_after: Duration::from_millis(10),
    });
    let code = std::thread::spawn(move || e.code().to_string())
        .join()
        .unwrap();
    assert_eq!(code, "rate_limit");
}

#[test]
fn a_dyn_agent_error_is_a_dyn_error() {
    let e = LlmError::Timeout {
        source: io::Error::other("reset"),
    };
    let agent: &dyn AgentError = &e;
    let error: &dyn std::error::Error = agent;
    assert_eq!(
        error.to_string(),
        "llm.generate [timeout]: deadline exceeded: reset"
    );
}
