use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(retry(factor = 1e400))]
    #[error("overloaded")]
    Overloaded,
}

fn main() {}
