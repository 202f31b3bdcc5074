use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "tool.call")]
#[error("the tool crashed")]
#[source]
pub struct Crashed {
    cause: std::io::Error,
}

fn main() {}
