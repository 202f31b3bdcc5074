//! Recovery hints: `#[agent(hint = "...")]`, one line each, repeatable, interpolating
//! fields like `#[error]`. Hints are shown in public renderings, so a `#[redact]` field in
//! a hint reads `[redacted]`.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use crate::errors::Errors;
use crate::format;
use crate::model::{AgentAttrs, Body, Field, Input, Template, View};
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

/// `fn hints(&self)`, and beside it, when a variant has hints, `each_hint`
/// that hands each one to the renderings as format arguments, with no `Vec` and no
/// `String` (a transparent variant's come from its field's `hints`).
pub fn expand(input: &Input) -> TokenStream {
    let krate = &input.krate;
    let arms = input.variants.iter().map(|v| match &v.body {
        Body::Classified(c) if c.hints.is_empty() && c.from_cause => {
            let path = &v.path;
            Some(quote!(#path { .. } => #krate::__private::cause_hints(::core::error::Error::source(self)),))
        }
        Body::Classified(c) if c.hints.is_empty() => None,
        Body::Classified(c) => {
            let (pattern, redacted) = v.bind_redacted(krate);
            let hints = c.hints.iter().map(|h| h.to_cow(View::Public));
            Some(quote!(#pattern => { #redacted ::std::vec![#(#hints),*] }))
        }
        Body::Transparent(t) => Some(transparent::arm(input, v, t, Ask::Hints)),
    });
    let body = input.match_or(arms, quote!(::std::vec::Vec::new()));
    let each = each_hint(input);
    let traits = crate::format::field_traits_for(input);
    quote! {
        #[allow(unused_variables)]
        fn hints(&self) -> ::std::vec::Vec<::std::borrow::Cow<'static, str>> {
            #traits
            #body
        }
        #each
    }
}

/// `fn each_hint(&self, each)`, or nothing when no variant has a hint of its own.
fn each_hint(input: &Input) -> Option<TokenStream> {
    let any = input.variants.iter().any(|v| match &v.body {
        Body::Classified(c) => !c.hints.is_empty() || c.from_cause,
        Body::Transparent(_) => false,
    });
    if !any {
        return None;
    }
    let krate = &input.krate;
    // Hygienic, so that a field named `each` cannot shadow it.
    let each = Ident::new("__agent_each", Span::mixed_site());
    let arms = input.variants.iter().map(|v| match &v.body {
        Body::Classified(c) if c.hints.is_empty() && !c.from_cause => None,
        Body::Classified(c) if !c.hints.is_empty() => {
            let (pattern, redacted) = v.bind_redacted(krate);
            let hints = c.hints.iter().map(|h| h.to_arguments(View::Public));
            Some(quote!(#pattern => { #redacted #(#each(#hints);)* }))
        }
        // A cause's hints are its classification's, read without a `Vec` too.
        Body::Classified(_) => {
            let path = &v.path;
            Some(quote! {
                #path { .. } => #krate::__private::cause_each_hint(::core::error::Error::source(self), #each),
            })
        }
        // A transparent variant's hints are its field's.
        Body::Transparent(_) => {
            let path = &v.path;
            let hint = Ident::new("__agent_hint", Span::mixed_site());
            Some(quote! {
                #path { .. } => {
                    for #hint in #krate::AgentError::hints(self) {
                        #each(::core::format_args!("{}", #hint));
                    }
                }
            })
        }
    });
    let body = input.match_or(arms, quote!({}));
    let traits = crate::format::field_traits_for(input);
    Some(quote! {
        #[allow(unused_variables)]
        fn each_hint(&self, #each: &mut dyn ::core::ops::FnMut(::core::fmt::Arguments<'_>)) {
            #traits
            #body
        }
    })
}
