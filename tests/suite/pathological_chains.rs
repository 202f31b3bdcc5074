//! Chains that never end or go very deep: every walk terminates (at `MAX_LINKS`), and deep
//! chains display, drop, capture and serialize without overflowing a small stack.

use std::error::Error as StdError;
use std::fmt;
use std::sync::{Arc, OnceLock, mpsc};
use std::time::{Duration, Instant};

use agent_error::chain::MAX_LINKS;
use agent_error::chain::links;
use agent_error::retry::{Retrier, Stop};
use agent_error::{AgentError, Error, classify, display, find, has_code};

/// Runs `f` on a thread with a 2 MiB stack (tokio's default), and fails the test if it
/// does not finish within 30 s.
fn bounded<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || {
            let _ = tx.send(f());
        })
        .unwrap();
    rx.recv_timeout(Duration::from_secs(30))
        .expect("finished in time, without overflowing its stack")
}

/// A foreign error whose `source()` is itself.
#[derive(Debug)]
struct SelfLoop;

impl fmt::Display for SelfLoop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("loop")
    }
}

impl StdError for SelfLoop {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        Some(self)
    }
}

/// Two nodes pointing at each other through `Arc`s.
#[derive(Debug)]
struct Node {
    next: OnceLock<Arc<Node>>,
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("node")
    }
}

impl StdError for Node {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.next.get().map(|n| &**n as &(dyn StdError + 'static))
    }
}

fn two_node_cycle() -> Arc<Node> {
    let a = Arc::new(Node {
        next: OnceLock::new(),
    });
    let b = Arc::new(Node {
        next: OnceLock::new(),
    });
    a.next.set(b.clone()).unwrap();
    b.next.set(a.clone()).unwrap();
    a
}

/// A classified error whose source is a cycle: the typed pass and the foreign pass both walk.
fn classified_over_a_cycle() -> Error {
    let e = Error::new("db.query", "timeout", "slow");
    e.with_source(SelfLoop)
}

#[test]
fn every_walk_of_a_cyclic_chain_terminates() {
    bounded(|| {
        let cycle = two_node_cycle();
        for err in [&SelfLoop as &(dyn StdError + 'static), &*cycle] {
            assert_eq!(links(err).count(), MAX_LINKS);
            assert!(find(err).is_none());
            assert!(classify(err).is_none());
            assert!(!agent_error::is_retryable(err));
            assert!(!has_code(err, "timeout"));
            assert_eq!(
                display::chain(err).to_string().matches(": ").count(),
                MAX_LINKS - 1
            );
            assert_eq!(display::public_chain(err).to_string(), "unclassified error");
            #[cfg(feature = "http")]
            assert!(!agent_error::http::is_context_overflow(err));
            #[cfg(feature = "serde")]
            assert_eq!(agent_error::Report::capture(err).code(), "unclassified");
        }
        let typed = classified_over_a_cycle();
        assert_eq!(classify(&typed).unwrap().code(), "timeout");
        assert!(has_code(&typed, "timeout"));
        #[cfg(feature = "serde")]
        assert_eq!(agent_error::Report::capture(&typed).code(), "timeout");
        // The retrier walks the chain once per failure: it ends by its policy.
        let outcome = Retrier::new()
            .run_detailed_with_sleep(|_| Err::<(), _>(classified_over_a_cycle()), |_| {});
        assert_eq!(
            (outcome.stop, outcome.attempts),
            (Stop::AttemptsExhausted, 3)
        );
        // The two nodes keep each other alive: the cycle is leaked, as any Arc cycle is.
        drop(cycle);
    });
}

/// `depth` dynamic errors, each the source of the next.
fn deep_chain(depth: usize) -> Error {
    let mut e = Error::new("layer", "timeout", "layer 0");
    for _ in 1..depth {
        e = Error::new("layer", "provider_unavailable", "one more layer").with_source(e);
    }
    e
}

#[test]
fn a_100k_deep_chain_displays_and_drops_on_a_2_mib_stack() {
    bounded(|| {
        let e = deep_chain(100_000);
        let text = e.to_string();
        // One head, then every link's message.
        assert_eq!(text.matches("[provider_unavailable]").count(), 1);
        assert_eq!(text.matches("one more layer").count(), 99_999);
        assert!(text.ends_with(": one more layer: layer 0"));
        // The walks stop at MAX_LINKS.
        assert_eq!(links(&e).count(), MAX_LINKS);
        assert_eq!(classify(&e).unwrap().code(), "provider_unavailable");
        drop(e);
    });
}

#[cfg(feature = "serde")]
#[test]
fn a_deep_chain_captures_into_a_report_that_reads_back() {
    use agent_error::Report;
    bounded(|| {
        let e = deep_chain(100_000);
        let report = Report::capture(&e);
        let mut depth = 1;
        let mut link = &report;
        while let Some(cause) = link.cause() {
            depth += 1;
            link = cause;
        }
        assert_eq!(depth, Report::MAX_DEPTH);
        let json = serde_json::to_string(&report).unwrap();
        let back: Report = serde_json::from_str(&json).expect("what is written reads back");
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
        assert_eq!(back.to_string(), report.to_string());
    });
}

#[cfg(feature = "http")]
#[test]
fn context_overflow_on_a_long_chain_is_linear() {
    use agent_error::http::is_context_overflow;
    let (short, long) = (deep_chain(500), deep_chain(1_000));
    let time = |e: &Error| {
        let started = Instant::now();
        assert!(!is_context_overflow(e));
        started.elapsed()
    };
    // The fastest of rounds that time both chains: the other tests of the process, or
    // another on the machine, slow a round, not the one chain measured while they run.
    let rounds: Vec<_> = (0..5).map(|_| (time(&short), time(&long))).collect();
    let small = rounds.iter().map(|r| r.0).min().unwrap();
    let large = rounds.iter().map(|r| r.1).min().unwrap();
    // Linear is about 2x; the quadratic walk it replaces was 4x. Loose, for a busy machine.
    assert!(
        large.as_secs_f64() < small.as_secs_f64() * 3.5 + 0.002,
        "500 links: {small:?}, 1,000 links: {large:?}"
    );
}

/// A derived error nested in itself through `Box`, classified at every level.
#[derive(Debug, AgentError)]
#[agent(op = "agent.step")]
enum Step {
    #[agent(code = "step_failed")]
    #[error("step failed")]
    Failed {
        #[source]
        inner: Option<Box<Step>>,
    },
}

#[test]
fn has_code_and_find_stop_at_max_links_on_a_deep_typed_chain() {
    bounded(|| {
        let mut e = Step::Failed { inner: None };
        for _ in 0..2_000 {
            e = Step::Failed {
                inner: Some(Box::new(e)),
            };
        }
        assert_eq!(links(&e).count(), MAX_LINKS);
        assert!(has_code(&e, "step_failed"));
        assert!(!has_code(&e, "timeout"));
        assert_eq!(find(&e).unwrap().code(), "step_failed");
        // A derived chain this deep is dropped by the compiler's recursive drop; leak it
        // rather than test std's drop glue here.
        std::mem::forget(e);
    });
}
