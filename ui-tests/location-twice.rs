use std::panic::Location;

use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "tool.read_file")]
pub enum ToolError {
    #[error("cannot read the file")]
    Read {
        #[from]
        source: std::io::Error,
        #[location]
        first: &'static Location<'static>,
        #[location]
        second: &'static Location<'static>,
    },
}

fn main() {}
