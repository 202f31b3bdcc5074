//! Recovery hints: static, several in order, interpolating fields, with escaped braces.

// Without `registry`, the tests that need a derived type known in a chain are left out, and
// what only they use goes unused.
#![cfg_attr(not(feature = "registry"), allow(dead_code, unused_imports))]

use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum LlmError {
    #[agent(
        code = "rate_limit",
        rate_limited,
        hint = "lower the request rate or raise the quota"
    )]
    #[error("provider returned 429")]
    RateLimited,

    #[agent(
        code = "auth_error",
        hint = "set OPENAI_API_KEY",
        hint = "check the key at {console}",
        hint = "ask an admin for access"
    )]
    #[error("invalid api key for {console}")]
    Auth { console: String },

    #[agent(hint = "shorten the prompt to {0} tokens, now {1:>6}")]
    #[error("prompt too long")]
    ContextOverflow(u32, u32),

    #[agent(hint = "send JSON like {{\"query\": \"...\"}}")]
    #[error("bad arguments")]
    BadArguments,

    #[agent(hint = "field {name} must look like {{name}}")]
    #[error("bad field")]
    BadField { name: String },

    #[error("no hints here")]
    NoHints,
}

#[test]
fn a_static_hint() {
    assert_eq!(
        LlmError::RateLimited.hints(),
        ["lower the request rate or raise the quota"]
    );
}

#[test]
fn several_hints_keep_their_order_and_interpolate_fields() {
    let e = LlmError::Auth {
        console: "https://platform.openai.com".into(),
    };
    assert_eq!(
        e.hints(),
        [
            "set OPENAI_API_KEY",
            "check the key at https://platform.openai.com",
            "ask an admin for access",
        ]
    );
}

#[test]
fn hints_interpolate_tuple_fields_with_specs() {
    assert_eq!(
        LlmError::ContextOverflow(8000, 12000).hints(),
        ["shorten the prompt to 8000 tokens, now  12000"]
    );
}

#[test]
fn escaped_braces_in_a_static_hint() {
    assert_eq!(
        LlmError::BadArguments.hints(),
        ["send JSON like {\"query\": \"...\"}"]
    );
}

#[test]
fn escaped_braces_beside_a_field() {
    let e = LlmError::BadField {
        name: "limit".into(),
    };
    assert_eq!(e.hints(), ["field limit must look like {name}"]);
}

#[test]
fn no_hints_is_empty() {
    assert!(LlmError::NoHints.hints().is_empty());
}

#[test]
fn hints_do_not_change_the_message() {
    let e = LlmError::Auth {
        console: "c".into(),
    };
    assert_eq!(
        e.to_string(),
        "llm.generate [auth_error]: invalid api key for c"
    );
}

#[derive(Debug, AgentError)]
#[agent(
    op = "fs.write",
    code = "permission_denied",
    hint = "run as {user} or fix the mode",
    hint = "see the docs"
)]
#[error("cannot write {path}")]
struct PermissionDenied {
    path: String,
    user: String,
}

#[test]
fn a_struct_takes_hints_on_the_container() {
    let e = PermissionDenied {
        path: "/x".into(),
        user: "root".into(),
    };
    assert_eq!(e.hints(), ["run as root or fix the mode", "see the docs"]);
}

#[test]
fn hints_through_a_trait_object() {
    let e: &dyn AgentError = &LlmError::RateLimited;
    assert_eq!(e.hints(), ["lower the request rate or raise the quota"]);
}

/// The renderings read hints through `each_hint`, which the derive writes
/// beside `hints` without a `Vec`: both must give the same hints, in the same order.
fn each_hint(e: &dyn AgentError) -> Vec<String> {
    let mut hints = Vec::new();
    e.each_hint(&mut |hint| hints.push(hint.to_string()));
    hints
}

#[derive(Debug, AgentError)]
#[agent(op = "tool.run")]
enum Shadowing {
    /// Fields named like the generated code's own names.
    #[agent(hint = "each {each}, hint {hint}, redacted {secret}")]
    Named {
        each: u8,
        hint: u8,
        #[redact]
        secret: String,
    },
    #[error(transparent)]
    Inner(LlmError),
    #[error(transparent)]
    Foreign(std::io::Error),
    /// Hints taken from a typed cause.
    #[error("step failed")]
    FromTyped {
        #[source]
        cause: LlmError,
    },
    /// Hints taken from a foreign cause's classification.
    #[error("read failed")]
    FromForeign {
        #[source]
        cause: std::io::Error,
    },
}

// Derived types are known in a chain through their registration (feature `registry`).
#[cfg(feature = "registry")]
#[test]
fn each_hint_gives_what_hints_gives() {
    let errors: Vec<Box<dyn AgentError>> = vec![
        Box::new(LlmError::RateLimited),
        Box::new(LlmError::Auth {
            console: "https://platform.openai.com".into(),
        }),
        Box::new(LlmError::ContextOverflow(8000, 12000)),
        Box::new(LlmError::BadArguments),
        Box::new(LlmError::BadField {
            name: "limit".into(),
        }),
        Box::new(LlmError::NoHints),
        Box::new(PermissionDenied {
            path: "/x".into(),
            user: "root".into(),
        }),
        Box::new(Shadowing::Named {
            each: 1,
            hint: 2,
            secret: "sk-live-123".into(),
        }),
        Box::new(Shadowing::Inner(LlmError::Auth {
            console: "c".into(),
        })),
        Box::new(Shadowing::Foreign(std::io::ErrorKind::TimedOut.into())),
        Box::new(agent_error::Error::new("db.query", "timeout", "slow").with_hint("add an index")),
        Box::new(Shadowing::FromTyped {
            cause: LlmError::Auth {
                console: "c".into(),
            },
        }),
        Box::new(Shadowing::FromForeign {
            cause: std::io::ErrorKind::TimedOut.into(),
        }),
    ];
    for e in &errors {
        let hints: Vec<String> = e.hints().into_iter().map(String::from).collect();
        assert_eq!(each_hint(&**e), hints, "{e:?}");
    }
    assert_eq!(
        each_hint(&*errors[7]),
        ["each 1, hint 2, redacted [redacted]"]
    );
    assert_eq!(each_hint(&*errors[8]).len(), 3);
    assert_eq!(each_hint(&*errors[11]), each_hint(&*errors[8]));
}
