use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(retry(base = "10s", max = "5s"))]
    #[error("deadline exceeded")]
    Timeout,
}

fn main() {}
