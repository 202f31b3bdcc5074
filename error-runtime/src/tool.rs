//! Errors as tool results for an LLM: a stable one-line text format and its parser, and
//! (feature `serde`) a structured result. The facade adds `ToolError`, a ready vocabulary.
//!
//! [`render`] writes `[error:CODE] SUMMARY` and one `hint: HINT` line per hint, from the
//! public message (a `#[redact]` field shows as `[redacted]`, a foreign cause not at all);
//! [`render_error`] does the same for any error, by its classification; [`parse`] reads the
//! text back, and never panics.
//!
//! ```
//! use agent_error::{AgentError, tool};
//!
//! #[derive(Debug, AgentError)]
//! #[agent(op = "weather.get", code = "invalid_args", recovery = "replan", hint = "use a city name, such as \"Paris\"")]
//! #[error("unknown city {city}")]
//! struct UnknownCity { city: String }
//!
//! let text = tool::render(&UnknownCity { city: "Atlantis".into() });
//! assert_eq!(text, "[error:invalid_args] unknown city Atlantis\nhint: use a city name, such as \"Paris\"");
//! let parsed = tool::parse(&text).unwrap();
//! assert_eq!((parsed.code.as_str(), parsed.hints.len()), ("invalid_args", 1));
//! ```

use std::error::Error as StdError;

use crate::core::summary::{public_hints, push_hints, push_summary};
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
    // Room for a typical result (a code, a sentence or two, a hint) in one allocation.
    let mut out = String::with_capacity(256);
    out.push_str("[error:");
    out.push_str(crate::core::codes::public_code(e.code()));
    out.push_str("] ");
    push_summary(&mut out, e);
    push_hints(&mut out, "\nhint: ", e);
    out
}

/// Renders any error chain for the model: its classification (see
/// [`classify`](crate::classify)) as [`render`] does, so a foreign link shows its
/// classifier's fixed text, never its own; an error that nothing classifies renders as
/// `[error:unclassified] internal error`.
///
/// ```
/// use std::io;
/// use agent_error::tool;
///
/// let err = anyhow::Error::new(io::Error::new(io::ErrorKind::PermissionDenied, "open /home/alice/.ssh/id_rsa"))
///     .context("reading the key");
/// assert_eq!(tool::render_error(err.as_ref()), "[error:auth_error] permission denied");
/// assert_eq!(tool::render_error(&io::Error::other("db at 10.0.0.7 down")), "[error:unclassified] internal error");
/// ```
pub fn render_error(err: &(dyn StdError + 'static)) -> String {
    match crate::classify(err) {
        Some(e) => render(&*e),
        None => format!(
            "[error:{}] {}",
            crate::core::codes::UNCLASSIFIED,
            crate::core::classify::UNCLASSIFIED_MESSAGE
        ),
    }
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
    let (first, mut remainder) = rest.split_once('\n').unwrap_or((rest, ""));
    let summary = first.trim().to_string();
    let mut hints = Vec::new();
    // Hint lines, until a blank line (the body follows it) or a line that is not a hint
    // (the body starts there); the body is kept exactly as written.
    let body = loop {
        if remainder.is_empty() {
            break None;
        }
        let (line, after) = remainder.split_once('\n').unwrap_or((remainder, ""));
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            break Some(after.to_string());
        }
        match line.strip_prefix("hint:") {
            Some(hint) => hints.push(hint.trim().to_string()),
            None => break Some(remainder.to_string()),
        }
        remainder = after;
    };
    Some(ParsedToolError {
        code: code.to_string(),
        summary,
        hints,
        body,
    })
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
        StructuredToolError {
            code: crate::core::codes::public_code(e.code()).to_string(),
            summary,
            hints: public_hints(e),
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
