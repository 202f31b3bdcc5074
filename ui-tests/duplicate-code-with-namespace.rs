use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "auth.login", namespace = "auth")]
pub enum AuthError {
    #[error("no api key")]
    MissingApiKey,
    #[agent(code = "missing_api_key")]
    #[error("the api key is empty")]
    EmptyApiKey,
}

fn main() {}
