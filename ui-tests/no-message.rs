use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(code = "rate_limit")]
    RateLimited,
}

fn main() {}
