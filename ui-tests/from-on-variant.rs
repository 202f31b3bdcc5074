use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "tool.call")]
pub enum ToolError {
    #[from]
    #[error("i/o failed")]
    Io(std::io::Error),
}

fn main() {}
