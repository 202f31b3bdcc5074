//! Format strings (`#[error("...")]`, doc-comment messages, hints): finds the fields they
//! name, rewrites `{0}` and `.field` into bindings, and prepares the redacted variant.

use proc_macro2::{Group, Ident, Spacing, Span, TokenStream, TokenTree};
use quote::quote;
use syn::LitStr;

use crate::attr::Format;
use crate::errors::Errors;
use crate::model::Field;

/// The formatting trait a placeholder uses, for inferring generic bounds.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FmtTrait {
    Display,
    Debug,
    LowerHex,
    UpperHex,
    Octal,
    Binary,
    LowerExp,
    UpperExp,
    Pointer,
}

impl FmtTrait {
    fn of_spec(spec: &str) -> Self {
        if spec.ends_with('?') {
            return FmtTrait::Debug;
        }
        match spec.chars().last() {
            Some('x') => FmtTrait::LowerHex,
            Some('X') => FmtTrait::UpperHex,
            Some('o') => FmtTrait::Octal,
            Some('b') => FmtTrait::Binary,
            Some('e') => FmtTrait::LowerExp,
            Some('E') => FmtTrait::UpperExp,
            Some('p') => FmtTrait::Pointer,
            _ => FmtTrait::Display,
        }
    }

    pub fn path(self) -> TokenStream {
        match self {
            FmtTrait::Display => quote!(::core::fmt::Display),
            FmtTrait::Debug => quote!(::core::fmt::Debug),
            FmtTrait::LowerHex => quote!(::core::fmt::LowerHex),
            FmtTrait::UpperHex => quote!(::core::fmt::UpperHex),
            FmtTrait::Octal => quote!(::core::fmt::Octal),
            FmtTrait::Binary => quote!(::core::fmt::Binary),
            FmtTrait::LowerExp => quote!(::core::fmt::LowerExp),
            FmtTrait::UpperExp => quote!(::core::fmt::UpperExp),
            FmtTrait::Pointer => quote!(::core::fmt::Pointer),
        }
    }
}

/// A checked format string, ready to expand.
#[derive(Clone)]
pub struct Template {
    /// The string as the user wrote it (for the catalog).
    pub written: String,
    /// The rewritten string literal.
    lit: LitStr,
    /// Arguments after the string, for the operator's view.
    args: Vec<TokenStream>,
    /// The same arguments with redacted fields replaced, for public renderings.
    public_args: Vec<TokenStream>,
    /// Fields the placeholders name, with the trait they are formatted with.
    pub uses: Vec<(usize, FmtTrait)>,
    /// Every field the message shows: named by a placeholder or mentioned in an argument.
    shown: Vec<usize>,
    /// Whether the string is plain text: no placeholders and no arguments.
    plain: Option<String>,
    /// Whether Display may join the message with its prefix into one literal: rustc
    /// surely accepts it (see [`well_formed`]) and, unless it is plain, `write` can mark
    /// its own literal as not from the source (see [`unsourced`]).
    joinable: bool,
}

impl Template {
    /// Whether the message shows the field `index` (a cause written into the message is
    /// not written again after it).
    pub fn shows(&self, index: usize) -> bool {
        self.shown.contains(&index)
    }

    /// Whether the public rendering differs from the operator's.
    pub fn mentions_redacted(&self) -> bool {
        self.args
            .iter()
            .zip(&self.public_args)
            .any(|(a, b)| a.to_string() != b.to_string())
    }

    /// `write!`s the message into `formatter`.
    pub fn write(&self, formatter: &Ident, public: bool) -> TokenStream {
        if let Some(plain) = &self.plain {
            return self.write_plain(formatter, plain, "", "");
        }
        let lit = if self.joinable {
            // Display formats this message inside a longer literal, which rustc cannot map
            // back to the source; reading this one as not from the source either, rustc
            // gives a type error in an argument once, not once for each literal.
            LitStr::new(&unsourced(&self.lit.value()), self.lit.span())
        } else {
            self.lit.clone()
        };
        let args = if public {
            &self.public_args
        } else {
            &self.args
        };
        quote!(::core::write!(#formatter, #lit #(, #args)*))
    }

    /// Writes a plain message between `head` and `tail` (plain text too). With `write!` when rustc
    /// surely accepts the text as a format string: `write!` of a literal alone goes
    /// straight to the writer (`Formatter::write_fmt` is inlined), where
    /// `Formatter::write_str` is one call more.
    fn write_plain(&self, formatter: &Ident, plain: &str, head: &str, tail: &str) -> TokenStream {
        if self.joinable {
            let text = format!("{head}{}{tail}", self.lit.value());
            let lit = LitStr::new(&text, self.lit.span());
            quote!(::core::write!(#formatter, #lit))
        } else {
            let text = format!("{head}{plain}{tail}");
            quote!(#formatter.write_str(#text))
        }
    }

    /// `write!`s `head`, the message and `tail` in one call, as a hand-written `Display`
    /// does: one formatting pass instead of one a part. `head` and `tail` are format
    /// text, whose placeholders name the arguments in `extra`. `None` when the message
    /// is not surely well formed: it is then written alone, so that rustc's errors about
    /// it point into the string as written.
    pub fn write_framed(
        &self,
        formatter: &Ident,
        head: &str,
        tail: &str,
        extra: &[TokenStream],
    ) -> Option<TokenStream> {
        if let (Some(plain), true) = (&self.plain, extra.is_empty()) {
            return Some(self.write_plain(formatter, plain, head, tail));
        }
        if !self.joinable {
            return None;
        }
        let lit = LitStr::new(
            &format!("{head}{}{tail}", self.lit.value()),
            self.lit.span(),
        );
        let args = self.args.iter().chain(extra);
        Some(quote!(::core::write!(#formatter, #lit #(, #args)*)))
    }

    /// The message as a `String` (for hints): borrowed when plain.
    pub fn to_cow(&self, public: bool) -> TokenStream {
        if let Some(plain) = &self.plain {
            return quote!(::std::borrow::Cow::Borrowed(#plain));
        }
        let lit = &self.lit;
        let args = if public {
            &self.public_args
        } else {
            &self.args
        };
        quote!(::std::borrow::Cow::Owned(::std::format!(#lit #(, #args)*)))
    }
}

/// Checks `format` against the fields of `owner` and rewrites it. Reports every
/// placeholder that names no field.
pub fn resolve(
    format: &Format,
    fields: &[Field],
    owner: &str,
    krate: &TokenStream,
    errors: &mut Errors,
) -> Option<Template> {
    let text = format.lit.value();
    let span = format.lit.span();
    let user_named: Vec<String> = format.named.iter().map(|(n, _)| n.to_string()).collect();
    let mut ok = true;
    let mut used: Vec<(usize, FmtTrait)> = Vec::new();
    let mut out = String::with_capacity(text.len());
    let mut placeholders = 0usize;

    // Fields that set a width or precision (`{x:>w$}`): numbers, never errors, and never
    // redacted (their value would show in the padding).
    let mut widths: Vec<usize> = Vec::new();
    let mut lookup = |name: &str,
                      trait_: FmtTrait,
                      width: bool,
                      errors: &mut Errors|
     -> Option<String> {
        if user_named.iter().any(|n| n == name) {
            return Some(name.to_string());
        }
        let field = if name.bytes().all(|b| b.is_ascii_digit()) {
            let index: usize = name.parse().ok()?;
            if !format.positional.is_empty() && fields.iter().all(|f| f.name.is_some()) {
                // `{0}` in a variant with named fields and extra arguments is Rust's own positional argument.
                return Some(name.to_string());
            }
            let found = fields.iter().find(|f| f.name.is_none() && f.index == index);
            if found.is_none() {
                let message = if fields.iter().any(|f| f.name.is_some()) {
                    format!(
                        "`{{{name}}}` names a positional field, but `{owner}` has named fields; write the field's name, like {}",
                        example(fields)
                    )
                } else {
                    format!("`{{{name}}}` names no field of `{owner}`; {}", list(fields))
                };
                errors.at(span, message);
            }
            found
        } else {
            let found = fields.iter().find(|f| f.name.as_deref() == Some(name));
            if found.is_none() {
                errors.at(
                    span,
                    format!("`{{{name}}}` names no field of `{owner}`; {}", list(fields)),
                );
            }
            found
        }?;
        used.push((field.index, trait_));
        if width {
            widths.push(field.index);
        }
        Some(field.binding.to_string())
    };

    let mut rest = text.as_str();
    while let Some(at) = rest.find(['{', '}']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..2]);
            rest = &tail[2..];
            continue;
        }
        if let Some(after) = tail.strip_prefix('}') {
            // A lone `}`: rustc reports it on the literal.
            out.push('}');
            rest = after;
            continue;
        }
        let Some(close) = tail.find('}') else {
            out.push_str(tail);
            rest = "";
            break;
        };
        placeholders += 1;
        let inner = &tail[1..close];
        let (arg, spec) = match inner.split_once(':') {
            Some((arg, spec)) => (arg.trim(), Some(spec)),
            None => (inner.trim(), None),
        };
        let trait_ = FmtTrait::of_spec(spec.unwrap_or(""));
        out.push('{');
        if !arg.is_empty() {
            match lookup(arg, trait_, false, errors) {
                Some(name) => out.push_str(&name),
                None => {
                    ok = false;
                    out.push_str(arg);
                }
            }
        }
        if let Some(spec) = spec {
            out.push(':');
            out.push_str(&rewrite_spec(
                spec,
                &mut |name| lookup(name, FmtTrait::Display, true, errors),
                &mut ok,
            ));
        }
        out.push('}');
        rest = &tail[close + 1..];
    }
    out.push_str(rest);
    if !ok {
        return None;
    }

    let mut args = Vec::new();
    let mut public_args = Vec::new();
    let mut shown: Vec<usize> = used.iter().map(|(i, _)| *i).collect();
    let redacted = quote!(#krate::__private::Redacted);
    for arg in format
        .positional
        .iter()
        .chain(format.named.iter().map(|(_, a)| a))
    {
        let mut mentioned = Vec::new();
        let rewritten = match rewrite_args(arg.clone(), fields, owner, &mut mentioned) {
            Ok(tokens) => tokens,
            Err(e) => {
                errors.push(e);
                ok = false;
                continue;
            }
        };
        let secret = mentioned.iter().any(|&i| fields[i].attrs.redact.is_some());
        shown.extend(&mentioned);
        args.push(rewritten.clone());
        public_args.push(if secret { redacted.clone() } else { rewritten });
    }
    if !ok {
        return None;
    }
    // Name the user's named arguments again in front of their values.
    let positional = format.positional.len();
    for (i, (name, _)) in format.named.iter().enumerate() {
        let value = &args[positional + i];
        args[positional + i] = quote!(#name = #value);
        let value = &public_args[positional + i];
        public_args[positional + i] = quote!(#name = #value);
    }
    // Then one named argument for each field the string names.
    let mut seen: Vec<usize> = Vec::new();
    for &(index, _) in &used {
        if seen.contains(&index) {
            continue;
        }
        seen.push(index);
        let field = &fields[index];
        let binding = &field.binding;
        args.push(quote!(#binding = #binding));
        let width = widths.contains(&index);
        if let Some(redact) = field.attrs.redact.filter(|_| width) {
            errors.at(
                redact,
                format!(
                    "a #[redact] field cannot set a width or precision: its value would show in the padding of public renderings; remove #[redact] from `{}`, or do not use it after `$`",
                    field.name.clone().unwrap_or_else(|| field.index.to_string())
                ),
            );
            ok = false;
        }
        public_args.push(if field.attrs.redact.is_some() {
            quote!(#binding = #redacted)
        } else if !width && may_be_error(field.ty) {
            quote!(#binding = #krate::__private::public_field!(#binding))
        } else {
            quote!(#binding = #binding)
        });
    }
    if !ok {
        return None;
    }

    let plain = (placeholders == 0 && args.is_empty()).then(|| unescape(&text));
    Some(Template {
        written: text,
        joinable: well_formed(&out) && (plain.is_some() || unsourced(&out) != out),
        lit: LitStr::new(&out, span),
        args,
        public_args,
        uses: used,
        shown,
        plain,
    })
}

/// Whether rustc surely accepts `text` as a format string: braces balanced or doubled,
/// every placeholder `{}`, `{arg}` or `{arg:spec}` with a spec in the grammar of
/// `std::fmt`. Conservative: `false` for anything unusual, which is then left to rustc.
fn well_formed(text: &str) -> bool {
    let mut rest = text;
    while let Some(at) = rest.find(['{', '}']) {
        let tail = &rest[at..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            rest = &tail[2..];
            continue;
        }
        let Some(inner) = tail.strip_prefix('{').and_then(|t| t.split('}').next()) else {
            return false;
        };
        if inner.contains('{') || inner.len() + 1 == tail.len() {
            return false;
        }
        let (arg, spec) = inner.split_once(':').unwrap_or((inner, ""));
        if !(is_argument(arg) && well_formed_spec(spec)) {
            return false;
        }
        rest = &tail[inner.len() + 2..];
    }
    true
}

/// Empty, an index or an identifier.
fn is_argument(arg: &str) -> bool {
    arg.is_empty()
        || arg.bytes().all(|b| b.is_ascii_digit())
        || (arg.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && arg.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
}

/// `[[fill]align][sign]['#']['0'][width]['.' precision][type]`, with counts as integers
/// or `name$`.
fn well_formed_spec(spec: &str) -> bool {
    let mut s = spec;
    let mut chars = s.chars();
    let (first, second) = (chars.next(), chars.next());
    if second.is_some_and(|c| matches!(c, '<' | '^' | '>')) {
        s = chars.as_str();
    } else if first.is_some_and(|c| matches!(c, '<' | '^' | '>')) {
        s = &s[1..];
    }
    s = s.strip_prefix(['+', '-']).unwrap_or(s);
    s = s.strip_prefix('#').unwrap_or(s);
    s = s.strip_prefix('0').unwrap_or(s);
    let Some(after_width) = count(s) else {
        return false;
    };
    s = after_width;
    if let Some(precision) = s.strip_prefix('.') {
        s = match precision.strip_prefix('*') {
            Some(after) => after,
            None => match count(precision) {
                Some(after) if after.len() < precision.len() => after,
                _ => return false,
            },
        };
    }
    matches!(
        s,
        "" | "?" | "x?" | "X?" | "x" | "X" | "o" | "b" | "e" | "E" | "p"
    )
}

/// What follows an optional count (`8`, `width$`, `1$`); `None` when it is malformed.
fn count(s: &str) -> Option<&str> {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    if let Some(after) = s[end..].strip_prefix('$') {
        return (end > 0 && is_argument(&s[..end])).then_some(after);
    }
    Some(s.trim_start_matches(|c: char| c.is_ascii_digit()))
}

/// `text` changed so that rustc cannot take it for the literal in the source, without
/// changing what it formats: an empty spec on its first placeholder that has none
/// (`{name}` as `{name:}`).
fn unsourced(text: &str) -> String {
    let mut rest = text;
    let mut out = String::with_capacity(text.len() + 1);
    while let Some(at) = rest.find(['{', '}']) {
        let tail = &rest[at..];
        out.push_str(&rest[..at]);
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..2]);
            rest = &tail[2..];
            continue;
        }
        let close = tail.find('}').unwrap_or(tail.len() - 1);
        out.push_str(&tail[..close]);
        if !tail[..close].contains(':') {
            out.push(':');
            out.push_str(&tail[close..]);
            return out;
        }
        out.push('}');
        rest = &tail[close + 1..];
    }
    out.push_str(rest);
    out
}

/// A placeholder naming one of `fields`, for messages.
fn example(fields: &[Field]) -> String {
    match fields.iter().find_map(|f| f.name.as_deref()) {
        Some(name) => format!("`{{{name}}}`"),
        None => "`{0}`".to_string(),
    }
}

fn list(fields: &[Field]) -> String {
    if fields.is_empty() {
        return "it has no fields".to_string();
    }
    let names: Vec<String> = fields
        .iter()
        .map(|f| match &f.name {
            Some(name) => format!("`{name}`"),
            None => format!("`{}`", f.index),
        })
        .collect();
    match &names[..] {
        [only] => format!("its only field is {only}"),
        _ => format!("its fields are {}", names.join(", ")),
    }
}

/// Rewrites `name$` width and precision arguments inside a format spec.
fn rewrite_spec(
    spec: &str,
    lookup: &mut dyn FnMut(&str) -> Option<String>,
    ok: &mut bool,
) -> String {
    let mut out = String::with_capacity(spec.len());
    let mut rest = spec;
    while let Some(dollar) = rest.find('$') {
        let before = &rest[..dollar];
        // The name runs back to the first character that cannot be in one; that character
        // may be a multi-byte fill (`{x:€>w$}`), so step over it by its length.
        let start = before
            .char_indices()
            .rev()
            .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let name = &before[start..];
        out.push_str(&before[..start]);
        if !name.is_empty() && !name.bytes().all(|b| b.is_ascii_digit()) {
            match lookup(name) {
                Some(binding) => out.push_str(&binding),
                None => {
                    *ok = false;
                    out.push_str(name);
                }
            }
        } else {
            out.push_str(name);
        }
        out.push('$');
        rest = &rest[dollar + 1..];
    }
    out.push_str(rest);
    out
}

/// Whether a field of type `ty` may be an error, whose own Display must not reach a public
/// message: every type but the ones known not to be (numbers, text, paths, durations, and
/// collections or references of them). Those render as themselves without the autoref
/// dispatch of `public_field!`, which keeps public messages cheap to compile.
fn may_be_error(ty: &syn::Type) -> bool {
    const PLAIN: &[&str] = &[
        "u8",
        "u16",
        "u32",
        "u64",
        "u128",
        "usize",
        "i8",
        "i16",
        "i32",
        "i64",
        "i128",
        "isize",
        "f32",
        "f64",
        "bool",
        "char",
        "str",
        "String",
        "Cow",
        "PathBuf",
        "Path",
        "Duration",
        "Instant",
        "SystemTime",
        "Vec",
        "Option",
        "Box",
        "Arc",
        "Rc",
        "NonZeroU16",
        "NonZeroU32",
        "NonZeroU64",
        "NonZeroUsize",
        "SocketAddr",
        "IpAddr",
        "Url",
        "Uri",
    ];
    match ty {
        syn::Type::Reference(r) => may_be_error(&r.elem),
        syn::Type::Paren(p) => may_be_error(&p.elem),
        syn::Type::Group(g) => may_be_error(&g.elem),
        syn::Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return true;
            };
            let name = last.ident.to_string();
            if !PLAIN.contains(&name.as_str()) {
                return true;
            }
            // `Box<dyn Error>`, `Option<io::Error>`: look at what they hold.
            match &last.arguments {
                syn::PathArguments::AngleBracketed(a) => a.args.iter().any(|arg| match arg {
                    syn::GenericArgument::Type(inner) => may_be_error(inner),
                    _ => false,
                }),
                _ => false,
            }
        }
        syn::Type::Array(_) | syn::Type::Slice(_) | syn::Type::Tuple(_) => false,
        _ => true,
    }
}

/// `{{` and `}}` as the text they stand for.
fn unescape(text: &str) -> String {
    text.replace("{{", "{").replace("}}", "}")
}

/// Rewrites `.field` and `.0` in format arguments into the field's binding, and
/// records which fields an argument mentions (for redaction).
fn rewrite_args(
    tokens: TokenStream,
    fields: &[Field],
    owner: &str,
    mentioned: &mut Vec<usize>,
) -> syn::Result<TokenStream> {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = TokenStream::new();
    let mut i = 0;
    while i < tokens.len() {
        let tt = &tokens[i];
        match tt {
            TokenTree::Punct(p) if p.as_char() == '.' && p.spacing() == Spacing::Alone => {
                let starts_expr = match i.checked_sub(1).map(|j| &tokens[j]) {
                    None => true,
                    Some(TokenTree::Punct(prev)) => {
                        prev.as_char() != '.' || prev.spacing() == Spacing::Alone
                    }
                    Some(_) => false,
                };
                let member = tokens.get(i + 1).and_then(|next| match next {
                    TokenTree::Ident(ident) => Some((ident.to_string(), ident.span())),
                    TokenTree::Literal(lit) => {
                        let text = lit.to_string();
                        text.bytes()
                            .all(|b| b.is_ascii_digit())
                            .then(|| (text, lit.span()))
                    }
                    _ => None,
                });
                if let (true, Some((name, span))) = (starts_expr, member) {
                    let name = name.strip_prefix("r#").unwrap_or(&name).to_string();
                    let field = fields.iter().find(|f| match &f.name {
                        Some(n) => *n == name,
                        None => f.index.to_string() == name,
                    });
                    let Some(field) = field else {
                        return Err(syn::Error::new(
                            span,
                            format!("`.{name}` names no field of `{owner}`; {}", list(fields)),
                        ));
                    };
                    mentioned.push(field.index);
                    let mut binding = field.binding.clone();
                    // Shown at `.field`, resolved as the pattern's binding (hygiene inside `macro_rules!`).
                    binding.set_span(binding.span().located_at(span));
                    out.extend(quote!((#binding)));
                    i += 2;
                    continue;
                }
                out.extend([tt.clone()]);
            }
            TokenTree::Ident(ident) => {
                if let Some(field) = fields.iter().find(|f| f.binding == *ident) {
                    mentioned.push(field.index);
                }
                out.extend([tt.clone()]);
            }
            TokenTree::Group(group) => {
                let inner = rewrite_args(group.stream(), fields, owner, mentioned)?;
                let mut rebuilt = Group::new(group.delimiter(), inner);
                rebuilt.set_span(group.span());
                out.extend([TokenTree::Group(rebuilt)]);
            }
            _ => out.extend([tt.clone()]),
        }
        i += 1;
    }
    Ok(out)
}

/// A template from a doc comment or hint: a string literal with no arguments.
pub fn from_text(text: &str, span: Span) -> Format {
    Format {
        lit: LitStr::new(text, span),
        positional: Vec::new(),
        named: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::resolve;
    use crate::attr::{FieldAttrs, Format};
    use crate::errors::Errors;
    use crate::model::Field;
    use proc_macro2::Span;
    use proptest::prelude::*;
    use quote::{format_ident, quote};
    use syn::{LitStr, Member, Type};

    fn fields(ty: &Type) -> Vec<Field<'_>> {
        ["tokens", "width", "name"]
            .iter()
            .enumerate()
            .map(|(index, name)| Field {
                index,
                name: Some(name.to_string()),
                member: Member::Named(format_ident!("{}", name)),
                binding: format_ident!("{}", name),
                ty,
                attrs: FieldAttrs::default(),
            })
            .collect()
    }

    fn check(text: &str) -> (bool, usize) {
        let ty: Type = syn::parse_str("u32").unwrap();
        let fields = fields(&ty);
        let format = Format {
            lit: LitStr::new(text, Span::call_site()),
            positional: Vec::new(),
            named: Vec::new(),
        };
        let mut errors = Errors::default();
        let template = resolve(
            &format,
            &fields,
            "Variant",
            &quote!(::agent_error),
            &mut errors,
        );
        (template.is_some(), errors.len())
    }

    #[test]
    fn names_fields_and_reports_unknown_ones() {
        assert_eq!(check("{tokens} of {name:?} at {width:>8}"), (true, 0));
        assert_eq!(check("{name:>width$} {{literal}}"), (true, 0));
        assert_eq!(check("{nope} and {other}"), (false, 2));
        assert_eq!(check("{0}"), (false, 1));
    }

    #[test]
    fn joins_only_format_strings_it_surely_understands() {
        use super::well_formed;
        for ok in [
            "",
            "plain {{braces}}",
            "{} and {0} and {name}",
            "{x:?} {x:#?} {x:x?} {x:08.3} {x:>width$} {x:*^10} {x:+e} {x:.*} {x:.prec$}",
            "{x:8x} {x:<} {x:0} {x:#010b} {x:€>4}",
        ] {
            assert!(well_formed(ok), "{ok}");
        }
        for bad in [
            "{", "}", "a } b", "{x", "{ x }", "{x:z}", "{x:8q}", "{x:.}", "{x:$}", "{x:0$}",
            "{x:}>5}", "{x:{>5}", "{x.y}", "{r#x}", "{x::}",
        ] {
            assert!(!well_formed(bad), "{bad}");
        }
    }

    #[test]
    fn marks_the_first_placeholder_without_a_spec() {
        use super::unsourced;
        assert_eq!(unsourced("{{a}} {x:?} {y} {z}"), "{{a}} {x:?} {y:} {z}");
        assert_eq!(unsourced("{}"), "{:}");
        assert_eq!(unsourced("{x:?}"), "{x:?}");
    }

    proptest! {
        #[test]
        fn never_panics_on_any_text(text in "[{}:$<>^.#0-9a-z_€ ]{0,30}|\\PC{0,30}") {
            let (ok, errors) = check(&text);
            prop_assert!(ok || errors > 0, "a refused format string reports why");
        }
    }
}
