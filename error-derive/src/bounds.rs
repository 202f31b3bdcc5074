//! Generic bounds, added only where the generated code needs them: a field whose type
//! mentions a type parameter gets a bound for what is done with it (thiserror's rule).

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{GenericArgument, Generics, Ident, PathArguments, ReturnType, Type};

use crate::model::{Body, Input, Op};
use crate::source;

/// The type parameters in scope.
pub struct Params<'a> {
    names: Vec<&'a Ident>,
}

impl<'a> Params<'a> {
    pub fn new(generics: &'a Generics) -> Self {
        Params {
            names: generics.type_params().map(|p| &p.ident).collect(),
        }
    }

    /// Whether `ty` mentions a type parameter.
    pub fn mentioned_in(&self, ty: &Type) -> bool {
        !self.names.is_empty() && self.crawl(ty)
    }

    fn crawl(&self, ty: &Type) -> bool {
        match ty {
            Type::Path(p) => {
                if p.qself.as_ref().is_some_and(|q| self.crawl(&q.ty)) {
                    return true;
                }
                let first_is_param = p.qself.is_none()
                    && p.path
                        .segments
                        .first()
                        .is_some_and(|s| self.names.contains(&&s.ident));
                first_is_param
                    || p.path.segments.iter().any(|s| match &s.arguments {
                        PathArguments::AngleBracketed(a) => a.args.iter().any(|arg| match arg {
                            GenericArgument::Type(t) => self.crawl(t),
                            GenericArgument::AssocType(a) => self.crawl(&a.ty),
                            _ => false,
                        }),
                        PathArguments::Parenthesized(a) => {
                            a.inputs.iter().any(|t| self.crawl(&t.ty))
                                || matches!(&a.output, ReturnType::Type(_, t) if self.crawl(t))
                        }
                        PathArguments::None => false,
                    })
            }
            Type::Reference(r) => self.crawl(&r.elem),
            Type::Ptr(p) => self.crawl(&p.elem),
            Type::Slice(s) => self.crawl(&s.elem),
            Type::Array(a) => self.crawl(&a.elem),
            Type::Paren(p) => self.crawl(&p.elem),
            Type::Group(g) => self.crawl(&g.elem),
            Type::Tuple(t) => t.elems.iter().any(|t| self.crawl(t)),
            // Trait objects, impl Trait, macros: be safe and bound them.
            Type::TraitObject(_) | Type::ImplTrait(_) | Type::Macro(_) | Type::Verbatim(_) => true,
            _ => false,
        }
    }
}

/// Predicates collected for one impl, without duplicates.
#[derive(Default)]
pub struct Bounds {
    predicates: Vec<TokenStream>,
    seen: Vec<String>,
}

impl Bounds {
    pub fn add(&mut self, ty: impl ToTokens, bound: TokenStream) {
        let predicate = quote!(#ty: #bound);
        let key = predicate.to_string();
        if !self.seen.contains(&key) {
            self.seen.push(key);
            self.predicates.push(predicate);
        }
    }

    /// The where clause: the type's own predicates and these.
    pub fn where_clause(&self, generics: &Generics) -> TokenStream {
        let own = generics
            .where_clause
            .as_ref()
            .map(|w| w.predicates.iter().collect::<Vec<_>>())
            .unwrap_or_default();
        if own.is_empty() && self.predicates.is_empty() {
            return TokenStream::new();
        }
        let added = &self.predicates;
        quote!(where #(#own,)* #(#added,)*)
    }
}

/// The bounds of the three impls.
pub struct ImplBounds {
    pub display: Bounds,
    pub error: Bounds,
    pub agent: Bounds,
}

pub fn infer(input: &Input) -> ImplBounds {
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
                let t = ty(0);
                if transparent.generic {
                    b.display.add(t, quote!(::core::fmt::Display));
                    b.error.add(t, quote!(::core::error::Error));
                    b.agent.add(t, quote!(#krate::AgentError));
                }
            }
            Body::Classified(c) => {
                for (i, t) in &c.message().uses {
                    if params.mentioned_in(ty(*i)) {
                        b.display.add(ty(*i), t.path());
                        b.agent.add(ty(*i), t.path());
                    }
                }
                for h in &c.hints {
                    for (i, t) in &h.uses {
                        if params.mentioned_in(ty(*i)) {
                            b.agent.add(ty(*i), t.path());
                        }
                    }
                }
                if let Op::Field(i) = *c.op() {
                    if params.mentioned_in(ty(i)) {
                        b.display.add(ty(i), quote!(::core::convert::AsRef<str>));
                        b.agent.add(ty(i), quote!(::core::convert::AsRef<str>));
                    }
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
    source::option_inner(ty).unwrap_or(ty)
}
