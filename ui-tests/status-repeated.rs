use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "http")]
pub enum ApiError {
    #[error("api error {status}")]
    Api {
        #[status]
        #[status]
        status: u16,
    },
}

fn main() {}
