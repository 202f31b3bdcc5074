//! Classifying what the ecosystem throws (SPEC §7): every built-in `io::Error` kind, the
//! precedence of typed errors over foreign links, user classifiers, and every rendering
//! going through the classification.

use std::error::Error as StdError;
use std::fmt;
use std::io::{self, ErrorKind};

use agent_error::{Error, Recovery, classify, codes, display, has_code, is_retryable};

/// Every classified kind: its code, whether it is retried, and its fixed public message.
const IO_KINDS: [(ErrorKind, &str, bool, &str); 12] = [
    (
        ErrorKind::TimedOut,
        "timeout",
        true,
        "the operation timed out",
    ),
    (
        ErrorKind::ConnectionRefused,
        "provider_unavailable",
        true,
        "connection refused",
    ),
    (
        ErrorKind::ConnectionReset,
        "provider_unavailable",
        true,
        "connection reset",
    ),
    (
        ErrorKind::ConnectionAborted,
        "provider_unavailable",
        true,
        "connection aborted",
    ),
    (
        ErrorKind::NotConnected,
        "provider_unavailable",
        true,
        "not connected",
    ),
    (
        ErrorKind::BrokenPipe,
        "provider_unavailable",
        true,
        "broken pipe",
    ),
    (
        ErrorKind::UnexpectedEof,
        "provider_unavailable",
        true,
        "unexpected end of stream",
    ),
    (
        ErrorKind::HostUnreachable,
        "provider_unavailable",
        true,
        "host unreachable",
    ),
    (
        ErrorKind::NetworkUnreachable,
        "provider_unavailable",
        true,
        "network unreachable",
    ),
    (
        ErrorKind::NetworkDown,
        "provider_unavailable",
        true,
        "network down",
    ),
    (ErrorKind::NotFound, "not_found", false, "not found"),
    (
        ErrorKind::PermissionDenied,
        "auth_error",
        false,
        "permission denied",
    ),
];

#[test]
fn every_io_kind_of_the_table_is_classified() {
    for (kind, code, retried, message) in IO_KINDS {
        // With and without a payload of its own: the kind decides, the text never shows.
        for e in [
            io::Error::from(kind),
            io::Error::new(kind, "/home/alice/.ssh/id_rsa at 10.0.0.7"),
        ] {
            let c = classify(&e).unwrap_or_else(|| panic!("{kind:?} is classified"));
            assert_eq!(c.code(), code, "{kind:?}");
            assert_eq!(c.op(), "io");
            assert_eq!(c.is_retryable(), retried, "{kind:?}");
            assert!(!c.is_rate_limited());
            assert_eq!(display::public(&*c).to_string(), message);
            assert_eq!(is_retryable(&e), retried, "{kind:?}");
            assert!(has_code(&e, code));
            assert!(c.is_foreign());
            assert!(c.typed().is_none());
            assert!(std::ptr::addr_eq(c.link(), &e as &dyn StdError));
        }
    }
    let timed_out = io::Error::from(ErrorKind::TimedOut);
    assert_eq!(classify(&timed_out).unwrap().recovery(), Recovery::Retry);
    let denied = io::Error::from(ErrorKind::PermissionDenied);
    assert_eq!(classify(&denied).unwrap().recovery(), Recovery::Escalate);
}

#[test]
fn other_io_kinds_stay_unclassified() {
    for kind in [
        ErrorKind::Other,
        ErrorKind::InvalidData,
        ErrorKind::InvalidInput,
        ErrorKind::WouldBlock,
        ErrorKind::Interrupted,
        ErrorKind::AlreadyExists,
        ErrorKind::OutOfMemory,
    ] {
        let e = io::Error::from(kind);
        assert!(classify(&e).is_none(), "{kind:?}");
        assert!(!is_retryable(&e), "{kind:?}");
    }
}

#[test]
fn a_typed_error_anywhere_in_the_chain_wins_over_foreign_links() {
    // The typed error is below a classified io::Error: it still decides.
    let typed = Error::new("llm.generate", codes::BUDGET_EXHAUSTED, "no credit left");
    let outer = io::Error::new(ErrorKind::TimedOut, typed);
    let c = classify(&outer).unwrap();
    assert_eq!(c.code(), "budget_exhausted");
    assert!(!c.is_foreign());
    assert!(!is_retryable(&outer));
    // has_code sees every classified link.
    assert!(has_code(&outer, codes::TIMEOUT));
    assert!(has_code(&outer, codes::BUDGET_EXHAUSTED));
}

#[test]
fn foreign_links_are_offered_from_the_outside_in() {
    let inner = io::Error::from(ErrorKind::NotFound);
    let outer = anyhow::Error::new(inner)
        .context(io::Error::from(ErrorKind::ConnectionReset).to_string())
        .context("calling the model");
    // Context strings are not io::Errors: the first classified link is the NotFound.
    assert_eq!(classify(outer.as_ref()).unwrap().code(), "not_found");

    let two = io::Error::new(
        ErrorKind::TimedOut,
        Wrapper(io::Error::from(ErrorKind::NotFound)),
    );
    let c = classify(&two).unwrap();
    assert_eq!(c.code(), "timeout");
    assert!(std::ptr::addr_eq(c.link(), &two as &dyn StdError));
}

/// A foreign error with a cause, so that chains of foreign links can be built.
#[derive(Debug)]
struct Wrapper(io::Error);

impl fmt::Display for Wrapper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("wrapper")
    }
}

impl StdError for Wrapper {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        Some(&self.0)
    }
}

/// A provider SDK's error that this crate knows nothing about.
#[derive(Debug)]
struct SdkError {
    status: u16,
    detail: String,
}

impl fmt::Display for SdkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sdk error {}: {}", self.status, self.detail)
    }
}

impl StdError for SdkError {}

agent_error::classifier!(SdkError, |e: &SdkError| -> Option<agent_error::Error> {
    match e.status {
        529 => Some(
            Error::new(
                "llm.generate",
                codes::PROVIDER_UNAVAILABLE,
                "the provider is overloaded",
            )
            .with_hint("try another model"),
        ),
        402 => Some(Error::new(
            "llm.generate",
            codes::BUDGET_EXHAUSTED,
            "the credit is spent",
        )),
        _ => None,
    }
});

/// A user classifier of io::Error runs before the built-in one.
#[derive(Debug)]
struct Marker;

impl fmt::Display for Marker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("marker")
    }
}

impl StdError for Marker {}

agent_error::classifier!(io::Error, |e: &io::Error| -> Option<agent_error::Error> {
    // Only io::Errors that carry a `Marker`: every other one falls through to the built-in.
    e.get_ref()
        .is_some_and(|inner| inner.is::<Marker>())
        .then(|| Error::new("io.custom", codes::GUARD_BLOCKED, "blocked by the sandbox"))
});

#[test]
fn a_user_classifier_classifies_its_foreign_type() {
    let e = SdkError {
        status: 529,
        detail: "SELECT * FROM users".into(),
    };
    let c = classify(&e).unwrap();
    assert_eq!(c.code(), "provider_unavailable");
    assert!(c.is_retryable());
    assert_eq!(c.hints(), ["try another model"]);
    assert_eq!(
        display::public(&*c).to_string(),
        "the provider is overloaded"
    );
    assert_eq!(
        agent_error::tool::render_error(&e),
        "[error:provider_unavailable] the provider is overloaded\nhint: try another model"
    );

    let spent = anyhow::Error::new(SdkError {
        status: 402,
        detail: String::new(),
    })
    .context("turn 3");
    assert!(has_code(spent.as_ref(), codes::BUDGET_EXHAUSTED));
    assert!(!is_retryable(spent.as_ref()));

    assert!(
        classify(&SdkError {
            status: 400,
            detail: String::new()
        })
        .is_none()
    );
}

#[test]
fn user_classifiers_run_before_the_built_in_ones() {
    let marked = io::Error::new(ErrorKind::TimedOut, Marker);
    assert_eq!(classify(&marked).unwrap().code(), "guard_blocked");
    let plain = io::Error::new(ErrorKind::TimedOut, "slow");
    assert_eq!(classify(&plain).unwrap().code(), "timeout");
}

/// Registered at run time, in a test of its own type so that no other test sees it.
#[derive(Debug)]
struct PoolError;

impl fmt::Display for PoolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("pool at postgres://admin:hunter2@db exhausted")
    }
}

impl StdError for PoolError {}

#[test]
fn a_classifier_registered_at_run_time_is_used() {
    assert!(classify(&PoolError).is_none());
    agent_error::register_classifier(|_: &PoolError| {
        Some(Error::new(
            "db.pool",
            codes::TIMEOUT,
            "no connection free in time",
        ))
    });
    let c = classify(&PoolError).unwrap();
    assert_eq!(c.code(), "timeout");
    assert!(is_retryable(&io::Error::other(PoolError)));
}

#[test]
fn a_classification_keeps_no_source() {
    // Whatever a classifier sets as the source, the link's classification stands alone.
    let e = io::Error::from(ErrorKind::ConnectionRefused);
    let c = classify(&e).unwrap();
    assert!(c.source().is_none());
    assert_eq!(
        c.to_string(),
        "io [provider_unavailable]: connection refused"
    );
}

#[test]
fn display_chain_prints_a_classified_foreign_link_with_its_code() {
    let e = Error::new(
        "llm.generate",
        codes::PROVIDER_UNAVAILABLE,
        "all retries failed",
    )
    .with_source(io::Error::new(
        ErrorKind::ConnectionRefused,
        "127.0.0.1:9 refused",
    ));
    assert_eq!(
        display::chain(&e).to_string(),
        "llm.generate [provider_unavailable]: all retries failed: io [provider_unavailable]: 127.0.0.1:9 refused"
    );
    assert_eq!(
        display::public_chain(&e).to_string(),
        "llm.generate [provider_unavailable]: all retries failed: io [provider_unavailable]: connection refused"
    );
}

#[test]
fn tool_text_of_a_foreign_error_is_its_classification() {
    let e = io::Error::new(ErrorKind::NotFound, "/etc/shadow");
    assert_eq!(
        agent_error::tool::render_error(&e),
        "[error:not_found] not found"
    );
    let unknown = io::Error::other("/etc/shadow");
    assert_eq!(
        agent_error::tool::render_error(&unknown),
        "[error:unclassified] internal error"
    );
}

#[cfg(feature = "serde")]
#[test]
fn report_capture_keeps_classified_foreign_links_with_their_fixed_text() {
    use agent_error::AgentError;
    let e = Error::new(
        "llm.generate",
        codes::PROVIDER_UNAVAILABLE,
        "all retries failed",
    )
    .with_source(Wrapper(io::Error::new(
        ErrorKind::TimedOut,
        "10.0.0.7 slow",
    )));
    let json = serde_json::to_string(&agent_error::Report::capture(&e)).unwrap();
    assert_eq!(
        json,
        r#"{"op":"llm.generate","code":"provider_unavailable","message":"all retries failed","retryable":true,"rate_limited":false,"recovery":"retry","cause":{"op":"io","code":"timeout","message":"the operation timed out","retryable":true,"rate_limited":false,"recovery":"retry"}}"#
    );
    let bare = agent_error::Report::capture(&io::Error::from(ErrorKind::ConnectionReset));
    assert_eq!(bare.code(), "provider_unavailable");
    assert_eq!(bare.message(), "connection reset");
}

#[cfg(feature = "tokio")]
#[test]
fn an_elapsed_tokio_timeout_is_a_timeout() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let elapsed = rt
        .block_on(async {
            tokio::time::timeout(
                std::time::Duration::from_millis(1),
                std::future::pending::<()>(),
            )
            .await
        })
        .unwrap_err();
    let c = classify(&elapsed).unwrap();
    assert_eq!(c.code(), "timeout");
    assert!(c.is_retryable());
    assert_eq!(display::public(&*c).to_string(), "the deadline elapsed");
    let wrapped = anyhow::Error::new(elapsed).context("waiting for the model");
    assert!(is_retryable(wrapped.as_ref()));
}

/// A retrier asks first the classifiers that answered for its last failure: each failure is
/// still classified as `classify` classifies it, hints included, the user's classifiers of a
/// type before the runtime's own.
#[test]
fn a_retrier_classifies_each_failure_as_classify_does() {
    use agent_error::retry::{Retrier, Stop};
    use std::sync::{Arc, Mutex};
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let retrier = Retrier::new().seed(1).on_retry(move |e, _, _| {
        log.lock()
            .unwrap()
            .push((e.code().to_owned(), e.hints().len()))
    });
    let sdk = |status| SdkError {
        status,
        detail: "SELECT * FROM users".into(),
    };
    let outcome = retrier.run_detailed_with_sleep(
        |attempt| Err::<(), _>(sdk(if attempt < 3 { 529 } else { 402 })),
        |_| {},
    );
    assert_eq!((outcome.stop, outcome.attempts), (Stop::Permanent, 3));
    assert_eq!(
        seen.lock().unwrap().drain(..).collect::<Vec<_>>(),
        [
            ("provider_unavailable".to_owned(), 1),
            ("provider_unavailable".to_owned(), 1)
        ]
    );
    // A lone io timeout (the built-in classifier answers), then one that carries a `Marker`
    // (the user's classifier of io::Error answers): the second is not mistaken for the first.
    let outcome = retrier.run_detailed_with_sleep(
        |attempt| {
            Err::<(), _>(match attempt {
                1 => io::Error::from(ErrorKind::TimedOut),
                _ => io::Error::new(ErrorKind::TimedOut, Marker),
            })
        },
        |_| {},
    );
    assert_eq!((outcome.stop, outcome.attempts), (Stop::Permanent, 2));
    assert_eq!(*seen.lock().unwrap(), [("timeout".to_owned(), 0)]);
}
