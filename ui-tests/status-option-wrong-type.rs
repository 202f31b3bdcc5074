use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum LlmError {
    #[error("api error")]
    Api {
        #[status]
        status: Option<String>,
    },
}

fn main() {}
