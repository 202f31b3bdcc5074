//! Parses the attributes (`#[agent(...)]`, `#[error(...)]`, field attributes, doc comments)
//! into plain values with their spans. Placement and cross-checks live in `model.rs`.

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::spanned::Spanned as _;
use syn::{Attribute, Ident, LitFloat, LitInt, LitStr, Token};

use crate::duration::{self, Nanos};
use crate::errors::Errors;

/// A value with the span of the token it came from.
#[derive(Clone)]
pub struct Sp<T> {
    pub value: T,
    pub span: Span,
}

/// Where an `#[agent(...)]` attribute stands; it decides which keys are allowed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Enum,
    Struct,
    Variant,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum RenameRule {
    Snake,
    ScreamingSnake,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Jitter {
    None,
    Full,
    Equal,
    Decorrelated,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Recovery {
    Retry,
    Replan,
    Fallback,
    Compact,
    Abort,
    Escalate,
}

/// `retry(...)` as written.
#[derive(Clone, Default)]
pub struct RetryArgs {
    pub attempts: Option<Sp<u32>>,
    pub base: Option<Sp<Nanos>>,
    pub max: Option<Sp<Nanos>>,
    pub factor: Option<Sp<f64>>,
    pub jitter: Option<Sp<Jitter>>,
    pub max_wait: Option<Sp<Nanos>>,
}

/// Every key of `#[agent(...)]`, as written, at any place.
#[derive(Default)]
pub struct AgentAttrs {
    pub op: Option<Sp<String>>,
    pub code: Option<Sp<String>>,
    pub rename_all: Option<Sp<RenameRule>>,
    pub namespace: Option<Sp<String>>,
    pub retryable: Option<Span>,
    pub rate_limited: Option<Span>,
    pub retry: Option<Sp<RetryArgs>>,
    pub hints: Vec<LitStr>,
    pub recovery: Option<Sp<Recovery>>,
    pub status: Option<Sp<u16>>,
    pub docs_url: Option<Sp<String>>,
    pub since: Option<Sp<String>>,
    pub deprecated: Option<Sp<String>>,
    pub no_eq: Option<Span>,
    pub krate: Option<Sp<syn::Path>>,
}

impl AgentAttrs {
    /// The keys that make a variant retryable, with their spans.
    pub fn retry_markers(&self) -> Vec<(&'static str, Span)> {
        let mut keys = Vec::new();
        if let Some(span) = self.retryable {
            keys.push(("retryable", span));
        }
        if let Some(span) = self.rate_limited {
            keys.push(("rate_limited", span));
        }
        if let Some(retry) = &self.retry {
            keys.push(("retry", retry.span));
        }
        keys
    }
}

/// `#[error(...)]` as written.
pub enum ErrorAttr {
    Transparent(Span),
    Format(Format),
}

/// A format string with its extra arguments, as in `#[error("{} of {max}", .count, max = 3)]`.
#[derive(Clone)]
pub struct Format {
    pub lit: LitStr,
    pub positional: Vec<TokenStream>,
    pub named: Vec<(Ident, TokenStream)>,
}

/// Field attributes, each with the span of the attribute.
#[derive(Default)]
pub struct FieldAttrs {
    pub source: Option<Span>,
    pub from: Option<Span>,
    pub op: Option<Span>,
    pub retry_after: Option<Span>,
    pub redact: Option<Span>,
}

const CONTAINER_ONLY: &[&str] = &["rename_all", "namespace", "docs_url", "no_eq", "crate"];
const VARIANT_ONLY: &[&str] = &[
    "code",
    "retryable",
    "rate_limited",
    "hint",
    "recovery",
    "status",
    "since",
    "deprecated",
];
const EVERYWHERE: &[&str] = &["op", "retry"];

fn allowed(place: Place) -> Vec<&'static str> {
    let mut keys: Vec<&str> = EVERYWHERE.to_vec();
    if place != Place::Variant {
        keys.extend_from_slice(CONTAINER_ONLY);
    }
    if place != Place::Enum {
        keys.extend_from_slice(VARIANT_ONLY);
    }
    keys
}

/// Parses every `#[agent(...)]` in `attrs`, reporting misplaced, unknown and repeated keys.
pub fn agent_attrs(attrs: &[Attribute], place: Place, errors: &mut Errors) -> AgentAttrs {
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
            let key = meta
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_else(|| {
                    let path = &meta.path;
                    quote::quote!(#path).to_string().replace(' ', "")
                });
            let key = if meta.path.is_ident("crate") { "crate".to_string() } else { key };
            let span = meta.path.span();
            let keys = allowed(place);
            if !keys.contains(&key.as_str()) {
                let message = if CONTAINER_ONLY.contains(&key.as_str()) {
                    format!("`{key}` belongs on the enum, not on a variant; move it to the enum's #[agent(...)]")
                } else if VARIANT_ONLY.contains(&key.as_str()) {
                    format!(
                        "`{key}` belongs on a variant, not on the enum; move it to each variant it applies to"
                    )
                } else if let Some(near) = closest(&key, &keys) {
                    format!("unknown key `{key}` in #[agent(...)]; did you mean `{near}`?")
                } else {
                    format!("unknown key `{key}` in #[agent(...)]; expected one of: {}", keys.join(", "))
                };
                errors.at(span, message);
                return skip_value(&meta);
            }
            parse_key(&mut out, &key, span, &meta, errors)
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    out
}

fn repeated(errors: &mut Errors, key: &str, span: Span) {
    errors.at(span, format!("`{key}` is given twice; keep one"));
}

fn set<T>(slot: &mut Option<T>, value: T, key: &str, span: Span, errors: &mut Errors) {
    if slot.is_some() {
        repeated(errors, key, span);
    } else {
        *slot = Some(value);
    }
}

fn parse_key(
    out: &mut AgentAttrs,
    key: &str,
    span: Span,
    meta: &ParseNestedMeta,
    errors: &mut Errors,
) -> syn::Result<()> {
    match key {
        "op" | "code" | "namespace" | "docs_url" | "since" | "deprecated" => {
            let lit = string_value(meta, key)?;
            let value = Sp {
                value: lit.value(),
                span: lit.span(),
            };
            let slot = match key {
                "op" => &mut out.op,
                "code" => &mut out.code,
                "namespace" => &mut out.namespace,
                "docs_url" => &mut out.docs_url,
                "since" => &mut out.since,
                _ => &mut out.deprecated,
            };
            set(slot, value, key, span, errors);
        }
        "retryable" | "rate_limited" | "no_eq" => {
            if meta.input.peek(Token![=]) || meta.input.peek(syn::token::Paren) {
                errors.at(
                    span,
                    format!("`{key}` is a flag and takes no value: write `{key}` alone"),
                );
                return skip_value(meta);
            }
            let slot = match key {
                "retryable" => &mut out.retryable,
                "rate_limited" => &mut out.rate_limited,
                _ => &mut out.no_eq,
            };
            set(slot, span, key, span, errors);
        }
        "hint" => {
            let lit = string_value(meta, key)?;
            let text = lit.value();
            if text.trim().is_empty() {
                errors.at(lit.span(), "a hint cannot be empty: say what to do, like hint = \"lower the request rate\"");
            } else if text.contains('\n') || text.contains('\r') {
                errors.at(
                    lit.span(),
                    "a hint is one line; split it into several `hint = \"...\"` keys, one per line",
                );
            } else {
                out.hints.push(lit);
            }
        }
        "rename_all" => {
            let lit = string_value(meta, key)?;
            let rule = match lit.value().as_str() {
                "snake_case" => RenameRule::Snake,
                "SCREAMING_SNAKE_CASE" => RenameRule::ScreamingSnake,
                other => {
                    errors.at(
                        lit.span(),
                        format!("unknown rename_all rule `{other}`; expected \"snake_case\" or \"SCREAMING_SNAKE_CASE\""),
                    );
                    return Ok(());
                }
            };
            set(
                &mut out.rename_all,
                Sp {
                    value: rule,
                    span: lit.span(),
                },
                key,
                span,
                errors,
            );
        }
        "recovery" => {
            let lit = string_value(meta, key)?;
            let recovery = match lit.value().as_str() {
                "retry" => Recovery::Retry,
                "replan" => Recovery::Replan,
                "fallback" => Recovery::Fallback,
                "compact" => Recovery::Compact,
                "abort" => Recovery::Abort,
                "escalate" => Recovery::Escalate,
                other => {
                    errors.at(
                        lit.span(),
                        format!(
                            "unknown recovery `{other}`; expected one of \"retry\", \"replan\", \"fallback\", \"compact\", \"abort\", \"escalate\""
                        ),
                    );
                    return Ok(());
                }
            };
            set(
                &mut out.recovery,
                Sp {
                    value: recovery,
                    span: lit.span(),
                },
                key,
                span,
                errors,
            );
        }
        "status" => {
            let lit: LitInt = value_of(meta, "status = 503")?;
            match lit.base10_parse::<u16>() {
                Ok(code @ 100..=599) => set(
                    &mut out.status,
                    Sp {
                        value: code,
                        span: lit.span(),
                    },
                    key,
                    span,
                    errors,
                ),
                _ => errors.at(
                    lit.span(),
                    format!(
                        "`{}` is not an HTTP status: write a number from 100 to 599, like status = 503",
                        lit.base10_digits()
                    ),
                ),
            }
        }
        "crate" => {
            let lit = string_value(meta, key)?;
            match lit.parse::<syn::Path>() {
                Ok(path) => set(
                    &mut out.krate,
                    Sp {
                        value: path,
                        span: lit.span(),
                    },
                    key,
                    span,
                    errors,
                ),
                Err(_) => errors.at(
                    lit.span(),
                    "`crate` takes a path in a string, like crate = \"my_crate::agent_error\"",
                ),
            }
        }
        "retry" => {
            if !meta.input.peek(syn::token::Paren) {
                errors.at(
                    span,
                    "write the tuning in parentheses: retry(attempts = 4, base = \"100ms\", max = \"5s\"); for the defaults write `retryable`",
                );
                return skip_value(meta);
            }
            let mut args = RetryArgs::default();
            meta.parse_nested_meta(|inner| retry_key(&mut args, &inner, errors))?;
            set(&mut out.retry, Sp { value: args, span }, key, span, errors);
        }
        _ => {
            errors.at(span, format!("unknown key `{key}` in #[agent(...)]"));
            return skip_value(meta);
        }
    }
    Ok(())
}

const RETRY_KEYS: &[&str] = &["attempts", "base", "max", "factor", "jitter", "max_wait"];

/// The key a misspelled `word` most likely meant, when it is only a typo away.
fn closest<'a>(word: &str, keys: &[&'a str]) -> Option<&'a str> {
    keys.iter()
        .map(|key| (edit_distance(word, key), *key))
        .filter(|&(distance, key)| distance <= (key.len() / 3).max(1))
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, key)| key)
}

/// Levenshtein distance, counted in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

fn retry_key(args: &mut RetryArgs, meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<()> {
    let key = meta
        .path
        .get_ident()
        .map(|i| i.to_string())
        .unwrap_or_default();
    let span = meta.path.span();
    match key.as_str() {
        "attempts" => {
            let lit: LitInt = value_of(meta, "attempts = 4")?;
            match lit.base10_parse::<u32>() {
                Ok(0) => errors.at(
                    lit.span(),
                    "attempts = 0 would never make the call; attempts counts the first call too, so write 1 or more",
                ),
                Ok(n) => set(&mut args.attempts, Sp { value: n, span: lit.span() }, "attempts", span, errors),
                Err(_) => errors.at(lit.span(), "attempts is a whole number of at least 1, like attempts = 4"),
            }
        }
        "base" | "max" | "max_wait" => {
            let lit = string_value(meta, &key)?;
            match duration::parse(&lit.value()) {
                Ok(nanos) => {
                    let slot = match key.as_str() {
                        "base" => &mut args.base,
                        "max" => &mut args.max,
                        _ => &mut args.max_wait,
                    };
                    set(
                        slot,
                        Sp {
                            value: nanos,
                            span: lit.span(),
                        },
                        &key,
                        span,
                        errors,
                    );
                }
                Err(message) => errors.at(lit.span(), message),
            }
        }
        "factor" => {
            let value = meta.value()?;
            let (number, lit_span) = if value.peek(LitFloat) {
                let lit: LitFloat = value.parse()?;
                (lit.base10_parse::<f64>().ok(), lit.span())
            } else if value.peek(LitInt) {
                let lit: LitInt = value.parse()?;
                (lit.base10_parse::<f64>().ok(), lit.span())
            } else {
                let tokens = skip_rest(value);
                errors.at(
                    tokens.span(),
                    "factor is a number of at least 1, like factor = 2.0",
                );
                return Ok(());
            };
            match number {
                Some(f) if f.is_finite() && f >= 1.0 => {
                    set(&mut args.factor, Sp { value: f, span: lit_span }, "factor", span, errors)
                }
                Some(f) if f >= 1.0 => errors.at(
                    lit_span,
                    "factor is too large to be a number (it overflows f64); a factor of 2.0 doubles the delay each retry, and `max` caps it",
                ),
                _ => errors.at(
                    lit_span,
                    "factor must be at least 1 (a factor below 1 would shrink the delay); write factor = 2.0 to double it",
                ),
            }
        }
        "jitter" => {
            let lit = string_value(meta, "jitter")?;
            let jitter = match lit.value().as_str() {
                "none" => Jitter::None,
                "full" => Jitter::Full,
                "equal" => Jitter::Equal,
                "decorrelated" => Jitter::Decorrelated,
                other => {
                    errors.at(
                        lit.span(),
                        format!("unknown jitter `{other}`; expected \"none\", \"full\", \"equal\" or \"decorrelated\""),
                    );
                    return Ok(());
                }
            };
            set(
                &mut args.jitter,
                Sp {
                    value: jitter,
                    span: lit.span(),
                },
                "jitter",
                span,
                errors,
            );
        }
        _ => {
            let shown = if key.is_empty() {
                "this".to_string()
            } else {
                format!("`{key}`")
            };
            let message = match closest(&key, RETRY_KEYS) {
                Some(near) => format!("unknown key {shown} in retry(...); did you mean `{near}`?"),
                None => format!(
                    "unknown key {shown} in retry(...); expected one of: {}",
                    RETRY_KEYS.join(", ")
                ),
            };
            errors.at(span, message);
            return skip_value(meta);
        }
    }
    Ok(())
}

/// `key = "string"`, or an error saying to quote it.
fn string_value(meta: &ParseNestedMeta, key: &str) -> syn::Result<LitStr> {
    let example = match key {
        "op" => "op = \"llm.generate\"",
        "code" => "code = \"rate_limit\"",
        "namespace" => "namespace = \"auth\"",
        "docs_url" => "docs_url = \"https://example.com/errors/{code}\"",
        "since" => "since = \"1.2\"",
        "deprecated" => "deprecated = \"use `timeout` instead\"",
        "hint" => "hint = \"lower the request rate\"",
        "rename_all" => "rename_all = \"snake_case\"",
        "recovery" => "recovery = \"replan\"",
        "crate" => "crate = \"agent_error\"",
        "base" => "base = \"200ms\"",
        "max" => "max = \"30s\"",
        "max_wait" => "max_wait = \"60s\"",
        "jitter" => "jitter = \"full\"",
        _ => "key = \"value\"",
    };
    value_of(meta, example)
}

/// The value after `=`, of type `T`; on anything else an error naming an example.
fn value_of<T: syn::parse::Parse>(meta: &ParseNestedMeta, example: &str) -> syn::Result<T> {
    let key = meta
        .path
        .get_ident()
        .map(|i| i.to_string())
        .unwrap_or_else(|| "crate".into());
    if !meta.input.peek(Token![=]) {
        return Err(meta.error(format!("`{key}` needs a value: write {example}")));
    }
    let value = meta.value()?;
    let fork = value.fork();
    match fork.parse::<T>() {
        Ok(_) if fork.is_empty() || fork.peek(Token![,]) => value.parse(),
        _ => {
            let tokens = skip_rest(value);
            Err(syn::Error::new(
                tokens.span(),
                format!("expected {example}"),
            ))
        }
    }
}

/// Consumes the tokens up to the next top-level comma.
fn skip_rest(input: ParseStream) -> TokenStream {
    let mut tokens = TokenStream::new();
    while !input.is_empty() && !input.peek(Token![,]) {
        match input.parse::<TokenTree>() {
            Ok(tt) => tokens.extend([tt]),
            Err(_) => break,
        }
    }
    tokens
}

/// Skips a key's value (`= ...` or `(...)`) after it has been reported.
fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        let value = meta.value()?;
        skip_rest(value);
    } else if meta.input.peek(syn::token::Paren) {
        meta.input.parse::<TokenTree>()?;
    }
    Ok(())
}

/// Parses `#[error(...)]`; reports a second one.
pub fn error_attr(attrs: &[Attribute], errors: &mut Errors) -> Option<ErrorAttr> {
    let mut found: Option<ErrorAttr> = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("error")) {
        if found.is_some() {
            errors.push(syn::Error::new_spanned(
                attr,
                "only one #[error(...)] is allowed here; keep one",
            ));
            continue;
        }
        match attr.parse_args_with(parse_error_args) {
            Ok(parsed) => found = Some(parsed),
            Err(e) => errors.push(e),
        }
    }
    found
}

fn parse_error_args(input: ParseStream) -> syn::Result<ErrorAttr> {
    mod kw {
        syn::custom_keyword!(transparent);
    }
    if input.peek(kw::transparent) {
        let kw: kw::transparent = input.parse()?;
        if !input.is_empty() {
            return Err(input.error("#[error(transparent)] takes nothing else"));
        }
        return Ok(ErrorAttr::Transparent(kw.span));
    }
    if !input.peek(LitStr) {
        return Err(input.error(
            "expected a message, like #[error(\"deadline exceeded after {tokens} tokens\")], or #[error(transparent)]",
        ));
    }
    let lit: LitStr = input.parse()?;
    let mut format = Format {
        lit,
        positional: Vec::new(),
        named: Vec::new(),
    };
    while !input.is_empty() {
        input.parse::<Token![,]>()?;
        if input.is_empty() {
            break;
        }
        if input.peek(Ident) && input.peek2(Token![=]) && !input.peek2(Token![==]) {
            let name: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            format.named.push((name, argument(input)?));
        } else {
            if !format.named.is_empty() {
                return Err(input.error("positional arguments go before named ones"));
            }
            format.positional.push(argument(input)?);
        }
    }
    Ok(ErrorAttr::Format(format))
}

/// One format argument: the tokens up to the next top-level comma. Commas inside
/// a turbofish (`parse::<A, B>`) do not end it.
fn argument(input: ParseStream) -> syn::Result<TokenStream> {
    let mut tokens = TokenStream::new();
    let mut angle_depth = 0usize;
    let mut after_colons = false;
    while !input.is_empty() {
        if angle_depth == 0 && input.peek(Token![,]) {
            break;
        }
        let tt: TokenTree = input.parse()?;
        if let TokenTree::Punct(p) = &tt {
            match p.as_char() {
                '<' if after_colons || angle_depth > 0 => angle_depth += 1,
                '>' if angle_depth > 0 => angle_depth -= 1,
                _ => {}
            }
            after_colons = p.as_char() == ':';
        } else {
            after_colons = false;
        }
        tokens.extend([tt]);
    }
    if tokens.is_empty() {
        return Err(input.error("expected an argument"));
    }
    Ok(tokens)
}

/// The field attributes of one field.
pub fn field_attrs(attrs: &[Attribute], errors: &mut Errors) -> FieldAttrs {
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
            "agent" => {
                errors.push(syn::Error::new_spanned(
                    attr,
                    "#[agent(...)] goes on the type or a variant; on a field use #[source], #[from], #[op], #[retry_after] or #[redact]",
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
        set(slot, span, &format!("#[{name}]"), span, errors);
    }
    out
}

/// The lines of the `///` doc comments, each without the one leading space.
pub fn doc_lines(attrs: &[Attribute]) -> Vec<Sp<String>> {
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
