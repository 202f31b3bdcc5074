//! The typed model of the input: every variant with its code, op, message, hints, retry
//! policy, cause and lifecycle, checked. Expansion reads only this; nothing re-parses.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned as _;
use syn::{Data, DeriveInput, Fields, Generics, Ident, Member, Type};

use crate::attr::{self, AgentAttrs, ErrorAttr, FieldAttrs, Place, Recovery};
use crate::code;
use crate::errors::Errors;
use crate::format::{self, Template};
use crate::retry::{self, Policy};
use crate::source;
use crate::transparent::{self, Transparent};

pub struct Input<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub krate: TokenStream,
    pub no_eq: bool,
    /// `docs_url` with `{code}` still in it (for the catalog).
    pub docs_url: Option<String>,
    pub variants: Vec<Variant<'a>>,
}

impl Input<'_> {
    /// `match self { arms }`, or `match *self {}` for an enum without variants.
    pub fn match_self(&self, arms: impl IntoIterator<Item = TokenStream>) -> TokenStream {
        if self.variants.is_empty() {
            quote!(match *self {})
        } else {
            let arms = arms.into_iter();
            quote!(match self { #(#arms)* })
        }
    }

    /// `match self` with an arm for each variant that gives `Some(arm)` and `_ => default`
    /// for the others, or `default` alone when no variant needs its own arm. Each arm's
    /// body costs type-checking time in the user's crate and most variants share a value
    /// (`None`, `Vec::new()`), so a 500-variant enum builds faster.
    pub fn match_or(
        &self,
        arms: impl IntoIterator<Item = Option<TokenStream>>,
        default: TokenStream,
    ) -> TokenStream {
        self.match_with_default(arms, default, false)
    }

    /// As [`match_or`](Self::match_or), with the other variants listed
    /// (`A { .. } | B { .. } => default`) instead of `_`: for the accessors called in hot
    /// loops, because LLVM turns an exhaustive match of constants into one table lookup,
    /// and a match with `_` into range checks and branches. Slower to compile than `_`,
    /// still faster than an arm a variant.
    pub fn match_table(
        &self,
        arms: impl IntoIterator<Item = Option<TokenStream>>,
        default: TokenStream,
    ) -> TokenStream {
        self.match_with_default(arms, default, true)
    }

    fn match_with_default(
        &self,
        arms: impl IntoIterator<Item = Option<TokenStream>>,
        default: TokenStream,
        listed: bool,
    ) -> TokenStream {
        if self.variants.is_empty() {
            return quote!(match *self {});
        }
        let mut own = Vec::new();
        let mut rest = Vec::new();
        for (v, arm) in self.variants.iter().zip(arms) {
            match arm {
                Some(arm) => own.push(arm),
                None => {
                    let path = &v.path;
                    rest.push(quote!(#path { .. }));
                }
            }
        }
        if own.is_empty() {
            default
        } else if rest.is_empty() {
            quote!(match self { #(#own)* })
        } else if listed {
            quote!(match self { #(#own)* #(#rest)|* => #default, })
        } else {
            quote!(match self { #(#own)* _ => #default, })
        }
    }
}

pub struct Variant<'a> {
    pub ident: &'a Ident,
    /// `Self::Name` for an enum variant, `Self` for a struct.
    pub path: TokenStream,
    pub fields: Vec<Field<'a>>,
    /// The `///` lines (for the catalog).
    pub docs: Vec<String>,
    /// The field a `From` impl fills.
    pub from: Option<usize>,
    pub body: Body,
}

pub enum Body {
    /// `#[error(transparent)]`: everything comes from the one field.
    Transparent(Transparent),
    Classified(Box<Classified>),
}

pub struct Classified {
    pub code: String,
    /// Where the code was written (the variant's name when it is the default).
    pub code_span: Span,
    pub op: Op,
    pub message: Template,
    pub hints: Vec<Template>,
    /// `None` when the variant is not retryable.
    pub policy: Option<Policy>,
    pub recovery: Recovery,
    pub source: Option<usize>,
    pub retry_after: Option<usize>,
    /// Lifecycle and wire facts, kept for the catalog.
    pub status: Option<u16>,
    pub since: Option<String>,
    pub deprecated: Option<String>,
}

pub enum Op {
    Static(String),
    Field(usize),
}

pub struct Field<'a> {
    pub index: usize,
    /// The name without `r#`; `None` for a tuple field.
    pub name: Option<String>,
    pub member: Member,
    /// The local name the field is bound to in generated `match` arms.
    pub binding: Ident,
    pub ty: &'a Type,
    pub attrs: FieldAttrs,
}

impl Field<'_> {
    /// The binding shown at the field's type: rustc then reports a type that lacks a
    /// trait the generated code needs at the field, not at the derive. It still resolves
    /// as the binding does (which matters inside `macro_rules!`).
    pub fn binding_at_type(&self) -> Ident {
        let mut binding = self.binding.clone();
        binding.set_span(self.binding.span().located_at(self.type_span()));
        binding
    }

    /// The span of the type's name: `Error` in `std::io::Error` (a span cannot cover a
    /// whole path on stable).
    pub fn type_span(&self) -> Span {
        match self.ty {
            Type::Path(p) => p
                .path
                .segments
                .last()
                .map_or_else(|| self.ty.span(), |s| s.ident.span()),
            ty => ty.span(),
        }
    }

    /// The field in a pattern, bound to its binding: `name` or `0: _0`.
    pub fn pattern(&self) -> TokenStream {
        let binding = &self.binding;
        match &self.member {
            Member::Named(name) if name == binding => quote!(#binding),
            member => quote!(#member: #binding),
        }
    }
}

/// A variant (or the struct) before parsing: name, fields, attributes, path in patterns.
type RawVariant<'a> = (&'a Ident, &'a Fields, &'a [syn::Attribute], TokenStream);

/// Builds the model, reporting every misuse; `None` when there was any.
pub fn build<'a>(input: &'a DeriveInput, errors: &mut Errors) -> Option<Input<'a>> {
    let (place, raw): (Place, Vec<RawVariant>) = match &input.data {
        Data::Enum(data) => (
            Place::Enum,
            data.variants
                .iter()
                .map(|v| {
                    let ident = &v.ident;
                    (ident, &v.fields, &v.attrs[..], quote!(Self::#ident))
                })
                .collect(),
        ),
        Data::Struct(data) => (
            Place::Struct,
            vec![(&input.ident, &data.fields, &input.attrs[..], quote!(Self))],
        ),
        Data::Union(data) => {
            errors.at(
                data.union_token.span,
                "#[derive(AgentError)] works on enums and structs, not unions; declare the error as an enum, one variant per failure",
            );
            return None;
        }
    };

    let container = attr::agent_attrs(&input.attrs, place, errors);
    if place == Place::Enum {
        for attr in input.attrs.iter().filter(|a| a.path().is_ident("error")) {
            errors.push(syn::Error::new_spanned(
                attr,
                "#[error(...)] goes on each variant of an enum, not on the enum itself; move the message to the variants",
            ));
        }
    }
    if let Some(op) = &container.op {
        code::check_op(op, errors);
    }
    if let Some(ns) = &container.namespace
        && let Err(why) = code::check_code(&ns.value)
    {
        let fix = code::suggest_code(&ns.value)
            .map(|fixed| format!("; write namespace = \"{fixed}\""))
            .unwrap_or_default();
        errors.at(ns.span, format!("invalid namespace: {why}{fix}"));
    }
    if place == Place::Enum
        && let Some(retry) = &container.retry
    {
        retry::check_alone(retry, errors);
    }

    let krate = match &container.krate {
        Some(path) => {
            let path = &path.value;
            quote!(#path)
        }
        None => quote!(::agent_error),
    };

    let mut variants = Vec::new();
    let mut missing_ops = Vec::new();
    let mut uses_container_base = false;
    for (ident, fields, attrs, path) in raw {
        let own_parsed;
        let own = if place == Place::Struct {
            &container
        } else {
            own_parsed = attr::agent_attrs(attrs, Place::Variant, errors);
            &own_parsed
        };
        uses_container_base |= !own.retry_markers().is_empty()
            && own
                .retry
                .as_ref()
                .is_none_or(|r| r.value.base.is_none() && r.value.max.is_none());
        if let Some(v) = build_variant(
            ident,
            fields,
            attrs,
            path,
            place,
            &container,
            own,
            &krate,
            &input.generics,
            &mut missing_ops,
            errors,
        ) {
            variants.push(v);
        }
    }
    let any_with_op = variants
        .iter()
        .any(|v| matches!(v.body, Body::Classified(_)));
    code::report_missing_ops(&input.ident, &missing_ops, any_with_op, errors);
    if place == Place::Enum
        && uses_container_base
        && let Some(retry) = &container.retry
    {
        retry::check_container_base(retry, errors);
    }
    code::check_unique(&variants, errors);

    if !errors.is_empty() {
        return None;
    }
    Some(Input {
        ident: &input.ident,
        generics: &input.generics,
        krate,
        no_eq: container.no_eq.is_some(),
        docs_url: container.docs_url.map(|u| u.value),
        variants,
    })
}

#[allow(clippy::too_many_arguments)]
fn build_variant<'a>(
    ident: &'a Ident,
    raw_fields: &'a Fields,
    attrs: &'a [syn::Attribute],
    path: TokenStream,
    place: Place,
    container: &AgentAttrs,
    own: &AgentAttrs,
    krate: &TokenStream,
    generics: &Generics,
    missing_ops: &mut Vec<Ident>,
    errors: &mut Errors,
) -> Option<Variant<'a>> {
    let before = errors_len(errors);
    let fields: Vec<Field> = raw_fields
        .iter()
        .enumerate()
        .map(|(index, f)| {
            let attrs = attr::field_attrs(&f.attrs, errors);
            match &f.ident {
                Some(name) => {
                    let text = name.to_string();
                    let unraw = text.strip_prefix("r#").map(str::to_string);
                    let binding = match &unraw {
                        Some(bare) => format_ident!("__agent_{}", bare),
                        None => name.clone(),
                    };
                    Field {
                        index,
                        name: Some(unraw.unwrap_or(text)),
                        member: Member::Named(name.clone()),
                        binding,
                        ty: &f.ty,
                        attrs,
                    }
                }
                None => Field {
                    index,
                    name: None,
                    member: Member::Unnamed(index.into()),
                    binding: format_ident!("_{}", index),
                    ty: &f.ty,
                    attrs,
                },
            }
        })
        .collect();
    let docs: Vec<attr::Sp<String>> = attr::doc_lines(attrs);
    let error_attr = attr::error_attr(attrs, errors);
    let owner = ident.to_string();
    let from = source::from_field(&fields, errors);

    if let Some(ErrorAttr::Transparent(span)) = error_attr {
        let body = transparent::resolve(
            ident, span, place, container, own, &fields, generics, errors,
        );
        if errors_len(errors) > before {
            return None;
        }
        return Some(Variant {
            ident,
            path,
            fields,
            docs: docs.into_iter().map(|d| d.value).collect(),
            from,
            body: Body::Transparent(body?),
        });
    }

    let message = match error_attr {
        Some(ErrorAttr::Format(format)) => format::resolve(&format, &fields, &owner, krate, errors),
        Some(ErrorAttr::Transparent(_)) => None,
        None => match docs.iter().find(|d| !d.value.trim().is_empty()) {
            Some(line) => format::resolve(
                &format::from_text(line.value.trim(), line.span),
                &fields,
                &owner,
                krate,
                errors,
            ),
            None => {
                let what = if place == Place::Struct {
                    "struct"
                } else {
                    "variant"
                };
                errors.at(
                    ident.span(),
                    format!("{what} `{owner}` has no message: add #[error(\"...\")] or a `///` doc comment whose first line is the message"),
                );
                None
            }
        },
    };

    let hints: Vec<Template> = own
        .hints
        .iter()
        .filter_map(|lit| {
            let format = attr::Format {
                lit: lit.clone(),
                positional: Vec::new(),
                named: Vec::new(),
            };
            format::resolve(&format, &fields, &owner, krate, errors)
        })
        .collect();

    let code = code::resolve(ident, place, container, own, errors);
    let op = code::resolve_op(ident, place, container, own, &fields, missing_ops, errors);
    let policy = retry::resolve(place, container, own, errors);
    let retry_after = retry::retry_after_field(&fields, own, errors);
    let source = source::source_field(&fields, errors);
    let recovery = match &own.recovery {
        Some(r) => r.value,
        None if policy.is_some() => Recovery::Retry,
        None => Recovery::Abort,
    };

    if errors_len(errors) > before {
        return None;
    }
    Some(Variant {
        ident,
        path,
        fields,
        docs: docs.into_iter().map(|d| d.value).collect(),
        from,
        body: Body::Classified(Box::new(Classified {
            code: code.as_ref()?.0.clone(),
            code_span: code?.1,
            op: op?,
            message: message?,
            hints,
            policy,
            recovery,
            source,
            retry_after,
            status: own.status.as_ref().map(|s| s.value),
            since: own.since.as_ref().map(|s| s.value.clone()),
            deprecated: own.deprecated.as_ref().map(|s| s.value.clone()),
        })),
    })
}

/// How many errors were reported so far (to tell whether a variant added any).
fn errors_len(errors: &Errors) -> usize {
    errors.len()
}
