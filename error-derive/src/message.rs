//! Messages and Display: `fmt_message`, `fmt_public_message` (redacted) and
//! `Display` as `{op} [{code}]: {message}`, then `: {cause}` when there is one.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use crate::model::{Body, Classified, Input, Op, Variant};
use crate::source;
use crate::transparent::{self, Ask};

/// The formatter's name in generated code: hygienic, so that no field's name (`f`, or even
/// `__agent_f`) can shadow it.
pub fn formatter() -> Ident {
    Ident::new("__agent_f", Span::mixed_site())
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

/// A pattern that binds every field of `v`.
pub fn bind_all(v: &Variant) -> TokenStream {
    let path = &v.path;
    let fields = v.fields.iter().map(|f| f.pattern());
    quote!(#path { #(#fields,)* .. })
}

fn display_arm(input: &Input, v: &Variant, c: &Classified) -> TokenStream {
    let body = display_joined(input, v, c).unwrap_or_else(|| display_in_parts(input, v, c));
    let pattern = bind_all(v);
    quote!(#pattern => { #body })
}

/// Op, code, message and cause in one `write!`, as a hand-written `Display` writes them:
/// each extra write costs a dynamic call into the writer. `None` when the message is
/// not surely well formed (see `Template::write_framed`).
fn display_joined(input: &Input, v: &Variant, c: &Classified) -> Option<TokenStream> {
    let f = formatter();
    let code = &c.code;
    let mut extra = Vec::new();
    let head = match &c.op {
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
        return c.message.write_framed(&f, &head, "", &extra);
    };
    let (_, cause, optional) = source::cause(v, i, &input.krate);
    if optional {
        let message = c.message.write_framed(&f, &head, "", &extra)?;
        let cause = optional_cause(input, cause);
        return Some(quote!(#message?; #cause));
    }
    let name = argument_name("__agent_cause", v);
    let arg = Ident::new(&name, Span::call_site());
    extra.push(quote!(#arg = #cause));
    c.message
        .write_framed(&f, &head, &format!(": {{{name}}}"), &extra)
}

/// The prefix, the message and the cause each written on its own, for a message that is
/// not surely well formed: its literal then stays as written, for rustc's errors.
fn display_in_parts(input: &Input, v: &Variant, c: &Classified) -> TokenStream {
    let krate = &input.krate;
    let f = formatter();
    let code = &c.code;
    let prefix = match &c.op {
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
    let message = c.message.write(&f, false);
    let body = match shown_cause(c) {
        Some(i) => {
            let (_, cause, optional) = source::cause(v, i, krate);
            let cause = if optional {
                optional_cause(input, cause)
            } else {
                quote!(#krate::__private::write_cause(#f, #cause))
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
    c.source.filter(|&i| !c.message.shows(i))
}

/// `: {cause}` after the message when an `Option` cause holds one.
fn optional_cause(input: &Input, cause: TokenStream) -> TokenStream {
    let krate = &input.krate;
    let f = formatter();
    quote! {
        match #cause {
            ::core::option::Option::Some(__agent_cause) => #krate::__private::write_cause(#f, __agent_cause),
            ::core::option::Option::None => ::core::result::Result::Ok(()),
        }
    }
}

/// `impl Display`: the operator's view.
pub fn expand_display(input: &Input) -> TokenStream {
    let f = formatter();
    let arms = input.variants.iter().map(|v| match &v.body {
        Body::Classified(c) => display_arm(input, v, c),
        Body::Transparent(t) => transparent::arm(input, v, t, Ask::Display),
    });
    let body = input.match_self(arms);
    quote! {
        #[allow(unused_variables)]
        fn fmt(&self, #f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            #body
        }
    }
}

/// `fmt_message` and `fmt_public_message` of `AgentError`.
pub fn expand_messages(input: &Input) -> TokenStream {
    let krate = &input.krate;
    let f = formatter();
    let method = |public: bool| {
        let (name, ask) = if public {
            (quote!(fmt_public_message), Ask::FmtPublicMessage)
        } else {
            (quote!(fmt_message), Ask::FmtMessage)
        };
        let arms = input.variants.iter().map(|v| match &v.body {
            Body::Classified(c) => {
                let pattern = bind_all(v);
                let write = c.message.write(&f, public);
                quote!(#pattern => #write,)
            }
            Body::Transparent(t) => transparent::arm(input, v, t, ask),
        });
        let body = input.match_self(arms);
        quote! {
            #[allow(unused_variables)]
            fn #name(&self, #f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                #body
            }
        }
    };
    let private = method(false);
    let public = if input.variants.iter().any(|v| match &v.body {
        Body::Classified(c) => c.message.mentions_redacted(),
        Body::Transparent(_) => true,
    }) {
        method(true)
    } else {
        quote! {
            #[inline]
            fn fmt_public_message(&self, #f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                #krate::AgentError::fmt_message(self, #f)
            }
        }
    };
    quote!(#private #public)
}
