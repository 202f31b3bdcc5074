use agent_error::AgentError;
use std::time::Duration;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
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
        hint = "set OPENAI_API_KEY",
        hint = "check the key at {console}"
    )]
    #[error("invalid api key for {console}")]
    Auth { console: String },

    #[error(transparent)]
    Other(#[from] agent_error::Error),
}

fn main() {
    let e = LlmError::Timeout {
        tokens: 12,
        source: std::io::Error::other("connection reset"),
    };
    println!("{e}");
    println!("{:?}", e.retry_policy());
    let a = LlmError::Auth {
        console: "https://x".into(),
    };
    println!("{a} {:?} {:?}", a.hints(), a.recovery());
    let r = LlmError::RateLimited {
        retry_after: Some(Duration::from_secs(3)),
    };
    println!("{r} {:?} {}", r.retry_after(), r.is_rate_limited());
    let io = std::io::Error::other(r);
    println!("{:?}", agent_error::find(&io).map(|e| e.code()));
}
