use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub union LlmError {
    code: u32,
    status: u16,
}

fn main() {}
