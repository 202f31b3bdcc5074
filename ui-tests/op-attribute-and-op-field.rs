use agent_error::AgentError;

#[derive(Debug, AgentError)]
pub enum ToolError {
    #[agent(op = "tool.call")]
    #[error("the tool failed")]
    Failed {
        #[op]
        tool: String,
    },
}

fn main() {}
