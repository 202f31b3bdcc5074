use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[error("deadline exceeded after {nope} tokens")]
    Timeout { tokens: u32 },
}

fn main() {}
