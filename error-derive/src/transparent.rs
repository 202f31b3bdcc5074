//! `#[error(transparent)]`: the variant is its one field. An `AgentError` field gives
//! everything; a foreign error gives its Display, and its classification or else
//! the variant's default code. Which one is chosen where the field's type is known, by
//! autoref specialization on the runtime's `__private::Forward`.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};

use crate::model::{Body, Input, Transparent, Variant, formatter};

/// What a generated method asks of the field.
#[derive(Clone, Copy)]
pub enum Ask {
    Display,
    Source,
    Code,
    Op,
    FmtMessage,
    FmtRedactedMessage,
    FmtPublicMessage,
    RetryPolicy,
    IsRetryable,
    IsRateLimited,
    RetryAfter,
    Hints,
    Recovery,
    Status,
    DocsUrl,
}

/// A match arm that asks the variant's field: through `Forward` (typed or foreign), or,
/// for a generic field, straight from its `AgentError`.
pub fn arm(input: &Input, v: &Variant, t: &Transparent, ask: Ask) -> TokenStream {
    let krate = &input.krate;
    let f = &v.fields[0];
    let (path, pat, binding) = (&v.path, f.pattern(), f.binding_at_type());
    let fmt = formatter();
    let value = if t.generic {
        match ask {
            Ask::Display => quote!(::core::fmt::Display::fmt(#binding, #fmt)),
            Ask::Source => quote!(::core::error::Error::source(#binding)),
            _ => {
                let (method, args) = method(ask, t);
                let binding = quote!(#binding);
                let args = std::iter::once(binding).chain(args);
                quote!(#krate::AgentError::#method(#(#args),*))
            }
        }
    } else {
        // Spanned at the field's type, where rustc then reports a field that is no error.
        let at = Span::call_site().located_at(f.type_span());
        let forwarded = quote_spanned!(at=> (&&#krate::__private::Forward(#binding)).forwarded());
        let (method, args) = method(ask, t);
        quote!(#forwarded.#method(#(#args),*))
    };
    quote!(#path { #pat, .. } => #value,)
}

/// The method of `Forwarded` (or `AgentError`) and its arguments after the receiver.
fn method(ask: Ask, t: &Transparent) -> (TokenStream, Vec<TokenStream>) {
    let fmt = formatter();
    match ask {
        Ask::Display => (quote!(fmt_display), vec![quote!(#fmt)]),
        Ask::Source => (quote!(source), vec![]),
        Ask::Code if t.generic => (quote!(code), vec![]),
        Ask::Code => {
            let code = &t.code;
            (quote!(code), vec![quote!(#code)])
        }
        Ask::Op if t.generic => (quote!(op), vec![]),
        Ask::Op => {
            let op = t.op.as_deref().unwrap_or_default();
            (quote!(op), vec![quote!(#op)])
        }
        Ask::FmtMessage => (quote!(fmt_message), vec![quote!(#fmt)]),
        Ask::FmtRedactedMessage => (quote!(fmt_redacted_message), vec![quote!(#fmt)]),
        Ask::FmtPublicMessage => (quote!(fmt_public_message), vec![quote!(#fmt)]),
        Ask::RetryPolicy => (quote!(retry_policy), vec![]),
        Ask::IsRetryable => (quote!(is_retryable), vec![]),
        Ask::IsRateLimited => (quote!(is_rate_limited), vec![]),
        Ask::RetryAfter => (quote!(retry_after), vec![]),
        Ask::Hints => (quote!(hints), vec![]),
        Ask::Recovery => (quote!(recovery), vec![]),
        Ask::Status => (quote!(status), vec![]),
        Ask::DocsUrl => (quote!(docs_url), vec![]),
    }
}

/// The `use` that brings `Forward`'s traits into scope for the impls, when a variant
/// forwards through it: once, around the impls, instead of in every arm.
pub fn wrap_impls(input: &Input, impls: TokenStream) -> TokenStream {
    let forwards = input.variants.iter().any(|v| match &v.body {
        Body::Transparent(t) => !t.generic,
        Body::Classified(_) => false,
    });
    if !forwards {
        return impls;
    }
    let krate = &input.krate;
    quote! {
        const _: () = {
            #[allow(unused_imports)]
            use #krate::__private::{
                ForwardDeref as _, ForwardForeign as _, ForwardNonError as _, ForwardTyped as _,
            };
            #impls
        };
    }
}
