use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
#[error("the model failed")]
pub enum LlmError {
    #[error("provider returned 429")]
    RateLimited,
}

fn main() {}
