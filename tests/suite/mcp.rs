//! MCP tool failures end to end: an rmcp tool server built with rmcp's own macros and a real
//! rmcp client, in process over `tokio::io::duplex`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use agent_error::rmcp::{self as mcp, ToolFailure};
use agent_error::tool::ToolError;
use agent_error::{AgentError, Recovery};
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{CallToolRequestParams, ErrorCode};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServerHandler, ServiceError, ServiceExt, tool, tool_handler, tool_router};
use serde_json::json;

const CANARY: &str = "tok-5f3a-CANARY";

#[derive(Debug, AgentError)]
#[agent(op = "vault.read")]
enum VaultError {
    #[agent(
        code = "vault_sealed",
        retryable,
        hint = "wait for the vault to unseal, then call the tool again"
    )]
    #[error("vault sealed while reading {path} with token {token}")]
    Sealed {
        path: String,
        #[redact]
        token: String,
    },
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ReadArgs {
    /// The secret's path.
    path: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EditArgs {
    /// The text to replace.
    old: String,
}

#[derive(Clone)]
struct Vault {
    calls: Arc<AtomicU32>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Vault {
    fn new(calls: Arc<AtomicU32>) -> Self {
        Vault {
            calls,
            tool_router: Self::tool_router(),
        }
    }

    #[tool(description = "Read a secret from the vault")]
    async fn read_secret(
        &self,
        Parameters(args): Parameters<ReadArgs>,
    ) -> Result<String, ToolFailure> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        Err(VaultError::Sealed {
            path: args.path,
            token: CANARY.to_string(),
        })?
    }

    #[tool(description = "Replace text in the vault's notes")]
    async fn edit(&self, Parameters(args): Parameters<EditArgs>) -> Result<String, ToolFailure> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if args.old.is_empty() {
            Err(ToolError::InvalidArgs {
                tool: "edit".into(),
                reason: "`old` must not be empty".into(),
            })?;
        }
        Ok("replaced".to_string())
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Vault {}

/// A server and a client connected in process; the counter counts tool calls that ran.
async fn connect() -> (RunningService<RoleClient, ()>, Arc<AtomicU32>) {
    let calls = Arc::new(AtomicU32::new(0));
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = Vault::new(calls.clone());
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_io).await.expect("client connects");
    (client, calls)
}

fn call(name: &'static str, args: serde_json::Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name).with_arguments(args.as_object().unwrap().clone())
}

#[tokio::test]
async fn a_failed_tool_reaches_the_model_as_a_tool_result_and_reads_back_classified() {
    let (client, calls) = connect().await;
    let result = client
        .call_tool(call("read_secret", json!({ "path": "db/password" })))
        .await
        .expect("a tool failure is a result, not a protocol error");

    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(result.is_error, Some(true));
    assert_eq!(result.content.len(), 1);
    assert_eq!(
        result.content[0].as_text().unwrap().text,
        "[error:vault_sealed] vault sealed while reading db/password with token [redacted]\n\
         hint: wait for the vault to unseal, then call the tool again"
    );
    assert_eq!(
        result.structured_content,
        Some(json!({
            "code": "vault_sealed",
            "summary": "vault sealed while reading db/password with token [redacted]",
            "hints": ["wait for the vault to unseal, then call the tool again"],
            "retryable": true,
            "recovery": "retry",
        }))
    );
    assert!(!serde_json::to_string(&result).unwrap().contains(CANARY));

    let report = mcp::read_result(&result).expect("is_error results read back");
    let sent = VaultError::Sealed {
        path: "db/password".into(),
        token: CANARY.into(),
    };
    assert_eq!(report.code(), sent.code());
    assert_eq!(report.is_retryable(), sent.is_retryable());
    assert_eq!(report.recovery(), sent.recovery());
    assert_eq!(report.hints(), sent.hints());
    assert_eq!(report.op(), mcp::OP);
    assert!(agent_error::is_retryable(&report));

    // Without the structured content, the text alone gives the same classification.
    let mut text_only = result;
    text_only.structured_content = None;
    let from_text = mcp::read_result(&text_only).unwrap();
    assert_eq!(from_text.code(), "vault_sealed");
    assert_eq!(
        from_text.hints(),
        ["wait for the vault to unseal, then call the tool again"]
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn invalid_arguments_are_a_json_rpc_error_with_the_classification_as_data() {
    let (client, calls) = connect().await;
    let err = client
        .call_tool(call("edit", json!({ "old": "" })))
        .await
        .expect_err("INVALID_ARGS is a protocol error");
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    let ServiceError::McpError(data) = &err else {
        panic!("expected a JSON-RPC error, got {err:?}");
    };
    assert_eq!(data.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(
        data.message,
        "[error:INVALID_ARGS] invalid arguments: `old` must not be empty"
    );
    let report = mcp::read_error(data);
    assert_eq!(report.code(), "INVALID_ARGS");
    assert_eq!(report.recovery(), Recovery::Replan);
    assert!(!report.is_retryable());
    // The client's error is classified as it is, in a chain too.
    let chained = anyhow::Error::new(err).context("editing notes");
    assert_eq!(
        agent_error::classify(chained.as_ref()).unwrap().code(),
        "INVALID_ARGS"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_unknown_tool_is_a_json_rpc_error_and_rmcps_own_argument_errors_read_back() {
    let (client, calls) = connect().await;
    let err = client
        .call_tool(call("no_such_tool", json!({})))
        .await
        .unwrap_err();
    let ServiceError::McpError(data) = &err else {
        panic!("expected a JSON-RPC error, got {err:?}");
    };
    assert_eq!(data.code, ErrorCode::INVALID_PARAMS);
    let c = agent_error::classify(&err).unwrap();
    assert_eq!(c.code(), "invalid_input");
    assert_eq!(c.recovery(), Recovery::Replan);
    assert!(!c.is_retryable());

    // rmcp 3.11 answers arguments that fail to deserialize with a tool result of its own
    // (plain text, no structured content): it reads back as `tool_failed`.
    let result = client
        .call_tool(call("read_secret", json!({ "path": 42 })))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    let report = mcp::read_result(&result).unwrap();
    assert_eq!(report.code(), "tool_failed");
    assert_eq!(report.recovery(), Recovery::Replan);
    assert!(
        report
            .message()
            .starts_with("failed to deserialize parameters")
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0, "no tool ran");
    client.cancel().await.unwrap();
}

#[test]
fn a_continue_recovery_reads_back_from_the_structured_form_and_the_text() {
    let cut = agent_error::Error::new(
        "llm.generate",
        agent_error::codes::OUTPUT_TRUNCATED,
        "stopped at max_tokens",
    );
    let result = mcp::tool_result(&cut);
    assert_eq!(
        result.structured_content.as_ref().unwrap()["recovery"],
        "continue"
    );
    let report = mcp::read_result(&result).unwrap();
    assert_eq!(
        (report.code(), report.is_retryable(), report.recovery()),
        ("output_truncated", false, Recovery::Continue)
    );
    // Text alone: the vocabulary's recovery for the code.
    let text = rmcp::model::CallToolResult::error(vec![rmcp::model::ContentBlock::text(
        "[error:output_truncated] stopped at max_tokens",
    )]);
    let report = mcp::read_result(&text).unwrap();
    assert_eq!(
        (report.code(), report.is_retryable(), report.recovery()),
        ("output_truncated", false, Recovery::Continue)
    );
}

#[test]
fn an_unclassified_error_stays_on_the_server() {
    let e = std::io::Error::other("connection to 10.0.0.7:5432 failed: password authentication");
    let result = mcp::respond(&e).unwrap();
    assert_eq!(
        result.content[0].as_text().unwrap().text,
        "[error:unclassified] internal error"
    );
    assert!(!serde_json::to_string(&result).unwrap().contains("10.0.0.7"));
}

#[cfg(feature = "tracing")]
use crate::support::capture;

/// A peer's JSON-RPC error, as an MCP client meets it: its text is the peer's.
#[test]
fn a_peers_mcp_error_text_never_crosses_the_boundary() {
    const LEAK: &str = "DATABASE_URL=postgres://admin:hunter2@10.0.0.7/prod";
    let data =
        || rmcp::model::ErrorData::internal_error(format!("open /srv/.env failed: {LEAK}"), None);
    let chains: Vec<anyhow::Error> = vec![
        anyhow::Error::new(data()).context("calling the tool"),
        anyhow::Error::new(ServiceError::McpError(data())),
    ];
    for err in &chains {
        let err: &(dyn std::error::Error + 'static) = err.as_ref();
        let result = mcp::respond(err).unwrap();
        let text = result.content[0].as_text().unwrap().text.clone();
        assert_eq!(text, "[error:unclassified] internal error");
        assert_eq!(
            agent_error::tool::render_error(err),
            "[error:unclassified] internal error"
        );
        let public = agent_error::display::public_chain(err).to_string();
        assert_eq!(public, "mcp.call_tool [unclassified]: internal error");
        let report = agent_error::Report::capture(err);
        let json = serde_json::to_string(&report).unwrap();
        let mut texts = vec![text, public, json];
        #[cfg(feature = "axum")]
        {
            let detail = agent_error::axum::ApiError::from_error(err)
                .report()
                .to_problem()
                .detail
                .unwrap();
            assert_eq!(detail, "internal error");
            texts.push(detail);
        }
        for text in texts {
            assert!(!text.contains("hunter2"), "{text}");
        }
    }
    // Read on purpose, the peer's message is there, as the peer's words.
    assert!(mcp::read_error(&data()).message().contains("hunter2"));
    #[cfg(feature = "tracing")]
    {
        let capture = capture::Capture::default();
        tracing::subscriber::with_default(capture.clone(), || {
            for err in &chains {
                agent_error::trace::record(err.as_ref());
            }
        });
        for (_, fields) in capture.events.lock().unwrap().iter() {
            for (name, value) in fields {
                assert!(!value.contains("hunter2"), "{name} = {value:?}");
            }
        }
    }
    // A code the peer names still classifies.
    let invalid = rmcp::model::ErrorData::invalid_params(format!("bad {LEAK}"), None);
    assert_eq!(
        agent_error::tool::render_error(&invalid),
        "[error:invalid_input] invalid params"
    );
}
