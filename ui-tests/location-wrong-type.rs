use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "tool.read_file")]
pub enum ToolError {
    #[error("cannot read the file")]
    Read {
        #[from]
        source: std::io::Error,
        #[location]
        line: u32,
    },
}

fn main() {}
