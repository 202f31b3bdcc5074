//! Support for the code that `#[derive(AgentError)]` and the runtime's macros generate.
//! Not a public API: it changes with the derive, which is pinned to this crate's exact
//! version. One file a concept: causes and fields, what a variant takes from its cause,
//! public forms of fields, transparent forwarding, registration, catalog entries.

mod catalog;
mod cause;
#[cfg(feature = "miette")]
mod diagnostic;
mod fields;
mod forward;
mod macros;
mod public;
mod register;
mod status;

pub use catalog::{CatalogProbe, ProbeCatalog, ProbeNoCatalog, base, dedup, entry, variant};
pub use cause::{
    HeadFree, HeadFreePointer, HeadFreeTyped, HeadFreeValue, WithoutHead, cause_each_hint,
    cause_hints, cause_is_rate_limited, cause_is_retryable, cause_policy, cause_recovery,
    cause_retry_after, cause_status,
};
pub use fields::{AsDynError, DisplayFn, RetryAfterField};
pub use forward::{
    DynError, Forward, ForwardDeref, ForwardForeign, ForwardNonError, ForwardTyped, Forwarded,
    TransparentField, Typed,
};
pub use public::{
    PublicDeref, PublicField, PublicForeign, PublicText, PublicTyped, PublicValue, REDACTED,
    Redacted,
};
pub use register::{
    Classification, ClassifierOrigin, ClassifierRegistration, FixedClassification, Registration,
    register_classifier, register_type,
};
pub use status::{status_is_rate_limited, status_is_retryable, status_policy, status_recovery};

pub use crate::core::dynamic::format_message;

#[cfg(feature = "miette")]
pub use diagnostic::{
    DiagnosticProbe, ProbeDiagnostic, ProbeNoDiagnostic, miette, miette_code, miette_diagnostic,
    miette_help, miette_severity, miette_url,
};

/// `#[agent(miette)]` without the `miette` feature: a compile error that says so.
#[cfg(not(feature = "miette"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __miette_diagnostic {
    ($($impl:tt)*) => {
        ::core::compile_error!(
            "#[agent(miette)] writes `miette::Diagnostic`, which needs agent-error's `miette` feature; add it in Cargo.toml: agent-error = { version = \"…\", features = [\"miette\"] }"
        );
    };
}

#[cfg(not(feature = "miette"))]
pub use crate::__miette_diagnostic as miette_diagnostic;
pub use inventory;

/// A retryable policy of the tuning a variant's `retry(...)` wrote, which the derive checked
/// at compile time.
pub use crate::core::policy::tuned as policy;
