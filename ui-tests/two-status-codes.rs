use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "http")]
pub enum ApiError {
    #[error("expected {expected}, got {got}")]
    Unexpected {
        expected: http::StatusCode,
        got: http::StatusCode,
    },
}

fn main() {}
