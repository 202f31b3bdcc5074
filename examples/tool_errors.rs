//! A tiny agent loop with a fake file-editing tool that fails in several ways. Each failure
//! is rendered for the model, parsed back as the model's side would, and the loop acts on
//! the recovery: retry, replan with the hint, or stop with a message for the person.
//!
//! `cargo run --example tool_errors`

use std::time::Duration;

use agent_error::tool::{self, ToolError};
use agent_error::{AgentError, Recovery, display};

/// What the fake "model" asks the tool to do, step by step.
#[derive(Clone, Debug)]
struct Call {
    path: &'static str,
    find: &'static str,
}

/// A fake `fs.edit` tool: the script decides how each call fails.
fn edit(call: &Call, attempt: u32) -> Result<String, ToolError> {
    let tool = "fs.edit".into();
    match (call.path, call.find) {
        ("src/main.rs", "fn") => Err(ToolError::NotUnique { tool, matches: 4 }),
        ("src/mian.rs", _) => Err(ToolError::FileNotFound {
            tool,
            path: call.path.into(),
        }),
        ("src/lib.rs", _) if attempt == 1 => Err(ToolError::Timeout {
            tool,
            after: Duration::from_secs(10),
        }),
        ("/etc/passwd", _) => Err(ToolError::PermissionDenied {
            tool,
            path: call.path.into(),
        }),
        _ => Ok(format!("edited {} (replaced `{}`)", call.path, call.find)),
    }
}

/// The model's next call after reading a hint: a stand-in for an LLM that follows advice.
fn replan(call: &Call, hint: &str) -> Call {
    if hint.contains("surrounding lines") {
        Call {
            find: "fn main() {",
            ..call.clone()
        }
    } else if hint.contains("check the path") {
        Call {
            path: "src/main.rs",
            find: "fn main() {",
        }
    } else {
        call.clone()
    }
}

fn run_task(mut call: Call) {
    println!("task: edit {} (find `{}`)", call.path, call.find);
    for attempt in 1..=4 {
        let err = match edit(&call, attempt) {
            Ok(done) => {
                println!("  tool -> {done}\n");
                return;
            }
            Err(e) => e,
        };
        // What the model sees in the tool result:
        let text = tool::render(&err);
        for line in text.lines() {
            println!("  tool -> {line}");
        }
        // What the agent loop reads back (it may only have the text, from another process):
        let parsed = tool::parse(&text).expect("a rendered tool error parses");
        match err.recovery() {
            Recovery::Retry => println!("  loop: {} is retryable: calling again", parsed.code),
            Recovery::Replan => {
                let hint = parsed.hints.first().map(String::as_str).unwrap_or_default();
                call = replan(&call, hint);
                println!(
                    "  loop: replanning with the hint: now edit {} (find `{}`)",
                    call.path, call.find
                );
            }
            other => {
                println!("  loop: {other}: stopping. For the person:");
                for line in display::for_user(&err).lines() {
                    println!("    {line}");
                }
                println!();
                return;
            }
        }
    }
}

fn main() {
    run_task(Call {
        path: "src/main.rs",
        find: "fn",
    });
    run_task(Call {
        path: "src/mian.rs",
        find: "fn main() {",
    });
    run_task(Call {
        path: "src/lib.rs",
        find: "pub mod",
    });
    run_task(Call {
        path: "/etc/passwd",
        find: "root",
    });
}
