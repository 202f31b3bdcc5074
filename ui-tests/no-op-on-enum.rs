use agent_error::AgentError;

#[derive(Debug, AgentError)]
pub enum LlmError {
    #[error("provider returned 429")]
    RateLimited,
}

fn main() {}
