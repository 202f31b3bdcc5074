use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "tool.call")]
#[error("unknown tool kind: {r#type}")]
pub struct UnknownKind {
    r#type: String,
}

fn main() {}
