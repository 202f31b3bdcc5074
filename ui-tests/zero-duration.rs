use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(retry(base = "0s"))]
    #[error("deadline exceeded")]
    Timeout,
}

fn main() {}
