//! What Display writes in each mode, and what the reporters Rust users already have print
//! from it: `display = "message"` keeps thiserror's Display byte for byte (the migration
//! setting), and each cause is printed once by every reporter; the default card writes
//! `op [code]: message: cause`, which this crate's chain printer prints once.

// Without `registry`, the tests that need a derived type known in a chain are left out, and
// what only they use goes unused.
#![cfg_attr(not(feature = "registry"), allow(dead_code, unused_imports))]

use std::error::Error as StdError;
use std::io;

use agent_error::{AgentError, display, tool};
use anyhow::Context as _;

/// A library's enum as thiserror wrote it: unit variants, a tuple variant with a
/// `#[source]`, a `#[from]`, a transparent one.
mod theirs {
    use std::io;

    #[derive(Debug, thiserror::Error)]
    pub enum ServiceError {
        #[error("Auth required")]
        AuthRequired(#[source] AuthError),
        #[error("transport closed")]
        Closed,
        #[error("io failed: {0}")]
        Io(#[from] io::Error),
        #[error("bad request {code}: {message}")]
        BadRequest { code: u16, message: String },
        #[error(transparent)]
        Other(#[from] Box<dyn std::error::Error + Send + Sync>),
    }

    #[derive(Debug, thiserror::Error)]
    #[error("authorization required")]
    pub struct AuthError {
        #[source]
        pub source: io::Error,
    }
}

/// The same enum renamed, with one line: `display = "message"`.
mod ours {
    use std::io;

    use agent_error::AgentError;

    #[derive(Debug, AgentError)]
    #[agent(op = "rmcp", display = "message")]
    pub enum ServiceError {
        #[error("Auth required")]
        AuthRequired(#[source] AuthError),
        #[error("transport closed")]
        Closed,
        #[error("io failed: {0}")]
        Io(#[from] io::Error),
        #[error("bad request {code}: {message}")]
        BadRequest { code: u16, message: String },
        #[error(transparent)]
        Other(#[from] Box<dyn std::error::Error + Send + Sync>),
    }

    #[derive(Debug, AgentError)]
    #[agent(op = "rmcp", code = "auth_required_error", display = "message")]
    #[error("authorization required")]
    pub struct AuthError {
        #[source]
        pub source: io::Error,
    }
}

fn reset() -> io::Error {
    io::Error::other("Bearer token expired")
}

type Boxed = Box<dyn StdError + Send + Sync>;

fn pairs() -> Vec<(Boxed, Boxed)> {
    vec![
        (
            Box::new(theirs::ServiceError::AuthRequired(theirs::AuthError {
                source: reset(),
            })),
            Box::new(ours::ServiceError::AuthRequired(ours::AuthError {
                source: reset(),
            })),
        ),
        (
            Box::new(theirs::ServiceError::Closed),
            Box::new(ours::ServiceError::Closed),
        ),
        (
            Box::new(theirs::ServiceError::from(reset())),
            Box::new(ours::ServiceError::from(reset())),
        ),
        (
            Box::new(theirs::ServiceError::BadRequest {
                code: 400,
                message: "missing field".into(),
            }),
            Box::new(ours::ServiceError::BadRequest {
                code: 400,
                message: "missing field".into(),
            }),
        ),
        (
            Box::new(theirs::ServiceError::Other("pipe broke".into())),
            Box::new(ours::ServiceError::Other("pipe broke".into())),
        ),
    ]
}

#[test]
fn the_message_mode_keeps_thiserrors_display_byte_for_byte() {
    for (theirs, ours) in pairs() {
        assert_eq!(ours.to_string(), theirs.to_string());
        assert_eq!(format!("{ours:>40}"), format!("{theirs:>40}"));
        // anyhow prints each link once, as it does for thiserror's types.
        let theirs = anyhow::Error::from_boxed(theirs).context("calling the tool");
        let ours = anyhow::Error::from_boxed(ours).context("calling the tool");
        assert_eq!(format!("{ours:#}"), format!("{theirs:#}"));
        assert_eq!(causes(&format!("{ours:?}")), causes(&format!("{theirs:?}")));
    }
}

// Derived types are known in a chain through their registration (feature `registry`).
#[cfg(feature = "registry")]
#[test]
fn the_message_mode_still_carries_the_op_and_code_in_this_crates_renderings() {
    let e = ours::ServiceError::AuthRequired(ours::AuthError { source: reset() });
    assert_eq!(e.to_string(), "Auth required");
    assert_eq!(e.code(), "auth_required");
    assert_eq!(
        display::chain(&e).to_string(),
        "rmcp [auth_required]: Auth required: rmcp [auth_required_error]: authorization required: Bearer token expired"
    );
    assert_eq!(
        display::public_chain(&e).to_string(),
        "rmcp [auth_required]: Auth required: rmcp [auth_required_error]: authorization required"
    );
    assert!(tool::render(&e).contains("auth_required"));
}

/// The card mode (the default) writes the cause after the message, one head a line.
mod card {
    use agent_error::AgentError;

    #[derive(Debug, AgentError)]
    #[agent(op = "rmcp")]
    pub enum ServiceError {
        #[error("Auth required")]
        AuthRequired(#[source] super::ours::AuthError),
        /// A variant may keep the message mode in a card enum.
        #[agent(display = "message")]
        #[error("transport closed")]
        Closed(#[source] std::io::Error),
    }
}

#[test]
fn the_card_writes_its_cause_once_without_the_causes_head() {
    let e = card::ServiceError::AuthRequired(ours::AuthError { source: reset() });
    // One head a line: the cause, an `AgentError`, follows without `rmcp [auth_required_error]: `.
    assert_eq!(
        e.to_string(),
        "rmcp [auth_required]: Auth required: authorization required"
    );
    assert_eq!(
        card::ServiceError::Closed(reset()).to_string(),
        "transport closed"
    );
}

/// anyhow's `{:?}` without the backtrace it may end with (where it was captured differs).
fn causes(debug: &str) -> &str {
    debug.split("\n\nStack backtrace").next().unwrap_or(debug)
}

/// How many times `needle` is in `text`.
fn count(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

// Derived types are known in a chain through their registration (feature `registry`).
#[cfg(feature = "registry")]
#[test]
fn each_reporter_prints_each_cause_once_in_the_message_mode() {
    let e = ours::ServiceError::AuthRequired(ours::AuthError { source: reset() });
    let err = Err::<(), _>(e).context("calling the tool").unwrap_err();
    let alternate = format!("{err:#}");
    assert_eq!(
        alternate,
        "calling the tool: Auth required: authorization required: Bearer token expired"
    );
    let debug = format!("{err:?}");
    for reported in [&alternate, &debug] {
        assert_eq!(count(reported, "Bearer token expired"), 1, "{reported}");
        assert_eq!(count(reported, "authorization required"), 1, "{reported}");
    }
    assert_eq!(
        display::chain(err.as_ref()).to_string(),
        "calling the tool: rmcp [auth_required]: Auth required: rmcp [auth_required_error]: authorization required: Bearer token expired"
    );
}

// Derived types are known in a chain through their registration (feature `registry`).
#[cfg(feature = "registry")]
#[test]
fn in_the_card_mode_this_crates_chain_prints_each_cause_once_and_anyhow_repeats_it() {
    let e = card::ServiceError::AuthRequired(ours::AuthError { source: reset() });
    let err = Err::<(), _>(e).context("calling the tool").unwrap_err();
    let chain = display::chain(err.as_ref()).to_string();
    assert_eq!(
        chain,
        "calling the tool: rmcp [auth_required]: Auth required: rmcp [auth_required_error]: authorization required: Bearer token expired"
    );
    assert_eq!(count(&chain, "Bearer token expired"), 1);
    // anyhow's `{:#}` joins every link's Display, and the card's Display already holds its
    // cause: the documented remedy is `display::chain`, or the message mode.
    assert_eq!(count(&format!("{err:#}"), "authorization required"), 2);
}

#[test]
fn eyre_prints_each_cause_once_in_the_message_mode() {
    use eyre::WrapErr as _;

    let e = ours::ServiceError::AuthRequired(ours::AuthError { source: reset() });
    let report = Err::<(), _>(e).wrap_err("calling the tool").unwrap_err();
    let debug = format!("{report:?}");
    assert_eq!(count(&debug, "Bearer token expired"), 1, "{debug}");
    assert_eq!(count(&debug, "authorization required"), 1, "{debug}");
    assert_eq!(count(&debug, "Auth required"), 1, "{debug}");
    let chained: Vec<String> = report.chain().map(ToString::to_string).collect();
    assert_eq!(
        chained,
        [
            "calling the tool",
            "Auth required",
            "authorization required",
            "Bearer token expired"
        ]
    );
}

/// `trace::record` writes this chain as the event's message (and no foreign text).
// Derived types are known in a chain through their registration (feature `registry`).
#[cfg(feature = "registry")]
#[test]
fn the_public_chain_that_trace_records_carries_each_cause_once() {
    let e = card::ServiceError::AuthRequired(ours::AuthError { source: reset() });
    let chain = display::public_chain(&e).to_string();
    assert_eq!(
        chain.matches("authorization required").count(),
        1,
        "{chain}"
    );
}

/// The wire form: each link of the chain once, in both modes.
#[cfg(feature = "serde")]
#[test]
fn the_wire_form_carries_each_cause_once_in_both_modes() {
    let message = ours::ServiceError::AuthRequired(ours::AuthError { source: reset() });
    let card = card::ServiceError::AuthRequired(ours::AuthError { source: reset() });
    for e in [&message as &dyn StdError, &card] {
        let wire = serde_json::to_string(&agent_error::Report::capture(e)).unwrap();
        assert_eq!(count(&wire, "authorization required"), 1, "{wire}");
        assert_eq!(count(&wire, "Auth required"), 1, "{wire}");
    }
}

/// What `tracing`'s own formatter (`tracing_subscriber::fmt`) prints for an error recorded
/// as a field, `tracing::error!(error = err)`: the error's Display, then
/// `error.sources=[…]`, the Display of each link below it.
fn traced(err: &(dyn StdError + 'static)) -> String {
    formatted(|| tracing::error!(error = err))
}

/// The line `tracing_subscriber::fmt` writes for the events `emit` sends.
fn formatted(emit: impl FnOnce()) -> String {
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);
    impl io::Write for Buffer {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    let buffer = Buffer::default();
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .without_time()
        .with_level(false)
        .with_target(false)
        .finish();
    tracing::subscriber::with_default(subscriber, emit);
    let line = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    line.trim_end().to_string()
}

#[test]
fn tracing_prints_each_cause_once_in_the_message_mode() {
    let alone = ours::ServiceError::AuthRequired(ours::AuthError { source: reset() });
    assert_eq!(
        traced(&alone),
        "error=Auth required error.sources=[authorization required, Bearer token expired]"
    );
    let behind_anyhow = Err::<(), _>(ours::ServiceError::AuthRequired(ours::AuthError {
        source: reset(),
    }))
    .context("calling the tool")
    .unwrap_err();
    assert_eq!(
        traced(behind_anyhow.as_ref()),
        "error=calling the tool error.sources=[Auth required, authorization required, Bearer token expired]"
    );
    let nested = ours::ServiceError::Other(Box::new(ours::ServiceError::AuthRequired(
        ours::AuthError { source: reset() },
    )));
    // A transparent variant is its field: the field's Display, then the field's sources.
    assert_eq!(
        traced(&nested),
        "error=Auth required error.sources=[authorization required, Bearer token expired]"
    );
    for line in [
        traced(&alone),
        traced(behind_anyhow.as_ref()),
        traced(&nested),
    ] {
        assert_eq!(count(&line, "Bearer token expired"), 1, "{line}");
        assert_eq!(count(&line, "authorization required"), 1, "{line}");
        assert_eq!(count(&line, "Auth required"), 1, "{line}");
    }
}

// Derived types are known in a chain through their registration (feature `registry`).
#[cfg(feature = "registry")]
#[test]
fn in_the_card_mode_tracing_repeats_the_cause_and_the_chain_field_prints_it_once() {
    let e = card::ServiceError::AuthRequired(ours::AuthError { source: reset() });
    // The card's Display holds its cause, and `source()` returns it too.
    assert_eq!(
        traced(&e),
        "error=rmcp [auth_required]: Auth required: authorization required error.sources=[authorization required, Bearer token expired]"
    );
    // The documented remedy: record this crate's chain as the field (or `trace::record`).
    let line = formatted(|| tracing::error!(error = %display::chain(&e)));
    assert_eq!(
        line,
        "error=rmcp [auth_required]: Auth required: rmcp [auth_required_error]: authorization required: Bearer token expired"
    );
    assert_eq!(count(&line, "authorization required"), 1, "{line}");
}
