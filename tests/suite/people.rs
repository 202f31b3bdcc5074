//! Renderings for people: the user-facing message, and the chain for logs printed with
//! each link once.

// Without `registry`, the tests that need a derived type known in a chain are left out, and
// what only they use goes unused.
#![cfg_attr(not(feature = "registry"), allow(dead_code, unused_imports))]

use agent_error::{AgentError, Error, display};
use anyhow::Context as _;

#[derive(Debug, AgentError)]
#[agent(op = "agent.answer")]
enum AgentFailure {
    #[agent(
        code = "provider_unavailable",
        hint = "try again in a minute.",
        hint = "or pick another model"
    )]
    #[error("the model provider is unavailable.\nAll retries failed.")]
    Provider {
        #[source]
        source: Error,
    },
    #[error(transparent)]
    Other(#[from] Error),
}

fn failure() -> AgentFailure {
    let io = std::io::Error::other("connection reset by peer");
    AgentFailure::Provider {
        source: Error::new("http.post", "timeout", "no answer in 30s").with_source(io),
    }
}

#[test]
fn for_user_shows_the_summary_then_the_hints() {
    assert_eq!(
        display::for_user(&failure()),
        "the model provider is unavailable. All retries failed\n  - try again in a minute\n  - or pick another model"
    );
    assert_eq!(display::for_user(&Error::new("x", "EMPTY", "")), "EMPTY");
}

// Derived types are known in a chain through their registration (feature `registry`).
#[cfg(feature = "registry")]
#[test]
fn chain_prints_each_link_once() {
    let e = failure();
    // Display: one head a line, the cause (an `AgentError` too) without its own.
    let expected = "agent.answer [provider_unavailable]: the model provider is unavailable.\nAll retries failed.: no answer in 30s: connection reset by peer";
    assert_eq!(e.to_string(), expected);
    // The chain is for logs: each link on one line, so that no message forges a log line.
    let folded = "agent.answer [provider_unavailable]: the model provider is unavailable. All retries failed.: http.post [timeout]: no answer in 30s: connection reset by peer";
    assert_eq!(display::chain(&e).to_string(), folded);
    assert_eq!(
        format!("{:#}", display::chain(&e)),
        "agent.answer [provider_unavailable]: the model provider is unavailable. All retries failed.\ncaused by: http.post [timeout]: no answer in 30s\ncaused by: connection reset by peer"
    );
}

// Derived types are known in a chain through their registration (feature `registry`).
#[cfg(feature = "registry")]
#[test]
fn chain_fixes_anyhows_repetition() {
    let err = Err::<(), _>(failure())
        .context("answering the user")
        .unwrap_err();
    let anyhow_text = format!("{err:#}");
    assert_eq!(anyhow_text.matches("connection reset by peer").count(), 3);
    assert_eq!(
        display::chain(err.as_ref()).to_string(),
        "answering the user: agent.answer [provider_unavailable]: the model provider is unavailable. All retries failed.: http.post [timeout]: no answer in 30s: connection reset by peer"
    );
}

#[test]
fn chain_does_not_print_an_io_error_and_what_it_wraps_twice() {
    let io = std::io::Error::other(Error::new("fs.read", "not_found", "no such file"));
    assert_eq!(
        display::chain(&io).to_string(),
        "fs.read [not_found]: no such file"
    );
    // A classified io::Error prints its classification before its own text, once.
    let plain = std::io::Error::new(std::io::ErrorKind::NotFound, "plain");
    assert_eq!(display::chain(&plain).to_string(), "io [not_found]: plain");
}

// Derived types are known in a chain through their registration (feature `registry`).
#[cfg(feature = "registry")]
#[test]
fn chain_of_a_transparent_variant_uses_the_inner_message() {
    let e = AgentFailure::from(
        Error::new("db.query", "timeout", "slow").with_source(std::io::Error::other("reset")),
    );
    assert_eq!(
        display::chain(&e).to_string(),
        "db.query [timeout]: slow: reset"
    );
}

#[test]
fn a_hint_with_nothing_to_say_is_left_out_everywhere() {
    let e = Error::new("a.b", "tool_failed", "failed")
        .with_hint("...")
        .with_hint("  ")
        .with_hint("retry later.");
    assert_eq!(display::for_user(&e), "failed\n  - retry later");
    assert_eq!(
        agent_error::tool::render(&e),
        "[error:tool_failed] failed\nhint: retry later"
    );
    assert_eq!(
        agent_error::tool::StructuredToolError::from_error(&e).hints,
        ["retry later"]
    );
}
