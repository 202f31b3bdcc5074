use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(hint = "lower the request rate
or raise the quota")]
    #[error("provider returned 429")]
    RateLimited,
}

fn main() {}
