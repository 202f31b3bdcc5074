use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "tool.call")]
pub enum ToolError {
    Io(#[error(transparent)] std::io::Error),
}

fn main() {}
