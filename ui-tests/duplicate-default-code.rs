use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[error("deadline exceeded")]
    Timeout,
    #[agent(code = "timeout")]
    #[error("no first token in time")]
    FirstTokenTimeout,
}

fn main() {}
