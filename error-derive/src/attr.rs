//! From syntax to the model: the one table of `#[agent(...)]` keys (name, where it is
//! allowed, parser in the key's concept file), the field attributes, and the reading of
//! the type and each variant into `model`. Rules across keys are checked in `validate`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned as _;
use syn::{Attribute, Data, DeriveInput, Fields, Member};

use crate::bounds::Params;
use crate::errors::Errors;
use crate::message;
use crate::model::{
    AgentAttrs, Body, Classified, ErrorAttr, Field, FieldAttrs, Input, Place, Transparent, Variant,
};
use crate::parse::{self, Arg, Key, On, Sp};
use crate::{catalog, code, hint, op, retry, source};

/// Every key of `#[agent(...)]`: name, where it may stand, an example of its value, and
/// its parser (in the key's concept file). The order is the order of "expected one of".
#[rustfmt::skip]
const KEYS: &[Key<AgentAttrs>] = &[
    Key { name: "op", on: On::Both, example: "op = \"llm.generate\"", parse: |a, arg| arg.set_string(&mut a.op) },
    Key { name: "retry", on: On::Both, example: "", parse: retry::parse_retry },
    Key { name: "rename_all", on: On::Container, example: "rename_all = \"snake_case\"", parse: code::parse_rename_all },
    Key { name: "namespace", on: On::Container, example: "namespace = \"auth\"", parse: |a, arg| arg.set_string(&mut a.namespace) },
    Key { name: "docs_url", on: On::Container, example: "docs_url = \"https://example.com/errors/{code}\"", parse: |a, arg| arg.set_string(&mut a.docs_url) },
    Key { name: "no_eq", on: On::Container, example: "", parse: |a, arg| arg.flag(&mut a.no_eq) },
    Key { name: "debug", on: On::Container, example: "", parse: |a, arg| arg.flag(&mut a.debug) },
    Key { name: "miette", on: On::Container, example: "", parse: |a, arg| arg.flag(&mut a.miette) },
    Key { name: "display", on: On::Both, example: "display = \"message\"", parse: message::parse_display },
    Key { name: "crate", on: On::Container, example: "crate = \"agent_error\"", parse: parse_crate },
    Key { name: "code", on: On::Variant, example: "code = \"rate_limit\"", parse: |a, arg| arg.set_string(&mut a.code) },
    Key { name: "retryable", on: On::Variant, example: "", parse: retry::parse_retryable },
    Key { name: "rate_limited", on: On::Variant, example: "", parse: |a, arg| arg.flag(&mut a.rate_limited) },
    Key { name: "hint", on: On::Variant, example: "hint = \"lower the request rate\"", parse: hint::parse },
    Key { name: "recovery", on: On::Variant, example: "recovery = \"replan\"", parse: retry::parse_recovery },
    Key { name: "status", on: On::Variant, example: "status = 503", parse: catalog::parse_status },
    Key { name: "since", on: On::Variant, example: "since = \"1.2\"", parse: |a, arg| arg.set_string(&mut a.since) },
    Key { name: "deprecated", on: On::Variant, example: "deprecated = \"use `timeout` instead\"", parse: |a, arg| arg.set_string(&mut a.deprecated) },
];

/// `crate = "path"`: the path to the runtime in generated code.
fn parse_crate(out: &mut AgentAttrs, arg: &mut Arg) -> syn::Result<()> {
    let lit = arg.string()?;
    match lit.parse::<syn::Path>() {
        Ok(path) => arg.set(
            &mut out.krate,
            Sp {
                value: path,
                span: lit.span(),
            },
        ),
        Err(_) => arg.error(
            lit.span(),
            "`crate` takes a path in a string, like crate = \"my_crate::agent_error\"",
        ),
    }
    Ok(())
}

/// Whether a key written `on` may stand at `place`.
fn allowed(place: Place, on: On) -> bool {
    match place {
        Place::Enum => on != On::Variant,
        Place::Variant => on != On::Container,
        Place::Struct => true,
    }
}

/// What to say about a key that is not allowed where it stands.
fn misplaced(key: &str, names: &[&str]) -> String {
    match KEYS.iter().find(|k| k.name == key).map(|k| k.on) {
        Some(On::Container) => format!(
            "`{key}` belongs on the enum, not on a variant; move it to the enum's #[agent(...)]"
        ),
        Some(On::Variant) => format!(
            "`{key}` belongs on a variant, not on the enum; move it to each variant it applies to"
        ),
        _ => parse::unknown_key(key, &format!("`{key}`"), "#[agent(...)]", names),
    }
}

/// Parses every `#[agent(...)]` in `attrs`, reporting misplaced, unknown and repeated keys.
fn agent_attrs(attrs: &[Attribute], place: Place, errors: &mut Errors) -> AgentAttrs {
    let mut out = AgentAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("agent")) {
        if attr.meta.require_list().is_err() {
            errors.push(syn::Error::new_spanned(
                attr,
                "write the keys inside parentheses: #[agent(op = \"llm.generate\", code = \"timeout\")]",
            ));
            continue;
        }
        let result = attr.parse_nested_meta(|meta| {
            let allowed = |on| allowed(place, on);
            parse::dispatch(&meta, KEYS, allowed, misplaced, &mut out, errors)
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    out
}

/// A variant (or the struct) before reading: name, fields, attributes, path in patterns.
pub struct RawVariant<'a> {
    ident: &'a syn::Ident,
    fields: &'a Fields,
    attrs: &'a [Attribute],
    path: TokenStream,
}

fn raw_variant(v: &syn::Variant) -> RawVariant<'_> {
    let ident = &v.ident;
    let path = quote!(Self::#ident);
    RawVariant {
        ident,
        fields: &v.fields,
        attrs: &v.attrs,
        path,
    }
}

/// The type with its container attributes, and its variants still to read; `None` for
/// a union (reported).
pub fn container<'a>(
    input: &'a DeriveInput,
    errors: &mut Errors,
) -> Option<(Input<'a>, Vec<RawVariant<'a>>)> {
    let (place, raw) = match &input.data {
        Data::Enum(data) => (Place::Enum, data.variants.iter().map(raw_variant).collect()),
        Data::Struct(data) => (
            Place::Struct,
            vec![RawVariant {
                ident: &input.ident,
                fields: &data.fields,
                attrs: &input.attrs,
                path: quote!(Self),
            }],
        ),
        Data::Union(data) => {
            errors.at(
                data.union_token.span,
                "#[derive(AgentError)] works on enums and structs, not unions; declare the error as an enum, one variant per failure",
            );
            return None;
        }
    };
    let attrs = agent_attrs(&input.attrs, place, errors);
    let krate = match &attrs.krate {
        Some(path) => {
            let path = &path.value;
            quote!(#path)
        }
        None => quote!(::agent_error),
    };
    let (default_message, transparent_enum) = match place {
        Place::Enum => enum_message(&input.attrs, errors),
        _ => (None, None),
    };
    let misplaced_field_attrs = match place {
        Place::Enum => field_attrs_in(&input.attrs),
        // A struct's attributes are its variant's, read with it.
        _ => Vec::new(),
    };
    let model = Input {
        derived_eq: derived(&input.attrs, &["PartialEq", "Eq"]),
        derived_debug: derived(&input.attrs, &["Debug"]),
        ident: &input.ident,
        generics: &input.generics,
        place,
        attrs,
        default_message,
        transparent_enum,
        misplaced_field_attrs,
        krate,
        variants: Vec::new(),
    };
    Some((model, raw))
}

/// The paths of `#[derive(...)]` attributes whose last segment is one of `names`.
fn derived(attrs: &[Attribute], names: &[&str]) -> Vec<syn::Path> {
    type Paths = syn::punctuated::Punctuated<syn::Path, syn::Token![,]>;
    attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        // A derive list that cannot be read is rustc's to report.
        .filter_map(|a| a.parse_args_with(Paths::parse_terminated).ok())
        .flat_map(|paths| paths.into_iter())
        .filter(|path| {
            path.segments
                .last()
                .is_some_and(|s| names.iter().any(|n| s.ident == n))
        })
        .collect()
}

/// An enum's `#[error("...")]`, the message of its variants without their own, as in
/// thiserror; or where `#[error(transparent)]` was written on the enum.
fn enum_message(attrs: &[Attribute], errors: &mut Errors) -> (Option<ErrorAttr>, Option<Span>) {
    match message::error_attr(attrs, errors) {
        Some(ErrorAttr::Transparent(span)) => (None, Some(span)),
        message => (message, None),
    }
}

/// Reads one variant (or the struct), reporting what cannot be read; the rules across
/// its keys are `validate`'s.
pub fn variant<'a>(input: &Input<'a>, raw: RawVariant<'a>, errors: &mut Errors) -> Variant<'a> {
    let attrs = match input.place {
        // On a struct the container's attributes are the variant's own, read once.
        Place::Struct => input.attrs.clone(),
        _ => agent_attrs(raw.attrs, Place::Variant, errors),
    };
    let fields = fields(raw.fields, errors);
    let docs = doc_lines(raw.attrs);
    // The variant's own `#[error]`, else the enum's, else (in `message::of`) its doc comment.
    let error = message::error_attr(raw.attrs, errors).or_else(|| input.default_message.clone());
    let body = match error {
        Some(ErrorAttr::Transparent(span)) => {
            Body::Transparent(transparent(input, raw.ident, span, &attrs, &fields))
        }
        error => {
            let classified = classified(input, raw.ident, error, &docs, &attrs, &fields, errors);
            Body::Classified(Box::new(classified))
        }
    };
    Variant {
        ident: raw.ident,
        path: raw.path,
        from: source::from_field(&fields),
        misplaced_field_attrs: field_attrs_in(raw.attrs),
        fields,
        docs,
        attrs,
        body,
    }
}

fn transparent(
    input: &Input,
    ident: &syn::Ident,
    span: proc_macro2::Span,
    attrs: &AgentAttrs,
    fields: &[Field],
) -> Transparent {
    let container = &input.attrs;
    Transparent {
        span,
        code: code::with_namespace(code::default_code(ident, container), container),
        op: op::own(input.place, attrs)
            .or(container.op.as_ref())
            .map(|op| op.value.clone()),
        generic: fields
            .first()
            .is_some_and(|f| Params::new(input.generics).mentioned_in(f.ty)),
    }
}

/// The facts of a classified variant; its message and hints are checked against its fields.
fn classified(
    input: &Input,
    ident: &syn::Ident,
    error: Option<ErrorAttr>,
    docs: &[Sp<String>],
    attrs: &AgentAttrs,
    fields: &[Field],
    errors: &mut Errors,
) -> Classified {
    let (owner, krate, container) = (ident.to_string(), &input.krate, &input.attrs);
    let source = source::source_field(fields);
    let code = code::of(ident, container, attrs);
    let status = retry::status_field(fields);
    // A variant that says nothing about retrying and has no cause is classified by the
    // status it holds, else by its code when the shared vocabulary retries it.
    // A status that may be absent (an `Option`) leaves the code to classify it when absent.
    let silent = source.is_none() && !attrs.says_retry();
    let from_status = silent && status.is_some();
    let optional = status.is_some_and(|i| retry::status_is_optional(&fields[i]));
    let vocabulary = (silent && (!from_status || optional))
        .then(|| retry::vocabulary_policy(input.place, container, &code.value))
        .flatten();
    let policy = retry::policy(input.place, container, attrs).or(vocabulary);
    Classified {
        from_cause: source.is_some() && !attrs.says_retry(),
        status,
        from_status,
        from_code: vocabulary.is_some() && !from_status,
        message: message::of(error, docs, fields, &owner, krate, errors),
        hints: hint::of(attrs, fields, &owner, krate, errors),
        code,
        op: op::of(input.place, container, attrs, fields),
        recovery: attrs.recovery.as_ref().map_or_else(
            || crate::retry::default_recovery(policy.as_ref()),
            |r| r.value,
        ),
        policy,
        source,
        retry_after: retry::retry_after(fields),
    }
}

fn fields<'a>(fields: &'a Fields, errors: &mut Errors) -> Vec<Field<'a>> {
    let field = |(index, f): (usize, &'a syn::Field)| {
        let attrs = field_attrs(&f.attrs, errors);
        let Some(name) = &f.ident else {
            let binding = format_ident!("_{}", index);
            let member = Member::Unnamed(index.into());
            return Field {
                index,
                name: None,
                member,
                binding,
                ty: &f.ty,
                attrs,
            };
        };
        let text = name.to_string();
        let unraw = text.strip_prefix("r#").map(str::to_string);
        let binding = match &unraw {
            Some(bare) => format_ident!("__agent_{}", bare),
            None => name.clone(),
        };
        let member = Member::Named(name.clone());
        let name = Some(unraw.unwrap_or(text));
        Field {
            index,
            name,
            member,
            binding,
            ty: &f.ty,
            attrs,
        }
    };
    fields.iter().enumerate().map(field).collect()
}

/// The attributes among `attrs` that belong on a field.
fn field_attrs_in(attrs: &[Attribute]) -> Vec<&Attribute> {
    const FIELD_ONLY: [&str; 7] = [
        "source",
        "from",
        "op",
        "retry_after",
        "redact",
        "status",
        "location",
    ];
    attrs
        .iter()
        .filter(|a| FIELD_ONLY.iter().any(|name| a.path().is_ident(name)))
        .collect()
}

/// The field attributes of one field.
fn field_attrs(attrs: &[Attribute], errors: &mut Errors) -> FieldAttrs {
    let mut out = FieldAttrs::default();
    for attr in attrs {
        let Some(name) = attr.path().get_ident().map(|i| i.to_string()) else {
            continue;
        };
        let slot = match name.as_str() {
            "source" => &mut out.source,
            "from" => &mut out.from,
            "op" => &mut out.op,
            "retry_after" => &mut out.retry_after,
            "redact" => &mut out.redact,
            "status" => &mut out.status,
            "location" => &mut out.location,
            "error" => {
                let transparent = attr
                    .parse_args::<syn::Ident>()
                    .is_ok_and(|i| i == "transparent");
                out.error = Some((attr.path().span(), transparent));
                continue;
            }
            "agent" => {
                errors.push(syn::Error::new_spanned(
                    attr,
                    "#[agent(...)] goes on the type or a variant; on a field use #[source], #[from], #[op], #[retry_after], #[status], #[redact] or #[location]",
                ));
                continue;
            }
            _ => continue,
        };
        if attr.meta.require_path_only().is_err() {
            errors.push(syn::Error::new_spanned(
                attr,
                format!("#[{name}] takes no arguments; write #[{name}]"),
            ));
            continue;
        }
        // The attribute's name, which later errors point at (a span cannot cover `#[...]` on stable).
        let span = attr.path().span();
        parse::set(slot, span, &format!("#[{name}]"), span, errors);
    }
    out
}

/// The lines of the `///` doc comments, each without the one leading space.
fn doc_lines(attrs: &[Attribute]) -> Vec<Sp<String>> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s),
                _ => None,
            },
            _ => None,
        })
        .flat_map(|s| {
            let span = s.span();
            s.value()
                .split('\n')
                .map(|line| Sp {
                    value: line
                        .strip_prefix(' ')
                        .unwrap_or(line)
                        .trim_end()
                        .to_string(),
                    span,
                })
                .collect::<Vec<_>>()
        })
        .collect()
}
