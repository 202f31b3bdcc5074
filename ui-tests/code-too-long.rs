use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[agent(code = "provider_returned_too_many_requests_for_this_client_in_the_last_minute")]
    #[error("provider returned 429")]
    RateLimited,
}

fn main() {}
