use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[error("provider returned 429")]
pub struct RateLimited;

fn main() {}
