//! Messages: `#[error("...")]` or the first line of the doc comment, and what is made of
//! them: `fmt_message`, `fmt_public_message` (redacted) and `Display` as
//! `{op} [{code}]: {message}`, then `: {cause}` when there is one.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::quote;
use syn::Ident;
use syn::ext::IdentExt;
use syn::parse::ParseStream;
use syn::{Attribute, LitStr, Token};

use crate::errors::Errors;
use crate::format;
use crate::model::{
    AgentAttrs, Body, Classified, DisplayMode, ErrorAttr, Field, Format, Input, Message, Op, Place,
    Template, Variant, View, formatter,
};
use crate::parse::{Arg, Sp, one_of};
use crate::source;
use crate::transparent::{self, Ask};

/// The variant's message: its `#[error("...")]`, else the first line of its doc comment.
pub fn of(
    error: Option<ErrorAttr>,
    docs: &[Sp<String>],
    fields: &[Field],
    owner: &str,
    krate: &TokenStream,
    errors: &mut Errors,
) -> Message {
    let format = match error {
        Some(ErrorAttr::Format(format)) => format,
        Some(ErrorAttr::Function(path, span)) => {
            return Message::Template(Box::new(function_call(&path, span, fields, krate)));
        }
        Some(ErrorAttr::Unreadable) => return Message::Invalid,
        _ => match docs.iter().find(|d| !d.value.trim().is_empty()) {
            Some(line) => format::from_text(line.value.trim(), line.span),
            None => return Message::Missing,
        },
    };
    match format::resolve(&format, fields, owner, krate, errors) {
        Some(template) => Message::Template(Box::new(template)),
        None => Message::Invalid,
    }
}

/// What to say about a variant without a message.
pub fn missing(place: Place, owner: &str) -> String {
    let what = place.what();
    format!(
        "{what} `{owner}` has no message: add #[error(\"...\")] or a `///` doc comment whose first line is the message{}",
        crate::errors::see("no-message")
    )
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
            Err(e) => {
                errors.push(e);
                found = Some(ErrorAttr::Unreadable);
            }
        }
    }
    found
}

fn parse_error_args(input: ParseStream) -> syn::Result<ErrorAttr> {
    mod kw {
        syn::custom_keyword!(transparent);
        syn::custom_keyword!(fmt);
    }
    if input.peek(kw::fmt) && input.peek2(Token![=]) {
        let kw: kw::fmt = input.parse()?;
        input.parse::<Token![=]>()?;
        let path = argument(input)?;
        if !input.is_empty() {
            return Err(input.error("#[error(fmt = path)] takes nothing else: the function is given every field, then the formatter"));
        }
        return Ok(ErrorAttr::Function(path, kw.span));
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
        if input.peek(Ident::peek_any) && input.peek2(Token![=]) && !input.peek2(Token![==]) {
            let name = Ident::parse_any(input)?;
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

/// The message of `#[error(fmt = path)]`, as thiserror writes it: `path(&field, ...,
/// formatter)` with every field in order. Its output is the message everywhere, public
/// renderings included (so `validate` refuses a `#[redact]` field beside it); the cause
/// follows it in Display as after any message.
fn function_call(
    path: &TokenStream,
    span: Span,
    fields: &[Field],
    krate: &TokenStream,
) -> Template {
    let bindings = fields.iter().map(|f| &f.binding);
    let f = Ident::new("__agent_formatter", Span::mixed_site());
    let name = Ident::new("__agent_fmt", span);
    let call = quote! {
        #name = #krate::__private::DisplayFn(|#f: &mut ::core::fmt::Formatter<'_>| #path(#(#bindings,)* #f))
    };
    let lit = LitStr::new("{__agent_fmt}", span);
    Template {
        written: String::new(),
        joinable: true,
        by_function: true,
        lit,
        args: vec![call.clone()],
        display_args: vec![call.clone()],
        public_args: vec![call],
        uses: Vec::new(),
        shown: Vec::new(),
        plain: None,
        self_in_args: Vec::new(),
        helpers: false,
    }
}

/// One format argument: the tokens up to the next top-level comma. Commas inside generic
/// arguments do not end it: after `::` (`parse::<A, B>()`) or in the type after `as`
/// (`&0 as &dyn Trait<i32, A = i32>`), where Rust too reads `<` as opening them.
fn argument(input: ParseStream) -> syn::Result<TokenStream> {
    let mut tokens = TokenStream::new();
    let mut angle_depth = 0usize;
    let mut after_colons = false;
    let mut in_type = false;
    while !input.is_empty() {
        if angle_depth == 0 && input.peek(Token![,]) {
            break;
        }
        let tt: TokenTree = input.parse()?;
        match &tt {
            TokenTree::Punct(p) => {
                match p.as_char() {
                    '<' if after_colons || in_type || angle_depth > 0 => angle_depth += 1,
                    '>' if angle_depth > 0 => angle_depth -= 1,
                    // A type goes on through references, pointers, paths and lifetimes.
                    '&' | '*' | ':' | '\'' | '<' | '>' => {}
                    _ => in_type = false,
                }
                after_colons = p.as_char() == ':';
            }
            TokenTree::Ident(ident) => {
                in_type |= ident == "as";
                after_colons = false;
            }
            _ => after_colons = false,
        }
        tokens.extend([tt]);
    }
    if tokens.is_empty() {
        return Err(input.error("expected an argument"));
    }
    Ok(tokens)
}

/// A name for a format argument of the generated Display (`base`, or `base` with `_`s
/// after it) that no field of `v` is bound to: format arguments are matched by name, so
/// hygiene cannot keep them apart.
fn argument_name(base: &str, v: &Variant) -> String {
    let mut name = base.to_string();
    while v.fields.iter().any(|f| f.binding == name) {
        name.push('_');
    }
    name
}

/// `display = "message"` (the `#[error]` message alone, as thiserror writes it) or
/// `display = "card"` (`op [code]: message: cause`, the default), on the type or a variant.
pub fn parse_display(out: &mut AgentAttrs, arg: &mut Arg) -> syn::Result<()> {
    let names = [
        ("card", DisplayMode::Card),
        ("message", DisplayMode::Message),
    ];
    let mode = one_of(arg, &names, |other| {
        format!(
            "unknown display `{other}`; expected \"message\" (the #[error] message alone, as thiserror writes it) or \"card\" (op [code]: message: cause, the default)"
        )
    })?;
    if let Some(mode) = mode {
        arg.set(&mut out.display, mode);
    }
    Ok(())
}

/// What Display writes for `v`: its own `display`, else the type's, else the card.
fn display_mode(input: &Input, v: &Variant) -> DisplayMode {
    v.attrs
        .display
        .as_ref()
        .or(input.attrs.display.as_ref())
        .map_or(DisplayMode::Card, |mode| mode.value)
}

fn display_arm(input: &Input, v: &Variant, c: &Classified) -> TokenStream {
    let body = if display_mode(input, v) == DisplayMode::Message {
        c.message().write(&formatter(), View::Display)
    } else {
        display_joined(input, v, c).unwrap_or_else(|| display_in_parts(input, v, c))
    };
    let (pattern, redacted) = v.bind_redacted(&input.krate);
    quote!(#pattern => { #redacted #body })
}

/// Op, code, message and cause in one `write!`, as a hand-written `Display` writes them:
/// each extra write costs a dynamic call into the writer. `None` when the message is
/// not surely well formed (see `Template::write_framed`).
fn display_joined(input: &Input, v: &Variant, c: &Classified) -> Option<TokenStream> {
    let f = formatter();
    let code = &c.code.value;
    let mut extra = Vec::new();
    let head = match c.op() {
        Op::Static(op) => format!("{op} [{code}]: "),
        Op::Field(i) => {
            let binding = v.fields[*i].binding_at_type();
            let name = argument_name("__agent_op", v);
            let arg = Ident::new(&name, Span::call_site());
            extra.push(quote!(#arg = ::core::convert::AsRef::<str>::as_ref(#binding)));
            format!("{{{name}}} [{code}]: ")
        }
    };
    let Some(i) = shown_cause(c) else {
        return c.message().write_framed(&f, &head, "", &extra);
    };
    let (cause, optional) = shown(input, v, i);
    if let Some(binding) = optional {
        let message = c.message().write_framed(&f, &head, "", &extra)?;
        let cause = optional_cause(binding, cause);
        return Some(quote!(#message?; #cause));
    }
    let name = argument_name("__agent_cause", v);
    let arg = Ident::new(&name, Span::call_site());
    extra.push(quote!(#arg = #cause));
    c.message()
        .write_framed(&f, &head, &format!(": {{{name}}}"), &extra)
}

/// The prefix, the message and the cause each written on its own, for a message that is
/// not surely well formed: its literal then stays as written, for rustc's errors.
fn display_in_parts(input: &Input, v: &Variant, c: &Classified) -> TokenStream {
    let f = formatter();
    let code = &c.code.value;
    let prefix = match c.op() {
        Op::Static(op) => {
            let head = format!("{op} [{code}]: ");
            quote!(#f.write_str(#head)?;)
        }
        Op::Field(i) => {
            let binding = v.fields[*i].binding_at_type();
            let tail = format!(" [{code}]: ");
            quote! {
                #f.write_str(::core::convert::AsRef::<str>::as_ref(#binding))?;
                #f.write_str(#tail)?;
            }
        }
    };
    let message = c.message().write(&f, View::Display);
    let body = match shown_cause(c) {
        Some(i) => {
            let (cause, optional) = shown(input, v, i);
            let cause = match optional {
                Some(binding) => optional_cause(binding, cause),
                None => quote!(::core::write!(#f, ": {}", #cause)),
            };
            quote!(#message?; #cause)
        }
        None => message,
    };
    quote!(#prefix #body)
}

/// The cause Display writes after the message: none when the message already shows it
/// (`#[error("io error: {0}")] Io(#[from] io::Error)`), so that it is written once.
fn shown_cause(c: &Classified) -> Option<usize> {
    c.source.filter(|&i| !c.message().shows(i))
}

/// The cause field `index` of `v` as Display writes it after the message: a cause that is
/// itself an `AgentError` without its `op [code]: ` head (one head a line), anything else
/// as itself. For an `Option` field, the field's binding too: the cause is then what it
/// holds, bound to `__agent_cause`.
fn shown<'v>(input: &Input, v: &'v Variant, index: usize) -> (TokenStream, Option<&'v Ident>) {
    let krate = &input.krate;
    let field = &v.fields[index];
    if source::is_option(field.ty) {
        let shown = quote!((&&#krate::__private::HeadFree(__agent_cause)).head_free());
        return (shown, Some(&field.binding));
    }
    let binding = &field.binding;
    (
        quote!((&&#krate::__private::HeadFree(#binding)).head_free()),
        None,
    )
}

/// `: {cause}` after the message when the `Option` cause `binding` holds one (`shown` is
/// how it is written, from [`shown`]).
fn optional_cause(binding: &Ident, shown: TokenStream) -> TokenStream {
    let f = formatter();
    quote! {
        match #binding {
            ::core::option::Option::Some(__agent_cause) => ::core::write!(#f, ": {}", #shown),
            ::core::option::Option::None => ::core::result::Result::Ok(()),
        }
    }
}

/// `impl Display`: the operator's view. Each variant keeps an arm of its own, its head and
/// message in one joined write (one `write_fmt` a call, as a hand-written `write!`).
pub fn expand_display(input: &Input) -> TokenStream {
    let f = formatter();
    let krate = &input.krate;
    let arms = input.variants.iter().map(|v| match &v.body {
        Body::Classified(c) => Some(display_arm(input, v, c)),
        Body::Transparent(t) => Some(transparent::arm(input, v, t, Ask::Display)),
    });
    let body = input.match_or(arms, TokenStream::new());
    // A cause after the message is written through them too.
    let causes = input.variants.iter().any(|v| match &v.body {
        Body::Classified(c) => shown_cause(c).is_some(),
        Body::Transparent(_) => false,
    });
    let traits = if causes {
        crate::format::field_traits(krate)
    } else {
        crate::format::field_traits_for(input)
    };
    quote! {
        #[allow(unused_variables)]
        fn fmt(&self, #f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            #traits
            #body
        }
    }
}

/// `fmt_message`, `fmt_redacted_message` and `fmt_public_message` of `AgentError`.
pub fn expand_messages(input: &Input) -> TokenStream {
    let krate = &input.krate;
    let f = formatter();
    let method = |view: View| {
        let (name, ask) = match view {
            View::Full => (quote!(fmt_message), Ask::FmtMessage),
            View::Display => (quote!(fmt_redacted_message), Ask::FmtRedactedMessage),
            View::Public => (quote!(fmt_public_message), Ask::FmtPublicMessage),
        };
        let arms = input.variants.iter().map(|v| match &v.body {
            Body::Classified(c) if view == View::Full => {
                let pattern = v.bind_all();
                let write = c.message().write(&f, view);
                quote!(#pattern => #write,)
            }
            Body::Classified(c) => {
                let (pattern, redacted) = v.bind_redacted(krate);
                let write = c.message().write(&f, view);
                quote!(#pattern => { #redacted #write })
            }
            Body::Transparent(t) => transparent::arm(input, v, t, ask),
        });
        let body = input.match_self(arms);
        let traits = crate::format::field_traits_for(input);
        quote! {
            #[allow(unused_variables)]
            fn #name(&self, #f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                #traits
                #body
            }
        }
    };
    let private = method(View::Full);
    let differs = |view: View| {
        input.variants.iter().any(|v| match &v.body {
            // A `#[redact]` field may be captured where the derive cannot see it
            // (`format!("{key}")` in an argument): such a variant writes its own.
            Body::Classified(c) => v.has_redacted() || c.message().differs(view),
            Body::Transparent(_) => true,
        })
    };
    // The trait's default (`fmt_message`) serves a type without `#[redact]` fields whose
    // messages show no error field.
    let redacted = if differs(View::Display) {
        method(View::Display)
    } else {
        TokenStream::new()
    };
    let public = if differs(View::Public) {
        method(View::Public)
    } else {
        quote! {
            #[inline]
            fn fmt_public_message(&self, #f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                #krate::AgentError::fmt_message(self, #f)
            }
        }
    };
    quote!(#private #redacted #public)
}
