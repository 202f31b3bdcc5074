//! Writes the impls from a checked model, or, when the input had errors, minimal impls
//! from the partial model so that the user sees only the real mistakes.

use proc_macro2::TokenStream;
use quote::quote;

use crate::bounds::{self, Bounds};
use crate::model::Input;
use crate::table::Table;
use crate::{catalog, code, debug, hint, message, miette, op, retry, source, transparent};

/// Every impl of a checked model.
pub fn impls(input: &Input) -> TokenStream {
    let forwarding = transparent::wrap_impls(input, forwarding_impls(input));
    let catalog_impl = catalog::expand(input);
    let from_impls = source::expand_from(input);
    let eq = eq(input);
    let debug = debug::expand(input);
    let miette = miette::expand(input);
    let register = if input.generics.params.is_empty() && !may_be_unsized(input) {
        let (krate, ident) = (&input.krate, input.ident);
        quote!(#krate::__private::register_type!(#ident);)
    } else {
        TokenStream::new()
    };
    allow_deprecated(quote! {
        #forwarding
        #catalog_impl
        #from_impls
        #eq
        #debug
        #miette
        #register
    })
}

/// Whether the type may be unsized: a struct whose last field is `str`, a slice, a trait
/// object or an unsized std path type. Such a type cannot be downcast to, so it is not
/// registered with the chain walk (registering it would not compile).
fn may_be_unsized(input: &Input) -> bool {
    fn unsized_type(ty: &syn::Type) -> bool {
        match ty {
            syn::Type::Slice(_) | syn::Type::TraitObject(_) => true,
            syn::Type::Paren(p) => unsized_type(&p.elem),
            syn::Type::Group(g) => unsized_type(&g.elem),
            syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| {
                s.arguments.is_none()
                    && ["str", "Path", "OsStr", "CStr"]
                        .iter()
                        .any(|n| s.ident == n)
            }),
            _ => false,
        }
    }
    input.place == crate::model::Place::Struct
        && input
            .variants
            .first()
            .and_then(|v| v.fields.last())
            .is_some_and(|f| unsized_type(f.ty))
}

/// The impls in one anonymous `const`, under `#[allow(deprecated)]`: a `#[deprecated]`
/// type or field is the user's to deprecate, and naming it in the generated impls must
/// not fail a `#![deny(deprecated)]` crate.
fn allow_deprecated(impls: TokenStream) -> TokenStream {
    quote! {
        #[allow(deprecated)]
        const _: () = { #impls };
    }
}

/// `Display`, `Error` and `AgentError`: the impls a transparent variant forwards through.
fn forwarding_impls(input: &Input) -> TokenStream {
    let (krate, ident) = (&input.krate, input.ident);
    let generics = input.generics;
    let (impl_generics, ty_generics, _) = generics.split_for_impl();
    let bounds = bounds::infer(input);
    let display_where = bounds.display.where_clause(generics);
    let error_where = bounds.error.where_clause(generics);
    let agent_where = bounds.agent.where_clause(generics);

    let table = Table::new(input);
    let display = message::expand_display(input);
    let source_fn = source::expand_source(input);
    let code_fn = code::expand(input, &table);
    let op_fn = op::expand(input);
    let messages = message::expand_messages(input);
    let retry_fns = retry::expand(input, &table);
    let hints_fn = hint::expand(input);
    let lookups = catalog::expand_lookups(input, &table);
    let location_fn = source::expand_location(input);
    let index_fn = table.index_fn();
    quote! {
        #index_fn

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
            #location_fn
        }
    }
}

/// `PartialEq` and `Eq` comparing codes, unless `no_eq`.
fn eq(input: &Input) -> TokenStream {
    if input.attrs.no_eq.is_some() {
        return TokenStream::new();
    }
    let (krate, ident) = (&input.krate, input.ident);
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let mut eq_bounds = Bounds::default();
    eq_bounds.add(quote!(Self), quote!(#krate::AgentError));
    let eq_where = eq_bounds.where_clause(input.generics);
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
}

/// Minimal impls for input with errors, from what could be read of it: enough that uses
/// of the type elsewhere do not add "trait not implemented" errors to the real ones.
pub fn fallback(input: &Input) -> TokenStream {
    let (krate, ident) = (&input.krate, input.ident);
    let generics = input.generics;
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let mut error_bounds = Bounds::default();
    error_bounds.add(quote!(Self), quote!(::core::fmt::Debug));
    let error_where = error_bounds.where_clause(generics);
    let mut agent_bounds = Bounds::default();
    agent_bounds.add(quote!(Self), quote!(::core::error::Error));
    let agent_where = agent_bounds.where_clause(generics);
    let from_impls = source::expand_from(input);
    // The user's own `PartialEq` (reported) stands in for the derive's.
    let eq = if input.attrs.no_eq.is_some() || !input.derived_eq.is_empty() {
        TokenStream::new()
    } else {
        quote! {
            impl #impl_generics ::core::cmp::PartialEq for #ident #ty_generics #where_clause {
                fn eq(&self, _: &Self) -> bool { ::core::unreachable!() }
            }
            impl #impl_generics ::core::cmp::Eq for #ident #ty_generics #where_clause {}
        }
    };
    allow_deprecated(quote! {
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
    })
}
