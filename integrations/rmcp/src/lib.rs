//! The MCP integration (feature `rmcp`, the official Rust SDK): a failed tool call as the
//! model should see it, and a client's way back from a tool result to a classified [`Report`].
//!
//! MCP has two ways to fail a `tools/call`, and they reach different readers:
//!
//! - a **tool result** with `isError: true` goes to the model, which can read it and act:
//!   [`tool_result`] puts the tool-result text ([`tool::render`](agent_error_runtime::tool::render)) in its text
//!   content and a [`StructuredToolError`] in its `structuredContent`;
//! - a **JSON-RPC error** ([`ErrorData`]) goes to the client program, which usually shows the
//!   model nothing useful. It is right only when the request is not a valid call of a tool:
//!   [`error_data`] makes one, with the [`StructuredToolError`] as its `data`.
//!
//! [`respond`] chooses by the code: the [`PROTOCOL_CODES`] ([`UNKNOWN_TOOL`], and
//! [`INVALID_ARGS`] for arguments that do not fit the tool's schema, as rmcp itself answers
//! when they fail to deserialize) become JSON-RPC `-32602 invalid params`; every other
//! failure, `invalid_input` included (a value the tool read and rejected), is a tool result,
//! so that the model sees its code, summary and hints. [`ToolFailure`] does the same for a
//! tool written with rmcp's `#[tool]` macro: return `Result<T, ToolFailure>` and use `?`.
//!
//! On the client, [`read_result`] and [`read_error`] turn either back into a [`Report`] with
//! the server's code, retryability, recovery and hints; `rmcp::ErrorData` and
//! `rmcp::ServiceError` are also classified, so [`classify`](agent_error_runtime::classify) and
//! the [`Retrier`](agent_error_runtime::retry::Retrier) read a failed client call as the server meant it.
//!
//! The server's text is untrusted. What [`read_result`] and [`read_error`] read on purpose
//! is folded onto one line and capped (the summary at
//! [`MAX_SUMMARY_BYTES`](agent_error_runtime::display::MAX_SUMMARY_BYTES), each hint at
//! [`MAX_HINT_BYTES`](agent_error_runtime::display::MAX_HINT_BYTES), at most
//! [`MAX_HINTS`](agent_error_runtime::display::MAX_HINTS) hints). A classified `ErrorData` or
//! `ServiceError` in a chain is a foreign link: its public message is the fixed text of its
//! JSON-RPC code (`"internal error"`, `"invalid params"`, …) and it carries no hints, so
//! the peer's text never reaches tool text, a person or a log.

#![forbid(unsafe_code)]
// On docs.rs (nightly, `--cfg docsrs`): each item says which feature brings it.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

use std::error::Error as StdError;

use ::rmcp::ServiceError;
use ::rmcp::handler::server::tool::IntoCallToolResult;
use ::rmcp::model::{CallToolResponse, CallToolResult, ContentBlock, ErrorCode, ErrorData};

use agent_error_runtime::report::{Remote, UNCLASSIFIED_MESSAGE};
use agent_error_runtime::tool::StructuredToolError;
use agent_error_runtime::{AgentError, Recovery, Report, codes};

/// The code of a call to a tool the server does not have: a protocol error.
pub const UNKNOWN_TOOL: &str = "UNKNOWN_TOOL";

/// The code of arguments that do not fit the tool's schema (`ToolError::InvalidArgs`): a
/// protocol error.
pub const INVALID_ARGS: &str = "INVALID_ARGS";

/// The codes that [`respond`] answers with a JSON-RPC error instead of a tool result: the
/// request is not a valid call of a tool. Every other code reaches the model.
pub const PROTOCOL_CODES: [&str; 2] = [UNKNOWN_TOOL, INVALID_ARGS];

/// The op of a [`Report`] read back from a tool call.
pub const OP: &str = "mcp.call_tool";

/// Whether `code` is one of the [`PROTOCOL_CODES`].
pub fn is_protocol_code(code: &str) -> bool {
    PROTOCOL_CODES.contains(&code)
}

/// The answer to a failed `tools/call`: the classification of `err`'s chain (see
/// [`classify`](agent_error_runtime::classify)) as a JSON-RPC error when its code is one of the
/// [`PROTOCOL_CODES`], else as a tool result with `is_error: Some(true)`. An error that
/// nothing classifies becomes the tool result `[error:unclassified] internal error`: its own
/// text may carry paths or SQL, and stays on the server.
///
/// ```
/// use agent_error::{rmcp, tool::ToolError};
///
/// let stale = ToolError::FileStale { tool: "fs.write".into(), path: "notes.md".into() };
/// let result = rmcp::respond(&stale).unwrap();
/// assert_eq!(result.is_error, Some(true));
///
/// let bad_args = ToolError::InvalidArgs { tool: "fs.write".into(), reason: "`path` is missing".into() };
/// let error = rmcp::respond(&bad_args).unwrap_err();
/// assert_eq!(error.code, ::rmcp::model::ErrorCode::INVALID_PARAMS);
/// ```
pub fn respond(err: &(dyn StdError + 'static)) -> Result<CallToolResult, ErrorData> {
    match agent_error_runtime::classify(err) {
        Some(e) if is_protocol_code(e.code()) => Err(error_data(&*e)),
        Some(e) => Ok(tool_result(&*e)),
        None => Ok(tool_result(&unclassified())),
    }
}

/// `e` as a tool result for the model, whatever its code: `is_error: Some(true)`, the text
/// of [`tool::render`](agent_error_runtime::tool::render) as its only content, and the
/// [`StructuredToolError`] as `structured_content`. Both are public renderings: `#[redact]`
/// fields show as `[redacted]`, causes are left out.
///
/// ```
/// use agent_error::{rmcp, tool::ToolError};
///
/// let e = ToolError::NotUnique { tool: "fs.edit".into(), matches: 3 };
/// let result = rmcp::tool_result(&e);
/// assert_eq!(result.is_error, Some(true));
/// assert!(result.content[0].as_text().unwrap().text.starts_with("[error:NOT_UNIQUE] 3 matches"));
/// assert_eq!(result.structured_content.unwrap()["recovery"], "replan");
/// ```
pub fn tool_result(e: &dyn AgentError) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(
        agent_error_runtime::tool::render(e),
    )]);
    result.structured_content = serde_json::to_value(StructuredToolError::from_error(e)).ok();
    result
}

/// `e` as a JSON-RPC error, whatever its code: `-32602 invalid params` for the
/// [`PROTOCOL_CODES`], `-32603 internal error` for any other; the message is the first line
/// of the tool-result text, and `data` the [`StructuredToolError`], which [`read_error`] reads back.
pub fn error_data(e: &dyn AgentError) -> ErrorData {
    let code = if is_protocol_code(e.code()) {
        ErrorCode::INVALID_PARAMS
    } else {
        ErrorCode::INTERNAL_ERROR
    };
    let text = agent_error_runtime::tool::render(e);
    let first_line = text.lines().next().unwrap_or_default().to_owned();
    let data = serde_json::to_value(StructuredToolError::from_error(e)).ok();
    ErrorData::new(code, first_line, data)
}

/// The failure of a tool written with rmcp's `#[tool]` macro: any error converts into it
/// with `?`, already rendered as [`respond`] renders it, so a tool returns
/// `Result<T, ToolFailure>` and the model sees the tool result (or the client the JSON-RPC
/// error for the [`PROTOCOL_CODES`]).
///
/// ```
/// use agent_error::{rmcp::ToolFailure, tool::ToolError};
///
/// fn read(path: &str) -> Result<String, ToolFailure> {
///     if path.is_empty() {
///         Err(ToolError::InvalidArgs { tool: "fs.read".into(), reason: "`path` is empty".into() })?;
///     }
///     Ok(std::fs::read_to_string(path)?)
/// }
///
/// let failure = read("/nonexistent/notes.md").unwrap_err();
/// let result = failure.into_response().unwrap();
/// assert_eq!(result.content[0].as_text().unwrap().text, "[error:not_found] not found");
/// assert!(read("").unwrap_err().into_response().is_err());
/// ```
#[derive(Debug, Clone)]
pub struct ToolFailure(Result<CallToolResult, ErrorData>);

impl ToolFailure {
    /// The answer to send: a tool result with `is_error`, or a JSON-RPC error.
    pub fn into_response(self) -> Result<CallToolResult, ErrorData> {
        self.0
    }
}

impl<E: StdError + 'static> From<E> for ToolFailure {
    fn from(err: E) -> Self {
        ToolFailure(respond(&err))
    }
}

impl IntoCallToolResult for ToolFailure {
    fn into_call_tool_result(self) -> Result<CallToolResponse, ErrorData> {
        self.0.map(Into::into)
    }
}

/// A failed tool call read back into a classified [`Report`] (op [`OP`]): `None` unless
/// `is_error` is `Some(true)`. From its `structured_content` when that is a
/// [`StructuredToolError`]; else from its first text content by
/// [`tool::parse`](agent_error_runtime::tool::parse); else, from a server that knows nothing of this crate,
/// a `tool_failed` report (not retryable, recovery `replan`) with the text's first line.
///
/// ```
/// use agent_error::{rmcp, tool::ToolError, AgentError, Recovery};
///
/// let sent = rmcp::tool_result(&ToolError::FileStale { tool: "fs.write".into(), path: "a.md".into() });
/// let report = rmcp::read_result(&sent).unwrap();
/// assert_eq!(report.code(), "FILE_STALE");
/// assert_eq!(report.recovery(), Recovery::Replan);
///
/// let plain = ::rmcp::model::CallToolResult::error(vec![::rmcp::model::ContentBlock::text("disk full")]);
/// assert_eq!(rmcp::read_result(&plain).unwrap().code(), "tool_failed");
/// ```
pub fn read_result(result: &CallToolResult) -> Option<Report> {
    if result.is_error != Some(true) {
        return None;
    }
    if let Some(report) = result.structured_content.as_ref().and_then(from_structured) {
        return Some(report);
    }
    let text = result
        .content
        .iter()
        .find_map(|c| c.as_text().map(|t| t.text.as_str()))
        .unwrap_or_default();
    Some(from_text(text))
}

/// A JSON-RPC error read back into a classified [`Report`] (op [`OP`]): from its `data` when
/// that is a [`StructuredToolError`] (as [`error_data`] sends it); else by its code:
/// `-32602 invalid params` → `invalid_input` and `-32601 method not found` →
/// [`UNKNOWN_TOOL`] (both recovery `replan`), `-32002 resource not found` → `not_found`, any
/// other → `unclassified`; none of them retryable. The message is the error's own, folded
/// onto one line and capped: read it as the peer's words, not yours.
pub fn read_error(error: &ErrorData) -> Report {
    if let Some(report) = error.data.as_ref().and_then(from_structured) {
        return report;
    }
    let (code, recovery) = match error.code {
        ErrorCode::INVALID_PARAMS => (codes::INVALID_INPUT, Recovery::Replan),
        ErrorCode::METHOD_NOT_FOUND => (UNKNOWN_TOOL, Recovery::Replan),
        ErrorCode::RESOURCE_NOT_FOUND => (codes::NOT_FOUND, Recovery::Abort),
        _ => (codes::UNCLASSIFIED, Recovery::Abort),
    };
    Report::from_remote(Remote {
        op: OP.to_owned(),
        code: code.to_owned(),
        message: error.message.to_string(),
        retryable: false,
        rate_limited: false,
        retry_after: None,
        recovery: Some(recovery),
        hints: Vec::new(),
    })
}

fn from_structured(value: &serde_json::Value) -> Option<Report> {
    let s: StructuredToolError = serde_json::from_value(value.clone()).ok()?;
    Some(Report::from_remote(Remote {
        op: OP.to_owned(),
        code: s.code,
        message: s.summary,
        retryable: s.retryable,
        rate_limited: false,
        retry_after: None,
        recovery: Some(s.recovery),
        hints: s.hints,
    }))
}

fn from_text(text: &str) -> Report {
    let remote = match agent_error_runtime::tool::parse(text) {
        Some(parsed) => Remote {
            op: OP.to_owned(),
            retryable: agent_error_runtime::codes::default_policy(&parsed.code).is_retryable(),
            rate_limited: agent_error_runtime::codes::default_policy(&parsed.code)
                .is_rate_limited(),
            code: parsed.code,
            message: parsed.summary,
            retry_after: None,
            recovery: None,
            hints: parsed.hints,
        },
        None => Remote {
            op: OP.to_owned(),
            code: codes::TOOL_FAILED.to_owned(),
            message: text.lines().next().unwrap_or_default().trim().to_owned(),
            retryable: false,
            rate_limited: false,
            retry_after: None,
            recovery: None,
            hints: Vec::new(),
        },
    };
    Report::from_remote(remote)
}

fn unclassified() -> Report {
    Report::new("", codes::UNCLASSIFIED, UNCLASSIFIED_MESSAGE)
}

/// An `ErrorData` as a foreign link: classified as [`read_error`] reads it, but its public
/// message is the fixed text of its JSON-RPC code and it has no hints, since its text is
/// the peer's (a path, a connection string) and never crosses a trust boundary.
fn classify_error_data(e: &ErrorData) -> Option<agent_error_runtime::Error> {
    let report = read_error(e);
    let out = agent_error_runtime::Error::new(
        report.op().to_owned(),
        report.code().to_owned(),
        fixed_message(e.code),
    )
    .with_policy(report.retry_policy())
    .with_recovery(report.recovery());
    Some(out)
}

/// The fixed text of a JSON-RPC error code, the public message of a foreign `ErrorData`.
fn fixed_message(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::INVALID_PARAMS => "invalid params",
        ErrorCode::METHOD_NOT_FOUND => "method not found",
        ErrorCode::RESOURCE_NOT_FOUND => "resource not found",
        ErrorCode::INVALID_REQUEST => "invalid request",
        ErrorCode::PARSE_ERROR => "parse error",
        _ => UNCLASSIFIED_MESSAGE,
    }
}

fn classify_service_error(e: &ServiceError) -> Option<agent_error_runtime::Error> {
    match e {
        ServiceError::McpError(data) => classify_error_data(data),
        _ => None,
    }
}

agent_error_runtime::extend::builtin_classifier!(ErrorData, |e: &ErrorData| classify_error_data(e)
    .map(Into::into));

agent_error_runtime::extend::builtin_classifier!(ServiceError, |e: &ServiceError| {
    classify_service_error(e).map(Into::into)
});
