//! `#[redact]`: the public message and Display (logs leave the process) show
//! `[redacted]`; only an explicit call (`fmt_message`, `message()`, `unredacted()`) shows the
//! real value; hints are public.

// Without `registry`, the tests that need a derived type known in a chain are left out, and
// what only they use goes unused.
#![cfg_attr(not(feature = "registry"), allow(dead_code, unused_imports))]

use std::fmt;

use agent_error::AgentError;

/// Writes an error's message through `fmt_message`.
struct Private<'a>(&'a dyn AgentError);

impl fmt::Display for Private<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt_message(f)
    }
}

fn public(e: &dyn AgentError) -> String {
    agent_error::display::public(e).to_string()
}

#[derive(Debug, AgentError)]
#[agent(op = "auth.login")]
enum AuthError {
    #[agent(
        code = "auth_error",
        hint = "rotate the key {key}",
        hint = "ask {user}"
    )]
    #[error("login failed for {user} with key {key}")]
    BadKey {
        user: String,
        #[redact]
        key: String,
    },

    #[error("key {key:?} padded [{key:>12}]")]
    Specs {
        #[redact]
        key: String,
    },

    #[error("key ends with {}", &.key[.key.len() - 2..])]
    InExtraArgument {
        #[redact]
        key: String,
    },

    #[error("key is {k}", k = .key)]
    InNamedArgument {
        #[redact]
        key: String,
    },

    #[error("{} is fine, {} is not", .user, .key)]
    MixedArguments {
        user: String,
        #[redact]
        key: String,
    },

    /// Doc message with secret {key}.
    FromDocComment {
        #[redact]
        key: String,
    },

    #[error("tuple secret {0} for {1}")]
    Tuple(#[redact] u64, &'static str),

    #[error("nothing secret shown for {user}")]
    NotShown {
        user: String,
        #[redact]
        key: String,
    },
}

fn bad_key() -> AuthError {
    AuthError::BadKey {
        user: "alice".into(),
        key: "sk-123".into(),
    }
}

#[test]
fn the_public_message_hides_a_redacted_field() {
    assert_eq!(
        public(&bad_key()),
        "login failed for alice with key [redacted]"
    );
}

// Derived types are known in a chain through their registration (feature `registry`).
#[cfg(feature = "registry")]
#[test]
fn display_redacts_and_explicit_calls_show_the_real_value() {
    use agent_error::display::Unredact;
    let e = bad_key();
    assert_eq!(
        e.to_string(),
        "auth.login [auth_error]: login failed for alice with key [redacted]"
    );
    assert_eq!(
        e.unredacted().to_string(),
        "auth.login [auth_error]: login failed for alice with key sk-123"
    );
    assert_eq!(e.message(), "login failed for alice with key sk-123");
    assert_eq!(
        Private(&e).to_string(),
        "login failed for alice with key sk-123"
    );
}

#[test]
fn hints_hide_a_redacted_field() {
    assert_eq!(
        bad_key().hints(),
        ["rotate the key [redacted]", "ask alice"]
    );
}

#[test]
fn debug_and_width_specs_apply_to_the_placeholder() {
    let e = AuthError::Specs { key: "sk".into() };
    assert_eq!(public(&e), "key [redacted] padded [  [redacted]]");
    assert_eq!(e.message(), "key \"sk\" padded [          sk]");
}

#[test]
fn a_redacted_field_in_an_extra_argument() {
    let e = AuthError::InExtraArgument {
        key: "sk-999".into(),
    };
    assert_eq!(public(&e), "key ends with [redacted]");
    assert_eq!(e.message(), "key ends with 99");
}

#[test]
fn a_redacted_field_in_a_named_argument() {
    let e = AuthError::InNamedArgument { key: "sk-1".into() };
    assert_eq!(public(&e), "key is [redacted]");
    assert_eq!(e.message(), "key is sk-1");
}

#[test]
fn only_the_arguments_naming_a_redacted_field_are_hidden() {
    let e = AuthError::MixedArguments {
        user: "bob".into(),
        key: "sk-2".into(),
    };
    assert_eq!(public(&e), "bob is fine, [redacted] is not");
    assert_eq!(e.message(), "bob is fine, sk-2 is not");
}

#[test]
fn a_redacted_field_in_a_doc_comment_message() {
    let e = AuthError::FromDocComment { key: "sk-4".into() };
    assert_eq!(public(&e), "Doc message with secret [redacted].");
    assert_eq!(e.message(), "Doc message with secret sk-4.");
}

#[test]
fn a_redacted_tuple_field() {
    let e = AuthError::Tuple(42, "carol");
    assert_eq!(public(&e), "tuple secret [redacted] for carol");
    assert_eq!(e.message(), "tuple secret 42 for carol");
}

#[test]
fn a_redacted_field_outside_the_message_changes_nothing() {
    let e = AuthError::NotShown {
        user: "dave".into(),
        key: "sk-3".into(),
    };
    assert_eq!(public(&e), "nothing secret shown for dave");
    assert_eq!(e.message(), "nothing secret shown for dave");
}

#[derive(Debug, AgentError)]
#[agent(op = "db.query", code = "query_failed")]
#[error("query {sql} failed")]
struct QueryFailed {
    #[redact]
    sql: String,
}

// Derived types are known in a chain through their registration (feature `registry`).
#[cfg(feature = "registry")]
#[test]
fn a_redacted_struct_field() {
    let e = QueryFailed {
        sql: "SELECT * FROM users".into(),
    };
    assert_eq!(public(&e), "query [redacted] failed");
    assert_eq!(
        e.to_string(),
        "db.query [query_failed]: query [redacted] failed"
    );
    assert_eq!(
        agent_error::display::unredacted(&e).to_string(),
        "db.query [query_failed]: query SELECT * FROM users failed"
    );
}

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum Outer {
    #[error(transparent)]
    Auth(#[from] AuthError),
}

#[test]
fn a_transparent_variant_forwards_the_public_message() {
    let e = Outer::from(bad_key());
    assert_eq!(public(&e), "login failed for alice with key [redacted]");
    assert_eq!(e.message(), "login failed for alice with key sk-123");
    assert_eq!(e.hints(), ["rotate the key [redacted]", "ask alice"]);
}

#[derive(Debug, AgentError)]
#[agent(op = "kv.get", code = "not_found")]
#[error("no key {key}")]
struct NothingRedacted {
    key: String,
}

#[test]
fn without_redacted_fields_the_public_message_is_the_message() {
    let e = NothingRedacted { key: "a".into() };
    assert_eq!(public(&e), "no key a");
}

/// A redacted field compiles with any formatting trait its type has, and reads `[redacted]`.
#[derive(Debug, AgentError)]
#[agent(op = "auth.check", code = "auth_error")]
#[error("token {token:#x} of {len:>4} bytes")]
struct HexToken {
    #[redact]
    token: u64,
    len: usize,
}

#[test]
fn a_redacted_field_written_in_hex_reads_redacted() {
    let e = HexToken {
        token: 0xdead_beef,
        len: 8,
    };
    assert_eq!(e.message(), "token 0xdeadbeef of    8 bytes");
    assert_eq!(
        agent_error::display::public(&e).to_string(),
        "token [redacted] of    8 bytes"
    );
}

/// `#[agent(debug)]`: the derive writes `Debug`, with `#[redact]` fields as `[redacted]`.
#[derive(AgentError)]
#[agent(op = "auth.login", debug)]
enum Login<T> {
    #[agent(code = "auth_error")]
    #[error("key {key} rejected for {user}")]
    BadKey {
        user: T,
        #[redact]
        key: String,
    },
    #[agent(code = "bad_token")]
    #[error("token rejected")]
    BadToken(#[redact] String, u32),
    #[agent(code = "locked")]
    #[error("account locked")]
    Locked,
}

#[test]
fn a_derived_debug_redacts_and_anyhow_shows_no_secret() {
    let e = Login::BadKey {
        user: "alice",
        key: "sk-123".into(),
    };
    assert_eq!(
        format!("{e:?}"),
        r#"BadKey { user: "alice", key: [redacted] }"#
    );
    assert_eq!(
        format!("{:?}", Login::<&str>::BadToken("tok-9".into(), 7)),
        "BadToken([redacted], 7)"
    );
    assert_eq!(format!("{:?}", Login::<&str>::Locked), "Locked");
    let e = anyhow::Error::new(e);
    for text in [
        format!("{e}"),
        format!("{e:#}"),
        format!("{e:?}"),
        format!("{e:#?}"),
    ] {
        assert!(!text.contains("sk-123"), "{text}");
    }
}

/// Every rendering that leaves the process, for the assertions below: Display, the tool
/// text, the text for people, the public message, every chain, and (with `serde`) the wire.
fn renderings(e: &(dyn AgentError + 'static)) -> Vec<String> {
    #[cfg_attr(not(feature = "serde"), allow(unused_mut))]
    let mut out = vec![
        e.to_string(),
        agent_error::tool::render(e),
        agent_error::display::for_user(e),
        public(e),
        agent_error::display::chain(e).to_string(),
        agent_error::display::public_chain(e).to_string(),
        format!("{:#}", anyhow::Error::new(Wrapped(e.to_string()))),
    ];
    #[cfg(feature = "serde")]
    out.push(serde_json::to_string(&agent_error::Report::capture(e)).unwrap());
    out
}

/// A `String` standing in for an error that went through `anyhow`.
#[derive(Debug)]
struct Wrapped(String);

impl fmt::Display for Wrapped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Wrapped {}

/// A `#[redact]` field captured by name inside an argument's own format string, which the
/// derive cannot read: the name resolves to `[redacted]` in every redacted rendering.
#[derive(Debug, AgentError)]
#[agent(op = "auth.login")]
enum Captured {
    #[agent(code = "key_rejected", hint = "rotate the key")]
    #[error("key rejected: {}", format!("{key}"))]
    InNestedFormat {
        #[redact]
        key: String,
    },

    #[agent(code = "key_padded")]
    #[error("key rejected: [{}] for {user}", format!("{key:>12}"))]
    WithSpec {
        user: String,
        #[redact]
        key: String,
    },

    #[agent(code = "key_in_closure")]
    #[error("key rejected: {}", Some(1).map(|_| format!("{key:?}")).unwrap_or_default())]
    InClosure {
        #[redact]
        key: String,
    },

    #[agent(code = "key_in_method_call")]
    #[error("key rejected: {shown}", shown = format!("<{key}>").to_uppercase())]
    InMethodCall {
        #[redact]
        key: String,
    },

    #[agent(code = "tuple_key")]
    #[error("key rejected: {}", format!("{_0}"))]
    TupleField(#[redact] String),
}

#[test]
fn a_redacted_field_captured_in_a_nested_format_never_shows() {
    let e = Captured::InNestedFormat {
        key: "sk-123".into(),
    };
    assert_eq!(
        e.to_string(),
        "auth.login [key_rejected]: key rejected: [redacted]"
    );
    assert_eq!(
        agent_error::tool::render(&e),
        "[error:key_rejected] key rejected: [redacted]\nhint: rotate the key"
    );
    assert_eq!(
        agent_error::display::for_user(&e),
        "key rejected: [redacted]\n  - rotate the key"
    );
    assert_eq!(public(&e), "key rejected: [redacted]");
    #[cfg(feature = "serde")]
    assert_eq!(
        serde_json::to_value(agent_error::Report::capture(&e)).unwrap()["message"],
        "key rejected: [redacted]"
    );
    for text in renderings(&e) {
        assert!(!text.contains("sk-123"), "{text}");
    }
    // The explicit calls still show the real value.
    assert_eq!(e.message(), "key rejected: sk-123");
    assert_eq!(Private(&e).to_string(), "key rejected: sk-123");
}

#[test]
fn a_redacted_field_captured_with_a_spec_a_closure_or_a_method_call_never_shows() {
    let cases = [
        (
            Captured::WithSpec {
                user: "alice".into(),
                key: "sk-123".into(),
            },
            "key rejected: [  [redacted]] for alice",
            "key rejected: [      sk-123] for alice",
        ),
        (
            Captured::InClosure {
                key: "sk-123".into(),
            },
            "key rejected: [redacted]",
            "key rejected: \"sk-123\"",
        ),
        (
            Captured::InMethodCall {
                key: "sk-123".into(),
            },
            "key rejected: <[REDACTED]>",
            "key rejected: <SK-123>",
        ),
        (
            Captured::TupleField("sk-123".into()),
            "key rejected: [redacted]",
            "key rejected: sk-123",
        ),
    ];
    for (e, shown, full) in cases {
        assert_eq!(public(&e), shown);
        assert_eq!(e.to_string(), format!("auth.login [{}]: {shown}", e.code()));
        for text in renderings(&e) {
            assert!(
                !text.contains("sk-123") && !text.contains("SK-123"),
                "{text}"
            );
        }
        assert_eq!(e.message(), full);
    }
}
