//! Recovery hints: static, several in order, interpolating fields, with escaped braces.

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
