//! The first thing to run: an agent's error enum, what it tells about each failure,
//! and how code that only sees `dyn Error` still classifies it.
//!
//! `cargo run --example quickstart`

use std::error::Error as _;
use std::time::Duration;

use agent_error::{AgentError, find, has_code, is_retryable};
use anyhow::Context as _;

/// What can go wrong when the agent calls its model provider.
#[derive(Debug, AgentError)]
#[agent(op = "llm.generate", retry(max_wait = "30s"))]
pub enum LlmError {
    /// The provider is throttling this client.
    #[agent(
        code = "rate_limit",
        rate_limited,
        hint = "lower the request rate or raise the quota"
    )]
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
        source: std::io::Error,
    },

    #[agent(
        code = "auth_error",
        recovery = "escalate",
        hint = "set OPENAI_API_KEY",
        hint = "check the key at {console}"
    )]
    #[error("invalid api key {key} for {console}")]
    Auth {
        console: String,
        #[redact]
        key: String,
    },

    /// prompt of {tokens} tokens is over the context window of {limit}
    #[agent(
        code = "context_overflow",
        recovery = "compact",
        hint = "summarise older turns"
    )]
    ContextOverflow { tokens: usize, limit: usize },
}

/// A tool's failures, with the op taken from the tool's name at run time.
#[derive(Debug, AgentError)]
#[agent(namespace = "tool", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ToolFailure {
    #[agent(recovery = "replan", hint = "pass `path` as a string")]
    #[error("invalid arguments: {reason}")]
    InvalidArgs {
        #[op]
        tool: String,
        reason: String,
    },
}

fn describe(e: &dyn AgentError) {
    println!("  display:     {e}");
    println!("  code:        {}", e.code());
    println!("  op:          {}", e.op());
    println!("  message:     {}", e.message());
    println!("  public:      {}", agent_error::display::public(e));
    let policy = e.retry_policy();
    println!(
        "  retryable:   {} (rate-limited: {}, attempts: {}, first delay: {:?}, retry-after: {:?})",
        e.is_retryable(),
        e.is_rate_limited(),
        policy.max_attempts(),
        policy.backoff(0),
        e.retry_after(),
    );
    println!("  recovery:    {}", e.recovery());
    for hint in e.hints() {
        println!("  hint:        {hint}");
    }
}

fn main() {
    let errors = [
        LlmError::RateLimited {
            retry_after: Some(Duration::from_secs(2)),
        },
        LlmError::Timeout {
            tokens: 12,
            source: std::io::Error::other("connection reset"),
        },
        LlmError::Auth {
            console: "platform.openai.com".into(),
            key: "sk-live-123".into(),
        },
        LlmError::ContextOverflow {
            tokens: 140_000,
            limit: 128_000,
        },
    ];
    for e in &errors {
        println!("{}:", e.code());
        describe(e);
    }
    println!("tool.INVALID_ARGS:");
    describe(&ToolFailure::InvalidArgs {
        tool: "fs.read".into(),
        reason: "`path` is missing".into(),
    });

    // Codes compare, fields don't.
    let a = LlmError::ContextOverflow {
        tokens: 1,
        limit: 2,
    };
    println!("\nequal by code: {}", a == errors[3]);

    // Code far from the failure sees only `dyn Error`, yet classifies it.
    println!("\nbehind anyhow context:");
    let wrapped: anyhow::Result<()> = Err(LlmError::Timeout {
        tokens: 3,
        source: std::io::Error::other("connection reset"),
    })
    .context("summarising the thread");
    let err = wrapped.unwrap_err();
    let found = find(err.as_ref()).expect("a classified link");
    println!("  outer:       {err}");
    println!(
        "  found:       {} (retryable: {})",
        found.code(),
        is_retryable(err.as_ref())
    );

    println!("\nbehind std::io::Error:");
    let io = std::io::Error::other(LlmError::RateLimited { retry_after: None });
    println!("  io.source(): {:?}", io.source().map(|s| s.to_string()));
    println!("  found:       {:?}", find(&io).map(|e| e.code()));
    println!("  has_code:    {}", has_code(&io, "rate_limit"));
}
