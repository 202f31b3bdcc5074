//! Codes and ops: the default code made from a variant's name, the grammar both follow,
//! uniqueness within a type, and the generated `code()` and `op()`.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::Ident;

use crate::attr::{AgentAttrs, Place, RenameRule, Sp};
use crate::errors::Errors;
use crate::model::{Body, Field, Input, Op, Variant};
use crate::transparent::{self, Ask};

const CODE_GRAMMAR: &str = "a code is 1 to 64 ASCII characters in `.`-separated segments, each all-lowercase like `rate_limit` or all-uppercase like `INVALID_ARGS`";

/// Why `code` breaks the grammar, if it does.
pub fn check_code(code: &str) -> Result<(), String> {
    if code.is_empty() {
        return Err(format!("the code is empty; {CODE_GRAMMAR}"));
    }
    if code.len() > 64 {
        return Err(format!(
            "`{code}` is {} characters long; {CODE_GRAMMAR}",
            code.len()
        ));
    }
    match code.split('.').find_map(segment_problem) {
        Some(problem) => Err(format!("`{code}` has {problem}; {CODE_GRAMMAR}")),
        None => Ok(()),
    }
}

/// What is wrong with one segment of a code, if anything.
fn segment_problem(segment: &str) -> Option<String> {
    let Some(first) = segment.chars().next() else {
        return Some("an empty segment".to_string());
    };
    if let Some(c) = segment
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_'))
    {
        return Some(format!("`{c}` in segment `{segment}`"));
    }
    if !first.is_ascii_alphabetic() {
        return Some(format!(
            "segment `{segment}`, which starts with `{first}` instead of a letter"
        ));
    }
    let mixed = if first.is_ascii_uppercase() {
        segment.chars().any(|c| c.is_ascii_lowercase())
    } else {
        segment.chars().any(|c| c.is_ascii_uppercase())
    };
    mixed.then(|| format!("segment `{segment}`, which mixes lowercase and uppercase"))
}

/// A valid code or op close to `text`, to suggest: `Rate-Limit` as `rate_limit`.
fn suggest(text: &str, keep: impl Fn(char) -> bool, uppercase: bool) -> String {
    let segments: Vec<String> = text
        .split('.')
        .map(|segment| {
            let mut out = String::new();
            for c in segment.chars() {
                let c = if keep(c) { c } else { '_' };
                if !(c == '_' && (out.is_empty() || out.ends_with('_'))) {
                    out.push(if uppercase {
                        c.to_ascii_uppercase()
                    } else {
                        c.to_ascii_lowercase()
                    });
                }
            }
            let start = out
                .find(|c: char| c.is_ascii_alphabetic())
                .unwrap_or(out.len());
            out[start..].trim_end_matches('_').to_string()
        })
        .filter(|segment| !segment.is_empty())
        .collect();
    segments.join(".")
}

/// A valid code close to an invalid one, in the case most of its letters are in.
pub fn suggest_code(code: &str) -> Option<String> {
    let upper = code.chars().filter(char::is_ascii_uppercase).count();
    let lower = code.chars().filter(char::is_ascii_lowercase).count();
    let fixed = suggest(code, |c| c.is_ascii_alphanumeric(), upper > lower);
    (fixed != code && check_code(&fixed).is_ok()).then_some(fixed)
}

fn op_problem(op: &str) -> bool {
    op.is_empty()
        || !op.split('.').all(|segment| {
            let mut chars = segment.chars();
            matches!(chars.next(), Some(c) if c.is_ascii_lowercase())
                && chars
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
        })
}

/// Reports `op` if it breaks the grammar of ops.
pub fn check_op(op: &Sp<String>, errors: &mut Errors) {
    if !op_problem(&op.value) {
        return;
    }
    let grammar =
        "an op is `.`-separated lowercase segments, each a letter then letters, digits, `_` or `-`";
    let fixed = suggest(&op.value, |c| c.is_ascii_alphanumeric() || c == '-', false);
    let fix = if op_problem(&fixed) {
        ", like \"llm.generate\"".to_string()
    } else {
        format!("; write op = \"{fixed}\"")
    };
    let what = if op.value.is_empty() {
        "the op is empty".to_string()
    } else {
        format!("invalid op `{}`", op.value)
    };
    errors.at(op.span, format!("{what}: {grammar}{fix}"));
}

/// The variant's final code with its span, namespace included.
pub fn resolve(
    ident: &Ident,
    place: Place,
    container: &AgentAttrs,
    own: &AgentAttrs,
    errors: &mut Errors,
) -> Option<(String, Span)> {
    let (code, span) = match &own.code {
        Some(code) => {
            if let Err(why) = check_code(&code.value) {
                let fix = suggest_code(&code.value)
                    .map(|fixed| format!("; write code = \"{fixed}\""))
                    .unwrap_or_default();
                errors.at(code.span, format!("invalid code: {why}{fix}"));
                return None;
            }
            (code.value.clone(), code.span)
        }
        None => {
            let code = default_code(ident, container);
            if let Err(why) = check_code(&code) {
                let what = if place == Place::Struct {
                    "struct"
                } else {
                    "variant"
                };
                let fixed = suggest_code(&code).unwrap_or_else(|| "...".to_string());
                errors.at(
                    ident.span(),
                    format!("the default code made from {what} `{ident}` is not valid: {why}; set one with #[agent(code = \"{fixed}\")]"),
                );
                return None;
            }
            (code, ident.span())
        }
    };
    let code = with_namespace(code, container);
    if code.len() > 64 {
        errors.at(
            span,
            format!(
                "the code `{code}` is {} characters long with its namespace; {CODE_GRAMMAR}",
                code.len()
            ),
        );
        return None;
    }
    Some((code, span))
}

/// The variant's name under the type's `rename_all`, without the namespace.
pub fn default_code(ident: &Ident, container: &AgentAttrs) -> String {
    let rule = container
        .rename_all
        .as_ref()
        .map_or(RenameRule::Snake, |r| r.value);
    rename(&ident.to_string(), rule)
}

/// `code` with the type's namespace, if it has one, joined with `.`.
pub fn with_namespace(code: String, container: &AgentAttrs) -> String {
    match &container.namespace {
        Some(ns) => format!("{}.{code}", ns.value),
        None => code,
    }
}

/// `RateLimited` as `rate_limited` or `RATE_LIMITED`; `HTTPError` as `http_error`.
pub fn rename(name: &str, rule: RenameRule) -> String {
    let name = name.strip_prefix("r#").unwrap_or(name);
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if prev != '_'
                && (prev.is_lowercase()
                    || prev.is_ascii_digit()
                    || (prev.is_uppercase() && next_lower))
            {
                out.push('_');
            }
        }
        out.push(c);
    }
    match rule {
        RenameRule::Snake => out.to_lowercase(),
        RenameRule::ScreamingSnake => out.to_uppercase(),
    }
}

/// The variant's op: its own, a field's, or the container's; reports a missing or doubled one.
pub fn resolve_op(
    ident: &Ident,
    place: Place,
    container: &AgentAttrs,
    own: &AgentAttrs,
    fields: &[Field],
    missing: &mut Vec<Ident>,
    errors: &mut Errors,
) -> Option<Op> {
    let mut op_fields = fields
        .iter()
        .filter_map(|f| f.attrs.op.map(|span| (f, span)));
    let field = op_fields.next();
    if let Some((f, _)) = field
        && let Some(redact) = f.attrs.redact
    {
        errors.at(
            redact,
            format!(
                "the #[op] field `{}` cannot be #[redact]: the op names the operation in every rendering, public ones included, and is not secret; remove #[redact], or keep the secret in another field and name the operation with `op = \"...\"`",
                field_name(f)
            ),
        );
    }
    for (f, span) in op_fields {
        errors.at(
            span,
            format!(
                "a variant has one #[op] field; `{}` is a second one, remove one of them",
                field_name(f)
            ),
        );
    }
    let own_op = own.op.as_ref().filter(|_| place == Place::Enum);
    if let Some(op) = own_op {
        check_op(op, errors);
    }
    match (field, own_op.or(container.op.as_ref())) {
        (Some((f, span)), _) if own.op.is_some() => {
            errors.at(
                span,
                format!(
                    "the op is given twice: by `op = \"{}\"` and by the #[op] field `{}`; keep one",
                    own.op
                        .as_ref()
                        .map(|o| o.value.as_str())
                        .unwrap_or_default(),
                    field_name(f)
                ),
            );
            None
        }
        (Some((f, _)), _) => Some(Op::Field(f.index)),
        (None, Some(op)) => Some(Op::Static(op.value.clone())),
        (None, None) if place == Place::Enum => {
            // Reported by `report_missing_ops`, once for the enum when no variant has one.
            missing.push(ident.clone());
            None
        }
        (None, None) => {
            errors.at(
                ident.span(),
                format!("no op for struct `{ident}`: add #[agent(op = \"llm.generate\")] to the struct, or mark a field #[op] to take it from the field at run time"),
            );
            None
        }
    }
}

/// Reports the enum variants without an op: once, at the enum, when none of its
/// classified variants has one; otherwise at each variant.
pub fn report_missing_ops(
    enum_ident: &Ident,
    missing: &[Ident],
    any_with_op: bool,
    errors: &mut Errors,
) {
    if missing.len() > 1 && !any_with_op {
        let names: Vec<String> = missing.iter().map(|i| format!("`{i}`")).collect();
        errors.at(
            enum_ident.span(),
            format!(
                "no op for any variant of `{enum_ident}` ({}): add #[agent(op = \"llm.generate\")] to the enum, or give each variant its own `op` or #[op] field",
                names.join(", ")
            ),
        );
        return;
    }
    for ident in missing {
        errors.at(
            ident.span(),
            format!("no op for variant `{ident}`: add #[agent(op = \"llm.generate\")] to the enum or to this variant, or mark a field #[op] to take it from the field at run time"),
        );
    }
}

fn field_name(f: &Field) -> String {
    f.name.clone().unwrap_or_else(|| f.index.to_string())
}

/// Reports two variants with the same final code.
pub fn check_unique(variants: &[Variant], errors: &mut Errors) {
    let mut seen: Vec<(&str, &Ident)> = Vec::new();
    for v in variants {
        let Body::Classified(c) = &v.body else {
            continue;
        };
        match seen.iter().find(|(code, _)| *code == c.code) {
            Some((_, first)) => errors.at(
                c.code_span,
                format!(
                    "`{}` has the code `{}`, already the code of `{}`; codes are unique within a type, so give one of them another #[agent(code = \"...\")]",
                    v.ident, c.code, first
                ),
            ),
            None => seen.push((&c.code, v.ident)),
        }
    }
}

/// `fn code(&self) -> &str`.
pub fn expand_code(input: &Input) -> TokenStream {
    let arms = input.variants.iter().map(|v| {
        let path = &v.path;
        match &v.body {
            Body::Classified(c) => {
                let code = &c.code;
                quote!(#path { .. } => #code,)
            }
            Body::Transparent(t) => transparent::arm(input, v, t, Ask::Code),
        }
    });
    let arms = input.match_self(arms);
    quote! {
        #[inline]
        fn code(&self) -> &str {
            #arms
        }
    }
}

/// `fn op(&self) -> &str`: an arm for each variant whose op is not the most common one.
pub fn expand_op(input: &Input) -> TokenStream {
    let statics = input.variants.iter().filter_map(|v| match &v.body {
        Body::Classified(c) => match &c.op {
            Op::Static(op) => Some(op.as_str()),
            Op::Field(_) => None,
        },
        Body::Transparent(_) => None,
    });
    // Counted in a list: an enum has few distinct ops.
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for op in statics {
        match counts.iter_mut().find(|(o, _)| *o == op) {
            Some((_, n)) => *n += 1,
            None => counts.push((op, 1)),
        }
    }
    let common = counts.iter().max_by_key(|&&(_, n)| n).map(|&(op, _)| op);
    let arms = input.variants.iter().map(|v| {
        let path = &v.path;
        match &v.body {
            Body::Classified(c) => match &c.op {
                Op::Static(op) if Some(op.as_str()) == common => None,
                Op::Static(op) => Some(quote!(#path { .. } => #op,)),
                Op::Field(i) => {
                    let f = &v.fields[*i];
                    let (pat, binding) = (f.pattern(), f.binding_at_type());
                    Some(
                        quote!(#path { #pat, .. } => ::core::convert::AsRef::<str>::as_ref(#binding),),
                    )
                }
            },
            Body::Transparent(t) => Some(transparent::arm(input, v, t, Ask::Op)),
        }
    });
    // Every variant has an arm when no op is static, so the default is never used.
    let arms = input.match_table(arms, quote!(#common));
    quote! {
        #[inline]
        fn op(&self) -> &str {
            #arms
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{check_code, rename};
    use crate::attr::RenameRule::{ScreamingSnake, Snake};
    use proptest::prelude::*;

    #[test]
    fn renames_variant_names() {
        assert_eq!(rename("RateLimited", Snake), "rate_limited");
        assert_eq!(rename("HTTPError", Snake), "http_error");
        assert_eq!(rename("Http2Error", Snake), "http2_error");
        assert_eq!(rename("IOError", ScreamingSnake), "IO_ERROR");
        assert_eq!(rename("InvalidArgs", ScreamingSnake), "INVALID_ARGS");
        assert_eq!(rename("Timeout", Snake), "timeout");
        assert_eq!(rename("Already_Snake", Snake), "already_snake");
        assert_eq!(rename("r#Type", Snake), "type");
    }

    #[test]
    fn checks_the_code_grammar() {
        for ok in [
            "rate_limit",
            "auth.missing_api_key",
            "INVALID_ARGS",
            "tool.INVALID_ARGS",
            "a1",
            "x",
        ] {
            assert!(check_code(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "Rate",
            "rate-limit",
            "a..b",
            ".a",
            "a.",
            "1a",
            "_a",
            "aB",
            "a b",
            "é",
        ] {
            assert!(check_code(bad).is_err(), "{bad}");
        }
        assert!(check_code(&"a".repeat(64)).is_ok());
        assert!(check_code(&"a".repeat(65)).is_err());
    }

    proptest! {
        #[test]
        fn camel_case_names_make_valid_codes(name in "[A-Z][a-z]{1,6}([A-Z][a-z0-9]{0,6}){0,4}") {
            prop_assert!(check_code(&rename(&name, Snake)).is_ok());
            prop_assert!(check_code(&rename(&name, ScreamingSnake)).is_ok());
        }
    }
}
