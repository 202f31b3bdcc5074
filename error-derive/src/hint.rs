//! Recovery hints: `#[agent(hint = "...")]`, one line each, repeatable, interpolating
//! fields like `#[error]`. Hints are shown in public renderings, so a `#[redact]` field in
//! a hint reads `[redacted]`.

use proc_macro2::TokenStream;
use quote::quote;

use crate::errors::Errors;
use crate::format;
use crate::model::{AgentAttrs, Body, Field, Input, Template};
use crate::parse::Arg;
use crate::transparent::{self, Ask};

/// `hint = "..."`: not empty, one line.
pub fn parse(out: &mut AgentAttrs, arg: &mut Arg) -> syn::Result<()> {
    let lit = arg.string()?;
    let text = lit.value();
    if text.trim().is_empty() {
        arg.error(
            lit.span(),
            "a hint cannot be empty: say what to do, like hint = \"lower the request rate\"",
        );
    } else if text.contains('\n') || text.contains('\r') {
        arg.error(
            lit.span(),
            "a hint is one line; split it into several `hint = \"...\"` keys, one per line",
        );
    } else {
        out.hints.push(lit);
    }
    Ok(())
}

/// The variant's hints, checked against its fields; a hint that names no field is reported
/// and left out.
pub fn of(
    attrs: &AgentAttrs,
    fields: &[Field],
    owner: &str,
    krate: &TokenStream,
    errors: &mut Errors,
) -> Vec<Template> {
    attrs
        .hints
        .iter()
        .filter_map(|lit| {
            let format = format::from_text(&lit.value(), lit.span());
            format::resolve(&format, fields, owner, krate, errors)
        })
        .collect()
}

/// `fn hints(&self)`.
pub fn expand(input: &Input) -> TokenStream {
    let arms = input.variants.iter().map(|v| match &v.body {
        Body::Classified(c) if c.hints.is_empty() => None,
        Body::Classified(c) => {
            let pattern = v.bind_all();
            let hints = c.hints.iter().map(|h| h.to_cow(true));
            Some(quote!(#pattern => ::std::vec![#(#hints),*],))
        }
        Body::Transparent(t) => Some(transparent::arm(input, v, t, Ask::Hints)),
    });
    let body = input.match_or(arms, quote!(::std::vec::Vec::new()));
    quote! {
        #[allow(unused_variables)]
        fn hints(&self) -> ::std::vec::Vec<::std::borrow::Cow<'static, str>> {
            #body
        }
    }
}
