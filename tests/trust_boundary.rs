//! Public renderings never show `#[redact]` fields or foreign causes; the operator's
//! Display still does. A canary secret is followed through every rendering.

use agent_error::tool::{self, StructuredToolError};
use agent_error::{AgentError, display};

const CANARY: &str = "sk-canary-7f3a";

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum Secretive {
    #[agent(
        code = "auth_error",
        hint = "rotate the key ending in {key}",
        hint = "check the account {account}"
    )]
    #[error("key {key} rejected for {account}")]
    Auth {
        #[redact]
        key: String,
        account: String,
    },
    #[agent(code = "bad_args")]
    #[error("argument {} is malformed", .arg)]
    BadArgs {
        #[redact]
        arg: String,
    },
    #[agent(code = "db_failed", retryable)]
    #[error("query failed")]
    Db { source: std::io::Error },
    #[agent(code = "wrapped")]
    #[error("inner failed")]
    Wrapped {
        #[source]
        inner: Box<Secretive>,
    },
}

fn cases() -> Vec<Secretive> {
    vec![
        Secretive::Auth {
            key: CANARY.into(),
            account: "acme".into(),
        },
        Secretive::BadArgs { arg: CANARY.into() },
        Secretive::Db {
            source: std::io::Error::other(format!("SELECT * FROM keys WHERE k = '{CANARY}'")),
        },
        Secretive::Wrapped {
            inner: Box::new(Secretive::Db {
                source: std::io::Error::other(CANARY),
            }),
        },
    ]
}

fn public_renderings(e: &dyn AgentError) -> Vec<String> {
    let structured = StructuredToolError::from_error(e);
    let mut out = vec![
        tool::render(e),
        display::for_user(e),
        display::public(e).to_string(),
        format!(
            "{} {} {}",
            structured.summary,
            structured.hints.join(" "),
            structured.code
        ),
    ];
    out.extend(e.hints().into_iter().map(|h| h.into_owned()));
    #[cfg(feature = "serde")]
    out.push(serde_json::to_string(&structured).unwrap());
    out
}

#[test]
fn the_canary_never_reaches_a_public_rendering() {
    for e in cases() {
        for text in public_renderings(&e) {
            assert!(!text.contains(CANARY), "{} leaked into {text:?}", e.code());
        }
    }
}

#[test]
fn the_operators_display_keeps_everything() {
    for e in cases() {
        assert!(e.to_string().contains(CANARY), "{e}");
    }
}

#[test]
fn redacted_fields_read_redacted_and_the_rest_stays() {
    let e = &cases()[0];
    assert_eq!(
        tool::render(e),
        "[error:auth_error] key [redacted] rejected for acme\nhint: rotate the key ending in [redacted]\nhint: check the account acme"
    );
    assert_eq!(
        display::for_user(e),
        "key [redacted] rejected for acme\n  - rotate the key ending in [redacted]\n  - check the account acme"
    );
    assert_eq!(e.message(), format!("key {CANARY} rejected for acme"));
    assert_eq!(
        tool::render(&cases()[1]),
        "[error:bad_args] argument [redacted] is malformed"
    );
    assert_eq!(tool::render(&cases()[2]), "[error:db_failed] query failed");
}

/// Whole chains, typed and foreign, as they reach the renderings that take any error.
fn chains() -> Vec<Box<dyn std::error::Error + Send + Sync + 'static>> {
    use std::io::{Error as IoError, ErrorKind};
    let mut out: Vec<Box<dyn std::error::Error + Send + Sync>> = Vec::new();
    for typed in cases() {
        out.push(Box::new(typed));
    }
    // Foreign links whose text carries the canary: classified, and not.
    out.push(Box::new(IoError::new(
        ErrorKind::ConnectionRefused,
        format!("connect to {CANARY}.internal:443"),
    )));
    out.push(Box::new(IoError::new(
        ErrorKind::PermissionDenied,
        format!("open /home/alice/{CANARY}"),
    )));
    out.push(Box::new(IoError::other(format!("SELECT '{CANARY}'"))));
    out.push(
        anyhow::Error::new(IoError::new(ErrorKind::TimedOut, CANARY))
            .context(format!("while calling {CANARY}"))
            .into(),
    );
    out.push(Box::new(
        agent_error::Error::new("llm.generate", "provider_unavailable", "all retries failed")
            .with_source(Secretive::Auth {
                key: CANARY.into(),
                account: "acme".into(),
            }),
    ));
    out
}

#[test]
fn the_canary_never_reaches_a_rendering_of_a_whole_chain() {
    for err in chains() {
        let err: &(dyn std::error::Error + 'static) = &*err;
        let mut texts = vec![
            tool::render_error(err),
            display::public_chain(err).to_string(),
            format!("{:#}", display::public_chain(err)),
        ];
        if let Some(c) = agent_error::classify(err) {
            texts.extend(public_renderings(&*c));
        }
        #[cfg(feature = "serde")]
        {
            let report = agent_error::Report::capture(err);
            texts.push(serde_json::to_string(&report).unwrap());
            texts.push(serde_json::to_string(&report.to_problem()).unwrap());
        }
        for text in texts {
            assert!(!text.contains(CANARY), "leaked into {text:?} from {err:?}");
        }
    }
}

#[cfg(feature = "tracing")]
#[path = "support/capture.rs"]
mod capture;

#[cfg(feature = "tracing")]
#[test]
fn the_canary_never_reaches_a_trace() {
    use std::time::Duration;
    let capture = capture::Capture::default();
    tracing::subscriber::with_default(capture.clone(), || {
        for err in chains() {
            let err: &(dyn std::error::Error + 'static) = &*err;
            agent_error::trace::record(err);
            let span = tracing::info_span!(
                "call",
                error.type = tracing::field::Empty,
                error.op = tracing::field::Empty,
                error.message = tracing::field::Empty
            );
            agent_error::trace::record_on_span(&span, err);
            if let Some(c) = agent_error::classify(err) {
                agent_error::trace::on_retry(&*c, 1, Duration::from_millis(5));
            }
        }
    });
    let events = capture.events.lock().unwrap();
    assert_eq!(
        events.len(),
        chains().len() * 2 - 1,
        "every chain but one is classified"
    );
    for (_, fields) in events.iter() {
        for (name, value) in fields {
            assert!(!value.contains(CANARY), "{name} = {value:?}");
        }
    }
    for (name, value) in capture.spans.lock().unwrap().iter() {
        assert!(!value.contains(CANARY), "span {name} = {value:?}");
    }
    // Asked for explicitly, the operator's text is there.
    let unredacted = capture::Capture::default();
    tracing::subscriber::with_default(unredacted.clone(), || {
        agent_error::trace::record_unredacted(&*chains()[4]);
    });
    assert!(unredacted.events.lock().unwrap()[0].1["message"].contains(CANARY));
}

/// The thiserror idiom: the cause written into the message. In public renderings an error
/// field shows its public form, never its own text.
#[derive(Debug, AgentError)]
#[agent(op = "fs.read")]
enum Interpolated {
    #[agent(code = "io_failed")]
    #[error("io error: {0}")]
    Io(#[from] std::io::Error),
    #[agent(code = "wrapped")]
    #[error("inner failed: {source}")]
    Typed { source: Secretive },
    #[agent(code = "debugged")]
    #[error("inner failed: {inner:?}")]
    Debugged {
        #[source]
        inner: std::io::Error,
    },
    #[agent(code = "boxed")]
    #[error("boxed: {0}")]
    Boxed(#[source] Box<dyn std::error::Error + Send + Sync>),
}

fn interpolated() -> Vec<Interpolated> {
    use std::io::{Error as IoError, ErrorKind};
    vec![
        Interpolated::Io(IoError::new(
            ErrorKind::PermissionDenied,
            format!("open /home/alice/.ssh/{CANARY}: permission denied"),
        )),
        Interpolated::Io(IoError::other(format!("SELECT '{CANARY}'"))),
        Interpolated::Typed {
            source: Secretive::Auth {
                key: CANARY.into(),
                account: "acme".into(),
            },
        },
        Interpolated::Debugged {
            inner: IoError::other(CANARY),
        },
        Interpolated::Boxed(Box::new(IoError::new(ErrorKind::TimedOut, CANARY))),
    ]
}

#[test]
fn an_interpolated_cause_shows_its_public_form_in_public_renderings() {
    for e in interpolated() {
        for text in public_renderings(&e) {
            assert!(!text.contains(CANARY), "{} leaked into {text:?}", e.code());
        }
        #[cfg(feature = "serde")]
        {
            let json = serde_json::to_string(&agent_error::Report::capture(&e)).unwrap();
            assert!(!json.contains(CANARY), "{json}");
        }
        // The operator's Display keeps the text, and writes the cause once.
        let text = e.to_string();
        assert_eq!(text.matches(CANARY).count(), 1, "{text}");
    }
    let [classified, unclassified, typed, debugged, boxed] = &interpolated()[..] else {
        unreachable!()
    };
    assert_eq!(
        display::public(classified).to_string(),
        "io error: permission denied"
    );
    assert_eq!(
        display::public(unclassified).to_string(),
        "io error: [redacted]"
    );
    assert_eq!(
        display::public(typed).to_string(),
        "inner failed: key [redacted] rejected for acme"
    );
    assert_eq!(
        display::public(debugged).to_string(),
        "inner failed: [redacted]"
    );
    assert_eq!(
        display::public(boxed).to_string(),
        "boxed: the operation timed out"
    );
    assert_eq!(
        classified.to_string(),
        format!("fs.read [io_failed]: io error: open /home/alice/.ssh/{CANARY}: permission denied")
    );
}
