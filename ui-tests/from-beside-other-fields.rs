use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "tool.read_file")]
pub enum ToolError {
    #[error("cannot read {path}")]
    Read {
        path: String,
        #[from]
        source: std::io::Error,
    },
}

fn main() {}
