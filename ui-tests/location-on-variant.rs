use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "tool.read_file")]
pub enum ToolError {
    #[error("cannot read the file")]
    #[location]
    Read {
        #[from]
        source: std::io::Error,
    },
}

fn main() {}
