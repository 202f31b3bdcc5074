use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(retry(max = "5sec"))]
    #[error("deadline exceeded")]
    Timeout,
}

fn main() {}
