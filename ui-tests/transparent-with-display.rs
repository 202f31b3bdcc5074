use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "http.send")]
#[error("connection reset")]
pub struct HttpError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(display = "message")]
    #[error(transparent)]
    Http(HttpError),
}

fn main() {}
