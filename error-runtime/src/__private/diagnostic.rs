//! `#[agent(miette)]`'s impl of `miette::Diagnostic`: each method reads the same
//! attributes the error's other renderings do, and a cause that is a diagnostic is found
//! by its type (autoref specialization, as the catalog probe does).

use std::fmt;

use crate::AgentError;

pub use ::miette;

/// Writes the `Diagnostic` impl the derive generates (the `miette` feature is on).
#[doc(hidden)]
#[macro_export]
macro_rules! __miette_diagnostic {
    ($($impl:tt)*) => { $($impl)* };
}

pub use crate::__miette_diagnostic as miette_diagnostic;

/// The code.
pub fn miette_code<E: AgentError + ?Sized>(e: &E) -> Option<Box<dyn fmt::Display + '_>> {
    Some(Box::new(e.code()))
}

/// The hints as people read them (`#[redact]` fields redacted, each on its own line);
/// none when there are none.
pub fn miette_help<E: AgentError + Sized>(e: &E) -> Option<Box<dyn fmt::Display + '_>> {
    let hints = crate::core::summary::public_hints(e);
    (!hints.is_empty()).then(|| Box::new(hints.join("\n")) as Box<dyn fmt::Display>)
}

/// The `docs_url`.
pub fn miette_url<E: AgentError + ?Sized>(e: &E) -> Option<Box<dyn fmt::Display + '_>> {
    e.docs_url()
        .map(|url| Box::new(url) as Box<dyn fmt::Display + '_>)
}

/// A warning when the error may be retried (it may pass on its own), else an error.
pub fn miette_severity<E: AgentError + ?Sized>(e: &E) -> Option<miette::Severity> {
    Some(if e.is_retryable() {
        miette::Severity::Warning
    } else {
        miette::Severity::Error
    })
}

/// `(&&DiagnosticProbe(cause)).diagnostic()`: the cause as a diagnostic when its type is
/// one ([`ProbeDiagnostic`]), else `None` ([`ProbeNoDiagnostic`]).
pub struct DiagnosticProbe<'a, T: ?Sized>(pub &'a T);

/// The probe of a cause that is a diagnostic.
pub trait ProbeDiagnostic<'a> {
    /// The cause.
    fn diagnostic(&self) -> Option<&'a dyn miette::Diagnostic>;
}

impl<'a, T: miette::Diagnostic + 'a> ProbeDiagnostic<'a> for &DiagnosticProbe<'a, T> {
    fn diagnostic(&self) -> Option<&'a dyn miette::Diagnostic> {
        Some(self.0)
    }
}

/// The probe of a cause that is not.
pub trait ProbeNoDiagnostic<'a> {
    /// None.
    fn diagnostic(&self) -> Option<&'a dyn miette::Diagnostic>;
}

impl<'a, T: ?Sized> ProbeNoDiagnostic<'a> for DiagnosticProbe<'a, T> {
    fn diagnostic(&self) -> Option<&'a dyn miette::Diagnostic> {
        None
    }
}
