use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(retryable = false, rate_limited)]
    #[error("throttled")]
    Throttled(#[source] std::io::Error),

    #[agent(retryable = false, retry(attempts = 4))]
    #[error("slow")]
    Slow(#[source] std::io::Error),

    #[agent(retryable = true)]
    #[error("gone")]
    Gone,

    #[agent(retryable = "no")]
    #[error("lost")]
    Lost,
}

fn main() {}
