use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "tool.call")]
pub enum ToolError {
    Crashed {
        #[error("the tool crashed with {code}")]
        code: i32,
    },
}

fn main() {}
