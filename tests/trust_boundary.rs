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
