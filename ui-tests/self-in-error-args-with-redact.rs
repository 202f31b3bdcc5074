use agent_error::AgentError;

fn describe(e: &Login) -> String {
    format!("{e:?}")
}

#[derive(Debug, AgentError)]
#[agent(op = "auth.login")]
pub enum Login {
    #[error("login failed: {}", describe(self))]
    BadKey {
        user: String,
        #[redact]
        key: String,
    },

    #[error("token rejected: {}", format!("{self:?}"))]
    BadToken(#[redact] String),

    // No `#[redact]` field in this variant: `self` shows only what it holds.
    #[error("locked: {}", describe(self))]
    Locked { user: String },
}

fn main() {}
