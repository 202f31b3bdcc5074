//! Collects every misuse found in the input, so that one build reports them all.

use proc_macro2::{Span, TokenStream};
use std::fmt::Display;

/// The errors found so far; each stays at its own token, and they are reported in the
/// order of their tokens in the source, whichever check found them first.
#[derive(Default)]
pub struct Errors {
    all: Vec<syn::Error>,
}

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        self.all.extend(error);
    }

    pub fn at(&mut self, span: Span, message: impl Display) {
        self.push(syn::Error::new(span, message));
    }

    /// How many errors were reported.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.all.len()
    }

    pub fn is_empty(&self) -> bool {
        self.all.is_empty()
    }

    pub fn into_compile_errors(mut self) -> TokenStream {
        let mut all = std::mem::take(&mut self.all);
        // A stable sort: errors at one token keep the order they were found in.
        all.sort_by_key(|e| position(e.span()));
        all.iter().map(syn::Error::to_compile_error).collect()
    }
}

/// Where `span` starts in its file (line, column), to report errors in reading order;
/// outside a macro's expansion (the derive's unit tests) every span is at the start, and so
/// is every span before Rust 1.88 (where proc-macro2 cannot ask the compiler): the errors
/// then keep the order the checks found them in.
fn position(span: Span) -> (usize, usize) {
    if !proc_macro::is_available() {
        return (0, 0);
    }
    let start = span.start();
    (start.line, start.column)
}

/// As serde's `Ctxt` checks: every collected error reaches the user. Dropping errors
/// unreported is a bug of the derive, caught by the trybuild and doc tests that run it
/// (debug builds; its unit tests read errors and drop them on purpose).
#[cfg(not(test))]
impl Drop for Errors {
    fn drop(&mut self) {
        debug_assert!(
            self.all.is_empty() || std::thread::panicking(),
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
