//! A deprecated type, variant or field derives without a warning: the generated impls
//! name them under `#[allow(deprecated)]`, as thiserror's do, so this file builds under
//! `#![deny(deprecated)]`.
#![deny(deprecated)]

use agent_error::AgentError;

#[deprecated = "use NewError"]
#[derive(Debug, AgentError)]
#[agent(op = "legacy.call")]
pub enum OldError {
    #[error("gone: {reason}")]
    Gone { reason: String },

    #[deprecated = "never returned any more"]
    #[error("old variant")]
    Old,
}

#[derive(Debug, AgentError)]
#[agent(op = "legacy.call")]
#[error("legacy {count}")]
pub struct Legacy {
    #[deprecated = "read `total`"]
    pub count: u32,
}

#[test]
#[allow(deprecated)]
fn deprecated_items_derive_and_render() {
    let e = OldError::Gone {
        reason: "moved".into(),
    };
    assert_eq!(e.to_string(), "legacy.call [gone]: gone: moved");
    assert_eq!(OldError::Old.code(), "old");
    assert_eq!(
        Legacy { count: 2 }.to_string(),
        "legacy.call [legacy]: legacy 2"
    );
}
