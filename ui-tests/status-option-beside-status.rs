use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[error("api error")]
    Api {
        status: http::StatusCode,
        upstream: Option<http::StatusCode>,
    },
}

fn main() {}
