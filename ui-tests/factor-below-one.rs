use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(retry(factor = 0.5))]
    #[error("deadline exceeded")]
    Timeout,
}

fn main() {}
