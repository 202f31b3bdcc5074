use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "http")]
pub enum ApiError {
    #[error("expected {expected}, got {got}")]
    Unexpected {
        #[status]
        expected: u16,
        #[status]
        got: u16,
    },
}

fn main() {}
