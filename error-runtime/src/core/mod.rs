//! The core layer: what an error says about itself and how a chain is read. The trait, the
//! chain walk and `classify`, the registry, the dynamic error, the vocabulary, `Recovery` and
//! `RetryPolicy`. It needs no feature and imports nothing from the layers above it.

pub(crate) mod agent;
pub(crate) mod chain;
pub(crate) mod classify;
pub(crate) mod code_doc;
pub mod codes;
pub(crate) mod dynamic;
pub(crate) mod head;
mod io;
pub(crate) mod jitter;
pub(crate) mod policy;
pub(crate) mod registry;
pub(crate) mod status;
pub(crate) mod summary;
