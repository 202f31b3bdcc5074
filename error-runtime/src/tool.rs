//! Errors as tool results for an LLM: a stable one-line text format and its parser, a
//! ready vocabulary of tool failures, and (feature `serde`) a structured result.

use std::borrow::Cow;
use std::time::Duration;

use crate::public::{push_one_line, push_summary};
use crate::{AgentError, Recovery};

/// Renders an error for the model, exactly:
///
/// ```text
/// [error:CODE] SUMMARY
/// hint: HINT
/// hint: HINT
/// ```
///
/// SUMMARY is the public message (`#[redact]` fields as `[redacted]`) on one line:
/// newlines and tabs become spaces, trailing periods go, and an empty message gives the
/// code. Causes are left out: a foreign cause's text may carry paths, SQL or ids. The
/// first line is what every LLM API shows, so it stays one line and stable.
///
/// ```
/// use agent_error::{tool, AgentError};
///
/// #[derive(Debug, AgentError)]
/// #[agent(op = "fs.write", code = "FILE_STALE", hint = "read the file again before writing")]
/// #[error("{path} changed since it was read.\nRefusing to overwrite.")]
/// struct Stale { path: String }
///
/// let text = tool::render(&Stale { path: "src/lib.rs".into() });
/// assert_eq!(text, "[error:FILE_STALE] src/lib.rs changed since it was read. Refusing to overwrite\nhint: read the file again before writing");
/// let parsed = tool::parse(&text).unwrap();
/// assert_eq!(parsed.code, "FILE_STALE");
/// assert_eq!(parsed.hints, ["read the file again before writing"]);
/// ```
pub fn render(e: &dyn AgentError) -> String {
    let mut out = String::with_capacity(64);
    out.push_str("[error:");
    out.push_str(e.code());
    out.push_str("] ");
    push_summary(&mut out, e);
    for hint in e.hints() {
        let start = out.len();
        out.push_str("\nhint: ");
        let before = out.len();
        push_one_line(&mut out, hint.trim());
        if out.len() == before {
            out.truncate(start);
        }
    }
    out
}

/// A tool error read back from its text by [`parse`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedToolError {
    /// The code between `[error:` and `]`.
    pub code: String,
    /// The rest of the first line.
    pub summary: String,
    /// The `hint:` lines, in order.
    pub hints: Vec<String>,
    /// What follows the first blank line, if anything.
    pub body: Option<String>,
}

/// Reads a tool result rendered by [`render`]: `None` unless the text starts with
/// `[error:CODE]`. Hint lines follow the first line; a body may follow after a blank
/// line. Accepts `\r\n` line ends. Never panics, whatever the text.
///
/// ```
/// use agent_error::tool;
///
/// let parsed = tool::parse("[error:NOT_UNIQUE] 3 matches\r\nhint: add context\r\n\r\nline 1\nline 2").unwrap();
/// assert_eq!(parsed.code, "NOT_UNIQUE");
/// assert_eq!(parsed.summary, "3 matches");
/// assert_eq!(parsed.hints, ["add context"]);
/// assert_eq!(parsed.body.as_deref(), Some("line 1\nline 2"));
/// assert_eq!(tool::parse("all good"), None);
/// ```
pub fn parse(text: &str) -> Option<ParsedToolError> {
    let rest = text.strip_prefix("[error:")?;
    let close = rest.find(']')?;
    let code = &rest[..close];
    if code.is_empty() || code.contains(char::is_whitespace) {
        return None;
    }
    let rest = &rest[close + 1..];
    let mut lines = rest.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let summary = lines.next().unwrap_or_default().trim().to_string();
    let mut hints = Vec::new();
    let mut body = None;
    let mut consumed = 0usize;
    // Walk the remaining lines by byte offset so the body is kept exactly as written.
    let after_first = rest.find('\n').map_or(rest.len(), |i| i + 1);
    let remainder = &rest[after_first..];
    for line in remainder.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare.trim().is_empty() {
            let start = consumed + line.len();
            let text = &remainder[start.min(remainder.len())..];
            body = Some(text.to_string());
            break;
        }
        match bare.strip_prefix("hint:") {
            Some(hint) => hints.push(hint.trim().to_string()),
            None => {
                // Not a hint and no blank line before it: the body starts here.
                body = Some(remainder[consumed..].to_string());
                break;
            }
        }
        consumed += line.len();
    }
    Some(ParsedToolError {
        code: code.to_string(),
        summary,
        hints,
        body,
    })
}

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

/// A tool failure as structured data, fit for MCP's `structuredContent` beside
/// `isError: true` (or a tool result's `is_error`). Serializes (feature `serde`) as
/// `{"code","summary","hints","retryable","recovery"}`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct StructuredToolError {
    /// The code.
    pub code: String,
    /// The public message on one line (as in [`render`]).
    pub summary: String,
    /// The hints, in order.
    #[cfg_attr(feature = "serde", serde(default))]
    pub hints: Vec<String>,
    /// Whether calling again may succeed.
    #[cfg_attr(feature = "serde", serde(default))]
    pub retryable: bool,
    /// What the agent should do.
    #[cfg_attr(feature = "serde", serde(with = "recovery_name"))]
    pub recovery: Recovery,
}

impl StructuredToolError {
    /// The structured form of `e`, public: redacted fields and foreign causes stay out.
    pub fn from_error(e: &dyn AgentError) -> Self {
        let mut summary = String::new();
        push_summary(&mut summary, e);
        let hints = e
            .hints()
            .iter()
            .filter_map(|h| {
                let mut line = String::new();
                push_one_line(&mut line, h.trim());
                (!line.is_empty()).then_some(line)
            })
            .collect();
        StructuredToolError {
            code: e.code().to_string(),
            summary,
            hints,
            retryable: e.is_retryable(),
            recovery: e.recovery(),
        }
    }
}

#[cfg(feature = "serde")]
mod recovery_name {
    use crate::Recovery;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(r: &Recovery, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(r.as_str())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Recovery, D::Error> {
        let name = std::borrow::Cow::<str>::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}
