use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "http")]
pub enum ApiError {
    #[error("upstream answered {upstream}, we answered {ours}")]
    Proxied {
        upstream: http::StatusCode,
        #[status]
        ours: u16,
    },
}

fn main() {}
