use agent_error::AgentError;

fn octal(value: &u32, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    write!(f, "0o{value:o}")
}

#[derive(Debug, AgentError)]
#[agent(op = "num.parse")]
pub enum ParseError {
    #[error(fmt = octal, "extra")]
    Octal(u32),
}

fn main() {}
