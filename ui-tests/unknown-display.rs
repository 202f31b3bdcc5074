use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate", display = "thiserror")]
pub enum LlmError {
    #[agent(code = "timeout")]
    #[error("deadline exceeded")]
    Timeout,
}

fn main() {}
