//! Format strings (`#[error("...")]`, doc-comment messages, hints): finds the fields they
//! name, rewrites `{0}` and `.field` into bindings, and prepares the redacted rendering.

use proc_macro2::{Group, Ident, Spacing, Span, TokenStream, TokenTree};
use quote::quote;
use syn::LitStr;

use crate::errors::Errors;
use crate::joinable::{joinable, unsourced};
use crate::model::{Body, Field, FmtTrait, Format, Input, Message, Template, View};

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

impl Template {
    /// Whether the message shows the field `index` (a cause written into the message is
    /// not written again after it).
    pub fn shows(&self, index: usize) -> bool {
        self.shown.contains(&index)
    }

    /// Whether the message as `view` writes it differs from the operator's full text.
    pub fn differs(&self, view: View) -> bool {
        self.args
            .iter()
            .zip(self.args(view))
            .any(|(a, b)| a.to_string() != b.to_string())
    }

    fn args(&self, view: View) -> &[TokenStream] {
        match view {
            View::Full => &self.args,
            View::Display => &self.display_args,
            View::Public => &self.public_args,
        }
    }

    /// `write!`s the message into `formatter`.
    pub fn write(&self, formatter: &Ident, view: View) -> TokenStream {
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
        let args = self.args(view);
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
        let args = self.display_args.iter().chain(extra);
        Some(quote!(::core::write!(#formatter, #lit #(, #args)*)))
    }

    /// `format_args!` of the text (for hints, written straight where they go): the
    /// arguments of a plain text are a `&'static str` that the writer copies at once.
    pub fn to_arguments(&self, view: View) -> TokenStream {
        match &self.plain {
            Some(plain) if !self.joinable => quote!(::core::format_args!("{}", #plain)),
            _ => {
                let lit = &self.lit;
                let args = self.args(view);
                quote!(::core::format_args!(#lit #(, #args)*))
            }
        }
    }

    /// The message as a `String` (for hints): borrowed when plain.
    pub fn to_cow(&self, view: View) -> TokenStream {
        if let Some(plain) = &self.plain {
            return quote!(::std::borrow::Cow::Borrowed(#plain));
        }
        let lit = &self.lit;
        let args = self.args(view);
        quote!(::std::borrow::Cow::Owned(::std::format!(#lit #(, #args)*)))
    }
}

/// A format from a doc comment or hint: a string literal with no arguments.
pub fn from_text(text: &str, span: Span) -> Format {
    Format {
        lit: LitStr::new(text, span),
        positional: Vec::new(),
        named: Vec::new(),
    }
}

/// How a field named by a placeholder reaches `write!`.
#[derive(Clone, Copy, PartialEq)]
enum Pass {
    /// The field itself (its binding, a reference).
    Itself,
    /// A `Path` or `PathBuf` in `{}`, through `.display()`.
    PathDisplay,
    /// The pointer the field holds, for `{:p}` (not the address of the field).
    Pointee,
    /// A field that may be an error, in `{}`: an `AgentError` is written without its
    /// `op [code]: ` head, so that nested derived errors show one head.
    HeadFree,
}

/// What a format string's placeholders name, while it is rewritten.
struct Names<'f, 'a> {
    format: &'f Format,
    fields: &'f [Field<'a>],
    owner: &'f str,
    /// Fields the placeholders name, with their trait.
    used: Vec<(usize, FmtTrait)>,
    /// Fields that set a width or precision (`{x:>w$}`): numbers, never errors, and never
    /// redacted (their value would show in the padding).
    widths: Vec<usize>,
    /// The named arguments the rewritten string needs: a field, and how it is passed.
    needed: Vec<(usize, Pass)>,
    /// Whether `{self:?}` names the value itself.
    names_self: bool,
    ok: bool,
}

impl<'f, 'a> Names<'f, 'a> {
    /// What `{name}` stands for in the rewritten string; reports a name that is no field.
    fn lookup(&mut self, name: &str, trait_: FmtTrait, width: bool, errors: &mut Errors) -> String {
        if let Some(named) = self.format.named.iter().find(|(n, _)| n == name) {
            return argument_ident(&named.0).to_string();
        }
        if name == "self" {
            return self.self_argument(trait_, errors);
        }
        if let Some(bare) = name.strip_prefix("r#") {
            errors.at(
                self.format.lit.span(),
                format!("`{{{name}}}`: a format string names a field without `r#`, even a keyword, as `format!` does; write `{{{bare}}}`"),
            );
            self.ok = false;
            return name.to_string();
        }
        let field = if name.bytes().all(|b| b.is_ascii_digit()) {
            if !self.format.positional.is_empty() && self.fields.iter().all(|f| f.name.is_some()) {
                // `{0}` in a variant with named fields and extra arguments is Rust's own positional argument.
                return name.to_string();
            }
            self.positional(name, errors)
        } else {
            let found = self.fields.iter().find(|f| f.name.as_deref() == Some(name));
            if found.is_none() && name.starts_with(|c: char| c.is_ascii_uppercase()) {
                // `{MSG}`: a constant in scope, captured by `format!` as it would be.
                return name.to_string();
            }
            if found.is_none() {
                let message = format!(
                    "`{{{name}}}` names no field of `{}`; {}{}",
                    self.owner,
                    list(self.fields),
                    crate::errors::see("placeholder-naming-no-field")
                );
                errors.at(self.format.lit.span(), message);
            }
            found
        };
        let Some(field) = field else {
            self.ok = false;
            return name.to_string();
        };
        self.used.push((field.index, trait_));
        if width {
            self.widths.push(field.index);
        }
        let pass = match trait_ {
            FmtTrait::Display if !width && is_path(field.ty) => Pass::PathDisplay,
            FmtTrait::Pointer if !width => Pass::Pointee,
            FmtTrait::Display if !width && may_be_error(field.ty) => Pass::HeadFree,
            _ => Pass::Itself,
        };
        if !self.needed.contains(&(field.index, pass)) {
            self.needed.push((field.index, pass));
        }
        argument_name(field, pass).to_string()
    }

    /// `{self:?}`: the value itself, as `format!` would capture `self`. `{self}` would
    /// write the message inside itself forever.
    fn self_argument(&mut self, trait_: FmtTrait, errors: &mut Errors) -> String {
        if trait_ == FmtTrait::Display {
            errors.at(
                self.format.lit.span(),
                "`{self}` would write this message inside itself, forever; write `{self:?}` for the value's Debug form, or name a field",
            );
            self.ok = false;
        }
        self.names_self = true;
        SELF_ARGUMENT.to_string()
    }

    fn positional(&self, name: &str, errors: &mut Errors) -> Option<&'f Field<'a>> {
        // An index too large for `usize` names no field either.
        let index: usize = name.parse().unwrap_or(usize::MAX);
        let fields = self.fields;
        let found = fields.iter().find(|f| f.name.is_none() && f.index == index);
        if found.is_none() {
            let owner = self.owner;
            let message = if fields.iter().any(|f| f.name.is_some()) {
                format!(
                    "`{{{name}}}` names a positional field, but `{owner}` has named fields; write the field's name, like {}",
                    example(fields)
                )
            } else {
                format!(
                    "`{{{name}}}` names no field of `{owner}`; {}{}",
                    list(fields),
                    crate::errors::see("placeholder-naming-no-field")
                )
            };
            errors.at(self.format.lit.span(), message);
        }
        found
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
    let mut names = Names {
        format,
        fields,
        owner,
        used: Vec::new(),
        widths: Vec::new(),
        needed: Vec::new(),
        names_self: false,
        ok: true,
    };
    let (out, placeholders) = rewrite_placeholders(&text, &mut names, errors);
    if !names.ok {
        return None;
    }
    let (mut args, mut public_args, mut shown, self_in_args) =
        user_arguments(format, fields, owner, krate, errors)?;
    // The user's arguments that mention a `#[redact]` field are `[redacted]` in both.
    let mut display_args = public_args.clone();
    shown.extend(names.used.iter().map(|(i, _)| *i));
    field_arguments(
        &names,
        krate,
        &mut args,
        &mut display_args,
        &mut public_args,
        errors,
    )?;
    let plain = (placeholders == 0 && args.is_empty()).then(|| unescape(&text));
    // The user's arguments may reach a field through them; so may a field that may be an
    // error (in the public view, or in `{}`).
    let helpers = !format.positional.is_empty()
        || !format.named.is_empty()
        || names.needed.iter().any(|&(i, pass)| {
            pass == Pass::HeadFree || (pass == Pass::Itself && may_be_error(fields[i].ty))
        });
    Some(Template {
        helpers,
        written: text,
        joinable: joinable(&out, plain.is_some()),
        lit: LitStr::new(&out, format.lit.span()),
        args,
        display_args,
        public_args,
        uses: names.used,
        shown,
        plain,
        by_function: false,
        self_in_args,
    })
}

/// The string with every placeholder's name rewritten, and how many placeholders it has.
fn rewrite_placeholders(text: &str, names: &mut Names, errors: &mut Errors) -> (String, usize) {
    let mut out = String::with_capacity(text.len());
    let mut placeholders = 0usize;
    let mut rest = text;
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
        out.push('{');
        out.push_str(&rewrite_placeholder(&tail[1..close], names, errors));
        out.push('}');
        rest = &tail[close + 1..];
    }
    out.push_str(rest);
    (out, placeholders)
}

/// `arg:spec` with the argument and the `name$` counts of the spec rewritten.
fn rewrite_placeholder(inner: &str, names: &mut Names, errors: &mut Errors) -> String {
    let (arg, spec) = match inner.split_once(':') {
        Some((arg, spec)) => (arg.trim(), Some(spec)),
        None => (inner.trim(), None),
    };
    let trait_ = FmtTrait::of_spec(spec.unwrap_or(""));
    let mut out = String::new();
    if !arg.is_empty() {
        out.push_str(&names.lookup(arg, trait_, false, errors));
    }
    if let Some(spec) = spec {
        out.push(':');
        out.push_str(&rewrite_spec(spec, &mut |name| {
            names.lookup(name, FmtTrait::Display, true, errors)
        }));
    }
    out
}

/// The user's extra arguments, rewritten for the operator's and the public view, with
/// every field they mention and where they name `self`.
type Arguments = (Vec<TokenStream>, Vec<TokenStream>, Vec<usize>, Vec<Span>);

fn user_arguments(
    format: &Format,
    fields: &[Field],
    owner: &str,
    krate: &TokenStream,
    errors: &mut Errors,
) -> Option<Arguments> {
    let (mut args, mut public_args, mut shown) = (Vec::new(), Vec::new(), Vec::new());
    let mut selves = Vec::new();
    let mut ok = true;
    let redacted = quote!(#krate::__private::Redacted);
    let values = format
        .positional
        .iter()
        .chain(format.named.iter().map(|(_, a)| a));
    for arg in values {
        let mut mentioned = Mentions::default();
        let rewritten = match rewrite_args(arg.clone(), fields, owner, &mut mentioned) {
            Ok(tokens) => tokens,
            Err(e) => {
                errors.push(e);
                ok = false;
                continue;
            }
        };
        let secret = mentioned
            .fields
            .iter()
            .any(|&i| fields[i].attrs.redact.is_some());
        shown.extend(&mentioned.fields);
        selves.extend(mentioned.selves);
        args.push(rewritten.clone());
        public_args.push(if secret { redacted.clone() } else { rewritten });
    }
    if !ok {
        return None;
    }
    // Name the user's named arguments again in front of their values.
    let positional = format.positional.len();
    for (i, (name, _)) in format.named.iter().enumerate() {
        let name = argument_ident(name);
        let value = &args[positional + i];
        args[positional + i] = quote!(#name = #value);
        let value = &public_args[positional + i];
        public_args[positional + i] = quote!(#name = #value);
    }
    Some((args, public_args, shown, selves))
}

/// One named argument for each field the string names; reports a redacted width.
fn field_arguments(
    names: &Names,
    krate: &TokenStream,
    args: &mut Vec<TokenStream>,
    display_args: &mut Vec<TokenStream>,
    public_args: &mut Vec<TokenStream>,
    errors: &mut Errors,
) -> Option<()> {
    let redacted = quote!(#krate::__private::Redacted);
    let mut ok = true;
    let mut seen: Vec<usize> = Vec::new();
    if names.names_self {
        let this = Ident::new(SELF_ARGUMENT, names.format.lit.span());
        args.push(quote!(#this = self));
        // `{self:?}` is the Debug of every field, a `#[redact]` one included.
        if names.fields.iter().any(|f| f.attrs.redact.is_some()) {
            display_args.push(quote!(#this = #redacted));
        } else {
            display_args.push(quote!(#this = self));
        }
        public_args.push(quote!(#this = #redacted));
    }
    for &(index, pass) in &names.needed {
        let field = &names.fields[index];
        let binding = &field.binding;
        if pass != Pass::Itself {
            let name = argument_name(field, pass);
            let value = match pass {
                Pass::PathDisplay => quote!(#binding.display()),
                Pass::HeadFree => quote!((&&#krate::__private::HeadFree(#binding)).head_free()),
                _ => quote!(*#binding),
            };
            args.push(quote!(#name = #value));
            display_args.push(match field.attrs.redact {
                Some(_) => quote!(#name = #redacted),
                None => quote!(#name = #value),
            });
            public_args.push(match (field.attrs.redact, pass) {
                (Some(_), _) => quote!(#name = #redacted),
                (None, Pass::HeadFree) => {
                    quote!(#name = (&&#krate::__private::PublicField(#binding)).public_field())
                }
                (None, _) => quote!(#name = #value),
            });
            continue;
        }
        if seen.contains(&index) {
            continue;
        }
        seen.push(index);
        args.push(quote!(#binding = #binding));
        display_args.push(if field.attrs.redact.is_some() {
            quote!(#binding = #redacted)
        } else {
            quote!(#binding = #binding)
        });
        let width = names.widths.contains(&index);
        if let Some(redact) = field.attrs.redact.filter(|_| width) {
            errors.at(
                redact,
                format!(
                    "a #[redact] field cannot set a width or precision: its value would show in the padding of public renderings; remove #[redact] from `{}`, or do not use it after `$`",
                    field.shown()
                ),
            );
            ok = false;
        }
        public_args.push(if field.attrs.redact.is_some() {
            quote!(#binding = #redacted)
        } else if !width && may_be_error(field.ty) {
            quote!(#binding = (&&#krate::__private::PublicField(#binding)).public_field())
        } else {
            quote!(#binding = #binding)
        });
    }
    ok.then_some(())
}

/// The named argument standing for `field` in the rewritten string: its binding, or a
/// second name for what `pass` makes of it (`{path:?}` still needs the path itself).
fn argument_name(field: &Field, pass: Pass) -> Ident {
    let prefix = match pass {
        Pass::Itself => return field.binding.clone(),
        Pass::PathDisplay => "__agent_display",
        Pass::Pointee => "__agent_pointee",
        Pass::HeadFree => "__agent_headless",
    };
    Ident::new(&format!("{prefix}_{}", field.binding), field.binding.span())
}

/// The argument `{self:?}` is rewritten to.
const SELF_ARGUMENT: &str = "__agent_self";

/// The user's named argument `name` as passed to `write!`: a keyword (`type = 1`) cannot
/// name a format argument, so it is passed under another name.
fn argument_ident(name: &Ident) -> Ident {
    let text = name.to_string();
    if syn::parse_str::<Ident>(&text).is_ok() {
        return name.clone();
    }
    Ident::new(&format!("__agent_arg_{text}"), name.span())
}

/// `Path` or `PathBuf`, or a reference to one: not `Display`, shown as thiserror shows
/// them, through `.display()`. Known by name: `.display()` is how they are shown, not a
/// question of redaction.
fn is_path(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => is_path(&r.elem),
        syn::Type::Paren(p) => is_path(&p.elem),
        syn::Type::Group(g) => is_path(&g.elem),
        syn::Type::Path(p) if p.qself.is_none() => p.path.segments.last().is_some_and(|last| {
            (last.ident == "Path" || last.ident == "PathBuf") && last.arguments.is_none()
        }),
        _ => false,
    }
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
    let names: Vec<String> = fields.iter().map(|f| format!("`{}`", f.shown())).collect();
    match &names[..] {
        [only] => format!("its only field is {only}"),
        _ => format!("its fields are {}", names.join(", ")),
    }
}

/// Rewrites `name$` width and precision arguments inside a format spec.
fn rewrite_spec(spec: &str, lookup: &mut dyn FnMut(&str) -> String) -> String {
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
            out.push_str(&lookup(name));
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
/// message: every type that can be `Display`. Which of them is an error is decided by
/// trait, never by the type's name (a user's error type may be called `Url`):
/// `PublicField` picks its public form by autoref specialization, and a value that is no
/// error renders as itself. Arrays, slices and tuples are never `Display`.
///
/// The language's scalars and `str`, and std's `String` written as such, are never errors
/// and are written as themselves: they need no specialization, which keeps the expansion
/// of the commonest messages as short as a hand-written `Display`.
fn may_be_error(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => may_be_error(&r.elem),
        syn::Type::Paren(p) => may_be_error(&p.elem),
        syn::Type::Group(g) => may_be_error(&g.elem),
        syn::Type::Array(_) | syn::Type::Slice(_) | syn::Type::Tuple(_) => false,
        syn::Type::Path(p) => !is_plain_value(p),
        _ => true,
    }
}

/// A scalar, `str` or `String` named by its plain name (or `String` by its std path).
fn is_plain_value(ty: &syn::TypePath) -> bool {
    const PLAIN: &[&str] = &[
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
        "f32", "f64", "bool", "char", "str", "String",
    ];
    if ty.qself.is_some() {
        return false;
    }
    let segments: Vec<String> = ty
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let plain_args = ty.path.segments.iter().all(|s| s.arguments.is_none());
    let name = match segments.as_slice() {
        [one] if ty.path.leading_colon.is_none() => one.as_str(),
        [krate, module, last] if (krate == "std" || krate == "alloc") && module == "string" => {
            last.as_str()
        }
        _ => return false,
    };
    plain_args && PLAIN.contains(&name) && (segments.len() == 1 || name == "String")
}

/// The helper traits the arguments of a message call their methods through (autoref
/// specialization: `(&&HeadFree(x)).head_free()`), imported once at the top of each method
/// that formats a message, as thiserror imports its own; nothing when no message or hint
/// of the type calls them.
pub fn field_traits_for(input: &Input) -> TokenStream {
    let needed = input.variants.iter().any(|v| match &v.body {
        Body::Classified(c) => {
            let message = matches!(&c.message, Message::Template(t) if t.helpers);
            message || c.hints.iter().any(|h| h.helpers)
        }
        Body::Transparent(_) => false,
    });
    if needed {
        field_traits(&input.krate)
    } else {
        TokenStream::new()
    }
}

/// The `use` of every field trait, under `krate`.
pub fn field_traits(krate: &TokenStream) -> TokenStream {
    quote! {
        #[allow(unused_imports)]
        use #krate::__private::{
            HeadFreePointer as _, HeadFreeTyped as _, HeadFreeValue as _, PublicDeref as _,
            PublicForeign as _, PublicTyped as _, PublicValue as _,
        };
    }
}

/// `{{` and `}}` as the text they stand for.
fn unescape(text: &str) -> String {
    text.replace("{{", "{").replace("}}", "}")
}

/// The `field` or `0` of a `.field` shorthand whose `.` is `tokens[i]`: a `.` that starts
/// an expression (not `a.b`, not `..`), with the members after it: `.0.0` is lexed as `.`
/// and the float `0.0`, which names field `0` and its own field `0`.
fn member_after_dot(tokens: &[TokenTree], i: usize) -> Option<(String, Vec<String>, Span)> {
    let starts_expr = match i.checked_sub(1).map(|j| &tokens[j]) {
        None => true,
        Some(TokenTree::Punct(prev)) => prev.as_char() != '.' || prev.spacing() == Spacing::Alone,
        // `match .0 {`, `if .ok`, `&mut .buf`: after a keyword an expression starts.
        Some(TokenTree::Ident(prev)) => EXPR_KEYWORDS.contains(&prev.to_string().as_str()),
        Some(_) => false,
    };
    if !starts_expr {
        return None;
    }
    match tokens.get(i + 1)? {
        TokenTree::Ident(ident) => Some((ident.to_string(), Vec::new(), ident.span())),
        TokenTree::Literal(lit) => {
            let text = lit.to_string();
            let mut parts = text.split('.');
            let first = parts.next()?.to_string();
            let rest: Vec<String> = parts.map(str::to_string).collect();
            let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
            (digits(&first) && rest.len() <= 1 && rest.iter().all(|r| digits(r)))
                .then(|| (first, rest, lit.span()))
        }
        _ => None,
    }
}

/// Keywords after which an expression starts, so that a `.field` after them is the shorthand.
const EXPR_KEYWORDS: [&str; 7] = ["match", "if", "while", "in", "return", "break", "mut"];

/// What an argument mentions, as far as its tokens show.
#[derive(Default)]
struct Mentions {
    /// The fields named by `.field`, `.0` or the binding's name.
    fields: Vec<usize>,
    /// Each `self`, and each string literal that captures `{self}` (`format!("{self:?}")`).
    selves: Vec<Span>,
}

/// Rewrites `.field` and `.0` in format arguments into the field's binding, and
/// records which fields an argument mentions (for redaction) and where it names `self`.
fn rewrite_args(
    tokens: TokenStream,
    fields: &[Field],
    owner: &str,
    mentioned: &mut Mentions,
) -> syn::Result<TokenStream> {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = TokenStream::new();
    let mut i = 0;
    while i < tokens.len() {
        let tt = &tokens[i];
        match tt {
            TokenTree::Punct(p) if p.as_char() == '.' && p.spacing() == Spacing::Alone => {
                if let Some((name, more, span)) = member_after_dot(&tokens, i) {
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
                    mentioned.fields.push(field.index);
                    let mut binding = field.binding.clone();
                    // Shown at `.field`, resolved as the pattern's binding (hygiene inside `macro_rules!`).
                    binding.set_span(binding.span().located_at(span));
                    let more = more.iter().map(|m| syn::Index {
                        index: m.parse().unwrap_or(u32::MAX),
                        span,
                    });
                    out.extend(quote!((#binding) #(.#more)*));
                    i += 2;
                    continue;
                }
                out.extend([tt.clone()]);
            }
            TokenTree::Ident(ident) => {
                if let Some(field) = fields.iter().find(|f| f.binding == *ident) {
                    mentioned.fields.push(field.index);
                }
                if ident == "self" {
                    mentioned.selves.push(ident.span());
                }
                out.extend([tt.clone()]);
            }
            TokenTree::Literal(lit) => {
                if captures_self(lit) {
                    mentioned.selves.push(lit.span());
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

/// Whether a string literal captures `self` as a format string would (`"{self:?}"`).
fn captures_self(lit: &proc_macro2::Literal) -> bool {
    let syn::Lit::Str(text) = syn::Lit::new(lit.clone()) else {
        return false;
    };
    let text = text.value();
    let mut rest = text.as_str();
    while let Some(at) = rest.find('{') {
        let tail = &rest[at + 1..];
        if let Some(after) = tail.strip_prefix('{') {
            rest = after;
            continue;
        }
        let end = tail.find(['}', ':']).unwrap_or(tail.len());
        if tail[..end].trim() == "self" {
            return true;
        }
        rest = tail;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::resolve;
    use crate::errors::Errors;
    use crate::model::Field;
    use crate::model::{FieldAttrs, Format};
    use proc_macro2::Span;
    use proptest::prelude::*;
    use quote::{format_ident, quote};
    use syn::{LitStr, Member, Type};

    #[test]
    fn scalars_str_and_string_are_never_errors_and_anything_else_may_be() {
        for plain in [
            "u32",
            "&'static str",
            "String",
            "std::string::String",
            "bool",
            "f64",
        ] {
            let ty: Type = syn::parse_str(plain).unwrap();
            assert!(!super::may_be_error(&ty), "{plain}");
        }
        for other in [
            "T",
            "Url",
            "io::Error",
            "my::String",
            "String<T>",
            "::String",
            "Box<str>",
        ] {
            let ty: Type = syn::parse_str(other).unwrap();
            assert!(super::may_be_error(&ty), "{other}");
        }
    }

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
    fn finds_self_captured_in_a_nested_format_string() {
        let captures = |text: &str| super::captures_self(&proc_macro2::Literal::string(text));
        assert!(captures("{self:?}"));
        assert!(captures("a { self } b"));
        assert!(!captures("{{self}}"));
        assert!(!captures("{self_}"));
        assert!(!captures("{"));
        assert!(!super::captures_self(&proc_macro2::Literal::u8_suffixed(1)));
    }

    proptest! {
        #[test]
        fn never_panics_on_any_text(text in "[{}:$<>^.#0-9a-z_€ ]{0,30}|\\PC{0,30}") {
            let (ok, errors) = check(&text);
            prop_assert!(ok || errors > 0, "a refused format string reports why");
        }
    }
}
