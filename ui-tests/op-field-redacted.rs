use agent_error::AgentError;

#[derive(Debug, AgentError)]
pub enum ToolError {
    #[error("the tool failed")]
    Failed {
        #[op]
        #[redact]
        tool: String,
    },
}

fn main() {}
