use std::panic::Location;

use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "tool.read_file")]
pub enum ToolError {
    #[error("cannot read the file (at {location})")]
    Read {
        #[from]
        source: std::io::Error,
        #[location]
        location: &'static Location<'static>,
    },
}

fn main() {}
