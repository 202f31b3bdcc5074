//! The rules a correct input follows, each one function named after the rule, listed in
//! the three tables below in the order their errors are reported. Expansion runs only
//! when none is broken; a broken rule reports at the offending token and says the fix.

use proc_macro2::Span;
use syn::spanned::Spanned as _;

use crate::code::{self, CODE_GRAMMAR};
use crate::errors::{Errors, see};
use crate::model::{Body, Classified, Input, Message, Op, Place, Recovery, Transparent, Variant};
use crate::{message, op, retry, source};

type TypeRule = fn(&Input, &mut Errors);
type Rule<T> = fn(&Input, &Variant, &T, &mut Errors);

/// Checked once the type's own attributes are read.
const CONTAINER: &[TypeRule] = &[
    transparent_goes_on_variants,
    field_attributes_not_on_the_enum,
    container_op_in_grammar,
    namespace_in_grammar,
    container_base_within_max,
    own_eq_needs_no_eq,
    own_debug_beside_debug,
];

/// Checked as each classified variant is read, so that its errors are reported together.
const CLASSIFIED: &[Rule<Classified>] = &[
    field_attributes_not_on_the_variant,
    error_not_on_a_field,
    from_is_the_only_field,
    message_is_given,
    fmt_function_sees_no_redacted_field,
    no_self_in_arguments_beside_redacted,
    cause_not_redacted,
    code_in_grammar,
    default_code_in_grammar,
    code_fits_with_namespace,
    op_field_not_redacted,
    one_op_field,
    variant_op_in_grammar,
    op_given_once,
    struct_has_an_op,
    base_within_max,
    one_retry_after,
    status_is_a_status,
    one_status,
    retry_after_is_a_duration,
    retry_after_needs_retryable,
    recovery_retry_needs_retryable,
    never_retried_alone,
    one_source,
    location_is_a_location,
    one_location,
    location_field_is_only_a_location,
    location_never_shown,
];

/// Checked as each `#[error(transparent)]` variant is read.
const TRANSPARENT: &[Rule<Transparent>] = &[
    field_attributes_not_on_the_variant,
    error_not_on_a_field,
    from_is_the_only_field,
    transparent_has_one_field,
    transparent_takes_no_keys,
    transparent_field_takes_no_attributes,
    variant_op_in_grammar,
    transparent_default_code_in_grammar,
];

/// Checked once every variant is read.
const WHOLE: &[TypeRule] = &[
    enum_variants_have_an_op,
    container_base_within_default_max,
    codes_are_unique,
];

pub fn container(input: &Input, errors: &mut Errors) {
    CONTAINER.iter().for_each(|rule| rule(input, errors));
}

pub fn variant(input: &Input, v: &Variant, errors: &mut Errors) {
    match &v.body {
        Body::Classified(c) => CLASSIFIED.iter().for_each(|rule| rule(input, v, c, errors)),
        Body::Transparent(t) => TRANSPARENT
            .iter()
            .for_each(|rule| rule(input, v, t, errors)),
    }
}

pub fn whole(input: &Input, errors: &mut Errors) {
    WHOLE.iter().for_each(|rule| rule(input, errors));
}

fn classified<'v>(v: &'v Variant) -> Option<&'v Classified> {
    match &v.body {
        Body::Classified(c) => Some(c),
        Body::Transparent(_) => None,
    }
}

fn transparent_goes_on_variants(input: &Input, errors: &mut Errors) {
    if let Some(span) = input.transparent_enum {
        errors.at(
            span,
            "#[error(transparent)] goes on each variant that forwards to its one field, not on the enum; move it to those variants",
        );
    }
}

/// What a field attribute written on a type or variant should say: where it goes.
fn field_attribute_goes_on_a_field(attr: &syn::Attribute, what: &str) -> syn::Error {
    let name = attr
        .path()
        .get_ident()
        .map_or_else(String::new, |i| i.to_string());
    let field = match name.as_str() {
        "source" => "the field that holds the cause",
        "from" => "the only field, the error it is converted from",
        "op" => "the field that holds the operation's name (or write #[agent(op = \"...\")] here)",
        "retry_after" => "the `Duration` field that holds the server's requested delay",
        "status" if what == "enum" => {
            "the `u16` field that holds the HTTP status (or write #[agent(status = 503)] on a variant for a fixed one)"
        }
        "status" => {
            "the `u16` field that holds the HTTP status (or write #[agent(status = 503)] here for a fixed one)"
        }
        "location" => {
            "a field `location: &'static std::panic::Location<'static>`, which the `From` of a #[from] field fills with where the `?` was"
        }
        _ => "each field to hide",
    };
    syn::Error::new_spanned(
        attr.path(),
        format!("#[{name}] goes on a field, not on the {what}; move it to {field}"),
    )
}

fn field_attributes_not_on_the_enum(input: &Input, errors: &mut Errors) {
    for attr in &input.misplaced_field_attrs {
        errors.push(field_attribute_goes_on_a_field(attr, "enum"));
    }
}

fn field_attributes_not_on_the_variant<T>(input: &Input, v: &Variant, _: &T, errors: &mut Errors) {
    for attr in &v.misplaced_field_attrs {
        errors.push(field_attribute_goes_on_a_field(attr, input.place.what()));
    }
}

/// `#[error(...)]` on a field: the message, or `transparent`, is the variant's.
fn error_not_on_a_field<T>(input: &Input, v: &Variant, _: &T, errors: &mut Errors) {
    let what = input.place.what();
    let marked = v.fields.iter().filter_map(|f| Some((f, f.attrs.error?)));
    for (f, (span, transparent)) in marked {
        let message = if transparent {
            format!(
                "#[error(transparent)] goes on the {what}, not on its field; write it above `{}`, whose one field is then the error it forwards to",
                v.ident
            )
        } else {
            format!(
                "#[error(\"...\")] goes on the {what}, not on a field; move it above `{}`, and name the field in the message, like {{{}}}",
                v.ident,
                f.shown()
            )
        };
        errors.at(span, message);
    }
}

fn container_op_in_grammar(input: &Input, errors: &mut Errors) {
    let Some(op) = &input.attrs.op else { return };
    if let Some(problem) = op::problem(&op.value) {
        errors.at(op.span, problem);
    }
}

fn namespace_in_grammar(input: &Input, errors: &mut Errors) {
    let Some(ns) = &input.attrs.namespace else {
        return;
    };
    if let Err(why) = code::check_code(&ns.value) {
        let fix = code::suggest_code(&ns.value)
            .map(|fixed| format!("; write namespace = \"{fixed}\""))
            .unwrap_or_default();
        errors.at(ns.span, format!("invalid namespace: {why}{fix}"));
    }
}

/// An enum's `retry(...)` that sets `max`, on its own; with `base` alone the variants may
/// still set `max` (see [`container_base_within_default_max`]).
fn container_base_within_max(input: &Input, errors: &mut Errors) {
    let Some(retry) = &input.attrs.retry else {
        return;
    };
    if input.place != Place::Enum || retry.value.max.is_none() {
        return;
    }
    if let Some((span, message)) =
        retry::order_problem(&retry::container_policy(&retry.value), &retry.value)
    {
        errors.at(span, message);
    }
}

/// A `#[derive(PartialEq)]` or `Eq` of the user's beside the code-only ones the derive
/// writes: the two impls would conflict.
fn own_eq_needs_no_eq(input: &Input, errors: &mut Errors) {
    if input.attrs.no_eq.is_some() {
        return;
    }
    for path in &input.derived_eq {
        let name = path
            .segments
            .last()
            .map_or_else(String::new, |s| s.ident.to_string());
        errors.push(syn::Error::new_spanned(
            path,
            format!("`{name}` is derived here, and #[derive(AgentError)] writes `PartialEq` and `Eq` too (comparing codes only); add #[agent(no_eq)] to keep yours, or remove `{name}` here to compare by code"),
        ));
    }
}

/// `#[agent(debug)]` beside a `#[derive(Debug)]` the derive can see: two `Debug` impls.
fn own_debug_beside_debug(input: &Input, errors: &mut Errors) {
    if input.attrs.debug.is_none() {
        return;
    }
    for path in &input.derived_debug {
        errors.push(syn::Error::new_spanned(
            path,
            "`Debug` is derived here, and #[agent(debug)] asks #[derive(AgentError)] to write `Debug` with `#[redact]` fields as `[redacted]`; remove `Debug` here, or remove `debug` from #[agent(...)]",
        ));
    }
}

fn from_is_the_only_field<T>(_: &Input, v: &Variant, _: &T, errors: &mut Errors) {
    let Some(f) = v.fields.iter().find(|f| f.attrs.from.is_some()) else {
        return;
    };
    // A #[location] field beside it is filled by the `From` too.
    let others: Vec<String> = v
        .fields
        .iter()
        .filter(|o| o.index != f.index && o.attrs.location.is_none())
        .map(|o| format!("`{}`", o.shown()))
        .collect();
    let (Some(span), false) = (f.attrs.from, others.is_empty()) else {
        return;
    };
    let source = v
        .fields
        .iter()
        .find(|o| o.index != f.index && o.attrs.source.is_some());
    let fix = match source {
        Some(source) => format!(
            "`{}` is already the #[source], so remove #[from]",
            source.shown()
        ),
        None => {
            "write #[source] instead of #[from], or make this the variant's only field".to_string()
        }
    };
    errors.at(
        span,
        format!(
            "#[from] goes on a variant's only field (a #[location] field may stand beside it): the `From` impl it generates could not fill {}; {fix}",
            others.join(", ")
        ),
    );
}

fn transparent_has_one_field(input: &Input, v: &Variant, t: &Transparent, errors: &mut Errors) {
    if v.fields.len() == 1 {
        return;
    }
    let what = input.place.what();
    let (has, fix) = match v.fields.len() {
        0 => (
            "no fields".to_string(),
            "add the error as its one field, like `Other(OtherError)`",
        ),
        n => (format!("{n} fields"), "keep only the error inside"),
    };
    errors.at(
        t.span,
        format!(
            "#[error(transparent)] forwards to exactly one field, the error inside, but this {what} has {has}; {fix}, or write a message like #[error(\"...\")] instead of `transparent`"
        ),
    );
}

fn transparent_takes_no_keys(_: &Input, v: &Variant, _: &Transparent, errors: &mut Errors) {
    let own = &v.attrs;
    let spans = [
        ("code", own.code.as_ref().map(|s| s.span)),
        ("recovery", own.recovery.as_ref().map(|s| s.span)),
        ("status", own.status.as_ref().map(|s| s.span)),
        ("since", own.since.as_ref().map(|s| s.span)),
        ("deprecated", own.deprecated.as_ref().map(|s| s.span)),
    ];
    if let Some(display) = &own.display {
        errors.at(
            display.span,
            "`display` cannot be set on #[error(transparent)]: a transparent variant displays exactly as the error inside; remove `display`, or replace `transparent` with a message",
        );
    }
    let mut keys: Vec<(&str, Span)> = spans
        .iter()
        .filter_map(|(k, s)| s.map(|s| (*k, s)))
        .collect();
    keys.extend(own.retry_markers());
    keys.extend(own.never_retried.map(|span| ("retryable", span)));
    keys.extend(own.hints.iter().map(|h| ("hint", h.span())));
    for (key, span) in keys {
        errors.at(
            span,
            format!(
                "`{key}` cannot be set on #[error(transparent)]: code, message, retry and hints come from the error inside (or, for a foreign error, from its classification); remove `{key}`, or replace `transparent` with a message"
            ),
        );
    }
}

fn transparent_field_takes_no_attributes(
    _: &Input,
    v: &Variant,
    _: &Transparent,
    errors: &mut Errors,
) {
    for field in &v.fields {
        // `#[from]` is the one a transparent variant's field may carry.
        let misplaced = field.attrs.written().filter(|(name, _)| *name != "#[from]");
        for (name, span) in misplaced {
            errors.at(span, format!("{name} has no effect under #[error(transparent)], which forwards everything to this field; remove it"));
        }
    }
}

fn message_is_given(input: &Input, v: &Variant, c: &Classified, errors: &mut Errors) {
    // A message written on a field is reported as misplaced, not as missing.
    let misplaced =
        input.transparent_enum.is_some() || v.fields.iter().any(|f| f.attrs.error.is_some());
    if let (Message::Missing, false) = (&c.message, misplaced) {
        errors.at(
            v.ident.span(),
            message::missing(input.place, &v.ident.to_string()),
        );
    }
}

/// A function that writes the message (`#[error(fmt = path)]`) is given every field, so
/// `#[redact]` could not keep one out of public renderings.
fn fmt_function_sees_no_redacted_field(
    _: &Input,
    v: &Variant,
    c: &Classified,
    errors: &mut Errors,
) {
    let Message::Template(template) = &c.message else {
        return;
    };
    if let (true, Some(redact)) = (
        template.by_function,
        v.fields.iter().find_map(|f| f.attrs.redact),
    ) {
        errors.at(
            redact,
            "#[error(fmt = ...)] gives the function every field, so #[redact] cannot keep this one out of public renderings; write the message as a format string, like #[error(\"key rejected\")]",
        );
    }
}

/// `self` in an `#[error]` argument (`describe(self)`, `format!("{self:?}")`) reaches
/// every field, and no binding can stand in for it as one does for a named field.
fn no_self_in_arguments_beside_redacted(
    input: &Input,
    v: &Variant,
    c: &Classified,
    errors: &mut Errors,
) {
    let (Message::Template(template), Some(hidden)) = (
        &c.message,
        v.fields.iter().find(|f| f.attrs.redact.is_some()),
    ) else {
        return;
    };
    // A field the message may show, else the redacted one, which reads `[redacted]`.
    let shown = v.fields.iter().find(|f| f.attrs.redact.is_none());
    let example = match shown.unwrap_or(hidden).shown() {
        name if shown.is_some() => format!("`{{{name}}}` or `.{name}`"),
        name => format!("`{{{name}}}`, which reads `[redacted]` outside `fmt_message`"),
    };
    for &span in &template.self_in_args {
        errors.at(
            span,
            format!(
                "`self` in an #[error] argument reaches every field of {} `{}`, the #[redact] field `{}` included, and Display and the public renderings would show it; name the fields the message needs instead, like {example}",
                input.place.what(),
                v.ident,
                hidden.shown()
            ),
        );
    }
}

/// A cause's own text is written after the message and by every chain; `#[redact]` on
/// the field cannot reach it.
fn cause_not_redacted(_: &Input, v: &Variant, c: &Classified, errors: &mut Errors) {
    for f in &v.fields {
        let Some(redact) = f.attrs.redact else {
            continue;
        };
        let (marked, plain) = if f.attrs.from.is_some() {
            ("#[from]", "remove #[from]")
        } else if f.attrs.source.is_some() {
            ("#[source]", "remove #[source]")
        } else if c.source == Some(f.index) {
            ("named `source`", "rename it")
        } else {
            continue;
        };
        errors.at(
            redact,
            format!(
                "#[redact] cannot hide a cause, and field `{}` is the cause ({marked}): Display writes the cause's own text after the message, and every chain (`display::chain`, `Report`, anyhow's `{{:#}}`) prints it; remove #[redact] and keep the secret out of the cause's text (in a derived error, mark that field #[redact]), or, if this value is not the cause, {plain} and keep it as a #[redact] field",
                f.shown(),
            ),
        );
    }
}

fn code_in_grammar(_: &Input, _: &Variant, c: &Classified, errors: &mut Errors) {
    if !c.code.written {
        return;
    }
    if let Err(why) = code::check_code(&c.code.bare) {
        let fix = code::suggest_code(&c.code.bare)
            .map(|fixed| format!("; write code = \"{fixed}\""))
            .unwrap_or_default();
        errors.at(c.code.span, format!("invalid code: {why}{fix}"));
    }
}

fn default_code_in_grammar(input: &Input, v: &Variant, c: &Classified, errors: &mut Errors) {
    if c.code.written {
        return;
    }
    if let Err(why) = code::check_code(&c.code.bare) {
        let (what, ident) = (input.place.what(), v.ident);
        let fixed = code::suggest_code(&c.code.bare).unwrap_or_else(|| "...".to_string());
        errors.at(
            ident.span(),
            format!("the default code made from {what} `{ident}` is not valid: {why}; set one with #[agent(code = \"{fixed}\")]"),
        );
    }
}

fn code_fits_with_namespace(_: &Input, _: &Variant, c: &Classified, errors: &mut Errors) {
    let code = &c.code.value;
    if code::check_code(&c.code.bare).is_ok() && code.len() > 64 {
        errors.at(
            c.code.span,
            format!(
                "the code `{code}` is {} characters long with its namespace; {CODE_GRAMMAR}",
                code.len()
            ),
        );
    }
}

fn op_field_not_redacted(_: &Input, v: &Variant, _: &Classified, errors: &mut Errors) {
    let Some(f) = v.fields.iter().find(|f| f.attrs.op.is_some()) else {
        return;
    };
    if let Some(redact) = f.attrs.redact {
        errors.at(
            redact,
            format!(
                "the #[op] field `{}` cannot be #[redact]: the op names the operation in every rendering, public ones included, and is not secret; remove #[redact], or keep the secret in another field and name the operation with `op = \"...\"`",
                f.shown()
            ),
        );
    }
}

fn one_op_field(_: &Input, v: &Variant, _: &Classified, errors: &mut Errors) {
    let op_fields = v
        .fields
        .iter()
        .filter_map(|f| f.attrs.op.map(|span| (f, span)));
    for (f, span) in op_fields.skip(1) {
        errors.at(
            span,
            format!(
                "a variant has one #[op] field; `{}` is a second one, remove one of them",
                f.shown()
            ),
        );
    }
}

fn variant_op_in_grammar<T>(input: &Input, v: &Variant, _: &T, errors: &mut Errors) {
    let Some(own) = op::own(input.place, &v.attrs) else {
        return;
    };
    if let Some(problem) = op::problem(&own.value) {
        errors.at(own.span, problem);
    }
}

fn transparent_default_code_in_grammar(
    input: &Input,
    v: &Variant,
    t: &Transparent,
    errors: &mut Errors,
) {
    if let Err(why) = code::check_code(&t.code) {
        let (what, ident) = (input.place.what(), v.ident);
        errors.at(
            ident.span(),
            format!("the default code made from {what} `{ident}`, which is its code when the field is a foreign error that no classifier knows, is not valid: {why}; rename the {what}, or replace `transparent` with a message and #[agent(code = \"...\")]"),
        );
    }
}

fn op_given_once(_: &Input, v: &Variant, c: &Classified, errors: &mut Errors) {
    if let (Some(Op::Field(i)), Some(own)) = (&c.op, &v.attrs.op) {
        let f = &v.fields[*i];
        errors.at(
            f.attrs.op.unwrap_or_else(|| f.type_span()),
            format!(
                "the op is given twice: by `op = \"{}\"` and by the #[op] field `{}`; keep one",
                own.value,
                f.shown()
            ),
        );
    }
}

fn struct_has_an_op(input: &Input, v: &Variant, c: &Classified, errors: &mut Errors) {
    if input.place == Place::Struct && c.op.is_none() {
        let ident = v.ident;
        errors.at(
            ident.span(),
            format!("no op for struct `{ident}`: add #[agent(op = \"llm.generate\")] to the struct, or mark a field #[op] to take it from the field at run time{}", see("missing-op")),
        );
    }
}

fn base_within_max(_: &Input, v: &Variant, c: &Classified, errors: &mut Errors) {
    let (Some(policy), Some(args)) = (&c.policy, &v.attrs.retry) else {
        return;
    };
    if let Some((span, message)) = retry::order_problem(policy, &args.value) {
        errors.at(span, message);
    }
}

fn one_retry_after(_: &Input, v: &Variant, _: &Classified, errors: &mut Errors) {
    let marked = v.fields.iter().filter_map(|f| f.attrs.retry_after);
    for span in marked.skip(1) {
        errors.at(
            span,
            "a variant has one #[retry_after] field; remove this one",
        );
    }
}

/// `#[status]` goes on the field holding the status: a `u16` or a `StatusCode`, or an
/// `Option` of either.
fn status_is_a_status(_: &Input, v: &Variant, _: &Classified, errors: &mut Errors) {
    let a_status = |ty: &syn::Type| retry::is_u16(ty) || retry::is_status_code(ty);
    let marked = v.fields.iter().filter(|f| f.attrs.status.is_some());
    for f in marked.filter(|f| !a_status(f.ty) && !retry::option_of(f.ty).is_some_and(a_status)) {
        errors.at(
            f.type_span(),
            "#[status] needs a field that holds an HTTP status: make it a `u16` (like 503) or a `StatusCode`, or an `Option` of either when the status may be absent, or remove #[status]",
        );
    }
}

/// A variant holds one status: two fields that each hold one (marked `#[status]` or typed
/// `StatusCode`) leave it unsaid which one classifies it and is its wire status.
fn one_status(_: &Input, v: &Variant, _: &Classified, errors: &mut Errors) {
    let held = v.fields.iter().filter(|f| retry::holds_status(f));
    for f in held.skip(1) {
        let span = f.attrs.status.unwrap_or_else(|| f.type_span());
        errors.at(
            span,
            "a variant holds one HTTP status, and this is a second one (a field marked #[status] or typed `StatusCode` or `Option<StatusCode>`); keep one, and hold the other as a plain number (`u16`, without #[status])",
        );
    }
}

fn retry_after_is_a_duration(_: &Input, v: &Variant, _: &Classified, errors: &mut Errors) {
    let marked = v.fields.iter().filter(|f| f.attrs.retry_after.is_some());
    for f in marked.filter(|f| !retry::is_duration_or_option(f.ty)) {
        errors.at(
            f.ty.span(),
            "#[retry_after] needs a field of type `Duration` or `Option<Duration>` (std::time::Duration), the delay the server asked for; convert a number of seconds with `Duration::from_secs`",
        );
    }
}

fn retry_after_needs_retryable(_: &Input, v: &Variant, c: &Classified, errors: &mut Errors) {
    // A variant classified by the status it holds may be retried at run time.
    if c.policy.is_some() || c.from_status {
        return;
    }
    let marked = v
        .fields
        .iter()
        .filter(|f| retry::is_duration_or_option(f.ty));
    for span in marked.filter_map(|f| f.attrs.retry_after) {
        errors.at(
            span,
            format!(
                "#[retry_after] on a variant that is never retried: mark the variant #[agent(retryable)] or #[agent(rate_limited)], or remove #[retry_after]{}",
                see("retry-after-on-a-permanent-variant")
            ),
        );
    }
}

/// `recovery = "retry"` tells an agent loop to retry what the retrier never retries.
fn recovery_retry_needs_retryable(_: &Input, v: &Variant, c: &Classified, errors: &mut Errors) {
    if c.policy.is_some() {
        return;
    }
    let Some(recovery) = &v.attrs.recovery else {
        return;
    };
    if recovery.value == Recovery::Retry {
        errors.at(
            recovery.span,
            format!("`recovery = \"retry\"` on a variant that is never retried: its retry policy is NEVER, so retrying it would fail again the same way; mark the variant `retryable` or `rate_limited` (then retry is already the default recovery), or choose another recovery such as \"replan\" or \"abort\"{}", see("recovery-retry-on-a-permanent-variant")),
        );
    }
}

/// `retryable = false` beside a key that makes the variant retried.
fn never_retried_alone(_: &Input, v: &Variant, _: &Classified, errors: &mut Errors) {
    if v.attrs.never_retried.is_none() {
        return;
    }
    for (key, span) in v.attrs.retry_markers() {
        let written = if key == "retry" { "retry(...)" } else { key };
        errors.at(
            span,
            format!("`{written}` retries this variant, but `retryable = false` says it is never retried; keep one of them"),
        );
    }
}

fn one_source(_: &Input, v: &Variant, _: &Classified, errors: &mut Errors) {
    let mut marked = source::marked(&v.fields);
    let Some((first, _)) = marked.next() else {
        return;
    };
    for (_, span) in marked {
        errors.at(
            span,
            format!(
                "a variant has one cause, and `{}` is already its #[source]; remove this #[source]",
                first.shown()
            ),
        );
    }
}

/// The enum's variants without an op: reported once, at the enum, when none of its
/// classified variants has one; otherwise at each variant.
fn enum_variants_have_an_op(input: &Input, errors: &mut Errors) {
    if input.place != Place::Enum {
        return;
    }
    let classified: Vec<(&Variant, &Classified)> = input
        .variants
        .iter()
        .filter_map(|v| Some((v, classified(v)?)))
        .collect();
    let missing: Vec<&syn::Ident> = classified
        .iter()
        .filter(|(_, c)| c.op.is_none())
        .map(|(v, _)| v.ident)
        .collect();
    let enum_ident = input.ident;
    if missing.len() > 1 && classified.iter().all(|(_, c)| c.op.is_none()) {
        let names: Vec<String> = missing.iter().map(|i| format!("`{i}`")).collect();
        errors.at(
            enum_ident.span(),
            format!(
                "no op for any variant of `{enum_ident}` ({}): add #[agent(op = \"llm.generate\")] to the enum, or give each variant its own `op` or #[op] field{}",
                names.join(", "),
                see("missing-op")
            ),
        );
        return;
    }
    for ident in missing {
        errors.at(
            ident.span(),
            format!("no op for variant `{ident}`: add #[agent(op = \"llm.generate\")] to the enum or to this variant, or mark a field #[op] to take it from the field at run time{}", see("missing-op")),
        );
    }
}

/// An enum's `base` without `max`, against the default `max`, once, when some retryable
/// variant takes both from the enum and the defaults.
fn container_base_within_default_max(input: &Input, errors: &mut Errors) {
    let uses_container_base = input.variants.iter().any(|v| {
        !v.attrs.retry_markers().is_empty()
            && v.attrs
                .retry
                .as_ref()
                .is_none_or(|r| r.value.base.is_none() && r.value.max.is_none())
    });
    let Some(retry) = &input.attrs.retry else {
        return;
    };
    if input.place != Place::Enum || !uses_container_base || retry.value.max.is_some() {
        return;
    }
    if let Some((span, message)) =
        retry::order_problem(&retry::container_policy(&retry.value), &retry.value)
    {
        errors.at(span, message);
    }
}

/// Two variants with the same final code (among the codes in the grammar).
fn codes_are_unique(input: &Input, errors: &mut Errors) {
    let mut seen: Vec<(&str, &syn::Ident)> = Vec::new();
    for v in &input.variants {
        let Some(c) = classified(v) else { continue };
        if code::check_code(&c.code.bare).is_err() || c.code.value.len() > 64 {
            continue;
        }
        match seen.iter().find(|(code, _)| *code == c.code.value) {
            Some((_, first)) => errors.at(
                c.code.span,
                format!(
                    "`{}` has the code `{}`, already the code of `{}`; codes are unique within a type, so give one of them another #[agent(code = \"...\")]{}",
                    v.ident,
                    c.code.value,
                    first,
                    see("duplicate-code")
                ),
            ),
            None => seen.push((&c.code.value, v.ident)),
        }
    }
}

/// `#[location]` goes on a `&'static Location<'static>` field: what `Location::caller()`
/// gives the generated `From`.
fn location_is_a_location(_: &Input, v: &Variant, _: &Classified, errors: &mut Errors) {
    let marked = v.fields.iter().filter(|f| f.attrs.location.is_some());
    for f in marked.filter(|f| !source::is_location(f.ty)) {
        errors.at(
            f.ty.span(),
            "#[location] needs a field of type `&'static std::panic::Location<'static>`, which the generated `From` fills with where the `?` was; write `location: &'static std::panic::Location<'static>`",
        );
    }
}

fn one_location(_: &Input, v: &Variant, _: &Classified, errors: &mut Errors) {
    let marked = v.fields.iter().filter_map(|f| f.attrs.location);
    for span in marked.skip(1) {
        errors.at(
            span,
            "a variant records one location, and this is a second #[location] field; remove this one",
        );
    }
}

/// A location is no cause, status, delay, op or secret: another attribute on the same
/// field would make it two things.
fn location_field_is_only_a_location(_: &Input, v: &Variant, _: &Classified, errors: &mut Errors) {
    for f in v.fields.iter().filter(|f| f.attrs.location.is_some()) {
        let others = f.attrs.written().filter(|(name, _)| *name != "#[location]");
        for (name, span) in others {
            errors.at(
                span,
                format!("a #[location] field only records where the error was made, and {name} makes it something else too; remove {name}, or put it on another field"),
            );
        }
    }
}

/// Where the `?` was is for the operator (`Debug`, `Report`, traces), never in the message
/// that Display, tool text and text for people show.
fn location_never_shown(_: &Input, v: &Variant, c: &Classified, errors: &mut Errors) {
    let Message::Template(template) = &c.message else {
        return;
    };
    let shown = v
        .fields
        .iter()
        .filter(|f| f.attrs.location.is_some() && template.shown.contains(&f.index));
    for f in shown {
        errors.at(
            template.lit.span(),
            format!(
                "the message names `{}`, the #[location] field: where the error was made is for the operator (`Debug`, `Report`, traces), never in Display, tool text or text for people; remove it from the message",
                f.shown()
            ),
        );
    }
}
