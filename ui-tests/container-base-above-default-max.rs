use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate", retry(base = "40s"))]
enum LlmError {
    // Takes `base` from the enum and `max` from the defaults (30s).
    #[agent(retryable)]
    #[error("too slow")]
    Timeout,
    // Sets its own `max`: fine.
    #[agent(retry(max = "2m"))]
    #[error("overloaded")]
    Overloaded,
}

fn main() {}
