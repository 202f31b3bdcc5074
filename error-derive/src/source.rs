//! Causes: which field is a variant's `#[source]` (or `#[from]`, or named `source`), the
//! generated `Error::source()`, the `: {cause}` of Display, and the `From` impls, which fill
//! a `#[location]` field with where the `?` was.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use syn::{GenericArgument, PathArguments, Type};

use crate::model::{Body, Field, Input, Variant};
use crate::transparent::{self, Ask};

/// The field a `From` impl fills: a `#[from]` field that is its variant's only field but
/// for `#[location]` fields.
pub fn from_field(fields: &[Field]) -> Option<usize> {
    let mut others = fields.iter().filter(|f| f.attrs.location.is_none());
    match (others.next(), others.next()) {
        (Some(only), None) if only.attrs.from.is_some() => Some(only.index),
        _ => None,
    }
}

/// The fields marked as the cause, in order: `#[source]`, or `#[from]` when it is the
/// only field but for `#[location]` ones (beside other fields, `#[from]` is a misuse of
/// its own).
pub fn marked<'f, 'a>(
    fields: &'f [Field<'a>],
) -> impl Iterator<Item = (&'f Field<'a>, proc_macro2::Span)> {
    let from_misused = fields.iter().filter(|f| f.attrs.location.is_none()).count() > 1
        && fields.iter().any(|f| f.attrs.from.is_some());
    fields.iter().filter_map(move |f| match f.attrs.source {
        Some(span) => Some((f, span)),
        None if from_misused => None,
        None => f.attrs.from.map(|span| (f, span)),
    })
}

/// The cause field: the first one marked, else one named `source` (not `r#source`, as
/// with thiserror: the raw name says the field is only called so).
pub fn source_field(fields: &[Field]) -> Option<usize> {
    match marked(fields).next() {
        Some((first, _)) => Some(first.index),
        None => fields
            .iter()
            .find(|f| matches!(&f.member, syn::Member::Named(n) if n == "source"))
            .map(|f| f.index),
    }
}

/// Whether `ty` is `&'static Location<'static>` (any path ending in `Location`, as a
/// derive sees types by their names).
pub fn is_location(ty: &Type) -> bool {
    let Type::Reference(r) = ty else {
        return false;
    };
    let Type::Path(path) = &*r.elem else {
        return false;
    };
    let Some(last) = path.path.segments.last() else {
        return false;
    };
    let static_arg = match &last.arguments {
        PathArguments::AngleBracketed(a) => {
            matches!(a.args.iter().collect::<Vec<_>>().as_slice(), [GenericArgument::Lifetime(l)] if l.ident == "static")
        }
        _ => false,
    };
    r.mutability.is_none()
        && r.lifetime.as_ref().is_some_and(|l| l.ident == "static")
        && path.qself.is_none()
        && last.ident == "Location"
        && static_arg
}

/// Whether a cause of type `ty` (or `Option<ty>`) is held by reference (`&'static E`),
/// which the chain sees as `E` itself.
pub fn held_by_reference(ty: &Type) -> bool {
    matches!(option_inner(ty).unwrap_or(ty), Type::Reference(_))
}

/// Whether the cause field is an `Option<...>`, which may hold no cause.
pub fn is_option(ty: &Type) -> bool {
    option_inner(ty).is_some()
}

/// `E` in `Option<E>`.
pub fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    let PathArguments::AngleBracketed(a) = &last.arguments else {
        return None;
    };
    match (path.qself.is_none() && last.ident == "Option", a.args.len()) {
        (true, 1) => match a.args.first() {
            Some(GenericArgument::Type(inner)) => Some(inner),
            _ => None,
        },
        _ => None,
    }
}

/// The pattern binding a variant's cause, and its value as `&dyn Error`, optional or not.
pub fn cause(v: &Variant, index: usize, krate: &TokenStream) -> (TokenStream, TokenStream, bool) {
    let f = &v.fields[index];
    let (pat, binding, path) = (f.pattern(), &f.binding, &v.path);
    let pattern = quote!(#path { #pat, .. });
    let inner = option_inner(f.ty);
    let optional = inner.is_some();
    // Method syntax, so that a `Box<dyn Error>` cause auto-derefs to the trait object;
    // spanned at the field's type, where rustc then reports a cause that is not an error.
    let as_dyn_error = Ident::new("as_dyn_error", Span::call_site().located_at(f.type_span()));
    // A cause held by reference (`&'static T`) is `T` itself in the chain, as it is
    // through `Box`, `Arc` or `Rc`, so that classification finds it.
    let deref = held_by_reference(f.ty).then(|| quote!(**));
    let value = if optional {
        quote!(#binding.as_ref().map(|__agent_cause| {
            use #krate::__private::AsDynError as _;
            (#deref __agent_cause).#as_dyn_error()
        }))
    } else {
        quote!({
            use #krate::__private::AsDynError as _;
            (#deref #binding).#as_dyn_error()
        })
    };
    (pattern, value, optional)
}

/// `fn source(&self)` of `std::error::Error`.
pub fn expand_source(input: &Input) -> TokenStream {
    let krate = &input.krate;
    let arms = input.variants.iter().map(|v| match &v.body {
        Body::Transparent(t) => Some(transparent::arm(input, v, t, Ask::Source)),
        Body::Classified(c) => {
            let (pattern, value, optional) = cause(v, c.source?, krate);
            Some(if optional {
                quote!(#pattern => #value,)
            } else {
                quote!(#pattern => ::core::option::Option::Some(#value),)
            })
        }
    });
    let body = input.match_or(arms, quote!(::core::option::Option::None));
    quote! {
        fn source(&self) -> ::core::option::Option<&(dyn ::core::error::Error + 'static)> {
            #body
        }
    }
}

/// One `From` impl per `#[from]` field; a `#[location]` field beside it is filled with the
/// caller's location (`#[track_caller]`), so that `?` records where it converted the error.
pub fn expand_from(input: &Input) -> TokenStream {
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let ident = input.ident;
    input
        .variants
        .iter()
        .filter_map(|v| {
            let f = &v.fields[v.from?];
            let (member, path) = (&f.member, &v.path);
            // `From<E>` for an `Option<E>` field, as thiserror: the cause is then present.
            let (ty, value) = match option_inner(f.ty) {
                Some(inner) => (inner, quote!(::core::option::Option::Some(source))),
                None => (f.ty, quote!(source)),
            };
            let marked = v.fields.iter().filter(|f| f.attrs.location.is_some());
            // A mistyped location is reported on its own (this runs for input with errors
            // too): no `From` to fail again on it.
            if marked.clone().any(|f| !is_location(f.ty)) {
                return None;
            }
            let locations: Vec<&syn::Member> = marked.map(|f| &f.member).collect();
            let track = (!locations.is_empty()).then(|| quote!(#[track_caller]));
            Some(quote! {
                #[automatically_derived]
                impl #impl_generics ::core::convert::From<#ty> for #ident #ty_generics #where_clause {
                    #[inline]
                    #track
                    fn from(source: #ty) -> Self {
                        #path {
                            #member: #value,
                            #(#locations: ::core::panic::Location::caller(),)*
                        }
                    }
                }
            })
        })
        .collect()
}

/// `fn location(&self)` of `AgentError`, when a variant has a `#[location]` field.
pub fn expand_location(input: &Input) -> TokenStream {
    let arms = input.variants.iter().map(|v| {
        let f = v.fields.iter().find(|f| f.attrs.location.is_some())?;
        let (pat, binding, path) = (f.pattern(), &f.binding, &v.path);
        Some(quote!(#path { #pat, .. } => ::core::option::Option::Some(*#binding),))
    });
    let arms: Vec<Option<TokenStream>> = arms.collect();
    if arms.iter().all(Option::is_none) {
        return TokenStream::new();
    }
    let body = input.match_or(arms, quote!(::core::option::Option::None));
    quote! {
        fn location(&self) -> ::core::option::Option<&'static ::core::panic::Location<'static>> {
            #body
        }
    }
}
