//! `#[derive(AgentError)]`: use it through the `agent-error` crate, which documents
//! the attributes. This crate parses the input into a checked model (`model`, with one
//! file per concept), then writes the impls (`expand`).

mod attr;
mod bounds;
mod catalog;
mod code;
mod duration;
mod errors;
mod expand;
mod format;
mod hint;
mod message;
mod model;
mod retry;
mod source;
mod transparent;

use proc_macro::TokenStream;

/// Derives `AgentError`, `Display`, `std::error::Error`, `From` for `#[from]` fields and
/// code-only `PartialEq`/`Eq`. See the `agent-error` crate for the attributes.
#[proc_macro_derive(
    AgentError,
    attributes(agent, error, source, from, op, retry_after, redact)
)]
pub fn derive_agent_error(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::derive(&input).into()
}
