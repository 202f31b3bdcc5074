use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "http")]
pub enum ApiError {
    #[status]
    #[error("api error {0}")]
    Api(u16),
}

fn main() {}
