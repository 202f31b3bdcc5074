//! An MCP tool server built with rmcp's own macros, whose tools fail with classified
//! errors: the model sees `[error:CODE] summary` and hints as a tool result (with the
//! structured form beside it), a malformed call is a JSON-RPC error, and the client reads
//! either back into a classified `Report`. Client and server run in process over
//! `tokio::io::duplex`.
//!
//! `cargo run --example mcp_tool_server --features rmcp,tokio`

use agent_error::rmcp::{self as mcp, ToolFailure};
use agent_error::tool::ToolError;
use agent_error::{AgentError, Recovery};
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::CallToolRequestParams;
use rmcp::{ServerHandler, ServiceError, ServiceExt, tool, tool_handler, tool_router};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct WriteArgs {
    /// The file to write.
    path: String,
    /// The text to write.
    text: String,
}

#[derive(Clone)]
struct Notes {
    tool_router: ToolRouter<Self>,
}

#[tool_router(router = tool_router)]
impl Notes {
    fn new() -> Self {
        Notes {
            tool_router: Self::tool_router(),
        }
    }

    /// Every `?` turns a classified error into what MCP should carry.
    #[tool(description = "Write a note")]
    async fn write_note(
        &self,
        Parameters(args): Parameters<WriteArgs>,
    ) -> Result<String, ToolFailure> {
        if args.text.is_empty() {
            Err(ToolError::InvalidArgs {
                tool: "write_note".into(),
                reason: "`text` must not be empty".into(),
            })?;
        }
        if args.path == "todo.md" {
            Err(ToolError::FileStale {
                tool: "write_note".into(),
                path: args.path.clone(),
            })?;
        }
        Ok(format!("wrote {}", args.path))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Notes {}

fn call(path: &str, text: &str) -> CallToolRequestParams {
    let args = serde_json::json!({ "path": path, "text": text });
    CallToolRequestParams::new("write_note").with_arguments(args.as_object().unwrap().clone())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = Notes::new().serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_io).await?;

    // A tool failure: a tool result with is_error, for the model to read.
    let result = client.call_tool(call("todo.md", "- ship it")).await?;
    println!("is_error: {:?}", result.is_error);
    println!("text:\n{}", result.content[0].as_text().unwrap().text);
    println!(
        "structured: {}",
        serde_json::to_string(&result.structured_content)?
    );
    let report = mcp::read_result(&result).expect("a failed call");
    println!(
        "read back: code={} retryable={} recovery={}",
        report.code(),
        report.is_retryable(),
        report.recovery()
    );
    assert_eq!(report.recovery(), Recovery::Replan);

    // A malformed call: a JSON-RPC error, classified on the client.
    match client.call_tool(call("notes.md", "")).await {
        Err(err @ ServiceError::McpError(_)) => {
            let c = agent_error::classify(&err).expect("classified");
            println!(
                "protocol error: {err}\n  classified: code={} recovery={}",
                c.code(),
                c.recovery()
            );
        }
        other => println!("unexpected: {other:?}"),
    }

    let ok = client.call_tool(call("notes.md", "hello")).await?;
    println!(
        "success: is_error={:?} text={}",
        ok.is_error,
        ok.content[0].as_text().unwrap().text
    );
    client.cancel().await?;
    Ok(())
}
