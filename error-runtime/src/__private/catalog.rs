//! Catalog entries as the derive writes them.

/// A derived catalog entry without a status, URL or lifecycle (derived code adds those
/// with `CodeDoc::with_*` where the variant has them): fewer arguments a variant make a
/// large enum compile faster.
#[allow(clippy::too_many_arguments)]
pub const fn entry(
    code: &'static str,
    op: Option<&'static str>,
    type_name: &'static str,
    variant: &'static str,
    message: &'static str,
    docs: &'static str,
    hints: &'static [&'static str],
    recovery: crate::Recovery,
    policy: crate::RetryPolicy,
) -> crate::core::code_doc::CodeDoc {
    let mut doc = crate::core::code_doc::CodeDoc::new(code, type_name, variant, policy, recovery)
        .with_message(message)
        .with_docs(docs)
        .with_hints(hints);
    doc.op = op;
    doc
}
