use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(code = "rate_limit")]
    #[error("provider returned 429")]
    RateLimited,
    #[agent(code = "rate_limit")]
    #[error("quota spent")]
    QuotaSpent,
}

fn main() {}
