use agent_error::AgentError;
use std::time::Duration;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[error("provider returned 429")]
    RateLimited {
        #[retry_after]
        retry_after: Option<Duration>,
    },
}

fn main() {}
