use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate", code = "llm_error")]
pub enum LlmError {
    #[error("provider returned 429")]
    RateLimited,
}

fn main() {}
