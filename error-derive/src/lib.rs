//! `#[derive(AgentError)]`. Use it through the `agent-error` crate.
use proc_macro::TokenStream;

#[proc_macro_derive(
    AgentError,
    attributes(agent, error, source, from, op, retry_after, redact)
)]
pub fn derive_agent_error(input: TokenStream) -> TokenStream {
    let _ = input;
    TokenStream::new()
}
