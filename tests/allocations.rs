//! The calls an agent loop makes on every failure allocate nothing: `code()`, `op()`,
//! `is_retryable()`, `retry_policy()`, `find`, `classify`, `Display` into a `String` with
//! room, and a retried run of the `Retrier`.
//!
//! A counting global allocator counts only on the thread that is measuring (a thread-local
//! flag), so the test harness's other threads cannot disturb the exact counts.

// Without `registry`, the tests that need a derived type known in a chain are left out, and
// what only they use goes unused.
#![cfg_attr(not(feature = "registry"), allow(dead_code, unused_imports))]

use std::error::Error as StdError;
use std::fmt::Write as _;
use std::io;
use std::time::Duration;

use agent_error::tool::ToolError;
use agent_error::{AgentError, find};

#[path = "support/counting.rs"]
mod counting;
use counting::allocations;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum LlmError {
    #[agent(code = "rate_limit", rate_limited)]
    #[error("provider returned 429")]
    RateLimited {
        #[retry_after]
        retry_after: Option<Duration>,
    },
    #[agent(
        code = "timeout",
        retryable,
        retry(attempts = 4, base = "100ms", max = "5s")
    )]
    #[error("deadline exceeded after {tokens} tokens")]
    Timeout {
        tokens: u32,
        #[source]
        source: io::Error,
    },
    #[agent(code = "auth_error", hint = "set OPENAI_API_KEY")]
    #[error("invalid api key for {console:?}")]
    Auth { console: &'static str },
    #[agent(retryable)]
    #[error("stream interrupted at chunk {0:>4}")]
    Stream(u32),
    #[error("the call to {tool} failed")]
    Tool {
        #[op]
        tool: &'static str,
        source: Option<io::Error>,
    },
    #[error(transparent)]
    Other(ToolError),
}

#[derive(Debug, AgentError)]
#[agent(op = "agent.step", code = "step_failed")]
#[error("step {step} failed")]
struct StepFailed {
    step: u32,
    source: LlmError,
}

/// One error of each kind the derive generates, and the runtime's own types.
fn errors() -> Vec<Box<dyn AgentError + Send + Sync>> {
    vec![
        Box::new(LlmError::RateLimited {
            retry_after: Some(Duration::from_secs(2)),
        }),
        Box::new(LlmError::Timeout {
            tokens: 12,
            source: io::ErrorKind::ConnectionReset.into(),
        }),
        Box::new(LlmError::Auth {
            console: "platform.example.com",
        }),
        Box::new(LlmError::Stream(7)),
        Box::new(LlmError::Tool {
            tool: "search",
            source: Some(io::ErrorKind::TimedOut.into()),
        }),
        Box::new(LlmError::Tool {
            tool: "search",
            source: None,
        }),
        Box::new(LlmError::Other(ToolError::NotUnique {
            tool: "fs.edit".into(),
            matches: 3,
        })),
        Box::new(StepFailed {
            step: 3,
            source: LlmError::Stream(9),
        }),
        Box::new(ToolError::Timeout {
            tool: "shell".into(),
            after: Duration::from_secs(30),
        }),
        Box::new(agent_error::Error::new(
            "db.query",
            "timeout",
            "took too long",
        )),
    ]
}

// Without `registry`, a foreign cause is classified through a path that allocates (3 on
// the first calls, seen with `cargo test -p agent-error --no-default-features`).
#[cfg(feature = "registry")]
#[test]
fn accessors_allocate_nothing() {
    // The registry collects its link-time lists into vectors once, on first use: on this
    // thread, when no other test thread came first.
    agent_error::classify(&io::Error::other("warm up"));
    for e in errors() {
        let e: &dyn AgentError = &*e;
        let (n, _) = allocations(|| e.code().len());
        assert_eq!(n, 0, "code() of {e}");
        let (n, _) = allocations(|| e.op().len());
        assert_eq!(n, 0, "op() of {e}");
        // A variant that takes its retrying from a foreign cause (`Tool` over an `io::Error`)
        // classifies the cause on each call: a built-in classification is a `static`.
        let (n, _) = allocations(|| e.is_retryable());
        assert_eq!(n, 0, "is_retryable() of {e}");
        let (n, _) = allocations(|| e.retry_policy());
        assert_eq!(n, 0, "retry_policy() of {e}");
        let (n, _) = allocations(|| (e.is_rate_limited(), e.retry_after(), e.recovery()));
        assert_eq!(
            n, 0,
            "is_rate_limited(), retry_after() and recovery() of {e}"
        );
    }
}

#[test]
fn accessors_allocate_nothing_without_dynamic_dispatch() {
    let e = LlmError::Timeout {
        tokens: 1,
        source: io::ErrorKind::ConnectionReset.into(),
    };
    let (n, _) = allocations(|| (e.code(), e.op(), e.is_retryable(), e.retry_policy()));
    assert_eq!(n, 0);
}

#[test]
fn display_into_a_string_with_room_allocates_nothing() {
    for e in errors() {
        let mut out = String::with_capacity(512);
        let (n, _) = allocations(|| write!(out, "{e}"));
        assert_eq!(n, 0, "Display of {e}");
        assert!(
            out.starts_with(&format!("{} [{}]: ", e.op(), e.code())),
            "{out}"
        );
    }
}

/// `e` under two unclassified links: a `Box<dyn Error>` in a context error, in an `io::Error`.
fn wrapped(e: Box<dyn AgentError + Send + Sync>) -> io::Error {
    #[derive(Debug)]
    struct Context(Box<dyn StdError + Send + Sync>);
    impl std::fmt::Display for Context {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("while handling the request")
        }
    }
    impl StdError for Context {
        fn source(&self) -> Option<&(dyn StdError + 'static)> {
            Some(&*self.0)
        }
    }
    let e: Box<dyn StdError + Send + Sync> = e;
    io::Error::other(Context(e))
}

#[cfg(feature = "registry")]
#[test]
fn find_allocates_nothing() {
    // The registry collects its link-time lists into vectors once, on first use.
    agent_error::classify(&io::Error::other("warm up"));
    for e in errors() {
        let code = e.code().to_string();
        let chain = wrapped(e);
        let (n, found) = allocations(|| find(&chain).map(|e| e.code().len()));
        assert_eq!(n, 0, "find through a chain to {code}");
        assert_eq!(found, Some(code.len()));
        let (n, retryable) = allocations(|| agent_error::is_retryable(&chain));
        assert_eq!(n, 0, "is_retryable through a chain to {code}");
        assert_eq!(retryable, find(&chain).unwrap().is_retryable());
        let (n, classified) = allocations(|| agent_error::classify(&chain).map(|c| c.code().len()));
        assert_eq!(n, 0, "classify through a chain to {code}");
        assert_eq!(classified, Some(code.len()));
    }
    let unclassified = io::Error::other("no classified link");
    let (n, found) = allocations(|| find(&unclassified).is_none());
    assert_eq!((n, found), (0, true));
    // No typed link: every foreign classifier is asked, and none allocates to say no.
    let (n, found) = allocations(|| agent_error::classify(&unclassified).is_none());
    assert_eq!((n, found), (0, true));
}

/// A foreign link that a built-in classifier knows (a timed-out `io::Error`) is classified
/// with a `static` answer: nothing is built, on its own or deep in a chain.
#[cfg(feature = "registry")]
#[test]
fn classifying_a_timed_out_io_error_allocates_nothing() {
    agent_error::classify(&io::Error::other("warm up"));
    let timed_out = io::Error::from(io::ErrorKind::TimedOut);
    let (n, retryable) = allocations(|| agent_error::is_retryable(&timed_out));
    assert_eq!((n, retryable), (0, true), "is_retryable");
    let (n, code) = allocations(|| agent_error::classify(&timed_out).map(|c| c.code().len()));
    assert_eq!((n, code), (0, Some("timeout".len())), "classify");
    let refused = io::Error::from(io::ErrorKind::ConnectionRefused);
    let (n, recovery) = allocations(|| {
        agent_error::classify(&refused).map(|c| (c.recovery(), c.retry_policy().max_attempts()))
    });
    assert_eq!(
        (n, recovery),
        (0, Some((agent_error::Recovery::Retry, 3))),
        "classify"
    );
    let chain = anyhow::Error::new(io::Error::from(io::ErrorKind::TimedOut)).context("calling");
    let (n, retryable) = allocations(|| agent_error::is_retryable(chain.as_ref()));
    assert_eq!((n, retryable), (0, true), "is_retryable through anyhow");
}

/// A retried run of a typed error allocates nothing: the classification, the decision, the
/// nested-retry scope and the outcome all live on the stack.
#[cfg(feature = "registry")]
#[test]
fn a_retried_run_allocates_nothing() {
    use agent_error::retry::{Retrier, Stop};
    agent_error::classify(&io::Error::other("warm up"));
    let retrier = Retrier::new().seed(1);
    // The server asks for no wait at all: the run sleeps zero twice, then succeeds.
    let op = |attempt: u32| {
        if attempt < 3 {
            Err(LlmError::RateLimited {
                retry_after: Some(Duration::ZERO),
            })
        } else {
            Ok(attempt)
        }
    };
    let (n, outcome) = allocations(|| retrier.run_detailed(op));
    assert_eq!(n, 0, "a retried run");
    assert_eq!((outcome.attempts, outcome.stop), (3, Stop::Succeeded));
    assert_eq!(outcome.waited, Duration::ZERO);
    // Given up on after the policy's attempts, through a chain of the operation's own type.
    let (n, outcome) = allocations(|| {
        retrier.run_detailed_with_sleep(
            |_| Err::<(), _>(LlmError::Stream(1)),
            |delay| {
                std::hint::black_box(delay);
            },
        )
    });
    assert_eq!(n, 0, "a run that gives up");
    assert_eq!(outcome.stop, Stop::AttemptsExhausted);
}

/// A tool result is one `String`: the summary is written into it and the hints are read
/// without a `Vec` (a transparent variant still reads its field's `hints`).
#[test]
fn a_tool_result_is_one_allocation() {
    let errors: Vec<Box<dyn AgentError + Send + Sync>> = vec![
        Box::new(LlmError::Auth { console: "c" }),
        Box::new(ToolError::NotUnique {
            tool: "fs.edit".into(),
            matches: 3,
        }),
        Box::new(ToolError::Timeout {
            tool: "shell".into(),
            after: Duration::from_secs(30),
        }),
        Box::new(StepFailed {
            step: 3,
            source: LlmError::Stream(9),
        }),
        Box::new(
            agent_error::Error::new("db.query", "timeout", "took too long")
                .with_hint("add an index"),
        ),
    ];
    for e in errors {
        // The first classification of a cause builds the registry's tables, once a process.
        let _ = agent_error::tool::render(&*e);
        let (n, text) = allocations(|| agent_error::tool::render(&*e));
        assert_eq!(n, 1, "{text}");
    }
}

#[test]
fn the_counter_sees_allocations() {
    let (n, _) = allocations(|| String::with_capacity(1));
    assert_eq!(n, 1);
    let (n, _) = allocations(|| LlmError::Auth { console: "x" }.to_string());
    assert!(n >= 1);
}

/// Serializing a report borrows it: a deep one written into a buffer with room allocates
/// nothing, so the cost is linear in its size (it used to clone every subtree at each level).
#[cfg(feature = "serde")]
#[test]
fn serializing_a_deep_report_allocates_nothing() {
    let mut e = agent_error::Error::new("layer", "timeout", "bottom");
    for _ in 0..200 {
        e = agent_error::Error::new("layer", "provider_unavailable", "up").with_source(e);
    }
    let report = agent_error::Report::capture(&e);
    let mut out = Vec::with_capacity(1 << 16);
    let (n, written) = allocations(|| serde_json::to_writer(&mut out, &report).is_ok());
    assert!(written);
    assert_eq!(n, 0);
    assert_eq!(
        String::from_utf8(out).unwrap().matches("\"cause\"").count(),
        agent_error::Report::MAX_DEPTH - 1
    );
}
