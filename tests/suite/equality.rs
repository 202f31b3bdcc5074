//! Equality of derived errors: by code only, unless `no_eq` lets the type decide.

use std::time::Duration;

use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum LlmError {
    #[agent(code = "timeout", retryable)]
    #[error("deadline exceeded after {tokens} tokens")]
    Timeout { tokens: u32 },

    #[agent(code = "rate_limit", rate_limited)]
    #[error("throttled")]
    RateLimited {
        #[retry_after]
        retry_after: Option<Duration>,
    },

    #[error(transparent)]
    Other(#[from] agent_error::Error),
}

#[test]
fn same_code_with_different_fields_is_equal() {
    assert_eq!(
        LlmError::Timeout { tokens: 1 },
        LlmError::Timeout { tokens: 999 }
    );
    assert_eq!(
        LlmError::RateLimited { retry_after: None },
        LlmError::RateLimited {
            retry_after: Some(Duration::from_secs(3))
        }
    );
}

#[test]
fn different_variants_are_unequal() {
    assert_ne!(
        LlmError::Timeout { tokens: 1 },
        LlmError::RateLimited { retry_after: None }
    );
}

#[test]
fn a_transparent_variant_compares_by_its_inner_code() {
    let other_timeout =
        LlmError::from(agent_error::Error::new("db.query", "timeout", "slow query"));
    assert_eq!(other_timeout, LlmError::Timeout { tokens: 1 });
    let not_found = LlmError::from(agent_error::Error::new("db.query", "not_found", "no row"));
    assert_ne!(not_found, LlmError::Timeout { tokens: 1 });
}

#[test]
fn derived_types_are_eq() {
    fn is_eq<T: Eq>() {}
    is_eq::<LlmError>();
}

#[derive(Debug, AgentError)]
#[agent(op = "kv.get", code = "not_found")]
#[error("no key {key}")]
struct Missing {
    key: String,
}

#[test]
fn a_struct_is_equal_to_any_value_of_itself() {
    assert_eq!(Missing { key: "a".into() }, Missing { key: "b".into() });
}

#[derive(Debug, PartialEq, Eq, AgentError)]
#[agent(op = "kv.get", no_eq)]
enum FieldEq {
    #[error("missing {0}")]
    Missing(String),
    #[error("locked")]
    Locked,
}

#[test]
fn no_eq_lets_the_type_derive_its_own_equality() {
    assert_eq!(FieldEq::Missing("a".into()), FieldEq::Missing("a".into()));
    assert_ne!(FieldEq::Missing("a".into()), FieldEq::Missing("b".into()));
    assert_ne!(FieldEq::Missing("a".into()), FieldEq::Locked);
}

#[derive(Debug, AgentError)]
#[agent(op = "kv.get", code = "not_found", no_eq)]
#[error("no key {key}")]
struct NeverEqual {
    key: String,
}

impl PartialEq for NeverEqual {
    fn eq(&self, _: &Self) -> bool {
        false
    }
}

#[test]
fn no_eq_lets_the_type_write_its_own_equality() {
    let a = NeverEqual { key: "a".into() };
    assert!(a != NeverEqual { key: "a".into() });
}

#[test]
fn the_dynamic_error_compares_by_code_only() {
    let a = agent_error::Error::new("a.b", "timeout", "one");
    let b = agent_error::Error::new("c.d", "timeout", "two");
    let c = agent_error::Error::new("a.b", "not_found", "one");
    assert_eq!(a, b);
    assert_ne!(a, c);
}
