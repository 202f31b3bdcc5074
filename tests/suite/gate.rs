//! A retrier's gates: what each attempt waits for first. A gate of one's own is held to the
//! run's caps, is told how each attempt went, and hears the delays servers ask for when it
//! shares pauses; a gate that lies (a wait past the caps, an answer that never comes) holds
//! no run past them.

use std::error::Error as StdError;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_error::retry::{Gate, Outcome, Retrier, Stop, Turn};
use agent_error::store::{StoreFuture, WaitLimit};
use agent_error::{AgentError, Error, codes};

/// A gate that asks for a fixed answer and writes down what it is told.
#[derive(Debug, Default)]
struct Recording {
    /// What `before` answers: a wait, or an error (a `rate_limit` with this `retry_after`).
    wait: Duration,
    refuse: Option<Duration>,
    shares: bool,
    /// What it was told: `before` of attempt n, `after` ok/code, `pause` of a delay.
    heard: Arc<Mutex<Vec<String>>>,
}

impl WaitLimit for Recording {}

impl Gate for Recording {
    fn before<'a>(&'a self, turn: Turn<'a>) -> StoreFuture<'a, Result<Duration, Error>> {
        self.heard.lock().unwrap().push(format!(
            "before {} (may wait {:?})",
            turn.attempt(),
            turn.may_wait()
        ));
        let answer = match self.refuse {
            Some(needed) => {
                Err(Error::new("gate", codes::RATE_LIMIT, "closed").with_retry_after(needed))
            }
            None => Ok(self.wait),
        };
        Box::pin(std::future::ready(answer))
    }

    fn after(&self, failure: Option<&(dyn StdError + 'static)>) {
        let what = match failure.and_then(agent_error::find) {
            Some(e) => e.code().to_owned(),
            None if failure.is_some() => "unclassified".to_owned(),
            None => "ok".to_owned(),
        };
        self.heard.lock().unwrap().push(format!("after {what}"));
    }

    fn shares_pauses(&self) -> bool {
        self.shares
    }

    fn share_pause<'a>(&'a self, wait: Duration, code: &'a str) -> StoreFuture<'a, ()> {
        self.heard
            .lock()
            .unwrap()
            .push(format!("pause {wait:?} {code}"));
        Box::pin(std::future::ready(()))
    }
}

/// A gate whose answer never comes.
#[derive(Debug)]
struct Silent;

impl WaitLimit for Silent {
    fn wait_limit(&self) -> Duration {
        Duration::from_millis(20)
    }
}

impl Gate for Silent {
    fn before<'a>(&'a self, _: Turn<'a>) -> StoreFuture<'a, Result<Duration, Error>> {
        Box::pin(std::future::pending())
    }
}

fn timeout() -> Error {
    Error::new("llm.generate", codes::TIMEOUT, "deadline exceeded")
}

#[test]
fn every_attempt_waits_for_the_gate_and_the_gate_hears_each_outcome() {
    let heard = Arc::new(Mutex::new(Vec::new()));
    let gate = Recording {
        wait: Duration::from_millis(3),
        heard: heard.clone(),
        ..Default::default()
    };
    let mut slept = Vec::new();
    let outcome = Retrier::new().seed(1).gate(gate).run_detailed_with_sleep(
        |attempt| {
            if attempt < 3 {
                Err(timeout())
            } else {
                Ok(attempt)
            }
        },
        |d| slept.push(d),
    );
    assert_eq!((outcome.attempts, outcome.stop), (3, Stop::Succeeded));
    let heard = heard.lock().unwrap().clone();
    let steps: Vec<&str> = heard
        .iter()
        .map(|h| h.split(" (").next().unwrap())
        .collect();
    assert_eq!(
        steps,
        [
            "before 1",
            "after timeout",
            "before 2",
            "after timeout",
            "before 3",
            "after ok"
        ]
    );
    // Three waits of the gate's, and the policy's two backoffs between them.
    assert_eq!(
        slept
            .iter()
            .filter(|d| **d == Duration::from_millis(3))
            .count(),
        3
    );
    assert_eq!(slept.len(), 5);
}

#[test]
fn a_gate_that_refuses_ends_the_run_before_the_attempt_with_its_error() {
    let gate = Recording {
        refuse: Some(Duration::from_secs(90)),
        ..Default::default()
    };
    let mut calls = 0;
    let outcome = Retrier::new().gate(gate).run_detailed_with_sleep(
        |_| {
            calls += 1;
            Ok::<_, Error>(())
        },
        |_| {},
    );
    assert_eq!(calls, 0);
    assert_eq!((outcome.attempts, outcome.stop), (0, Stop::Paused));
    let err = outcome.result.unwrap_err();
    assert_eq!(
        (err.code(), err.retry_after()),
        (codes::RATE_LIMIT, Some(Duration::from_secs(90)))
    );
}

#[test]
fn a_gate_asking_past_the_caps_is_held_to_them() {
    // A gate that answers a day: the run waits no longer than it may (the rate_limit
    // policy's max_wait, under the retrier's own), and no longer than its max_elapsed.
    let gate = Recording {
        wait: Duration::from_secs(86_400),
        ..Default::default()
    };
    let mut slept = Vec::new();
    let retrier = Retrier::new().max_wait(Duration::from_secs(5)).gate(gate);
    let outcome = retrier.run_detailed_with_sleep(|_| Ok::<_, Error>(()), |d| slept.push(d));
    assert_eq!(outcome.stop, Stop::Succeeded);
    assert_eq!(slept, [Duration::from_secs(5)]);

    let gate = Recording {
        wait: Duration::from_secs(86_400),
        ..Default::default()
    };
    let mut slept = Vec::new();
    let retrier = Retrier::new()
        .max_elapsed(Duration::from_secs(2))
        .gate(gate);
    let _ = retrier.run_detailed_with_sleep(|_| Ok::<_, Error>(()), |d| slept.push(d));
    assert!(slept[0] <= Duration::from_secs(2), "{slept:?}");
}

#[test]
fn a_gate_whose_answer_never_comes_holds_a_blocking_run_its_wait_limit_only() {
    let started = std::time::Instant::now();
    let outcome = Retrier::new()
        .gate(Silent)
        .run_detailed(|_| Ok::<_, Error>(7));
    assert_eq!(outcome.result.unwrap(), 7);
    assert!(started.elapsed() < Duration::from_secs(2));
}

/// A run whose first attempt is answered 429 with a `Retry-After` of 2 s, then succeeds:
/// its outcome and what it slept.
fn throttled_once(gate: Recording) -> (Outcome<(), Error>, Vec<Duration>) {
    let mut slept = Vec::new();
    let outcome = Retrier::new().gate(gate).run_detailed_with_sleep(
        |attempt| match attempt {
            1 => Err(Error::new("llm.generate", codes::RATE_LIMIT, "429")
                .with_retry_after(Duration::from_secs(2))),
            _ => Ok(()),
        },
        |d| slept.push(d),
    );
    (outcome, slept)
}

#[test]
fn a_gate_that_shares_pauses_hears_the_server_s_delay_and_waits_it_before_the_attempt() {
    let heard = Arc::new(Mutex::new(Vec::new()));
    let gate = Recording {
        shares: true,
        heard: heard.clone(),
        ..Default::default()
    };
    let (outcome, slept) = throttled_once(gate);
    assert_eq!((outcome.attempts, outcome.stop), (2, Stop::Succeeded));
    let heard = heard.lock().unwrap().clone();
    assert!(
        heard.contains(&"pause 2s rate_limit".to_owned()),
        "{heard:?}"
    );
    // Shared, the delay is not slept after the failure: the gate says what to wait before
    // attempt 2 (this one says nothing, so nothing is slept).
    assert!(slept.is_empty(), "{slept:?}");
}

#[test]
fn a_gate_without_pauses_leaves_the_server_s_delay_to_the_retrier() {
    let heard = Arc::new(Mutex::new(Vec::new()));
    let gate = Recording {
        heard: heard.clone(),
        ..Default::default()
    };
    let (_, slept) = throttled_once(gate);
    assert!(!heard.lock().unwrap().iter().any(|h| h.starts_with("pause")));
    assert_eq!(slept, [Duration::from_secs(2)]);
}

#[tokio::test(flavor = "current_thread")]
async fn an_async_run_waits_for_its_gates_and_tells_them_each_outcome() {
    let heard = Arc::new(Mutex::new(Vec::new()));
    let gate = Recording {
        wait: Duration::from_millis(1),
        heard: heard.clone(),
        ..Default::default()
    };
    let retrier = Retrier::new().seed(3).gate(gate);
    let result = retrier
        .run_async(
            |attempt| async move {
                if attempt < 2 {
                    Err(timeout())
                } else {
                    Ok(attempt)
                }
            },
            |_| async {},
        )
        .await;
    assert_eq!(result.unwrap(), 2);
    let heard = heard.lock().unwrap().clone();
    assert_eq!(heard.iter().filter(|h| h.starts_with("before")).count(), 2);
    assert_eq!(heard.iter().filter(|h| h.starts_with("after")).count(), 2);
}
