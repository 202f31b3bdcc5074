use agent_error::AgentError;

#[derive(AgentError)]
#[derive(Debug)]
#[agent(op = "auth.login", code = "auth_error", debug)]
#[error("key {key} rejected")]
struct KeyRejected {
    #[redact]
    key: String,
}

fn main() {}
