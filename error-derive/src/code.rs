//! Codes: the grammar they follow, the default made from a variant's name under
//! `rename_all`, the type's `namespace`, and the generated `code()`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use crate::model::{AgentAttrs, Body, Code, Input, RenameRule};
use crate::parse::{Arg, one_of};
use crate::table::{Answer, Table};
use crate::transparent::{self, Ask};

pub const CODE_GRAMMAR: &str = "a code is 1 to 64 ASCII characters in `.`-separated segments, each all-lowercase like `rate_limit` or all-uppercase like `INVALID_ARGS`";

/// Why `code` breaks the grammar, if it does. Whether it does is the runtime's own rule
/// (`agent_error_rules::codes::is_valid_code`); this says what is wrong.
pub fn check_code(code: &str) -> Result<(), String> {
    if agent_error_rules::codes::is_valid_code(code) {
        return Ok(());
    }
    let problem = if code.is_empty() {
        "the code is empty".to_string()
    } else if code.len() > 64 {
        format!("`{code}` is {} characters long", code.len())
    } else {
        let problem = code.split('.').find_map(segment_problem);
        format!(
            "`{code}` has {}",
            problem.unwrap_or_else(|| "a character a code cannot hold".to_string())
        )
    };
    Err(format!("{problem}; {CODE_GRAMMAR}"))
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
pub fn suggest(text: &str, keep: impl Fn(char) -> bool, uppercase: bool) -> String {
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

/// `rename_all = "snake_case"`.
pub fn parse_rename_all(out: &mut AgentAttrs, arg: &mut Arg) -> syn::Result<()> {
    let names = [
        ("snake_case", RenameRule::Snake),
        ("SCREAMING_SNAKE_CASE", RenameRule::ScreamingSnake),
    ];
    let rule = one_of(arg, &names, |other| {
        format!(
            "unknown rename_all rule `{other}`; expected \"snake_case\" or \"SCREAMING_SNAKE_CASE\""
        )
    })?;
    if let Some(rule) = rule {
        arg.set(&mut out.rename_all, rule);
    }
    Ok(())
}

/// The variant's code: its own or the default, with the type's namespace.
pub fn of(ident: &Ident, container: &AgentAttrs, own: &AgentAttrs) -> Code {
    let (bare, span, written) = match &own.code {
        Some(code) => (code.value.clone(), code.span, true),
        None => (default_code(ident, container), ident.span(), false),
    };
    Code {
        value: with_namespace(bare.clone(), container),
        bare,
        span,
        written,
    }
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

/// `fn code(&self) -> &str`: each variant's entry holds its code.
pub fn expand(input: &Input, table: &Table) -> TokenStream {
    let answers = input
        .variants
        .iter()
        .map(|v| match &v.body {
            Body::Classified(c) => {
                let code = &c.code.value;
                Answer::Fixed(quote!(#code))
            }
            Body::Transparent(t) => Answer::Arm(transparent::arm(input, v, t, Ask::Code)),
        })
        .collect();
    let body = table.body(answers, "code");
    quote! {
        #[inline]
        fn code(&self) -> &str {
            #body
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{check_code, rename};
    use crate::model::RenameRule::{ScreamingSnake, Snake};
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

    /// Codes with whether each is valid: the rule is the runtime's, and the derive must
    /// name what is wrong with each invalid one.
    const TABLE: &[(&str, bool)] = &[
        ("", false),
        ("a", true),
        ("x", true),
        ("rate_limit", true),
        ("auth.missing_api_key", true),
        ("INVALID_ARGS", true),
        ("tool.INVALID_ARGS", true),
        ("a1", true),
        ("Rate", false),
        ("rate-limit", false),
        ("a..b", false),
        (".a", false),
        ("a.", false),
        ("1a", false),
        ("_a", false),
        ("aB", false),
        ("a b", false),
        ("é", false),
        ("llm.generate", true),
        ("tool.read-file", false),
        ("LLM", true),
        ("a-", false),
        ("-a", false),
        ("a_-b.c9", false),
        ("x.Y_1", true),
        ("a.B-c", false),
        ("\n", false),
        ("a]", false),
    ];

    #[test]
    fn checks_the_code_grammar() {
        for &(text, valid) in TABLE {
            assert_eq!(check_code(text).is_ok(), valid, "{text:?}");
        }
        assert!(check_code(&"a".repeat(64)).is_ok());
        assert!(check_code(&"a".repeat(65)).is_err());
    }

    /// What `check_code` says is wrong names the problem the rule found: never the
    /// fallback for a problem it cannot name.
    fn named(text: &str) -> Result<(), String> {
        match check_code(text) {
            Err(why) if why.contains("a character a code cannot hold") => {
                Err(format!("no problem named for {text:?}"))
            }
            _ => Ok(()),
        }
    }

    #[test]
    fn every_problem_is_named() {
        for &(text, _) in TABLE {
            named(text).unwrap();
        }
    }

    proptest! {
        #[test]
        fn every_problem_is_named_on_any_text(text in "[a-zA-Z0-9_.\\- é]{0,70}") {
            prop_assert_eq!(named(&text), Ok(()));
        }

        #[test]
        fn camel_case_names_make_valid_codes(name in "[A-Z][a-z]{1,6}([A-Z][a-z0-9]{0,6}){0,4}") {
            prop_assert!(check_code(&rename(&name, Snake)).is_ok());
            prop_assert!(check_code(&rename(&name, ScreamingSnake)).is_ok());
        }
    }
}
