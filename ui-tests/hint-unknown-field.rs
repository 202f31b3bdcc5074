use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(hint = "check the key at {console_url}")]
    #[error("invalid api key for {console}")]
    Auth { console: String },
}

fn main() {}
