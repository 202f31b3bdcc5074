//! Catalog entries as the derive writes them.

use crate::core::code_doc::CodeDoc;

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

/// What the entries of one derived type share: its name and the type's op, with the
/// defaults of a variant that says nothing about retrying (`NEVER`, `abort`).
pub const fn base(type_name: &'static str, op: Option<&'static str>) -> CodeDoc {
    let mut doc = CodeDoc::new(
        "",
        type_name,
        "",
        crate::RetryPolicy::NEVER,
        crate::Recovery::Abort,
    );
    doc.op = op;
    doc
}

/// The entry of a variant that keeps what `base` holds and sets its code, name and
/// message: one short call a variant where most variants say no more than that.
pub const fn variant(
    base: CodeDoc,
    code: &'static str,
    variant: &'static str,
    message: &'static str,
) -> CodeDoc {
    CodeDoc {
        code,
        variant,
        message,
        ..base
    }
}

/// Asks whether a transparent field's type `T` has a catalog, in generated
/// `Catalog::collect_codes`: `(&&CatalogProbe::<T>::NEW).collect_into(out)` finds
/// [`ProbeCatalog`] when `T: Catalog`, else [`ProbeNoCatalog`], which adds nothing.
pub struct CatalogProbe<T: ?Sized>(core::marker::PhantomData<fn() -> *const T>);

impl<T: ?Sized> CatalogProbe<T> {
    /// The probe.
    pub const NEW: Self = CatalogProbe(core::marker::PhantomData);
}

/// The probe of a type with a catalog: its entries and its own transparent types'.
pub trait ProbeCatalog {
    /// Adds the entries.
    fn collect_into(&self, out: &mut Vec<&'static crate::core::code_doc::CodeDoc>);
}

impl<T: crate::core::code_doc::Catalog> ProbeCatalog for &CatalogProbe<T> {
    fn collect_into(&self, out: &mut Vec<&'static crate::core::code_doc::CodeDoc>) {
        T::collect_codes(out);
    }
}

/// The probe of a type without a catalog: nothing to add.
pub trait ProbeNoCatalog {
    /// Adds nothing.
    fn collect_into(&self, out: &mut Vec<&'static crate::core::code_doc::CodeDoc>);
}

impl<T: ?Sized> ProbeNoCatalog for CatalogProbe<T> {
    fn collect_into(&self, _: &mut Vec<&'static crate::core::code_doc::CodeDoc>) {}
}

/// The entries in order, each listed once (the same type and variant met twice), for
/// `catalog!`.
pub fn dedup(
    entries: Vec<&'static crate::core::code_doc::CodeDoc>,
) -> Vec<&'static crate::core::code_doc::CodeDoc> {
    let mut seen = std::collections::HashSet::new();
    entries
        .into_iter()
        .filter(|d| seen.insert((d.type_name, d.variant, d.code)))
        .collect()
}
