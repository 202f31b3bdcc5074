//! The variant table: a type's catalog entries (`Catalog::CODES`, one a classified variant)
//! read by index. One `match` gives a variant's index, and each accessor whose answer is
//! fixed at compile time (code, policy, recovery, status, docs URL) reads the entry, so
//! that only the variants that answer at run time write an arm of their own.

use std::cell::Cell;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::Ident;

use crate::model::{Body, Input};

/// What a variant answers to one accessor.
pub enum Answer {
    /// An arm of its own: a transparent forward, or a value known only at run time.
    Arm(TokenStream),
    /// A value fixed at compile time, which its catalog entry holds too.
    Fixed(TokenStream),
}

/// The table of one type, and whether an accessor read it (then the index function is
/// written, and only then: an unused one would warn in the user's crate).
pub struct Table<'a> {
    input: &'a Input<'a>,
    read: Cell<bool>,
}

impl<'a> Table<'a> {
    pub fn new(input: &'a Input<'a>) -> Self {
        Table {
            input,
            read: Cell::new(false),
        }
    }

    /// The body of an accessor: the variants' own arms, then, for every other variant,
    /// the value they all share, or else their entry's `field`.
    pub fn body(&self, answers: Vec<Answer>, field: &str) -> TokenStream {
        let input = self.input;
        if input.variants.is_empty() {
            return quote!(match *self {});
        }
        let mut arms = Vec::new();
        let mut fixed: Vec<TokenStream> = Vec::new();
        for answer in answers {
            match answer {
                Answer::Arm(arm) => arms.push(arm),
                Answer::Fixed(value) => fixed.push(value),
            }
        }
        let shared = fixed.first().filter(|first| {
            let first = first.to_string();
            fixed.iter().all(|v| v.to_string() == first)
        });
        let rest = match shared {
            Some(value) => value.clone(),
            None if fixed.is_empty() => return quote!(match self { #(#arms)* }),
            None => {
                let krate = &input.krate;
                let field = Ident::new(field, Span::call_site());
                let index = self.index();
                quote!(<Self as #krate::catalog::Catalog>::CODES[#index].#field)
            }
        };
        if arms.is_empty() {
            rest
        } else {
            quote!(match self { #(#arms)* _ => #rest, })
        }
    }

    /// The index of `self`'s entry (of a classified variant), for a table of the type.
    pub fn index(&self) -> TokenStream {
        self.read.set(true);
        quote!(__agent_index(self))
    }

    /// `fn __agent_index`, the one `match` that gives a classified variant's entry, when an
    /// accessor reads the table. A transparent variant has no entry; its accessors forward
    /// before they ask.
    pub fn index_fn(&self) -> TokenStream {
        if !self.read.get() {
            return TokenStream::new();
        }
        let input = self.input;
        let ident = input.ident;
        let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
        let mut next = 0usize;
        let mut forwards = false;
        let mut arms = Vec::new();
        for v in &input.variants {
            match &v.body {
                Body::Classified(_) => {
                    let path = match input.place {
                        crate::model::Place::Struct => quote!(#ident),
                        _ => {
                            let name = v.ident;
                            quote!(#ident::#name)
                        }
                    };
                    let index = proc_macro2::Literal::usize_unsuffixed(next);
                    arms.push(quote!(#path { .. } => #index,));
                    next += 1;
                }
                Body::Transparent(_) => forwards = true,
            }
        }
        if forwards {
            arms.push(quote!(_ => 0,));
        }
        // Hygienic, so that no parameter of the type can be named like it.
        let e = Ident::new("__agent_e", Span::mixed_site());
        quote! {
            #[inline]
            fn __agent_index #impl_generics (#e: &#ident #ty_generics) -> usize #where_clause {
                match #e { #(#arms)* }
            }
        }
    }
}
