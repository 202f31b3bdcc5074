use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[derive(Clone, PartialEq, Eq)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[error("deadline exceeded")]
    Timeout,
}

fn main() {
    assert!(LlmError::Timeout == LlmError::Timeout.clone());
}
