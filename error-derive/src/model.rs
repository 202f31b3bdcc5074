//! The typed input: the type, its variants and fields, each attribute read into a value
//! with its span, and the facts the concepts derive from them (the variant's final code,
//! op, message, policy, cause). Built by `attr`, checked by `validate`, expanded by the
//! concept files; the behaviour of each piece lives in its concept's file.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned as _;
use syn::{Generics, LitStr, Member, Type};

/// The vocabularies of `recovery = "..."` and `jitter = "..."`: the runtime's own types.
pub use agent_error_rules::{Jitter, Recovery};

use crate::duration::Nanos;
use crate::parse::Sp;

/// Where an `#[agent(...)]` attribute stands; it decides which keys are allowed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Enum,
    Struct,
    Variant,
}

impl Place {
    /// `struct` or `variant`, for messages about a variant.
    pub fn what(self) -> &'static str {
        if self == Place::Struct {
            "struct"
        } else {
            "variant"
        }
    }
}

pub struct Input<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    /// `Enum` or `Struct`.
    pub place: Place,
    /// The type's `#[agent(...)]`; on a struct, also its variant's.
    pub attrs: AgentAttrs,
    /// An enum's `#[error("...")]` or `#[error(fmt = ...)]`: the message of the variants
    /// without their own (never `Transparent`).
    pub default_message: Option<ErrorAttr>,
    /// `#[error(transparent)]` written on an enum.
    pub transparent_enum: Option<Span>,
    /// Field attributes (`#[source]`, `#[from]`...) written on the enum.
    pub misplaced_field_attrs: Vec<&'a syn::Attribute>,
    /// `PartialEq` or `Eq` in a `#[derive(...)]` after the one that holds `AgentError`
    /// (the derive does not see its own attribute nor the ones before it).
    pub derived_eq: Vec<syn::Path>,
    /// `Debug` among the type's `#[derive(...)]` paths.
    pub derived_debug: Vec<syn::Path>,
    pub krate: TokenStream,
    pub variants: Vec<Variant<'a>>,
}

pub struct Variant<'a> {
    pub ident: &'a Ident,
    /// `Self::Name` for an enum variant, `Self` for a struct.
    pub path: TokenStream,
    pub fields: Vec<Field<'a>>,
    /// The `///` lines.
    pub docs: Vec<Sp<String>>,
    pub attrs: AgentAttrs,
    /// The `#[from]` field, when it is the only field.
    pub from: Option<usize>,
    /// Field attributes (`#[source]`, `#[from]`...) written on the variant or struct.
    pub misplaced_field_attrs: Vec<&'a syn::Attribute>,
    pub body: Body,
}

pub enum Body {
    /// `#[error(transparent)]`: everything comes from the one field.
    Transparent(Transparent),
    Classified(Box<Classified>),
}

pub struct Transparent {
    /// `transparent` as written.
    pub span: Span,
    /// The code when the field is a foreign error that nothing classifies.
    pub code: String,
    /// The variant's or the type's op, for a foreign field.
    pub op: Option<String>,
    /// The field's type mentions a type parameter: it is bound by `AgentError`, and
    /// forwarded to directly (autoref specialization does not see through parameters).
    pub generic: bool,
}

pub struct Classified {
    pub code: Code,
    /// `None` when no op is given anywhere.
    pub op: Option<Op>,
    pub message: Message,
    pub hints: Vec<Template>,
    /// `None` when the variant is not retryable (or takes its retrying from its cause).
    pub policy: Option<Policy>,
    /// The variant says nothing about retrying and has a cause: its policy, `retry_after`
    /// and recovery, and its hints and status where it declares none, are its cause's
    /// classification at run time.
    pub from_cause: bool,
    /// The field holding the variant's HTTP status (marked `#[status]`, or typed
    /// `StatusCode`): its wire status unless `#[agent(status = N)]` says another.
    pub status: Option<usize>,
    /// The variant says nothing about retrying, has no cause and holds a status: it is
    /// retried as that status calls for, at run time.
    pub from_status: bool,
    /// The variant says nothing about retrying, has no cause and no status, and its code
    /// is one the shared vocabulary retries: `policy` is that code's.
    pub from_code: bool,
    /// What the variant is when its cause is unclassified (or its own, when not `from_cause`).
    pub recovery: Recovery,
    pub source: Option<usize>,
    pub retry_after: Option<usize>,
}

impl Classified {
    /// The op of a checked variant.
    pub fn op(&self) -> &Op {
        self.op.as_ref().expect("a checked variant has an op")
    }

    /// The message of a checked variant.
    pub fn message(&self) -> &Template {
        match &self.message {
            Message::Template(t) => t,
            _ => unreachable!("a checked variant has a message"),
        }
    }
}

/// The variant's final code.
pub struct Code {
    /// With the namespace.
    pub value: String,
    /// As written, or made from the variant's name; without the namespace.
    pub bare: String,
    /// Where the code was written (the variant's name when it is the default).
    pub span: Span,
    pub written: bool,
}

pub enum Op {
    Static(String),
    Field(usize),
}

pub enum Message {
    Template(Box<Template>),
    /// The format string names something that is not there (already reported).
    Invalid,
    /// Neither `#[error]` nor a doc comment.
    Missing,
}

/// Every key of `#[agent(...)]`, as written, at any place.
#[derive(Default, Clone)]
pub struct AgentAttrs {
    pub op: Option<Sp<String>>,
    pub code: Option<Sp<String>>,
    pub rename_all: Option<Sp<RenameRule>>,
    pub namespace: Option<Sp<String>>,
    pub retryable: Option<Span>,
    /// `retryable = false`: never retried, whatever the cause.
    pub never_retried: Option<Span>,
    pub rate_limited: Option<Span>,
    pub retry: Option<Sp<RetryArgs>>,
    pub hints: Vec<LitStr>,
    pub recovery: Option<Sp<Recovery>>,
    pub status: Option<Sp<u16>>,
    pub docs_url: Option<Sp<String>>,
    pub since: Option<Sp<String>>,
    pub deprecated: Option<Sp<String>>,
    pub no_eq: Option<Span>,
    /// `debug`: the derive writes `Debug`, with `#[redact]` fields as `[redacted]`.
    pub debug: Option<Span>,
    /// `miette`: the derive writes `miette::Diagnostic` (with agent-error's `miette` feature).
    pub miette: Option<Span>,
    /// `display = "message"` or `"card"`: what Display writes.
    pub display: Option<Sp<DisplayMode>>,
    pub krate: Option<Sp<syn::Path>>,
}

/// What Display writes for a classified variant.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum DisplayMode {
    /// `op [code]: message: cause`, the default.
    Card,
    /// The `#[error]` message alone, as thiserror writes it: no head, no cause.
    Message,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum RenameRule {
    Snake,
    ScreamingSnake,
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

/// A retryable variant's complete tuning.
#[derive(Clone, Copy)]
pub struct Policy {
    pub rate_limited: bool,
    pub attempts: u32,
    pub base: Nanos,
    pub max: Nanos,
    pub factor: f64,
    pub jitter: Jitter,
    pub max_wait: Nanos,
}

/// `#[error(...)]` as written.
#[derive(Clone)]
pub enum ErrorAttr {
    Transparent(Span),
    Format(Format),
    /// `#[error(fmt = path::to::function)]`: the path, and the span of `fmt`.
    Function(TokenStream, Span),
    /// An `#[error(...)]` that could not be read (already reported): a message is there,
    /// so none is asked for.
    Unreadable,
}

/// A format string with its extra arguments, as in `#[error("{} of {max}", .count, max = 3)]`.
#[derive(Clone)]
pub struct Format {
    pub lit: LitStr,
    pub positional: Vec<TokenStream>,
    pub named: Vec<(Ident, TokenStream)>,
}

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

/// Which text of a message a method writes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// Every field as it is (`fmt_message`).
    Full,
    /// `#[redact]` fields as `[redacted]`, the rest as it is (Display).
    Display,
    /// `#[redact]` fields as `[redacted]`, error fields in their public form
    /// (`fmt_public_message`, hints).
    Public,
}

/// A format string checked against the fields and rewritten into bindings (`format.rs`).
#[derive(Clone)]
pub struct Template {
    /// The string as the user wrote it (for the catalog).
    pub written: String,
    /// The rewritten string literal.
    pub lit: LitStr,
    /// Arguments after the string, for the operator's view.
    pub args: Vec<TokenStream>,
    /// The same arguments with `#[redact]` fields replaced, for Display.
    pub display_args: Vec<TokenStream>,
    /// The same arguments with redacted fields replaced and error fields in their public
    /// form, for public renderings.
    pub public_args: Vec<TokenStream>,
    /// Fields the placeholders name, with the trait they are formatted with.
    pub uses: Vec<(usize, FmtTrait)>,
    /// Every field the message shows: named by a placeholder or mentioned in an argument.
    pub shown: Vec<usize>,
    /// The text, when the string is plain: no placeholders and no arguments.
    pub plain: Option<String>,
    /// Whether Display may join the message with its prefix into one literal (`joinable.rs`).
    pub joinable: bool,
    /// Whether a function writes the message (`#[error(fmt = path)]`), given every field.
    pub by_function: bool,
    /// Where the arguments name `self`, which reaches every field, `#[redact]` ones included.
    pub self_in_args: Vec<Span>,
    /// Whether an argument calls the runtime's field traits (`format::field_traits`).
    pub helpers: bool,
}

/// Field attributes, each with the span of the attribute.
#[derive(Default)]
pub struct FieldAttrs {
    pub source: Option<Span>,
    pub from: Option<Span>,
    pub op: Option<Span>,
    pub retry_after: Option<Span>,
    pub redact: Option<Span>,
    /// `#[status]`: the field holds the HTTP status that classifies the variant.
    pub status: Option<Span>,
    /// `#[location]`: the field records where the error was made (the `?` of a `From`).
    pub location: Option<Span>,
    /// `#[error(...)]` written on the field, and whether it says `transparent`.
    pub error: Option<(Span, bool)>,
}

impl FieldAttrs {
    /// The marker attributes written on the field, as `#[name]` with where each was
    /// written, in one order (`#[error]` apart).
    pub fn written(&self) -> impl Iterator<Item = (&'static str, Span)> {
        [
            ("#[source]", self.source),
            ("#[from]", self.from),
            ("#[op]", self.op),
            ("#[retry_after]", self.retry_after),
            ("#[status]", self.status),
            ("#[redact]", self.redact),
            ("#[location]", self.location),
        ]
        .into_iter()
        .filter_map(|(name, span)| Some((name, span?)))
    }
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
    /// The name, or the index of a tuple field, for messages.
    pub fn shown(&self) -> String {
        self.name.clone().unwrap_or_else(|| self.index.to_string())
    }

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

impl Variant<'_> {
    /// A pattern that binds every field.
    pub fn bind_all(&self) -> TokenStream {
        let path = &self.path;
        let fields = self.fields.iter().map(|f| f.pattern());
        quote!(#path { #(#fields,)* .. })
    }

    /// For the redacted renderings (Display, the public message, hints): a pattern that
    /// binds every field but the `#[redact]` ones, and the `let`s that bind their names to
    /// `[redacted]` instead. A name the derive cannot see, captured inside an argument
    /// (`format!("{key}")`, a closure, a macro), then resolves to `[redacted]` too: the
    /// value itself is never bound where these renderings are written.
    pub fn bind_redacted(&self, krate: &TokenStream) -> (TokenStream, TokenStream) {
        let path = &self.path;
        let fields = self.fields.iter().map(|f| match f.attrs.redact {
            Some(_) => {
                let member = &f.member;
                quote!(#member: _)
            }
            None => f.pattern(),
        });
        let hidden = self.fields.iter().filter(|f| f.attrs.redact.is_some());
        let lets = hidden.map(|f| {
            let binding = &f.binding;
            quote!(let #binding = #krate::__private::Redacted;)
        });
        (quote!(#path { #(#fields,)* .. }), quote!(#(#lets)*))
    }

    /// Whether a field is `#[redact]`.
    pub fn has_redacted(&self) -> bool {
        self.fields.iter().any(|f| f.attrs.redact.is_some())
    }
}

/// The formatter's name in generated code: hygienic, so that no field's name (`f`, or even
/// `__agent_f`) can shadow it.
pub fn formatter() -> Ident {
    Ident::new("__agent_f", Span::mixed_site())
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
        self.match_with_default(arms.into_iter().collect(), default, false)
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
        self.match_with_default(arms.into_iter().collect(), default, true)
    }

    /// Not generic, so that it is compiled once for every caller's iterator.
    fn match_with_default(
        &self,
        arms: Vec<Option<TokenStream>>,
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
