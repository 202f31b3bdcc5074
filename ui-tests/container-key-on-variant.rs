use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(rename_all = "SCREAMING_SNAKE_CASE")]
    #[error("provider returned 429")]
    RateLimited,
}

fn main() {}
