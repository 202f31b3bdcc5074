//! Retry: `retryable`, `rate_limited` and `retry(...)` with its keys, the tuning merged
//! from variant, container and runtime defaults, `#[retry_after]`, the recovery
//! (`recovery = "..."` and its default), and the generated policy methods.

use agent_error_rules::defaults;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned as _;
use syn::{GenericArgument, LitFloat, LitInt, PathArguments, Type};

use crate::duration::{self, Nanos};
use crate::model::{
    AgentAttrs, Body, Classified, Field, Input, Jitter, Place, Policy, Recovery, RetryArgs, Variant,
};
use crate::parse::{self, Arg, Key, On, Sp, one_of};
use crate::table::{Answer, Table};
use crate::transparent::{self, Ask};

/// The runtime's defaults (one source, `agent_error_rules::defaults`), so that `base <= max`
/// is checked at compile time.
const DEFAULT_ATTEMPTS: u32 = defaults::MAX_ATTEMPTS;
const DEFAULT_BASE: Nanos = Nanos(defaults::BASE_DELAY.as_nanos());
const DEFAULT_MAX: Nanos = Nanos(defaults::MAX_DELAY.as_nanos());
const DEFAULT_FACTOR: f64 = defaults::FACTOR;
const DEFAULT_MAX_WAIT: Nanos = Nanos(defaults::MAX_WAIT.as_nanos());

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

impl AgentAttrs {
    /// Whether the variant says anything about retrying: a retry marker, `recovery`, or
    /// `retryable = false`. A variant that does not takes its retrying from its cause.
    pub fn says_retry(&self) -> bool {
        !self.retry_markers().is_empty() || self.recovery.is_some() || self.never_retried.is_some()
    }
}

/// `retryable`, or `retryable = false` (never retried, whatever the cause).
pub fn parse_retryable(out: &mut AgentAttrs, arg: &mut Arg) -> syn::Result<()> {
    if !arg.meta.input.peek(syn::Token![=]) {
        return arg.flag(&mut out.retryable);
    }
    let lit: syn::LitBool = match arg.value() {
        Ok(lit) => lit,
        Err(_) => {
            arg.error(
                arg.span,
                "write `retryable` alone to retry this variant, or `retryable = false` to never retry it",
            );
            return Ok(());
        }
    };
    if lit.value {
        arg.error(
            lit.span(),
            "write `retryable` alone: `= true` is what it means already (`retryable = false` is the way to say never retried)",
        );
    } else {
        let span = arg.span;
        arg.set(&mut out.never_retried, span);
    }
    Ok(())
}

/// `recovery = "replan"`.
pub fn parse_recovery(out: &mut AgentAttrs, arg: &mut Arg) -> syn::Result<()> {
    let names = Recovery::ALL.map(|r| (r.as_str(), r));
    let recovery = one_of(arg, &names, |other| {
        format!(
            "unknown recovery `{other}`; expected one of \"retry\", \"continue\", \"replan\", \"fallback\", \"compact\", \"abort\", \"escalate\""
        )
    })?;
    if let Some(recovery) = recovery {
        arg.set(&mut out.recovery, recovery);
    }
    Ok(())
}

/// `retry(attempts = 4, base = "100ms", ...)`, each key by the table [`RETRY_KEYS`].
pub fn parse_retry(out: &mut AgentAttrs, arg: &mut Arg) -> syn::Result<()> {
    if !arg.meta.input.peek(syn::token::Paren) {
        arg.error(
            arg.span,
            "write the tuning in parentheses: retry(attempts = 4, base = \"100ms\", max = \"5s\"); for the defaults write `retryable`",
        );
        return parse::skip_value(arg.meta);
    }
    let mut args = RetryArgs::default();
    arg.meta.parse_nested_meta(|inner| {
        parse::dispatch(
            &inner,
            RETRY_KEYS,
            |_| true,
            unknown_retry_key,
            &mut args,
            arg.errors,
        )
    })?;
    let span = arg.span;
    arg.set(&mut out.retry, Sp { value: args, span });
    Ok(())
}

fn unknown_retry_key(key: &str, keys: &[&str]) -> String {
    // A key that is a path (`a::b`) is shown as "this".
    let shown = if key.is_empty() || key.contains("::") {
        "this".to_string()
    } else {
        format!("`{key}`")
    };
    let key = if shown == "this" { "" } else { key };
    parse::unknown_key(key, &shown, "retry(...)", keys)
}

/// The keys of `retry(...)`.
#[rustfmt::skip]
const RETRY_KEYS: &[Key<RetryArgs>] = &[
    Key { name: "attempts", on: On::Both, example: "attempts = 4", parse: parse_attempts },
    Key { name: "base", on: On::Both, example: "base = \"200ms\"", parse: |a, arg| parse_duration(&mut a.base, arg) },
    Key { name: "max", on: On::Both, example: "max = \"30s\"", parse: |a, arg| parse_duration(&mut a.max, arg) },
    Key { name: "factor", on: On::Both, example: "factor = 2.0", parse: parse_factor },
    Key { name: "jitter", on: On::Both, example: "jitter = \"full\"", parse: parse_jitter },
    Key { name: "max_wait", on: On::Both, example: "max_wait = \"60s\"", parse: |a, arg| parse_duration(&mut a.max_wait, arg) },
];

fn parse_attempts(args: &mut RetryArgs, arg: &mut Arg) -> syn::Result<()> {
    let lit: LitInt = arg.value()?;
    match lit.base10_parse::<u32>() {
        Ok(0) => arg.error(
            lit.span(),
            "attempts = 0 would never make the call; attempts counts the first call too, so write 1 or more",
        ),
        Ok(n) => arg.set(&mut args.attempts, Sp { value: n, span: lit.span() }),
        Err(_) => arg.error(lit.span(), "attempts is a whole number of at least 1, like attempts = 4"),
    }
    Ok(())
}

fn parse_duration(slot: &mut Option<Sp<Nanos>>, arg: &mut Arg) -> syn::Result<()> {
    let lit = arg.string()?;
    match duration::parse(&lit.value()) {
        Ok(nanos) => arg.set(
            slot,
            Sp {
                value: nanos,
                span: lit.span(),
            },
        ),
        Err(message) => arg.error(lit.span(), message),
    }
    Ok(())
}

fn parse_factor(args: &mut RetryArgs, arg: &mut Arg) -> syn::Result<()> {
    let value = arg.meta.value()?;
    let (number, span) = if value.peek(LitFloat) {
        let lit: LitFloat = value.parse()?;
        (lit.base10_parse::<f64>().ok(), lit.span())
    } else if value.peek(LitInt) {
        let lit: LitInt = value.parse()?;
        (lit.base10_parse::<f64>().ok(), lit.span())
    } else {
        let tokens = parse::skip_rest(value);
        arg.error(
            tokens.span(),
            "factor is a number of at least 1, like factor = 2.0",
        );
        return Ok(());
    };
    match number {
        Some(f) if f.is_finite() && f >= 1.0 => arg.set(&mut args.factor, Sp { value: f, span }),
        Some(f) if f >= 1.0 => arg.error(
            span,
            "factor is too large to be a number (it overflows f64); a factor of 2.0 doubles the delay each retry, and `max` caps it",
        ),
        _ => arg.error(
            span,
            "factor must be at least 1 (a factor below 1 would shrink the delay); write factor = 2.0 to double it",
        ),
    }
    Ok(())
}

fn parse_jitter(args: &mut RetryArgs, arg: &mut Arg) -> syn::Result<()> {
    let names = Jitter::ALL.map(|j| (j.as_str(), j));
    let jitter = one_of(arg, &names, |other| {
        format!(
            "unknown jitter `{other}`; expected \"none\", \"full\", \"equal\" or \"decorrelated\""
        )
    })?;
    if let Some(jitter) = jitter {
        arg.set(&mut args.jitter, jitter);
    }
    Ok(())
}

fn merged(own: Option<&RetryArgs>, container: Option<&RetryArgs>) -> Policy {
    macro_rules! pick {
        ($field:ident, $default:expr) => {
            own.and_then(|a| a.$field.as_ref())
                .or_else(|| container.and_then(|a| a.$field.as_ref()))
                .map_or($default, |s| s.value)
        };
    }
    Policy {
        rate_limited: false,
        attempts: pick!(attempts, DEFAULT_ATTEMPTS),
        base: pick!(base, DEFAULT_BASE),
        max: pick!(max, DEFAULT_MAX),
        factor: pick!(factor, DEFAULT_FACTOR),
        jitter: pick!(jitter, defaults::JITTER),
        max_wait: pick!(max_wait, DEFAULT_MAX_WAIT),
    }
}

/// Why `base` is above `max`, at whichever of the two this attribute wrote, if it is.
pub fn order_problem(policy: &Policy, args: &RetryArgs) -> Option<(Span, String)> {
    if policy.base <= policy.max {
        return None;
    }
    let (span, fix) = match (&args.base, &args.max) {
        (_, Some(max)) => (max.span, "raise `max` or lower `base`"),
        (Some(base), None) if policy.max == DEFAULT_MAX => {
            (base.span, "lower `base`, or raise `max` (30s by default)")
        }
        (Some(base), None) => (
            base.span,
            "lower `base`, or raise `max` here (the enum's retry(...) sets it)",
        ),
        (None, None) => return None,
    };
    let message = format!(
        "`base` ({}) is greater than `max` ({}): the first delay would exceed the cap; {fix}{}",
        policy.base,
        policy.max,
        crate::errors::see("base-above-max")
    );
    Some((span, message))
}

/// A container's `retry(...)` on its own, with the runtime's defaults.
pub fn container_policy(args: &RetryArgs) -> Policy {
    merged(Some(args), None)
}

/// The variant's policy, or `None` when it is not retryable.
pub fn policy(place: Place, container: &AgentAttrs, own: &AgentAttrs) -> Option<Policy> {
    if own.retry_markers().is_empty() {
        return None;
    }
    // On a struct the container's attributes are the variant's own.
    let container_args = match place {
        Place::Enum => container.retry.as_ref().map(|r| &r.value),
        Place::Struct | Place::Variant => None,
    };
    let mut policy = merged(own.retry.as_ref().map(|r| &r.value), container_args);
    policy.rate_limited = own.rate_limited.is_some();
    Some(policy)
}

/// The policy the shared vocabulary gives `code`, when it retries it: the code's tuning
/// under the container's `retry(...)`, which is more specific.
pub fn vocabulary_policy(place: Place, container: &AgentAttrs, code: &str) -> Option<Policy> {
    let retried = agent_error_rules::codes::retried(code)?;
    let container_args = match place {
        Place::Enum => container.retry.as_ref().map(|r| &r.value),
        Place::Struct | Place::Variant => None,
    };
    let mut policy = merged(None, container_args);
    policy.rate_limited = retried.rate_limited;
    if container_args.is_none_or(|a| a.attempts.is_none()) {
        policy.attempts = retried.attempts;
    }
    Some(policy)
}

/// The field that holds the variant's HTTP status: the first marked `#[status]` or typed
/// `StatusCode` (http's, which reqwest re-exports), or an `Option` of either. A second one
/// is an error (`validate`).
pub fn status_field(fields: &[Field]) -> Option<usize> {
    fields.iter().find(|f| holds_status(f)).map(|f| f.index)
}

/// Whether `f` holds an HTTP status: marked `#[status]`, or typed `StatusCode` or
/// `Option<StatusCode>`.
pub fn holds_status(f: &Field) -> bool {
    f.attrs.status.is_some() || is_status_code(f.ty) || option_of(f.ty).is_some_and(is_status_code)
}

/// Whether the status `f` holds may be absent: an `Option` of a `StatusCode` or a `u16`.
pub fn status_is_optional(f: &Field) -> bool {
    option_of(f.ty).is_some_and(|inner| is_status_code(inner) || is_u16(inner))
}

/// Whether `ty` is named `StatusCode` (by its last path segment: the derive cannot resolve
/// types), or a reference to one.
pub fn is_status_code(ty: &Type) -> bool {
    match ty {
        Type::Reference(r) => is_status_code(&r.elem),
        Type::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "StatusCode" && s.arguments.is_none()),
        _ => false,
    }
}

/// Whether `ty` is `u16`, as `#[status]` on a field not typed `StatusCode` needs.
pub fn is_u16(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident("u16"))
}

/// The `T` of a type named `Option<T>` (by its last path segment).
pub fn option_of(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match (last.ident == "Option", args.args.first(), args.args.len()) {
        (true, Some(syn::GenericArgument::Type(inner)), 1) => Some(inner),
        _ => None,
    }
}

/// The field `index` holding the variant's status, in a pattern, and its status: a `u16`
/// (a `StatusCode`'s `as_u16()`, which http's and reqwest's both have), or an `Option<u16>`
/// when the field is an `Option` (see [`status_is_optional`]).
pub fn held_status(v: &Variant, index: usize) -> (TokenStream, TokenStream) {
    let f = &v.fields[index];
    let binding = &f.binding;
    let status = match option_of(f.ty) {
        Some(inner) if is_status_code(inner) => quote! {
            ::core::option::Option::map(::core::option::Option::as_ref(#binding), |s| s.as_u16())
        },
        _ if is_status_code(f.ty) => quote!(#binding.as_u16()),
        _ => quote!(*#binding),
    };
    (f.pattern(), status)
}

/// `on_status` of the status the variant holds, or `otherwise` when it holds none (its
/// field is an `Option` and is `None`).
fn of_held_status(
    v: &Variant,
    index: usize,
    on_status: impl Fn(TokenStream) -> TokenStream,
    otherwise: TokenStream,
) -> (TokenStream, TokenStream) {
    let (pattern, status) = held_status(v, index);
    if !status_is_optional(&v.fields[index]) {
        return (pattern, on_status(status));
    }
    let value = on_status(quote!(__agent_status));
    let body = quote! {
        match #status {
            ::core::option::Option::Some(__agent_status) => #value,
            ::core::option::Option::None => #otherwise,
        }
    };
    (pattern, body)
}

/// The `#[retry_after]` field: the first one marked.
pub fn retry_after(fields: &[Field]) -> Option<usize> {
    fields
        .iter()
        .find(|f| f.attrs.retry_after.is_some())
        .map(|f| f.index)
}

/// Whether `ty` is `Duration` or `Option<Duration>`, as `#[retry_after]` needs.
pub fn is_duration_or_option(ty: &Type) -> bool {
    let Type::Path(path) = ty else { return false };
    let Some(last) = path.path.segments.last() else {
        return false;
    };
    if last.ident == "Duration" {
        return last.arguments.is_none();
    }
    if last.ident != "Option" {
        return false;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return false;
    };
    match args.args.first() {
        Some(GenericArgument::Type(inner)) if args.args.len() == 1 => matches!(
            inner,
            Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Duration" && s.arguments.is_none())
        ),
        _ => false,
    }
}

/// A variant of the runtime's `Jitter` or `Recovery` (the same type), named by its path.
fn variant(krate: &TokenStream, path: TokenStream, value: impl std::fmt::Debug) -> TokenStream {
    // The `Debug` of a fieldless enum is its variant's name.
    let name = syn::Ident::new(&format!("{value:?}"), Span::call_site());
    quote!(#krate::#path::#name)
}

/// `jitter` as a path to the runtime's variant.
fn jitter_tokens(jitter: Jitter, krate: &TokenStream) -> TokenStream {
    variant(krate, quote!(retry::Jitter), jitter)
}

/// `recovery` as a path to the runtime's variant.
pub fn recovery_tokens(recovery: Recovery, krate: &TokenStream) -> TokenStream {
    variant(krate, quote!(Recovery), recovery)
}

/// The recovery when `recovery` is not written: retry what is retried, else abort.
pub fn default_recovery(policy: Option<&Policy>) -> Recovery {
    Recovery::default_for(policy.is_some())
}

impl Policy {
    /// The policy as a constant expression: the runtime's named constant when it is the
    /// default tuning, which is cheaper to compile than a `const` block.
    pub fn tokens(&self, krate: &TokenStream) -> TokenStream {
        let default_tuning = self.attempts == DEFAULT_ATTEMPTS
            && self.base == DEFAULT_BASE
            && self.max == DEFAULT_MAX
            && self.factor == DEFAULT_FACTOR
            && self.jitter == defaults::JITTER
            && self.max_wait == DEFAULT_MAX_WAIT;
        match (default_tuning, self.rate_limited) {
            (true, false) => return quote!(#krate::RetryPolicy::DEFAULT),
            (true, true) => return quote!(#krate::RetryPolicy::RATE_LIMITED),
            (false, _) => {}
        }
        let Policy {
            rate_limited,
            attempts,
            base,
            max,
            factor,
            jitter,
            max_wait,
        } = *self;
        let (base, max, max_wait) = (base.to_tokens(), max.to_tokens(), max_wait.to_tokens());
        let factor = proc_macro2::Literal::f64_suffixed(factor);
        let jitter = jitter_tokens(jitter, krate);
        quote!(const {
            #krate::__private::policy(#rate_limited, #attempts, #base, #max, #factor, #jitter, #max_wait)
        })
    }
}

/// Each variant's answer: `value(classified)`, or a forward to the transparent field.
fn answers(
    input: &Input,
    ask: Ask,
    value: impl Fn(&Variant, &Classified) -> Answer,
) -> Vec<Answer> {
    input
        .variants
        .iter()
        .map(|v| match &v.body {
            Body::Classified(c) => value(v, c),
            Body::Transparent(t) => Answer::Arm(transparent::arm(input, v, t, ask)),
        })
        .collect()
}

/// The pattern binding a `#[retry_after]` field, and the field's delay.
fn retry_after_of(krate: &TokenStream, v: &Variant, i: usize) -> (TokenStream, TokenStream) {
    let f = &v.fields[i];
    let (path, pat, binding) = (&v.path, f.pattern(), &f.binding);
    (
        quote!(#path { #pat, .. }),
        quote!(#krate::__private::RetryAfterField::retry_after(#binding)),
    )
}

/// The arm of a variant that takes its retrying from its cause: it asks the runtime's
/// `function` about its `source()`.
fn from_cause(krate: &TokenStream, v: &Variant, function: &str) -> Answer {
    let (path, function) = (&v.path, syn::Ident::new(function, Span::call_site()));
    Answer::Arm(
        quote!(#path { .. } => #krate::__private::#function(::core::error::Error::source(self)),),
    )
}

/// The arm of a variant classified by the status it holds: `value` of that status, or
/// `otherwise` when it holds none.
fn from_status(
    v: &Variant,
    c: &Classified,
    value: impl Fn(TokenStream) -> TokenStream,
    otherwise: TokenStream,
) -> Answer {
    let Some(index) = c.status else {
        return Answer::Fixed(otherwise);
    };
    let (pattern, body) = of_held_status(v, index, value, otherwise);
    let path = &v.path;
    Answer::Arm(quote!(#path { #pattern, .. } => #body,))
}

/// The `retry_policy` of a variant: as its cause, as its status, with the delay its
/// field holds, or its constant (its entry's).
fn policy_answer(krate: &TokenStream, v: &Variant, c: &Classified) -> Answer {
    if c.from_cause {
        return from_cause(krate, v, "cause_policy");
    }
    let path = &v.path;
    // Its written policy or its code's; for a variant classified by an `Option` status,
    // what it is when that status is `None`.
    let policy = c.policy.as_ref().map(|p| p.tokens(krate));
    if let Some(i) = c.status.filter(|_| c.from_status) {
        let (after, delay) = match c.retry_after.filter(|&r| r != i) {
            Some(r) => {
                let (after, binding) = (v.fields[r].pattern(), &v.fields[r].binding);
                let delay = quote!(#krate::__private::RetryAfterField::retry_after(#binding));
                (quote!(#after,), delay)
            }
            None => (TokenStream::new(), quote!(::core::option::Option::None)),
        };
        let otherwise = match policy {
            Some(policy) => quote!(#policy.with_retry_after(#delay)),
            None => quote!(#krate::RetryPolicy::NEVER),
        };
        let on_status = |s: TokenStream| quote!(#krate::__private::status_policy(#s, #delay));
        let (pattern, body) = of_held_status(v, i, on_status, otherwise);
        return Answer::Arm(quote!(#path { #pattern, #after .. } => #body,));
    }
    match (policy, c.retry_after) {
        (Some(policy), Some(i)) => {
            let (pattern, retry_after) = retry_after_of(krate, v, i);
            Answer::Arm(quote!(#pattern => #policy.with_retry_after(#retry_after),))
        }
        (Some(policy), None) => Answer::Fixed(policy),
        (None, _) => Answer::Fixed(quote!(#krate::RetryPolicy::NEVER)),
    }
}

/// `retry_policy`, `is_retryable`, `is_rate_limited`, `retry_after` and `recovery`: an
/// arm for each variant that answers at run time; the others read their entry.
pub fn expand(input: &Input, table: &Table) -> TokenStream {
    let krate = &input.krate;
    let policy = answers(input, Ask::RetryPolicy, |v, c| policy_answer(krate, v, c));
    let retryable = answers(input, Ask::IsRetryable, |v, c| {
        if c.from_cause {
            return from_cause(krate, v, "cause_is_retryable");
        }
        let otherwise = c.policy.is_some();
        if c.from_status {
            let on_status = |s| quote!(#krate::__private::status_is_retryable(#s));
            return from_status(v, c, on_status, quote!(#otherwise));
        }
        Answer::Fixed(quote!(#otherwise))
    });
    let rate_limited = answers(input, Ask::IsRateLimited, |v, c| {
        if c.from_cause {
            return from_cause(krate, v, "cause_is_rate_limited");
        }
        let otherwise = c.policy.as_ref().is_some_and(|p| p.rate_limited);
        if c.from_status {
            let on_status = |s| quote!(#krate::__private::status_is_rate_limited(#s));
            return from_status(v, c, on_status, quote!(#otherwise));
        }
        Answer::Fixed(quote!(#otherwise))
    });
    let retry_after = answers(input, Ask::RetryAfter, |v, c| {
        if c.from_cause {
            return from_cause(krate, v, "cause_retry_after");
        }
        match c.retry_after {
            Some(i) => {
                let (pattern, retry_after) = retry_after_of(krate, v, i);
                Answer::Arm(quote!(#pattern => #retry_after,))
            }
            None => Answer::Fixed(quote!(::core::option::Option::None)),
        }
    });
    let recovery = answers(input, Ask::Recovery, |v, c| {
        if c.from_cause {
            return from_cause(krate, v, "cause_recovery");
        }
        let value = recovery_tokens(c.recovery, krate);
        if c.from_status {
            let on_status = |s| quote!(#krate::__private::status_recovery(#s));
            return from_status(v, c, on_status, value);
        }
        Answer::Fixed(value)
    });

    let bodies = [
        table.body(policy, "policy"),
        table.body(retryable, "retryable"),
        table.body(rate_limited, "rate_limited"),
        table.body(retry_after, "retry_after"),
        table.body(recovery, "recovery"),
    ];
    methods(krate, bodies)
}

/// The methods around their bodies.
fn methods(krate: &TokenStream, bodies: [TokenStream; 5]) -> TokenStream {
    let [policy, retryable, rate_limited, retry_after, recovery] = bodies;
    quote! {
        fn retry_policy(&self) -> #krate::RetryPolicy {
            #policy
        }
        #[inline]
        fn is_retryable(&self) -> bool {
            #retryable
        }
        #[inline]
        fn is_rate_limited(&self) -> bool {
            #rate_limited
        }
        #[inline]
        fn retry_after(&self) -> ::core::option::Option<::core::time::Duration> {
            #retry_after
        }
        #[inline]
        fn recovery(&self) -> #krate::Recovery {
            #recovery
        }
    }
}
