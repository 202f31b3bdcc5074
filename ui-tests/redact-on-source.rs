use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "vault.read")]
pub enum VaultError {
    #[error("read failed")]
    Read {
        #[source]
        #[redact]
        cause: std::io::Error,
    },

    #[error("unsealing failed")]
    Unseal(
        #[from]
        #[redact]
        std::fmt::Error,
    ),

    #[error("lookup failed")]
    Lookup {
        #[redact]
        source: std::io::Error,
    },
}

fn main() {}
