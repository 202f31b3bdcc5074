//! `#[agent(debug)]`: the derive writes `Debug` as `#[derive(Debug)]` would, but with each
//! `#[redact]` field as `[redacted]`, so that `{:?}` (anyhow's, a panic's, a log's) keeps
//! the secret out too.

use proc_macro2::TokenStream;
use quote::quote;

use crate::bounds::{Bounds, Params};

use crate::model::Input;

/// The `Debug` impl, when the type asks for it.
pub fn expand(input: &Input) -> TokenStream {
    if input.attrs.debug.is_none() {
        return TokenStream::new();
    }
    let (krate, ident) = (&input.krate, input.ident);
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let params = Params::new(input.generics);
    let mut bounds = Bounds::default();
    let f = crate::model::formatter();
    let arms = input.variants.iter().map(|v| {
        let name = v.ident.to_string();
        let pattern = v.bind_all();
        let named = v.fields.iter().any(|f| f.name.is_some());
        let fields = v.fields.iter().map(|field| {
            let binding = &field.binding;
            let value = if field.attrs.redact.is_some() {
                quote!(&#krate::__private::Redacted)
            } else {
                if params.mentioned_in(field.ty) {
                    bounds.add(field.ty, quote!(::core::fmt::Debug));
                }
                quote!(#binding)
            };
            match &field.name {
                Some(field_name) => quote!(.field(#field_name, #value)),
                None => quote!(.field(#value)),
            }
        });
        let fields: Vec<TokenStream> = fields.collect();
        let body = if v.fields.is_empty() {
            quote!(#f.write_str(#name))
        } else if named {
            quote!(#f.debug_struct(#name) #(#fields)* .finish())
        } else {
            quote!(#f.debug_tuple(#name) #(#fields)* .finish())
        };
        quote!(#pattern => #body,)
    });
    let arms: Vec<TokenStream> = arms.collect();
    let body = input.match_self(arms);
    let where_clause = bounds.where_clause(input.generics);
    quote! {
        #[automatically_derived]
        impl #impl_generics ::core::fmt::Debug for #ident #ty_generics #where_clause {
            #[allow(unused_variables)]
            fn fmt(&self, #f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                #body
            }
        }
    }
}
