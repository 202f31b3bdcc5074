//! Collects every misuse found in the input, so that one build reports them all.

use proc_macro2::{Span, TokenStream};
use std::fmt::Display;

/// The errors found so far; each stays at its own token.
#[derive(Default)]
pub struct Errors {
    all: Option<syn::Error>,
}

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        match &mut self.all {
            Some(all) => all.combine(error),
            None => self.all = Some(error),
        }
    }

    pub fn at(&mut self, span: Span, message: impl Display) {
        self.push(syn::Error::new(span, message));
    }

    /// How many errors were reported.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.all.as_ref().map_or(0, |e| e.into_iter().count())
    }

    pub fn is_empty(&self) -> bool {
        self.all.is_none()
    }

    pub fn into_compile_errors(mut self) -> TokenStream {
        self.all
            .take()
            .map(|e| e.to_compile_error())
            .unwrap_or_default()
    }
}

/// As serde's `Ctxt` checks: every collected error reaches the user. Dropping errors
/// unreported is a bug of the derive, caught by the trybuild and doc tests that run it
/// (debug builds; its unit tests read errors and drop them on purpose).
#[cfg(not(test))]
impl Drop for Errors {
    fn drop(&mut self) {
        debug_assert!(
            self.all.is_none() || std::thread::panicking(),
            "the derive collected errors and dropped them unreported"
        );
    }
}

/// Where the guide explains a confusing compile error, to end its message with: "; see
/// <the troubleshooting chapter>#anchor".
pub fn see(anchor: &str) -> String {
    format!(
        "; see https://docs.rs/agent-error/latest/agent_error/guide/troubleshooting/index.html#{anchor}"
    )
}
