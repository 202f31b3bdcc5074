//! Errors as tool results for an LLM: the text format and its parser, structured results,
//! and [`ToolError`], a ready vocabulary of tool failures derived with this crate's own derive.

use std::borrow::Cow;
use std::time::Duration;

use crate::AgentError;

pub use agent_error_runtime::tool::*;

/// Common tool failures, ready to use, each with a recovery and one actionable hint.
/// The codes are uppercase, as tool codes usually are; the op is the tool's name.
///
/// Define your own codes beside these with your own derived enum: the chain walk and
/// the renderings treat them alike.
///
/// ```
/// use agent_error::{tool::{self, ToolError}, AgentError, Recovery};
///
/// let e = ToolError::NotUnique { tool: "fs.edit".into(), matches: 3 };
/// assert_eq!(e.to_string(), "fs.edit [NOT_UNIQUE]: 3 matches for the text to replace; expected exactly one");
/// assert_eq!(e.recovery(), Recovery::Replan);
/// assert_eq!(
///     tool::render(&e),
///     "[error:NOT_UNIQUE] 3 matches for the text to replace; expected exactly one\nhint: add surrounding lines to the text to replace so that it matches once",
/// );
/// ```
#[derive(Debug, AgentError)]
#[agent(crate = "crate", rename_all = "SCREAMING_SNAKE_CASE")]
#[non_exhaustive]
pub enum ToolError {
    /// The arguments do not fit the tool's schema.
    #[agent(
        recovery = "replan",
        hint = "fix the arguments to match the tool's schema, then call it again"
    )]
    #[error("invalid arguments: {reason}")]
    InvalidArgs {
        /// The tool's name.
        #[op]
        tool: Cow<'static, str>,
        /// What is wrong with them.
        reason: String,
    },
    /// No file at the path.
    #[agent(
        recovery = "replan",
        hint = "check the path; list the directory to find the right name"
    )]
    #[error("no file at {path}")]
    FileNotFound {
        /// The tool's name.
        #[op]
        tool: Cow<'static, str>,
        /// The path asked for.
        path: String,
    },
    /// The file changed since it was last read.
    #[agent(recovery = "replan", hint = "read the file again before writing to it")]
    #[error("{path} changed since it was last read")]
    FileStale {
        /// The tool's name.
        #[op]
        tool: Cow<'static, str>,
        /// The file.
        path: String,
    },
    /// The file is too large to read at once.
    #[agent(
        recovery = "replan",
        hint = "read the file in chunks, with an offset and a limit"
    )]
    #[error("{path} is too large: {size} bytes, over the limit of {limit}")]
    FileTooLarge {
        /// The tool's name.
        #[op]
        tool: Cow<'static, str>,
        /// The file.
        path: String,
        /// Its size in bytes.
        size: u64,
        /// The largest size the tool reads at once.
        limit: u64,
    },
    /// The path is a directory, a device or another special file.
    #[agent(
        recovery = "replan",
        hint = "pass the path of a regular file, not a directory"
    )]
    #[error("{path} is not a regular file")]
    NotRegularFile {
        /// The tool's name.
        #[op]
        tool: Cow<'static, str>,
        /// The path.
        path: String,
    },
    /// The tool may not touch the path.
    #[agent(
        recovery = "escalate",
        hint = "ask the user for access, or work somewhere else"
    )]
    #[error("permission denied: {path}")]
    PermissionDenied {
        /// The tool's name.
        #[op]
        tool: Cow<'static, str>,
        /// The path.
        path: String,
    },
    /// The text to replace matches more than once.
    #[agent(
        recovery = "replan",
        hint = "add surrounding lines to the text to replace so that it matches once"
    )]
    #[error("{matches} matches for the text to replace; expected exactly one")]
    NotUnique {
        /// The tool's name.
        #[op]
        tool: Cow<'static, str>,
        /// How many times it matched.
        matches: usize,
    },
    /// The tool ran out of time.
    #[agent(retryable, hint = "narrow the command, or raise the timeout")]
    #[error("timed out after {after:?}")]
    Timeout {
        /// The tool's name.
        #[op]
        tool: Cow<'static, str>,
        /// How long it ran.
        after: Duration,
    },
    /// A command exited with a failure status.
    #[agent(
        recovery = "replan",
        hint = "read the command's output, fix the command, then run it again"
    )]
    #[error("exited with status {status}")]
    ExitNonzero {
        /// The tool's name.
        #[op]
        tool: Cow<'static, str>,
        /// The exit status.
        status: i32,
    },
    /// An I/O error, often passing.
    #[agent(
        retryable,
        hint = "try again; if it keeps failing, take another approach"
    )]
    #[error("I/O error")]
    IoError {
        /// The tool's name.
        #[op]
        tool: Cow<'static, str>,
        /// The I/O error (left out of public renderings).
        source: std::io::Error,
    },
    /// A bug in the tool itself.
    #[agent(
        recovery = "abort",
        hint = "report this failure: it is a bug in the tool, not in the call"
    )]
    #[error("internal error: {detail}")]
    Internal {
        /// The tool's name.
        #[op]
        tool: Cow<'static, str>,
        /// What went wrong, for the operator (`[redacted]` in public renderings).
        #[redact]
        detail: String,
    },
    /// The call was interrupted (cancelled, or the user stopped it).
    #[agent(
        recovery = "replan",
        hint = "the call was interrupted; make it again only if it is still needed"
    )]
    #[error("interrupted")]
    ToolInterrupted {
        /// The tool's name.
        #[op]
        tool: Cow<'static, str>,
    },
    /// The tool is disabled after too many consecutive failures.
    #[agent(
        recovery = "replan",
        hint = "this tool is disabled for now; reach the goal another way"
    )]
    #[error("disabled after {failures} consecutive failures")]
    ToolDisabled {
        /// The tool's name.
        #[op]
        tool: Cow<'static, str>,
        /// The failures in a row that disabled it.
        failures: u32,
    },
}
