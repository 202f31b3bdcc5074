//! `#[agent(crate = "...")]`: generated code names the runtime through the given path,
//! the runtime crate itself or a re-export of the facade.

use std::error::Error as _;
use std::io;
use std::time::Duration;

mod reexport {
    pub use agent_error as ae;
}

mod through_the_runtime {
    use super::*;
    use agent_error_runtime::retry::Jitter;
    use agent_error_runtime::{AgentError, Recovery};

    #[derive(Debug, agent_error_derive::AgentError)]
    #[agent(crate = "agent_error_runtime", op = "rt.call", retry(jitter = "equal"))]
    pub enum RuntimeError {
        #[agent(
            code = "rate_limit",
            rate_limited,
            hint = "wait for {who}",
            recovery = "fallback"
        )]
        #[error("throttled by {who}, secret {secret}")]
        Throttled {
            who: String,
            #[redact]
            secret: String,
            #[retry_after]
            retry_after: Option<Duration>,
            source: io::Error,
        },

        #[error(transparent)]
        Dynamic(#[from] agent_error_runtime::Error),
    }

    #[test]
    fn every_generated_item_names_the_runtime() {
        let e = RuntimeError::Throttled {
            who: "upstream".into(),
            secret: "s3cret".into(),
            retry_after: Some(Duration::from_secs(2)),
            source: io::Error::other("429"),
        };
        assert_eq!(
            e.to_string(),
            "rt.call [rate_limit]: throttled by upstream, secret [redacted]: 429"
        );
        assert_eq!(e.source().unwrap().to_string(), "429");
        assert!(e.is_rate_limited());
        assert_eq!(e.retry_after(), Some(Duration::from_secs(2)));
        assert_eq!(e.retry_policy().jitter(), Jitter::Equal);
        assert_eq!(e.hints(), ["wait for upstream"]);
        assert_eq!(e.recovery(), Recovery::Fallback);
        assert_eq!(
            super::public(&e),
            "throttled by upstream, secret [redacted]"
        );
    }

    #[test]
    fn transparent_from_and_equality() {
        let e = RuntimeError::from(agent_error_runtime::Error::new("a.b", "rate_limit", "x"));
        assert_eq!(e.code(), "rate_limit");
        assert_eq!(
            e,
            RuntimeError::Throttled {
                who: String::new(),
                secret: String::new(),
                retry_after: None,
                source: io::Error::other(""),
            }
        );
    }

    #[cfg(feature = "registry")]
    #[test]
    fn the_type_is_registered() {
        let e = io::Error::other(RuntimeError::from(agent_error_runtime::Error::new(
            "a.b", "timeout", "x",
        )));
        assert_eq!(
            agent_error_runtime::find(&e).map(|e| e.code()),
            Some("timeout")
        );
    }
}

mod through_a_reexport {
    use super::reexport::ae::{AgentError, Recovery};

    #[derive(Debug, super::reexport::ae::AgentError)]
    #[agent(crate = "super::reexport::ae", op = "re.export", code = "not_found")]
    #[agent(hint = "check {key}", recovery = "replan")]
    #[error("no key {key}, token {token}")]
    pub struct Missing {
        pub key: String,
        #[redact]
        pub token: String,
    }

    #[test]
    fn every_generated_item_names_the_reexport() {
        let e = Missing {
            key: "a".into(),
            token: "t".into(),
        };
        assert_eq!(
            e.to_string(),
            "re.export [not_found]: no key a, token [redacted]"
        );
        assert_eq!(e.hints(), ["check a"]);
        assert_eq!(e.recovery(), Recovery::Replan);
        assert!(!e.is_retryable());
        assert_eq!(super::public(&e), "no key a, token [redacted]");
        assert_eq!(
            e,
            Missing {
                key: "b".into(),
                token: "u".into()
            }
        );
    }

    #[cfg(feature = "registry")]
    #[test]
    fn the_type_is_registered() {
        let e = std::io::Error::other(Missing {
            key: "a".into(),
            token: "t".into(),
        });
        assert_eq!(agent_error::find(&e).map(|e| e.code()), Some("not_found"));
    }
}

/// The public message of an error.
fn public(e: &dyn agent_error::AgentError) -> String {
    agent_error::display::public(e).to_string()
}
