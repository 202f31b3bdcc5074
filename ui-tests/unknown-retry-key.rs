use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(retry(attempts = 4, delay = "100ms"))]
    #[error("deadline exceeded")]
    Timeout,
}

fn main() {}
