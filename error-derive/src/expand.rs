//! Writes the impls from a checked model, or, when the input had errors, those errors
//! with minimal impls so that the user sees only the real mistakes.

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use crate::bounds::{Bounds, Params};
use crate::errors::Errors;
use crate::format::FmtTrait;
use crate::model::{self, Body, Input, Op};
use crate::{catalog, code, hint, message, retry, source, transparent};

pub fn derive(input: &DeriveInput) -> TokenStream {
    let mut errors = Errors::default();
    match model::build(input, &mut errors) {
        Some(model) if errors.is_empty() => impls(&model),
        _ => {
            let mut out = errors.into_compile_errors();
            // A union gets no impls: `Error` needs `Debug`, which a union cannot derive either.
            if !matches!(input.data, syn::Data::Union(_)) {
                out.extend(fallback(input));
            }
            out
        }
    }
}

struct ImplBounds {
    display: Bounds,
    error: Bounds,
    agent: Bounds,
}

fn infer_bounds(input: &Input) -> ImplBounds {
    let params = Params::new(input.generics);
    let krate = &input.krate;
    let mut b = ImplBounds {
        display: Bounds::default(),
        error: Bounds::default(),
        agent: Bounds::default(),
    };
    b.error.add(
        quote!(Self),
        quote!(::core::fmt::Debug + ::core::fmt::Display),
    );
    b.agent.add(quote!(Self), quote!(::core::error::Error));
    for v in &input.variants {
        let ty = |i: usize| v.fields[i].ty;
        match &v.body {
            Body::Transparent(transparent) => {
                let t = ty(transparent.field);
                if transparent.generic {
                    b.display.add(t, quote!(::core::fmt::Display));
                    b.error.add(t, quote!(::core::error::Error));
                    b.agent.add(t, quote!(#krate::AgentError));
                }
            }
            Body::Classified(c) => {
                let mut uses: Vec<(usize, FmtTrait)> = c.message.uses.clone();
                for (i, t) in &uses {
                    if params.mentioned_in(ty(*i)) {
                        b.display.add(ty(*i), t.path());
                        b.agent.add(ty(*i), t.path());
                    }
                }
                uses.clear();
                for h in &c.hints {
                    for (i, t) in &h.uses {
                        if params.mentioned_in(ty(*i)) {
                            b.agent.add(ty(*i), t.path());
                        }
                    }
                }
                if let Op::Field(i) = c.op
                    && params.mentioned_in(ty(i))
                {
                    b.display.add(ty(i), quote!(::core::convert::AsRef<str>));
                    b.agent.add(ty(i), quote!(::core::convert::AsRef<str>));
                }
                if let Some(i) = c.source {
                    let t = cause_type(ty(i));
                    if params.mentioned_in(t) {
                        b.display.add(t, quote!(::core::error::Error));
                        b.error.add(t, quote!(::core::error::Error + 'static));
                    }
                }
            }
        }
    }
    b
}

/// The error type of a cause field: `T` for `Option<T>`.
fn cause_type(ty: &syn::Type) -> &syn::Type {
    if source::is_option(ty)
        && let syn::Type::Path(p) = ty
        && let Some(syn::PathArguments::AngleBracketed(a)) =
            p.path.segments.last().map(|s| &s.arguments)
        && let Some(syn::GenericArgument::Type(inner)) = a.args.first()
    {
        return inner;
    }
    ty
}

fn impls(input: &Input) -> TokenStream {
    let krate = &input.krate;
    let ident = input.ident;
    let generics = input.generics;
    let (impl_generics, ty_generics, _) = generics.split_for_impl();
    let bounds = infer_bounds(input);
    let display_where = bounds.display.where_clause(generics);
    let error_where = bounds.error.where_clause(generics);
    let agent_where = bounds.agent.where_clause(generics);

    let display = message::expand_display(input);
    let source_fn = source::expand_source(input);
    let code_fn = code::expand_code(input);
    let op_fn = code::expand_op(input);
    let messages = message::expand_messages(input);
    let retry_fns = retry::expand(input);
    let hints_fn = hint::expand(input);
    let from_impls = source::expand_from(input);
    let catalog_impl = catalog::expand(input);
    let lookups = catalog::expand_lookups(input);

    let eq = if input.no_eq {
        TokenStream::new()
    } else {
        let mut eq_bounds = Bounds::default();
        eq_bounds.add(quote!(Self), quote!(#krate::AgentError));
        let eq_where = eq_bounds.where_clause(generics);
        quote! {
            /// Equal when the codes are, whatever the fields.
            #[automatically_derived]
            impl #impl_generics ::core::cmp::PartialEq for #ident #ty_generics #eq_where {
                #[inline]
                fn eq(&self, other: &Self) -> bool {
                    #krate::AgentError::code(self) == #krate::AgentError::code(other)
                }
            }
            #[automatically_derived]
            impl #impl_generics ::core::cmp::Eq for #ident #ty_generics #eq_where {}
        }
    };

    let register = if generics.params.is_empty() {
        quote!(#krate::__private::register_type!(#ident);)
    } else {
        TokenStream::new()
    };

    let forwarding = quote! {
        #[automatically_derived]
        impl #impl_generics ::core::fmt::Display for #ident #ty_generics #display_where {
            #display
        }

        #[automatically_derived]
        impl #impl_generics ::core::error::Error for #ident #ty_generics #error_where {
            #source_fn
        }

        #[automatically_derived]
        impl #impl_generics #krate::AgentError for #ident #ty_generics #agent_where {
            #code_fn
            #op_fn
            #messages
            #retry_fns
            #hints_fn
            #lookups
        }
    };
    let forwarding = transparent::wrap_impls(input, forwarding);

    quote! {
        #forwarding
        #catalog_impl
        #from_impls
        #eq
        #register
    }
}

/// Minimal impls for input with errors: enough that uses of the type elsewhere do not
/// add "trait not implemented" errors to the real ones.
fn fallback(input: &DeriveInput) -> TokenStream {
    let (krate, no_eq) = lenient_container(input);
    let krate = match krate {
        Some(path) => quote!(#path),
        None => quote!(::agent_error),
    };
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let mut error_bounds = Bounds::default();
    error_bounds.add(quote!(Self), quote!(::core::fmt::Debug));
    let error_where = error_bounds.where_clause(&input.generics);
    let mut agent_bounds = Bounds::default();
    agent_bounds.add(quote!(Self), quote!(::core::error::Error));
    let agent_where = agent_bounds.where_clause(&input.generics);
    let from_impls = fallback_from(input);
    let eq = if no_eq {
        TokenStream::new()
    } else {
        quote! {
            impl #impl_generics ::core::cmp::PartialEq for #ident #ty_generics #where_clause {
                fn eq(&self, _: &Self) -> bool { ::core::unreachable!() }
            }
            impl #impl_generics ::core::cmp::Eq for #ident #ty_generics #where_clause {}
        }
    };
    quote! {
        impl #impl_generics ::core::fmt::Display for #ident #ty_generics #where_clause {
            fn fmt(&self, _: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::unreachable!()
            }
        }
        impl #impl_generics ::core::error::Error for #ident #ty_generics #error_where {}
        impl #impl_generics #krate::AgentError for #ident #ty_generics #agent_where {
            fn code(&self) -> &str { ::core::unreachable!() }
            fn op(&self) -> &str { ::core::unreachable!() }
            fn fmt_message(&self, _: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result { ::core::unreachable!() }
            fn fmt_public_message(&self, _: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result { ::core::unreachable!() }
            fn retry_policy(&self) -> #krate::RetryPolicy { ::core::unreachable!() }
            fn hints(&self) -> ::std::vec::Vec<::std::borrow::Cow<'static, str>> { ::core::unreachable!() }
            fn recovery(&self) -> #krate::Recovery { ::core::unreachable!() }
        }
        impl #impl_generics #krate::catalog::Catalog for #ident #ty_generics #where_clause {
            const CODES: &'static [#krate::catalog::CodeDoc] = &[];
        }
        #eq
        #from_impls
    }
}

/// The `From` impls the input asks for, read leniently for the fallback: a field marked
/// `#[from]` that is its variant's only field.
fn fallback_from(input: &DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let shapes: Vec<(TokenStream, &syn::Fields)> = match &input.data {
        syn::Data::Enum(data) => data
            .variants
            .iter()
            .map(|v| {
                let name = &v.ident;
                (quote!(Self::#name), &v.fields)
            })
            .collect(),
        syn::Data::Struct(data) => vec![(quote!(Self), &data.fields)],
        syn::Data::Union(_) => Vec::new(),
    };
    shapes
        .into_iter()
        .filter(|(_, fields)| fields.len() == 1)
        .filter_map(|(path, fields)| {
            let field = fields.iter().next()?;
            field.attrs.iter().find(|a| a.path().is_ident("from"))?;
            let ty = &field.ty;
            let member = match &field.ident {
                Some(name) => quote!(#name),
                None => quote!(0),
            };
            Some(quote! {
                impl #impl_generics ::core::convert::From<#ty> for #ident #ty_generics #where_clause {
                    fn from(source: #ty) -> Self {
                        #path { #member: source }
                    }
                }
            })
        })
        .collect()
}

/// `#[agent(crate = "...")]` and `no_eq`, read leniently for the fallback.
fn lenient_container(input: &DeriveInput) -> (Option<syn::Path>, bool) {
    let mut found = None;
    let mut no_eq = false;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("agent")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                found = lit.parse().ok();
            } else if meta.path.is_ident("no_eq") {
                no_eq = true;
            } else if meta.input.peek(syn::Token![=]) {
                let _: proc_macro2::TokenTree = meta.value()?.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                let _: proc_macro2::TokenTree = meta.input.parse()?;
            }
            Ok(())
        });
    }
    (found, no_eq)
}
