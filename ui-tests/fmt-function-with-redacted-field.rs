use agent_error::AgentError;

fn rejected(user: &String, key: &String, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    write!(f, "{user}'s key {key} was rejected")
}

#[derive(Debug, AgentError)]
#[agent(op = "auth.check")]
pub enum AuthError {
    #[error(fmt = rejected)]
    Rejected {
        user: String,
        #[redact]
        key: String,
    },
}

fn main() {}
