use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(retryable = false)]
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

fn main() {}
