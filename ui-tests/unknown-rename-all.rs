use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate", rename_all = "camelCase")]
pub enum LlmError {
    #[error("provider returned 429")]
    RateLimited,
}

fn main() {}
