use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "tool.call")]
pub enum ToolError {
    #[agent(recovery = "retry")]
    #[error("the tool crashed")]
    Crashed,
}

fn main() {}
