use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "tool.read_file")]
pub enum ToolError {
    #[error("cannot read the file")]
    Read {
        #[source]
        io: std::io::Error,
        #[source]
        utf8: std::str::Utf8Error,
    },
}

fn main() {}
