use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(status = 700)]
    #[error("provider returned 429")]
    RateLimited,
}

fn main() {}
