//! Retry behaviour: which variants are retryable, their tuning merged from variant,
//! container and runtime defaults and checked, `#[retry_after]`, and the recovery.

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned as _;
use syn::{GenericArgument, PathArguments, Type};

use crate::attr::{AgentAttrs, Jitter, Place, Recovery, RetryArgs, Sp};
use crate::duration::Nanos;
use crate::errors::Errors;
use crate::model::{Body, Field, Input};
use crate::transparent::{self, Ask};

/// The runtime's defaults (SPEC §1.3), mirrored so that `base <= max` is checked at compile time.
const DEFAULT_ATTEMPTS: u32 = 3;
const DEFAULT_BASE: Nanos = Nanos(200_000_000);
const DEFAULT_MAX: Nanos = Nanos(30_000_000_000);
const DEFAULT_FACTOR: f64 = 2.0;
const DEFAULT_MAX_WAIT: Nanos = Nanos(60_000_000_000);

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
        jitter: pick!(jitter, Jitter::Full),
        max_wait: pick!(max_wait, DEFAULT_MAX_WAIT),
    }
}

/// Reports `base` above `max`, at whichever of the two this attribute wrote.
fn check_order(policy: &Policy, args: &RetryArgs, errors: &mut Errors) {
    if policy.base <= policy.max {
        return;
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
        (None, None) => return,
    };
    errors.at(
        span,
        format!(
            "`base` ({}) is greater than `max` ({}): the first delay would exceed the cap; {fix}",
            policy.base, policy.max
        ),
    );
}

/// Checks a container's `retry(...)` on its own, once, when it sets `max`: with `base`
/// alone, the variants may still set `max` (see [`check_container_base`]).
pub fn check_alone(retry: &Sp<RetryArgs>, errors: &mut Errors) {
    if retry.value.max.is_some() {
        check_order(&merged(Some(&retry.value), None), &retry.value, errors);
    }
}

/// Checks a container's `base` (without `max`) against the default `max`, once, when
/// some retryable variant takes both from the container and the defaults.
pub fn check_container_base(retry: &Sp<RetryArgs>, errors: &mut Errors) {
    if retry.value.max.is_none() {
        check_order(&merged(Some(&retry.value), None), &retry.value, errors);
    }
}

/// The variant's policy, or `None` when it is not retryable. Reports a bad tuning.
pub fn resolve(
    place: Place,
    container: &AgentAttrs,
    own: &AgentAttrs,
    errors: &mut Errors,
) -> Option<Policy> {
    if own.retry_markers().is_empty() {
        return None;
    }
    // On a struct the container's attributes are the variant's own.
    let container_args = match place {
        Place::Enum => container.retry.as_ref().map(|r| &r.value),
        Place::Struct | Place::Variant => None,
    };
    let own_args = own.retry.as_ref().map(|r| &r.value);
    let mut policy = merged(own_args, container_args);
    if let Some(args) = own_args {
        check_order(&policy, args, errors);
    }
    policy.rate_limited = own.rate_limited.is_some();
    Some(policy)
}

/// The `#[retry_after]` field; reports a second one, a wrong type, or a variant that is never retried.
pub fn retry_after_field(fields: &[Field], own: &AgentAttrs, errors: &mut Errors) -> Option<usize> {
    let mut found = None;
    for f in fields {
        let Some(span) = f.attrs.retry_after else {
            continue;
        };
        if found.is_some() {
            errors.at(
                span,
                "a variant has one #[retry_after] field; remove this one",
            );
            continue;
        }
        if !is_duration_or_option(f.ty) {
            errors.at(
                f.ty.span(),
                "#[retry_after] needs a field of type `Duration` or `Option<Duration>` (std::time::Duration), the delay the server asked for; convert a number of seconds with `Duration::from_secs`",
            );
            continue;
        }
        if own.retry_markers().is_empty() {
            errors.at(
                span,
                "#[retry_after] on a variant that is never retried: mark the variant #[agent(retryable)] or #[agent(rate_limited)], or remove #[retry_after]",
            );
            continue;
        }
        found = Some(f.index);
    }
    found
}

fn is_duration_or_option(ty: &Type) -> bool {
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

impl Jitter {
    fn tokens(self, krate: &TokenStream) -> TokenStream {
        match self {
            Jitter::None => quote!(#krate::Jitter::None),
            Jitter::Full => quote!(#krate::Jitter::Full),
            Jitter::Equal => quote!(#krate::Jitter::Equal),
            Jitter::Decorrelated => quote!(#krate::Jitter::Decorrelated),
        }
    }
}

impl Recovery {
    pub fn tokens(self, krate: &TokenStream) -> TokenStream {
        match self {
            Recovery::Retry => quote!(#krate::Recovery::Retry),
            Recovery::Replan => quote!(#krate::Recovery::Replan),
            Recovery::Fallback => quote!(#krate::Recovery::Fallback),
            Recovery::Compact => quote!(#krate::Recovery::Compact),
            Recovery::Abort => quote!(#krate::Recovery::Abort),
            Recovery::Escalate => quote!(#krate::Recovery::Escalate),
        }
    }
}

impl Policy {
    /// The policy as a constant expression: the runtime's named constant when it is the
    /// default tuning, which is cheaper to compile than a `const` block.
    pub fn tokens(&self, krate: &TokenStream) -> TokenStream {
        let default_tuning = self.attempts == DEFAULT_ATTEMPTS
            && self.base == DEFAULT_BASE
            && self.max == DEFAULT_MAX
            && self.factor == DEFAULT_FACTOR
            && self.jitter == Jitter::Full
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
        let jitter = jitter.tokens(krate);
        quote!(const {
            #krate::RetryPolicy::__derived(#rate_limited, #attempts, #base, #max, #factor, #jitter, #max_wait)
        })
    }
}

/// One arm per variant: `value(classified)` (`None` for the method's default) or a forward
/// to the transparent field.
fn arms(
    input: &Input,
    ask: Ask,
    value: impl Fn(&crate::model::Variant, &crate::model::Classified) -> Option<TokenStream>,
) -> Vec<Option<TokenStream>> {
    input
        .variants
        .iter()
        .map(|v| match &v.body {
            Body::Classified(c) => value(v, c),
            Body::Transparent(t) => Some(transparent::arm(input, v, t, ask)),
        })
        .collect()
}

/// `retry_policy`, `is_retryable`, `is_rate_limited`, `retry_after` and `recovery`, each a
/// `match` with an arm for the variants that differ from the method's default.
pub fn expand(input: &Input) -> TokenStream {
    let krate = &input.krate;
    // The pattern binding a `#[retry_after]` field, and the field's delay.
    let retry_after_of = |v: &crate::model::Variant, i: usize| -> (TokenStream, TokenStream) {
        let f = &v.fields[i];
        let (path, pat, binding) = (&v.path, f.pattern(), &f.binding);
        (
            quote!(#path { #pat, .. }),
            quote!(#krate::__private::RetryAfterField::retry_after(#binding)),
        )
    };

    let policy = arms(input, Ask::RetryPolicy, |v, c| {
        let policy = c.policy.as_ref()?.tokens(krate);
        let path = &v.path;
        Some(match c.retry_after {
            Some(i) => {
                let (pattern, retry_after) = retry_after_of(v, i);
                quote!(#pattern => #policy.with_retry_after(#retry_after),)
            }
            None => quote!(#path { .. } => #policy,),
        })
    });
    let retryable = arms(input, Ask::IsRetryable, |v, c| {
        let path = &v.path;
        c.policy.is_some().then(|| quote!(#path { .. } => true,))
    });
    let rate_limited = arms(input, Ask::IsRateLimited, |v, c| {
        let path = &v.path;
        c.policy
            .is_some_and(|p| p.rate_limited)
            .then(|| quote!(#path { .. } => true,))
    });
    let retry_after = arms(input, Ask::RetryAfter, |v, c| {
        let (pattern, retry_after) = retry_after_of(v, c.retry_after?);
        Some(quote!(#pattern => #retry_after,))
    });
    let recovery = arms(input, Ask::Recovery, |v, c| {
        let path = &v.path;
        let value = c.recovery.tokens(krate);
        (c.recovery != Recovery::Abort).then(|| quote!(#path { .. } => #value,))
    });

    let policy = input.match_table(policy, quote!(#krate::RetryPolicy::NEVER));
    let retryable = input.match_table(retryable, quote!(false));
    let rate_limited = input.match_table(rate_limited, quote!(false));
    let retry_after = input.match_or(retry_after, quote!(::core::option::Option::None));
    let recovery = input.match_table(recovery, quote!(#krate::Recovery::Abort));
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
