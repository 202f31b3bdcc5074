use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "report.render")]
pub enum RenderError {
    #[error("column {name:>width$} overflows")]
    Overflow {
        name: String,
        #[redact]
        width: usize,
    },
}

fn main() {}
