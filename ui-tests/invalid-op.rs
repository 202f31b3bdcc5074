use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "LLM.Generate")]
pub enum LlmError {
    #[error("provider returned 429")]
    RateLimited,
}

fn main() {}
