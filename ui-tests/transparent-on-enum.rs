use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
#[error(transparent)]
pub enum LlmError {
    Io(std::io::Error),
}

fn main() {}
