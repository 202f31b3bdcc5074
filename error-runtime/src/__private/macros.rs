//! The runtime's public macros: `error!` builds a dynamic error, `register!` and
//! `classifier!` register at link time. Defined here because their expansions name this
//! module's items.

/// Builds an [`Error`](crate::Error) with a formatted message:
/// `error!(op, code, "format {}", args…)`.
///
/// ```
/// use agent_error::{codes, error, AgentError};
///
/// let e = error!("tool.read", codes::NOT_FOUND, "no file at {}", "/tmp/x");
/// assert_eq!(e.to_string(), "tool.read [not_found]: no file at /tmp/x");
/// assert!(!e.is_retryable());
/// ```
#[macro_export]
macro_rules! error {
    ($op:expr, $code:expr, $($fmt:tt)+) => {
        $crate::Error::new($op, $code, $crate::__private::format_message(::core::format_args!($($fmt)+)))
    };
}

/// Registers a concrete type with the chain walk, so [`find`](crate::find) recognises it.
///
/// The derive registers every non-generic type by itself (feature `registry`); use this for
/// a concrete instantiation of a generic error type (`MyError<String>`) or for a hand-written
/// [`AgentError`](crate::AgentError) impl, which must then implement [`Catalog`](crate::catalog::Catalog) too (its codes appear in
/// `catalog::all`). It works with or without the `registry` feature.
///
/// ```
/// use agent_error::{find, AgentError};
///
/// #[derive(Debug, AgentError)]
/// #[agent(op = "store.get")]
/// enum StoreError<K: std::fmt::Debug + std::fmt::Display + 'static> {
///     #[error("missing key {0}")]
///     NotFound(K),
/// }
///
/// agent_error::register!(StoreError<String>);
///
/// let e = std::io::Error::other(StoreError::NotFound("a".to_string()));
/// assert_eq!(find(&e).map(|e| e.code()), Some("not_found"));
/// ```
#[macro_export]
macro_rules! register {
    ($ty:ty) => {
        $crate::__private::inventory::submit! {
            $crate::__private::Registration::of::<$ty>()
        }
    };
}

/// Registers a classifier for a foreign error type (one this crate cannot derive for): when
/// a chain has no typed [`AgentError`](crate::AgentError) link, each foreign link is offered to the classifiers
/// of its type, and the dynamic [`Error`](crate::Error) returned is that link's
/// classification (its code, op, message, policy, recovery, hints and `retry_after`; its
/// source is ignored).
///
/// The closure must not capture anything: it is registered at link time, like derived
/// types, with or without the `registry` feature. Its message should be fixed text: it is
/// the public message of the link, shown to models and people in place of the foreign
/// error's own text, which may carry paths, hosts or SQL.
///
/// Order: classifiers added at run time with [`register_classifier`](crate::register_classifier) first, then those of
/// `classifier!`, then the runtime's own (for `std::io::Error`, and with their features
/// `tokio::time::error::Elapsed` and `reqwest::Error`). Two `classifier!`s for one type run
/// in an unspecified order; the first that returns `Some` decides.
///
/// ```
/// use agent_error::{classify, codes, AgentError};
///
/// #[derive(Debug)]
/// pub struct SdkError { status: u16 }
/// impl std::fmt::Display for SdkError {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { write!(f, "sdk failed with {}", self.status) }
/// }
/// impl std::error::Error for SdkError {}
///
/// agent_error::classifier!(SdkError, |e: &SdkError| -> Option<agent_error::Error> {
///     (e.status == 529).then(|| agent_error::Error::new("llm.generate", codes::PROVIDER_UNAVAILABLE, "the provider is overloaded"))
/// });
///
/// let err = anyhow::Error::new(SdkError { status: 529 }).context("answering");
/// let c = classify(err.as_ref()).unwrap();
/// assert_eq!(c.code(), "provider_unavailable");
/// assert!(c.is_retryable());
/// assert!(classify(&SdkError { status: 400 }).is_none());
/// ```
#[macro_export]
macro_rules! classifier {
    ($ty:ty, $classify:expr $(,)?) => {
        $crate::__private::register_classifier!(
            $ty,
            $classify,
            $crate::__private::ClassifierOrigin::User
        );
    };
}
