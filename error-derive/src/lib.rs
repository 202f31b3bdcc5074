//! `#[derive(AgentError)]`: use it through the `agent-error` crate; the derive's own page
//! documents its attributes. The input is read into a typed model (`attr` → `model`), checked rule by
//! rule (`validate`), then each concept's file writes its part (`expand`); on errors,
//! minimal impls come from the partial model (`expand::fallback`).

#![forbid(unsafe_code)]

mod attr;
mod bounds;
mod catalog;
mod code;
mod debug;
mod duration;
mod errors;
mod expand;
mod format;
mod hint;
mod joinable;
mod message;
mod miette;
mod model;
mod op;
mod parse;
mod retry;
mod source;
mod table;
mod transparent;
mod validate;

use proc_macro::TokenStream;

#[doc = include_str!("derive.md")]
#[proc_macro_derive(
    AgentError,
    attributes(agent, error, source, from, op, retry_after, redact, status, location)
)]
pub fn derive_agent_error(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    derive(&input).into()
}

fn derive(input: &syn::DeriveInput) -> proc_macro2::TokenStream {
    let mut errors = errors::Errors::default();
    // A union gets no impls: `Error` needs `Debug`, which a union cannot derive either.
    let Some((mut model, raw)) = attr::container(input, &mut errors) else {
        return errors.into_compile_errors();
    };
    validate::container(&model, &mut errors);
    for raw in raw {
        // Each variant is checked as it is read, so that its errors are reported together.
        let variant = attr::variant(&model, raw, &mut errors);
        validate::variant(&model, &variant, &mut errors);
        model.variants.push(variant);
    }
    validate::whole(&model, &mut errors);
    if errors.is_empty() {
        return expand::impls(&model);
    }
    let mut out = errors.into_compile_errors();
    out.extend(expand::fallback(&model));
    out
}
