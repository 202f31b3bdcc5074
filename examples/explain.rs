//! `rustc --explain` for error codes: prints what the catalog knows of a code, from every
//! type registered in the binary (this example's own, and the library's).
//!
//! `cargo run --example explain -- rate_limit` (no argument lists every code)

use std::process::ExitCode;

use agent_error::{AgentError, catalog};

/// Failures of the model provider, as an application would declare them.
#[derive(Debug, AgentError)]
#[agent(
    op = "llm.generate",
    docs_url = "https://docs.example.com/errors#{code}"
)]
pub enum LlmError {
    /// The provider is throttling this client.
    ///
    /// Providers answer 429 when a client sends too many requests or tokens per minute.
    /// The retrier waits for the `Retry-After` delay; an agent with a second model
    /// configured may fall back to it instead.
    #[agent(
        code = "rate_limit",
        rate_limited,
        hint = "lower the request rate or raise the quota"
    )]
    #[error("provider returned 429")]
    RateLimited,

    /// The model did not answer in time.
    #[agent(
        code = "timeout",
        retryable,
        retry(attempts = 4, base = "100ms", max = "5s"),
        since = "0.2"
    )]
    #[error("deadline exceeded after {tokens} tokens")]
    Timeout { tokens: u32 },
}

fn main() -> ExitCode {
    let Some(code) = std::env::args().nth(1) else {
        print!("{}", catalog::prompt(&catalog::all()));
        return ExitCode::SUCCESS;
    };
    let entries = catalog::explain(&code);
    if entries.is_empty() {
        eprintln!("error: no error code `{code}` is known; run without an argument to list them");
        return ExitCode::FAILURE;
    }
    print!("{}", catalog::markdown(&entries));
    ExitCode::SUCCESS
}
