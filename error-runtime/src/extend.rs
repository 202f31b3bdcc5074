//! For crates that connect agent-error to another crate — an SDK's error type, a transport,
//! a middleware — as the integrations published beside this crate do (reqwest, tower, tonic,
//! rmcp, async-openai). Users of the library need none of it.
//!
//! - [`builtin_classifier!`](crate::extend::builtin_classifier) registers a classifier of a
//!   foreign error type that ranks with the built-in ones: a user's own `classifier!` of the
//!   same type runs first. It may answer with a [`FixedClassification`] kept in a `static`,
//!   so that classifying a common failure (a timeout, a refused connection) builds nothing.
//! - [`Report::from_remote`](crate::Report::from_remote) (feature `serde`) reads a
//!   classification that another protocol carried (a gRPC status, an MCP tool result) as
//!   untrusted input: every field bounded and folded onto one line.
//! - [`Sleeper`] (feature `tokio`) is the sleep an async layer awaits between attempts:
//!   tokio's, or one the user gave (another runtime's, or a fake clock in tests).
//!
//! ```
//! use agent_error::codes::TIMEOUT;
//! use agent_error::extend::{Classification, FixedClassification};
//!
//! /// A client library's error, as the integration sees it.
//! #[derive(Debug)]
//! pub struct ClientError { timed_out: bool }
//! impl std::fmt::Display for ClientError {
//!     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
//!         f.write_str("the client failed")
//!     }
//! }
//! impl std::error::Error for ClientError {}
//!
//! static TIMED_OUT: FixedClassification =
//!     FixedClassification::new("client", TIMEOUT, "the request timed out");
//!
//! fn classify(e: &ClientError) -> Option<Classification> {
//!     e.timed_out.then_some(Classification::Fixed(&TIMED_OUT))
//! }
//!
//! agent_error::extend::builtin_classifier!(ClientError, classify);
//!
//! let c = agent_error::classify(&ClientError { timed_out: true }).unwrap();
//! assert_eq!(c.code(), "timeout");
//! assert!(c.is_retryable());
//! assert!(agent_error::classify(&ClientError { timed_out: false }).is_none());
//! ```

pub use crate::core::classify::{Classification, FixedClassification};
#[cfg(feature = "tokio")]
pub use crate::tokio::{BoxSleep, Sleeper};

/// Registers `classify`, a `fn(&T) -> Option<Classification>`, as the classifier of the
/// foreign error type `T`, ranked with the built-in classifiers (a user's `classifier!` of
/// the same type is asked first). Registered at link time, as `classifier!` registers.
#[doc(hidden)]
#[macro_export]
macro_rules! __builtin_classifier {
    ($ty:ty, $classify:expr $(,)?) => {
        $crate::__private::register_classifier!(
            fixed $ty,
            $classify,
            $crate::__private::ClassifierOrigin::Builtin
        );
    };
}

#[doc(inline)]
pub use crate::__builtin_classifier as builtin_classifier;
