use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum LlmError {
    #[agent(code = "Bad Code")]
    #[error("provider failed")]
    Provider(#[from] std::io::Error),
}

// Uses of the type elsewhere add no errors of their own: only the bad code is reported.
fn call() -> Result<(), LlmError> {
    Err(std::io::Error::other("reset"))?;
    Ok(())
}

fn main() {
    let e = call().unwrap_err();
    let _ = (e.code(), e.to_string(), e == LlmError::Provider(std::io::Error::other("x")));
}
