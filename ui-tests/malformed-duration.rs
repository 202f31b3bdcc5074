use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(retry(base = "fast"))]
    #[error("deadline exceeded")]
    Timeout,
}

fn main() {}
