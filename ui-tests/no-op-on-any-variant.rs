use agent_error::AgentError;

#[derive(Debug, AgentError)]
enum LlmError {
    #[error("throttled")]
    RateLimited,
    #[error("too slow")]
    Timeout,
    #[error("bad key")]
    Auth,
}

fn main() {}
