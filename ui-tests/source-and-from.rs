use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "tool.read_file")]
pub enum ToolError {
    #[error("cannot read the file")]
    Read(#[source] std::io::Error, #[from] std::str::Utf8Error),
}

fn main() {}
