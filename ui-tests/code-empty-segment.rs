use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(code = "llm..rate_limit")]
    #[error("provider returned 429")]
    RateLimited,
}

fn main() {}
