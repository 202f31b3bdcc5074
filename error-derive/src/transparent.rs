//! `#[error(transparent)]`: the variant is its one field. An `AgentError` field gives
//! everything; a foreign error gives its Display, and its classification (SPEC §7) or else
//! the variant's default code. Which one is chosen where the field's type is known, by
//! autoref specialization on the runtime's `__private::Forward`.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::Ident;

use crate::attr::{AgentAttrs, Place};
use crate::bounds::Params;
use crate::code;
use crate::errors::Errors;
use crate::message::formatter;
use crate::model::{Field, Input, Variant};

pub struct Transparent {
    /// The field forwarded to.
    pub field: usize,
    /// The code when the field is a foreign error that nothing classifies.
    pub code: String,
    /// The variant's or the type's op, for a foreign field.
    pub op: Option<String>,
    /// The field's type mentions a type parameter: it is bound by `AgentError`, and
    /// forwarded to directly (autoref specialization does not see through parameters).
    pub generic: bool,
}

/// A transparent variant, checked: one field, and no key that the field decides.
#[allow(clippy::too_many_arguments)]
pub fn resolve(
    ident: &Ident,
    span: Span,
    place: Place,
    container: &AgentAttrs,
    own: &AgentAttrs,
    fields: &[Field],
    generics: &syn::Generics,
    errors: &mut Errors,
) -> Option<Transparent> {
    let before = errors.len();
    check(span, own, place, fields, errors);
    let own_op = own.op.as_ref().filter(|_| place == Place::Enum);
    if let Some(op) = own_op {
        code::check_op(op, errors);
    }
    let code = code::with_namespace(code::default_code(ident, container), container);
    if let Err(why) = code::check_code(&code) {
        let what = if place == Place::Struct {
            "struct"
        } else {
            "variant"
        };
        errors.at(
            ident.span(),
            format!("the default code made from {what} `{ident}`, which is its code when the field is a foreign error that no classifier knows, is not valid: {why}; rename the {what}, or replace `transparent` with a message and #[agent(code = \"...\")]"),
        );
    }
    if errors.len() > before {
        return None;
    }
    Some(Transparent {
        field: 0,
        code,
        op: own_op.or(container.op.as_ref()).map(|op| op.value.clone()),
        generic: Params::new(generics).mentioned_in(fields[0].ty),
    })
}

fn check(span: Span, own: &AgentAttrs, place: Place, fields: &[Field], errors: &mut Errors) {
    if fields.len() != 1 {
        let what = if place == Place::Struct {
            "struct"
        } else {
            "variant"
        };
        let (has, fix) = match fields.len() {
            0 => (
                "no fields".to_string(),
                "add the error as its one field, like `Other(OtherError)`",
            ),
            n => (format!("{n} fields"), "keep only the error inside"),
        };
        errors.at(
            span,
            format!(
                "#[error(transparent)] forwards to exactly one field, the error inside, but this {what} has {has}; {fix}, or write a message like #[error(\"...\")] instead of `transparent`"
            ),
        );
    }
    let mut keys: Vec<(&str, Span)> = Vec::new();
    let spans = [
        ("code", own.code.as_ref().map(|s| s.span)),
        ("recovery", own.recovery.as_ref().map(|s| s.span)),
        ("status", own.status.as_ref().map(|s| s.span)),
        ("since", own.since.as_ref().map(|s| s.span)),
        ("deprecated", own.deprecated.as_ref().map(|s| s.span)),
    ];
    keys.extend(spans.iter().filter_map(|(k, s)| s.map(|s| (*k, s))));
    keys.extend(own.retry_markers());
    keys.extend(own.hints.iter().map(|h| ("hint", h.span())));
    for (key, key_span) in keys {
        errors.at(
            key_span,
            format!(
                "`{key}` cannot be set on #[error(transparent)]: code, message, retry and hints come from the error inside (or, for a foreign error, from its classification); remove `{key}`, or replace `transparent` with a message"
            ),
        );
    }
    for field in fields {
        let misplaced = [
            ("#[source]", field.attrs.source),
            ("#[op]", field.attrs.op),
            ("#[retry_after]", field.attrs.retry_after),
            ("#[redact]", field.attrs.redact),
        ];
        for (name, span) in misplaced.iter().filter_map(|(n, s)| s.map(|s| (n, s))) {
            errors.at(span, format!("{name} has no effect under #[error(transparent)], which forwards everything to this field; remove it"));
        }
    }
}

/// What a generated method asks of the field.
#[derive(Clone, Copy)]
pub enum Ask {
    Display,
    Source,
    Code,
    Op,
    FmtMessage,
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
    let f = &v.fields[t.field];
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
        crate::model::Body::Transparent(t) => !t.generic,
        crate::model::Body::Classified(_) => false,
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
