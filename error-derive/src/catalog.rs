//! The catalog and lifecycle: `status`, `docs_url`, `since` and `deprecated`, and one
//! `CodeDoc` per classified variant, built at compile time from what the model already
//! holds (code, op, message and hints as written, docs, retry, lifecycle); the generated
//! `status()` and `docs_url()`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::LitInt;

use crate::model::{AgentAttrs, Body, Classified, Input, Op, Recovery, Variant};
use crate::parse::{Arg, Sp};
use crate::table::{Answer, Table};
use crate::transparent::{self, Ask};

/// `status = 503`: an HTTP status, 100 to 599.
pub fn parse_status(out: &mut AgentAttrs, arg: &mut Arg) -> syn::Result<()> {
    let lit: LitInt = arg.value()?;
    match lit.base10_parse::<u16>() {
        Ok(code @ 100..=599) => arg.set(
            &mut out.status,
            Sp {
                value: code,
                span: lit.span(),
            },
        ),
        _ => arg.error(
            lit.span(),
            format!(
                "`{}` is not an HTTP status: write a number from 100 to 599, like status = 503",
                lit.base10_digits()
            ),
        ),
    }
    Ok(())
}

/// `docs_url` with `{code}` still in it.
fn docs_url<'a>(input: &'a Input) -> Option<&'a String> {
    input.attrs.docs_url.as_ref().map(|u| &u.value)
}

/// `impl Catalog`.
pub fn expand(input: &Input) -> TokenStream {
    let krate = &input.krate;
    let ident = input.ident;
    let type_name = ident.to_string();
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let base_op = base_op(input);
    let base_op_tokens = some(base_op.map(|op| quote!(#op)));
    let entries = input.variants.iter().filter_map(|v| match &v.body {
        Body::Classified(c) => Some(entry(input, v, c, base_op)),
        Body::Transparent(_) => None,
    });
    // The catalogs of the types that transparent variants wrap, where they have one (found
    // by autoref specialization: a field whose type has no catalog, or mentions a type
    // parameter, adds nothing).
    let nested: Vec<TokenStream> = input
        .variants
        .iter()
        .filter_map(|v| match &v.body {
            Body::Transparent(t) if !t.generic => v.fields.first().map(|f| {
                let ty = f.ty;
                quote!((&&#krate::__private::CatalogProbe::<#ty>::NEW).collect_into(out);)
            }),
            _ => None,
        })
        .collect();
    let collect = if nested.is_empty() {
        TokenStream::new()
    } else {
        quote! {
            fn collect_codes(out: &mut ::std::vec::Vec<&'static #krate::catalog::CodeDoc>) {
                #[allow(unused_imports)]
                use #krate::__private::{ProbeCatalog as _, ProbeNoCatalog as _};
                out.extend(<Self as #krate::catalog::Catalog>::CODES.iter());
                #(#nested)*
            }
        }
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::catalog::Catalog for #ident #ty_generics #where_clause {
            const CODES: &'static [#krate::catalog::CodeDoc] = {
                // Once for the type, not once an entry: a macro call costs expansion time.
                const __AGENT_TYPE: &str = ::core::concat!(::core::module_path!(), "::", #type_name);
                const __AGENT_BASE: #krate::catalog::CodeDoc = #krate::__private::base(__AGENT_TYPE, #base_op_tokens);
                &[#(#entries),*]
            };
            #collect
        }
    }
}

/// `Some(value)` or `None` as tokens.
fn some(value: Option<TokenStream>) -> TokenStream {
    match value {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    }
}

/// The type's op, which the entries share (`__AGENT_BASE`).
fn base_op<'a>(input: &'a Input) -> Option<&'a str> {
    input.attrs.op.as_ref().map(|op| op.value.as_str())
}

/// One variant's `CodeDoc`: a short call from the type's `__AGENT_BASE` when the variant
/// keeps its defaults (abort, never retried), as most do; each call costs the user's
/// build a constant evaluation, so fewer and smaller ones make a large enum build faster.
fn entry(input: &Input, v: &Variant, c: &Classified, base_op: Option<&str>) -> TokenStream {
    let krate = &input.krate;
    let code = &c.code.value;
    let own_op = match c.op() {
        Op::Static(op) => Some(op.as_str()),
        Op::Field(_) => None,
    };
    let variant = v.ident.to_string();
    let message = &c.message().written;
    let docs: Vec<&str> = v.docs.iter().map(|d| d.value.as_str()).collect();
    let docs = docs.join("\n").trim().to_string();
    let hints = c.hints.iter().map(|h| &h.written);
    // Only what the variant sets beyond the common fields, as `CodeDoc::with_*` calls.
    let mut extra = TokenStream::new();
    let head = if c.policy.is_none()
        && c.recovery == Recovery::Abort
        && (own_op.is_some() || base_op.is_none())
    {
        if own_op != base_op {
            extra.extend(quote!(.with_op(#own_op)));
        }
        if !docs.is_empty() {
            extra.extend(quote!(.with_docs(#docs)));
        }
        if !c.hints.is_empty() {
            extra.extend(quote!(.with_hints(&[#(#hints),*])));
        }
        quote!(#krate::__private::variant(__AGENT_BASE, #code, #variant, #message))
    } else {
        let op = some(own_op.map(|op| quote!(#op)));
        let recovery = crate::retry::recovery_tokens(c.recovery, krate);
        let policy = match &c.policy {
            Some(p) => p.tokens(krate),
            None => quote!(#krate::RetryPolicy::NEVER),
        };
        quote! {
            #krate::__private::entry(
                #code,
                #op,
                __AGENT_TYPE,
                #variant,
                #message,
                #docs,
                &[#(#hints),*],
                #recovery,
                #policy,
            )
        }
    };
    if c.from_cause {
        extra.extend(quote!(.with_retry_from_cause()));
    }
    if c.from_status {
        extra.extend(quote!(.with_retry_from_status()));
    }
    if c.from_code {
        extra.extend(quote!(.with_retry_from_code()));
    }
    if c.status.is_some() {
        extra.extend(quote!(.with_held_status()));
    }
    if let Some(status) = &v.attrs.status {
        let status = status.value;
        extra.extend(quote!(.with_status(#status)));
    }
    if let Some(url) = docs_url(input) {
        let url = url.replace("{code}", code);
        extra.extend(quote!(.with_url(#url)));
    }
    if let Some(since) = &v.attrs.since {
        let since = &since.value;
        extra.extend(quote!(.with_since(#since)));
    }
    if let Some(deprecated) = &v.attrs.deprecated {
        let deprecated = &deprecated.value;
        extra.extend(quote!(.with_deprecated(#deprecated)));
    }
    quote!(#head #extra)
}

/// `status()` and `docs_url()` of `AgentError`, when some variant or the type sets them.
pub fn expand_lookups(input: &Input, table: &Table) -> TokenStream {
    let krate = &input.krate;
    let none = quote!(::core::option::Option::None);
    let has_status = input.variants.iter().any(|v| match &v.body {
        Body::Classified(c) => c.from_cause || c.status.is_some() || v.attrs.status.is_some(),
        Body::Transparent(_) => false,
    });
    let has_transparent = input
        .variants
        .iter()
        .any(|v| matches!(v.body, Body::Transparent(_)));
    let mut out = TokenStream::new();
    if has_status || has_transparent {
        let answers = input.variants.iter().map(|v| {
            let path = &v.path;
            match &v.body {
                Body::Classified(c) => match (&v.attrs.status, c.status) {
                    (Some(status), _) => {
                        let status = status.value;
                        Answer::Fixed(quote!(::core::option::Option::Some(#status)))
                    }
                    // The status it holds, where it declares none.
                    (None, Some(index)) => {
                        let (pattern, status) = crate::retry::held_status(v, index);
                        let status = if crate::retry::status_is_optional(&v.fields[index]) {
                            status
                        } else {
                            quote!(::core::option::Option::Some(#status))
                        };
                        Answer::Arm(quote!(#path { #pattern, .. } => #status,))
                    }
                    // A cause's status, where the variant declares none.
                    (None, None) if c.from_cause => Answer::Arm(
                        quote!(#path { .. } => #krate::__private::cause_status(::core::error::Error::source(self)),),
                    ),
                    (None, None) => Answer::Fixed(none.clone()),
                },
                Body::Transparent(t) => Answer::Arm(transparent::arm(input, v, t, Ask::Status)),
            }
        });
        let body = table.body(answers.collect(), "status");
        out.extend(quote! {
            #[inline]
            fn status(&self) -> ::core::option::Option<u16> {
                #body
            }
        });
    }
    if docs_url(input).is_some() || has_transparent {
        let answers = input.variants.iter().map(|v| match &v.body {
            Body::Classified(c) => Answer::Fixed(match docs_url(input) {
                Some(url) => {
                    let url = url.replace("{code}", &c.code.value);
                    quote!(::core::option::Option::Some(#url))
                }
                None => none.clone(),
            }),
            Body::Transparent(t) => Answer::Arm(transparent::arm(input, v, t, Ask::DocsUrl)),
        });
        let body = table.body(answers.collect(), "url");
        out.extend(quote! {
            #[inline]
            fn docs_url(&self) -> ::core::option::Option<&str> {
                #body
            }
        });
    }
    out
}
