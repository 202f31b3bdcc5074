use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "tool.call")]
#[source]
pub enum ToolError {
    #[error("i/o failed")]
    Io(std::io::Error),
}

fn main() {}
