//! Ops: the grammar they follow, where a variant's op comes from (its own `op`, an `#[op]`
//! field read at run time, or the type's `op`), and the generated `op()`.

use proc_macro2::TokenStream;
use quote::quote;

use crate::code::suggest;
use crate::model::{AgentAttrs, Body, Field, Input, Op, Place};
use crate::parse::Sp;
use crate::transparent::{self, Ask};

/// Whether `op` follows the grammar of ops: the runtime's own rule.
pub use agent_error_rules::codes::is_valid_op as is_valid;

/// Why `op` breaks the grammar of ops, with a fix, if it does.
pub fn problem(op: &str) -> Option<String> {
    if is_valid(op) {
        return None;
    }
    let grammar =
        "an op is `.`-separated lowercase segments, each a letter then letters, digits, `_` or `-`";
    let fixed = suggest(op, |c| c.is_ascii_alphanumeric() || c == '-', false);
    let fix = if is_valid(&fixed) {
        format!("; write op = \"{fixed}\"")
    } else {
        ", like \"llm.generate\"".to_string()
    };
    let what = if op.is_empty() {
        "the op is empty".to_string()
    } else {
        format!("invalid op `{op}`")
    };
    Some(format!("{what}: {grammar}{fix}"))
}

/// The variant's own `op`: on a struct, the container's `op` is the struct's.
pub fn own(place: Place, own: &AgentAttrs) -> Option<&Sp<String>> {
    own.op.as_ref().filter(|_| place == Place::Enum)
}

/// The variant's op: an `#[op]` field's, its own, or the container's.
pub fn of(
    place: Place,
    container: &AgentAttrs,
    attrs: &AgentAttrs,
    fields: &[Field],
) -> Option<Op> {
    match fields.iter().find(|f| f.attrs.op.is_some()) {
        Some(f) => Some(Op::Field(f.index)),
        None => own(place, attrs)
            .or(container.op.as_ref())
            .map(|op| Op::Static(op.value.clone())),
    }
}

/// `fn op(&self) -> &str`: an arm for each variant whose op is not the most common one.
pub fn expand(input: &Input) -> TokenStream {
    let statics = input.variants.iter().filter_map(|v| match &v.body {
        Body::Classified(c) => match c.op() {
            Op::Static(op) => Some(op.as_str()),
            Op::Field(_) => None,
        },
        Body::Transparent(_) => None,
    });
    // Counted in a list: an enum has few distinct ops.
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for op in statics {
        match counts.iter_mut().find(|(o, _)| *o == op) {
            Some((_, n)) => *n += 1,
            None => counts.push((op, 1)),
        }
    }
    let common = counts.iter().max_by_key(|&&(_, n)| n).map(|&(op, _)| op);
    let arms = input.variants.iter().map(|v| {
        let path = &v.path;
        match &v.body {
            Body::Classified(c) => match c.op() {
                Op::Static(op) if Some(op.as_str()) == common => None,
                Op::Static(op) => Some(quote!(#path { .. } => #op,)),
                Op::Field(i) => {
                    let f = &v.fields[*i];
                    let (pat, binding) = (f.pattern(), f.binding_at_type());
                    Some(
                        quote!(#path { #pat, .. } => ::core::convert::AsRef::<str>::as_ref(#binding),),
                    )
                }
            },
            Body::Transparent(t) => Some(transparent::arm(input, v, t, Ask::Op)),
        }
    });
    // Every variant has an arm when no op is static, so the default is never used.
    let arms = input.match_table(arms, quote!(#common));
    quote! {
        #[inline]
        fn op(&self) -> &str {
            #arms
        }
    }
}
