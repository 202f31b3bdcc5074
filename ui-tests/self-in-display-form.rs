use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "report.render")]
pub enum RenderError {
    #[error("cannot render {self}")]
    Unrenderable,
}

fn main() {}
