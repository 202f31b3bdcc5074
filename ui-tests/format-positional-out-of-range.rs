use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[error("deadline exceeded after {3} tokens")]
    Timeout(u32),
}

fn main() {}
