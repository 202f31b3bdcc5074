use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(retry(max_wait = "-1s"))]
    #[error("deadline exceeded")]
    Timeout,
}

fn main() {}
