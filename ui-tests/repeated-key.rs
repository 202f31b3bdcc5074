use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(code = "rate_limit", code = "throttled")]
    #[error("provider returned 429")]
    RateLimited,
}

fn main() {}
