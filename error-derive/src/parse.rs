//! Reading attribute values: a key table and its dispatch, shared by `#[agent(...)]` and
//! `retry(...)`, and the value parsers every key uses, each error saying what to write.

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::spanned::Spanned as _;
use syn::{LitStr, Token};

use crate::errors::Errors;

/// A value with the span of the token it came from.
#[derive(Clone)]
pub struct Sp<T> {
    pub value: T,
    pub span: Span,
}

/// Where a key may be written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum On {
    /// The enum (or the struct).
    Container,
    /// A variant (or the struct).
    Variant,
    Both,
}

/// One key of a table: its name, where it is allowed, an example of its value (shown when
/// the value is missing or malformed) and its parser.
pub struct Key<T> {
    pub name: &'static str,
    pub on: On,
    pub example: &'static str,
    pub parse: fn(&mut T, &mut Arg) -> syn::Result<()>,
}

/// The key being parsed: its value's tokens, and the errors to report to.
pub struct Arg<'a, 'm> {
    pub meta: &'a ParseNestedMeta<'m>,
    pub name: &'static str,
    pub example: &'static str,
    /// The key's name as written, which errors about the key as a whole point at.
    pub span: Span,
    pub errors: &'a mut Errors,
}

impl Arg<'_, '_> {
    /// `key = "string"`, or an error saying to quote it.
    pub fn string(&self) -> syn::Result<LitStr> {
        value_of(self.meta, self.example)
    }

    /// The value after `=`, of type `T`.
    pub fn value<T: syn::parse::Parse>(&self) -> syn::Result<T> {
        value_of(self.meta, self.example)
    }

    /// Stores `value`, or reports the key as repeated.
    pub fn set<T>(&mut self, slot: &mut Option<T>, value: T) {
        set(slot, value, self.name, self.span, self.errors);
    }

    /// Stores a string value with its span.
    pub fn set_string(&mut self, slot: &mut Option<Sp<String>>) -> syn::Result<()> {
        let lit = self.string()?;
        let value = Sp {
            value: lit.value(),
            span: lit.span(),
        };
        self.set(slot, value);
        Ok(())
    }

    /// A key that takes no value.
    pub fn flag(&mut self, slot: &mut Option<Span>) -> syn::Result<()> {
        let key = self.name;
        if self.meta.input.peek(Token![=]) || self.meta.input.peek(syn::token::Paren) {
            let message = format!("`{key}` is a flag and takes no value: write `{key}` alone");
            self.errors.at(self.span, message);
            return skip_value(self.meta);
        }
        let span = self.span;
        self.set(slot, span);
        Ok(())
    }

    pub fn error(&mut self, span: Span, message: impl std::fmt::Display) {
        self.errors.at(span, message);
    }
}

/// Parses one key of `meta` with the table `keys`, reporting an unknown or misplaced key.
/// `allowed` says whether a key may stand here, `misplaced` what to say when not.
pub fn dispatch<T>(
    meta: &ParseNestedMeta,
    keys: &[Key<T>],
    allowed: impl Fn(On) -> bool,
    unknown: impl Fn(&str, &[&str]) -> String,
    out: &mut T,
    errors: &mut Errors,
) -> syn::Result<()> {
    let name = key_name(meta);
    let span = meta.path.span();
    let Some(key) = keys.iter().find(|k| k.name == name && allowed(k.on)) else {
        let names: Vec<&str> = keys
            .iter()
            .filter(|k| allowed(k.on))
            .map(|k| k.name)
            .collect();
        errors.at(span, unknown(&name, &names));
        return skip_value(meta);
    };
    let mut arg = Arg {
        meta,
        name: key.name,
        example: key.example,
        span,
        errors,
    };
    (key.parse)(out, &mut arg)
}

/// The key as written: `crate`, an identifier, or a path without spaces.
pub fn key_name(meta: &ParseNestedMeta) -> String {
    if meta.path.is_ident("crate") {
        return "crate".to_string();
    }
    match meta.path.get_ident() {
        Some(ident) => ident.to_string(),
        None => {
            let path = &meta.path;
            quote::quote!(#path).to_string().replace(' ', "")
        }
    }
}

/// "did you mean" or the list of keys, for an unknown key in `within`.
pub fn unknown_key(key: &str, shown: &str, within: &str, keys: &[&str]) -> String {
    match closest(key, keys) {
        Some(near) => format!("unknown key {shown} in {within}; did you mean `{near}`?"),
        None => format!(
            "unknown key {shown} in {within}; expected one of: {}",
            keys.join(", ")
        ),
    }
}

pub fn set<T>(slot: &mut Option<T>, value: T, key: &str, span: Span, errors: &mut Errors) {
    if slot.is_some() {
        errors.at(span, format!("`{key}` is given twice; keep one"));
    } else {
        *slot = Some(value);
    }
}

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
pub fn skip_rest(input: ParseStream) -> TokenStream {
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
pub fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        let value = meta.value()?;
        skip_rest(value);
    } else if meta.input.peek(syn::token::Paren) {
        meta.input.parse::<TokenTree>()?;
    }
    Ok(())
}

/// One of `names` (`"full"` in `jitter = "full"`), or an error listing them.
pub fn one_of<T: Copy>(
    arg: &mut Arg,
    names: &[(&str, T)],
    unknown: impl Fn(&str) -> String,
) -> syn::Result<Option<Sp<T>>> {
    let lit = arg.string()?;
    let text = lit.value();
    match names.iter().find(|(name, _)| *name == text) {
        Some(&(_, value)) => Ok(Some(Sp {
            value,
            span: lit.span(),
        })),
        None => {
            arg.error(lit.span(), unknown(&text));
            Ok(None)
        }
    }
}
