use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(code = "timeout", retryable)]
    #[error("deadline exceeded")]
    Timeout,

    #[error(transparent)]
    Reason(String),
}

fn main() {}
