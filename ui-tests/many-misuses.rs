use agent_error::AgentError;
use std::time::Duration;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(code = "Rate-Limit", retry(factor = 0.5))]
    #[error("provider returned 429")]
    RateLimited,

    #[agent(recovery = "restart")]
    #[error("deadline exceeded after {nope} tokens")]
    Deadline {
        tokens: u32,
        #[retry_after]
        retry_after: Option<Duration>,
    },

    #[agent(hint = "")]
    Auth,
}

fn main() {}
