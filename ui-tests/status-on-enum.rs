use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "http")]
#[status]
pub enum ApiError {
    #[error("api error {0}")]
    Api(u16),
}

fn main() {}
