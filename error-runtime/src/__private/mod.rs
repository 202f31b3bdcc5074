//! Support for the code that `#[derive(AgentError)]` and the runtime's macros generate.
//! Not a public API: it changes with the derive, which is pinned to this crate's exact
//! version. One file a concept: causes and fields, public forms of fields, transparent
//! forwarding, registration, catalog entries.

mod catalog;
mod fields;
mod macros;
mod forward;
mod public;
mod register;

pub use catalog::entry;
pub use fields::{AsDynError, DisplayFn, RetryAfterField};
pub use forward::{
    DynError, Forward, ForwardDeref, ForwardForeign, ForwardNonError, ForwardTyped, Forwarded,
    TransparentField, Typed,
};
pub use public::{
    PublicDeref, PublicField, PublicForeign, PublicText, PublicTyped, PublicValue, REDACTED,
    Redacted, public_field,
};
pub use register::{
    ClassifierOrigin, ClassifierRegistration, Registration, register_classifier, register_type,
};

pub use crate::core::agent::write_cause;
pub use crate::core::classify::UNCLASSIFIED_MESSAGE;
pub use crate::core::dynamic::format_message;
pub use inventory;
