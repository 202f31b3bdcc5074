use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(rate_limited)]
    #[error("provider returned 429")]
    RateLimited {
        #[retry_after]
        retry_after_secs: u64,
    },
}

fn main() {}
