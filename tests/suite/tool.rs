//! Tool results for LLMs: the exact one-line format, its parser, the ready `ToolError`
//! vocabulary, and structured results.

// Without `registry`, the tests that need a derived type known in a chain are left out, and
// what only they use goes unused.
#![cfg_attr(not(feature = "registry"), allow(dead_code, unused_imports))]

use std::borrow::Cow;
use std::time::Duration;

use agent_error::tool::{self, ParsedToolError, StructuredToolError, ToolError};
use agent_error::{AgentError, Error, Recovery, find};
use proptest::prelude::*;

#[derive(Debug, AgentError)]
#[agent(op = "fs.read")]
enum ReadError {
    #[agent(
        code = "FILE_TOO_LARGE",
        hint = "read in chunks",
        hint = "pass offset = {next}"
    )]
    #[error("file is {size}\tbytes.\nLimit is 1000...")]
    TooLarge { size: u64, next: u64 },
    #[agent(code = "EMPTY")]
    #[error("")]
    Empty,
}

#[test]
fn renders_code_summary_and_hints_exactly() {
    let e = ReadError::TooLarge {
        size: 5000,
        next: 1000,
    };
    assert_eq!(
        tool::render(&e),
        "[error:FILE_TOO_LARGE] file is 5000 bytes. Limit is 1000\nhint: read in chunks\nhint: pass offset = 1000"
    );
}

#[test]
fn an_empty_message_falls_back_to_the_code() {
    assert_eq!(tool::render(&ReadError::Empty), "[error:EMPTY] EMPTY");
}

#[test]
fn dynamic_hints_with_newlines_stay_on_their_line() {
    let e = Error::new("shell.run", "EXIT_NONZERO", "exit 1.")
        .with_hint("read stderr\nthen fix")
        .with_hint("  ");
    assert_eq!(
        tool::render(&e),
        "[error:EXIT_NONZERO] exit 1\nhint: read stderr then fix"
    );
}

#[test]
fn causes_stay_out_of_tool_results() {
    let e = Error::new("db.query", "timeout", "query timed out").with_source(
        std::io::Error::other("SELECT * FROM users WHERE token='abc'"),
    );
    assert_eq!(tool::render(&e), "[error:timeout] query timed out");
}

#[test]
fn parse_reads_back_what_render_wrote() {
    let e = ReadError::TooLarge {
        size: 5000,
        next: 1000,
    };
    let parsed = tool::parse(&tool::render(&e)).unwrap();
    assert_eq!(
        parsed,
        ParsedToolError {
            code: "FILE_TOO_LARGE".into(),
            summary: "file is 5000 bytes. Limit is 1000".into(),
            hints: vec!["read in chunks".into(), "pass offset = 1000".into()],
            body: None,
        }
    );
}

#[test]
fn parse_takes_a_body_after_a_blank_line_and_crlf() {
    let text = "[error:EXIT_NONZERO] exited with status 2\r\nhint: fix it\r\n\r\nerror: no such file\r\n\r\nmore";
    let parsed = tool::parse(text).unwrap();
    assert_eq!(parsed.code, "EXIT_NONZERO");
    assert_eq!(parsed.summary, "exited with status 2");
    assert_eq!(parsed.hints, ["fix it"]);
    assert_eq!(
        parsed.body.as_deref(),
        Some("error: no such file\r\n\r\nmore")
    );
    let no_hints = tool::parse("[error:X] s\n\nbody").unwrap();
    assert_eq!(
        (no_hints.hints.len(), no_hints.body.as_deref()),
        (0, Some("body"))
    );
}

#[test]
fn parse_refuses_what_is_not_an_error_result() {
    for text in [
        "",
        "ok",
        " [error:X] leading space",
        "[error:] empty code",
        "[error:X Y] space",
        "[error:X no close",
        "[ERROR:X] case",
    ] {
        assert_eq!(tool::parse(text), None, "{text:?}");
    }
}

// Derived types are known in a chain through their registration (feature `registry`).
#[cfg(feature = "registry")]
#[test]
fn tool_errors_have_codes_recoveries_and_one_hint_each() {
    let tool = || Cow::Borrowed("fs.edit");
    let all: Vec<(ToolError, &str, Recovery, bool)> = vec![
        (
            ToolError::InvalidArgs {
                tool: tool(),
                reason: "missing `path`".into(),
            },
            "INVALID_ARGS",
            Recovery::Replan,
            false,
        ),
        (
            ToolError::FileNotFound {
                tool: tool(),
                path: "a.rs".into(),
            },
            "FILE_NOT_FOUND",
            Recovery::Replan,
            false,
        ),
        (
            ToolError::FileStale {
                tool: tool(),
                path: "a.rs".into(),
            },
            "FILE_STALE",
            Recovery::Replan,
            false,
        ),
        (
            ToolError::FileTooLarge {
                tool: tool(),
                path: "a.rs".into(),
                size: 10,
                limit: 5,
            },
            "FILE_TOO_LARGE",
            Recovery::Replan,
            false,
        ),
        (
            ToolError::NotRegularFile {
                tool: tool(),
                path: "src".into(),
            },
            "NOT_REGULAR_FILE",
            Recovery::Replan,
            false,
        ),
        (
            ToolError::PermissionDenied {
                tool: tool(),
                path: "/etc".into(),
            },
            "PERMISSION_DENIED",
            Recovery::Escalate,
            false,
        ),
        (
            ToolError::NotUnique {
                tool: tool(),
                matches: 2,
            },
            "NOT_UNIQUE",
            Recovery::Replan,
            false,
        ),
        (
            ToolError::Timeout {
                tool: tool(),
                after: Duration::from_secs(30),
            },
            "TIMEOUT",
            Recovery::Retry,
            true,
        ),
        (
            ToolError::ExitNonzero {
                tool: tool(),
                status: 2,
            },
            "EXIT_NONZERO",
            Recovery::Replan,
            false,
        ),
        (
            ToolError::IoError {
                tool: tool(),
                source: std::io::Error::other("disk"),
            },
            "IO_ERROR",
            Recovery::Retry,
            true,
        ),
        (
            ToolError::Internal {
                tool: tool(),
                detail: "index out of bounds".into(),
            },
            "INTERNAL",
            Recovery::Abort,
            false,
        ),
        (
            ToolError::ToolInterrupted { tool: tool() },
            "TOOL_INTERRUPTED",
            Recovery::Replan,
            false,
        ),
        (
            ToolError::ToolDisabled {
                tool: tool(),
                failures: 5,
            },
            "TOOL_DISABLED",
            Recovery::Replan,
            false,
        ),
    ];
    for (e, code, recovery, retryable) in &all {
        assert_eq!(
            (e.code(), e.recovery(), e.is_retryable(), e.op()),
            (*code, *recovery, *retryable, "fs.edit")
        );
        assert_eq!(e.hints().len(), 1, "{code}");
    }
    assert_eq!(
        all[7].0.to_string(),
        "fs.edit [TIMEOUT]: timed out after 30s"
    );
    assert_eq!(all[9].0.to_string(), "fs.edit [IO_ERROR]: I/O error: disk");
    assert_eq!(
        tool::render(&all[10].0),
        "[error:INTERNAL] internal error: [redacted]\nhint: report this failure: it is a bug in the tool, not in the call"
    );
    let io = std::io::Error::other(ToolError::ToolDisabled {
        tool: tool(),
        failures: 5,
    });
    assert_eq!(find(&io).map(|e| e.code()), Some("TOOL_DISABLED"));
}

#[test]
fn structured_results_carry_the_public_view() {
    let e = ToolError::Internal {
        tool: "fs.edit".into(),
        detail: "/home/alice/.ssh/id_rsa".into(),
    };
    let s = StructuredToolError::from_error(&e);
    assert_eq!(
        s,
        StructuredToolError {
            code: "INTERNAL".into(),
            summary: "internal error: [redacted]".into(),
            hints: vec!["report this failure: it is a bug in the tool, not in the call".into()],
            retryable: false,
            recovery: Recovery::Abort,
        }
    );
}

#[cfg(feature = "serde")]
#[test]
fn structured_results_serialize_for_mcp() {
    let e = ToolError::Timeout {
        tool: "shell.run".into(),
        after: Duration::from_secs(5),
    };
    let json = serde_json::to_value(StructuredToolError::from_error(&e)).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "code": "TIMEOUT",
            "summary": "timed out after 5s",
            "hints": ["narrow the command, or raise the timeout"],
            "retryable": true,
            "recovery": "retry",
        })
    );
    let back: StructuredToolError = serde_json::from_value(json).unwrap();
    assert_eq!(back.recovery, Recovery::Retry);
    let minimal: StructuredToolError =
        serde_json::from_str(r#"{"code":"X","summary":"s","recovery":"abort","extra":1}"#).unwrap();
    assert_eq!((minimal.hints.len(), minimal.retryable), (0, false));
    assert!(
        serde_json::from_str::<StructuredToolError>(
            r#"{"code":"X","summary":"s","recovery":"nap"}"#
        )
        .is_err()
    );
}

#[test]
fn a_continue_recovery_renders_for_the_model() {
    let cut = Error::new(
        "llm.generate",
        agent_error::codes::OUTPUT_TRUNCATED,
        "stopped at max_tokens.",
    )
    .with_hint("continue from the partial output, or raise the output token limit");
    let text = tool::render(&cut);
    assert_eq!(
        text,
        "[error:output_truncated] stopped at max_tokens\nhint: continue from the partial output, or raise the output token limit"
    );
    assert_eq!(
        tool::parse(&text),
        Some(ParsedToolError {
            code: "output_truncated".into(),
            summary: "stopped at max_tokens".into(),
            hints: vec!["continue from the partial output, or raise the output token limit".into()],
            body: None,
        })
    );
    assert_eq!(
        StructuredToolError::from_error(&cut),
        StructuredToolError {
            code: "output_truncated".into(),
            summary: "stopped at max_tokens".into(),
            hints: vec!["continue from the partial output, or raise the output token limit".into()],
            retryable: false,
            recovery: Recovery::Continue,
        }
    );
}

#[cfg(feature = "serde")]
#[test]
fn a_continue_recovery_serializes_by_its_name() {
    let cut = Error::new(
        "llm.generate",
        agent_error::codes::OUTPUT_TRUNCATED,
        "stopped at max_tokens",
    );
    let json = serde_json::to_value(StructuredToolError::from_error(&cut)).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "code": "output_truncated",
            "summary": "stopped at max_tokens",
            "hints": [],
            "retryable": false,
            "recovery": "continue",
        })
    );
    let back: StructuredToolError = serde_json::from_value(json).unwrap();
    assert_eq!(back.recovery, Recovery::Continue);
}

/// What the renderings make of text, character by character: line and paragraph breaks
/// become spaces; other controls and the bidirectional controls go.
fn folded(text: &str) -> String {
    text.chars()
        .filter_map(|c| match c {
            '\n'
            | '\r'
            | '\t'
            | '\u{0B}'
            | '\u{0C}'
            | '\u{1C}'..='\u{1F}'
            | '\u{85}'
            | '\u{2028}'
            | '\u{2029}' => Some(' '),
            c if c.is_control() => None,
            '\u{061C}'
            | '\u{200E}'
            | '\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2066}'..='\u{2069}' => None,
            c => Some(c),
        })
        .collect()
}

/// Codes, messages and hints as an agent might produce them.
fn any_error() -> impl Strategy<Value = Error> {
    let code = "[a-z][a-z0-9_]{0,10}(\\.[a-z][a-z0-9_]{0,8}){0,2}|[A-Z][A-Z0-9_]{0,12}";
    let text = "[^\\x00]{0,60}";
    (code, text, proptest::collection::vec(text, 0..4)).prop_map(|(code, message, hints)| {
        hints
            .into_iter()
            .fold(Error::new("tool.run", code, message), |e, h| e.with_hint(h))
    })
}

proptest! {
    #[test]
    fn parse_of_render_gives_back_code_summary_and_hints(e in any_error()) {
        let text = tool::render(&e);
        let parsed = tool::parse(&text).expect("a rendered error parses");
        prop_assert_eq!(&parsed.code, e.code());
        prop_assert!(!parsed.summary.is_empty());
        prop_assert!(!parsed.summary.contains(['\n', '\r', '\t']));
        prop_assert!(!parsed.summary.ends_with('.'));
        let summary = folded(&e.message());
        let summary = summary.trim_start().trim_end_matches(|c: char| c == '.' || c.is_whitespace());
        prop_assert_eq!(&parsed.summary, if summary.is_empty() { e.code() } else { summary });
        let hints: Vec<String> = e.hints().iter().map(|h| folded(h).trim().to_string()).map(|h| h.trim_end_matches(|c: char| c == '.' || c.is_whitespace()).to_string()).filter(|h| !h.is_empty()).collect();
        prop_assert_eq!(parsed.hints, hints);
        prop_assert_eq!(parsed.body, None);
        prop_assert_eq!(text.lines().next().map(|l| l.starts_with("[error:")), Some(true));
    }

    #[test]
    fn parse_never_panics(text in "\\PC{0,200}") {
        let _ = tool::parse(&text);
        let _ = tool::parse(&format!("[error:{text}"));
        let _ = tool::parse(&format!("[error:X] {text}"));
    }
}
