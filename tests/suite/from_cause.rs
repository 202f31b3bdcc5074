//! A variant that says nothing about retrying and has a cause is classified as its cause:
//! retry policy, `retry_after` and recovery, and its hints and status where it declares
//! none; its code, op and message stay its own. Every reader of a classification agrees.

// Without `registry`, the tests that need a derived type known in a chain are left out, and
// what only they use goes unused.
#![cfg_attr(not(feature = "registry"), allow(dead_code, unused_imports))]

use std::io;
use std::time::Duration;

use agent_error::catalog::Catalog;
use agent_error::recover::{Decision, decide};
use agent_error::retry::{Retrier, Stop};
use agent_error::{AgentError, Recovery, RetryPolicy, classify, is_retryable};

#[derive(Debug, AgentError)]
#[agent(op = "provider.call")]
enum Provider {
    #[agent(
        code = "rate_limit",
        rate_limited,
        status = 429,
        hint = "lower the request rate"
    )]
    #[error("throttled")]
    Throttled {
        #[retry_after]
        after: Duration,
    },
    #[error("bad request")]
    BadRequest,
}

#[derive(Debug, AgentError)]
#[agent(op = "agent.step")]
enum Step {
    #[error("reading the reply failed")]
    Read(#[source] io::Error),
    #[error("the provider failed: {0}")]
    Provider(#[from] Provider),
    #[agent(hint = "check the network")]
    #[error("network")]
    Network { source: io::Error },
    #[agent(retryable = false)]
    #[error("pinned")]
    Pinned(#[source] io::Error),
    #[agent(recovery = "replan")]
    #[error("declared")]
    Declared(#[source] io::Error),
    #[error("maybe")]
    Maybe {
        #[source]
        cause: Option<io::Error>,
    },
    #[error("no cause")]
    NoCause,
}

fn timed_out() -> io::Error {
    io::Error::from(io::ErrorKind::TimedOut)
}

#[test]
fn a_timed_out_cause_makes_the_variant_retryable_with_its_own_code() {
    let e = Step::Read(timed_out());
    assert_eq!((e.code(), e.op()), ("read", "agent.step"));
    assert_eq!(e.message(), "reading the reply failed");
    assert!(e.is_retryable());
    assert!(!e.is_rate_limited());
    assert_eq!(e.recovery(), Recovery::Retry);
    assert_eq!(e.retry_policy(), RetryPolicy::DEFAULT);
    assert_eq!(
        e.to_string(),
        format!(
            "agent.step [read]: reading the reply failed: {}",
            timed_out()
        )
    );
}

#[test]
fn an_unclassified_cause_leaves_the_variant_never_retried() {
    let e = Step::Read(io::Error::other("disk on fire"));
    assert!(!e.is_retryable());
    assert_eq!(e.retry_policy(), RetryPolicy::NEVER);
    assert_eq!(e.recovery(), Recovery::Abort);
    assert!(e.hints().is_empty());
    assert_eq!(e.status(), None);
}

// Derived types are known in a chain through their registration (feature `registry`).
#[cfg(feature = "registry")]
#[test]
fn a_derived_cause_gives_its_policy_retry_after_hints_and_status() {
    let after = Duration::from_secs(7);
    let e = Step::from(Provider::Throttled { after });
    assert_eq!(e.code(), "provider");
    assert!(e.is_retryable());
    assert!(e.is_rate_limited());
    assert_eq!(e.retry_after(), Some(after));
    assert_eq!(e.retry_policy().retry_after(), Some(after));
    assert_eq!(e.recovery(), Recovery::Retry);
    assert_eq!(e.hints(), ["lower the request rate"]);
    assert_eq!(e.status(), Some(429));
}

#[test]
fn a_permanent_derived_cause_stays_permanent() {
    let e = Step::from(Provider::BadRequest);
    assert!(!e.is_retryable());
    assert_eq!(e.recovery(), Recovery::Abort);
}

#[test]
fn declared_hints_stay_the_variants_own() {
    let e = Step::Network {
        source: io::Error::from(io::ErrorKind::ConnectionRefused),
    };
    assert!(e.is_retryable());
    assert_eq!(e.hints(), ["check the network"]);
    assert_eq!(
        agent_error::tool::render(&e),
        "[error:network] network\nhint: check the network"
    );
}

// Derived types are known in a chain through their registration (feature `registry`).
#[cfg(feature = "registry")]
#[test]
fn retryable_false_pins_the_variant_whatever_its_cause() {
    let e = Step::Pinned(timed_out());
    assert!(!e.is_retryable());
    assert_eq!(e.recovery(), Recovery::Abort);
    assert!(!is_retryable(&e));
}

#[test]
fn a_variant_that_declares_its_recovery_keeps_it() {
    let e = Step::Declared(timed_out());
    assert!(!e.is_retryable());
    assert_eq!(e.recovery(), Recovery::Replan);
}

#[test]
fn an_optional_cause_classifies_when_present() {
    assert!(
        Step::Maybe {
            cause: Some(timed_out())
        }
        .is_retryable()
    );
    assert!(!Step::Maybe { cause: None }.is_retryable());
    assert!(!Step::NoCause.is_retryable());
}

// Derived types are known in a chain through their registration (feature `registry`).
#[cfg(feature = "registry")]
#[test]
fn classify_and_is_retryable_agree_with_the_trait() {
    let e = Step::Read(timed_out());
    let c = classify(&e).unwrap();
    assert_eq!((c.code(), c.is_retryable()), ("read", true));
    assert!(is_retryable(&e));
    let wrapped = anyhow::Error::new(Step::Read(timed_out())).context("while stepping");
    assert!(is_retryable(wrapped.as_ref()));
}

// Derived types are known in a chain through their registration (feature `registry`).
#[cfg(feature = "registry")]
#[test]
fn the_retrier_retries_a_variant_whose_cause_is_retryable() {
    let mut slept = Vec::new();
    let outcome = Retrier::new().run_detailed_with_sleep(
        |attempt| {
            if attempt < 3 {
                Err(Step::Read(timed_out()))
            } else {
                Ok(attempt)
            }
        },
        |d| slept.push(d),
    );
    assert_eq!(outcome.stop, Stop::Succeeded);
    assert_eq!(outcome.attempts, 3);
    assert_eq!(slept.len(), 2);

    let pinned = Retrier::new().run_detailed_with_sleep(
        |_| Err::<(), _>(Step::Pinned(timed_out())),
        |_| unreachable!("a pinned variant is never retried"),
    );
    assert_eq!((pinned.stop, pinned.attempts), (Stop::Permanent, 1));
}

// Derived types are known in a chain through their registration (feature `registry`).
#[cfg(feature = "registry")]
#[test]
fn decide_follows_the_cause() {
    let after = Duration::from_secs(2);
    let e = Step::from(Provider::Throttled { after });
    assert_eq!(decide(&e, 1), Decision::Retry(after));
    assert_eq!(decide(&Step::Pinned(timed_out()), 1), Decision::Abort);
}

#[cfg(feature = "serde")]
#[test]
fn the_wire_form_carries_the_inherited_classification() {
    let e = Step::from(Provider::Throttled {
        after: Duration::from_secs(3),
    });
    let report = agent_error::Report::capture(&e);
    assert_eq!(report.code(), "provider");
    assert!(report.is_retryable());
    assert!(report.is_rate_limited());
    assert_eq!(report.retry_after(), Some(Duration::from_secs(3)));
    assert_eq!(report.recovery(), Recovery::Retry);
}

#[test]
fn the_catalog_says_which_entries_retry_as_their_cause() {
    let from_cause: Vec<(&str, bool)> = Step::CODES
        .iter()
        .map(|d| (d.code, d.retry_from_cause))
        .collect();
    assert_eq!(
        from_cause,
        [
            ("read", true),
            ("provider", true),
            ("network", true),
            ("pinned", false),
            ("declared", false),
            ("maybe", true),
            ("no_cause", false),
        ]
    );
    let read = &Step::CODES[0];
    assert!(!read.retryable);
    assert_eq!(read.recovery, Recovery::Abort);
    let entries = agent_error::catalog![Step];
    let markdown = agent_error::catalog::markdown(&entries);
    assert!(
        markdown.contains("- **Retry:** as its cause: retried when the cause's classification is"),
        "{markdown}"
    );
    let prompt = agent_error::catalog::prompt(&entries);
    assert!(
        prompt.contains("- read (retry and recover as its cause): reading the reply failed\n"),
        "{prompt}"
    );
    let golden = agent_error::catalog::golden(&entries);
    assert!(
        golden.contains("code=read\top=agent.step\tretryable=as_cause\t"),
        "{golden}"
    );
}

#[cfg(feature = "serde")]
#[test]
fn the_catalog_json_says_which_entries_retry_as_their_cause() {
    let json = serde_json::to_value(Step::CODES[0]).unwrap();
    assert_eq!(json["retry_from_cause"], true);
    assert_eq!(json["retryable"], false);
}

/// A cause held by reference classifies as the same cause held by value, `Box` or `Arc`:
/// its retrying, its `retry_after`, its place in the chain.
#[derive(Debug, AgentError)]
#[agent(op = "agent.lookup")]
enum Lookup {
    #[error("the index timed out")]
    Index {
        #[source]
        cause: &'static io::Error,
    },
    #[error("the provider failed")]
    Provider {
        #[source]
        cause: &'static Provider,
    },
    #[error("maybe")]
    Maybe {
        #[source]
        cause: Option<&'static io::Error>,
    },
}

// Derived types are known in a chain through their registration (feature `registry`).
#[cfg(feature = "registry")]
#[test]
fn a_cause_held_by_reference_classifies_as_the_cause() {
    let timed_out: &'static io::Error =
        Box::leak(Box::new(io::Error::from(io::ErrorKind::TimedOut)));
    let e = Lookup::Index { cause: timed_out };
    assert!(e.is_retryable());
    assert_eq!((e.code(), e.recovery()), ("index", Recovery::Retry));
    assert!(is_retryable(&e));
    let throttled: &'static Provider = Box::leak(Box::new(Provider::Throttled {
        after: Duration::from_secs(3),
    }));
    let e = Lookup::Provider { cause: throttled };
    assert!(e.is_rate_limited());
    assert_eq!(e.retry_after(), Some(Duration::from_secs(3)));
    let c = classify(std::error::Error::source(&e).unwrap()).unwrap();
    assert_eq!(c.code(), "rate_limit");
    let e = Lookup::Maybe {
        cause: Some(timed_out),
    };
    assert!(e.is_retryable());
    assert!(!Lookup::Maybe { cause: None }.is_retryable());
}
