use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(recovery = "restart")]
    #[error("the conversation is too long")]
    ContextOverflow,
}

fn main() {}
