//! Nested retriers in one call path do not multiply their attempts (SPEC §9): an error an
//! inner `Retrier` gave up on is not retried by the outer ones.

use std::cell::Cell;
use std::error::Error as _;
use std::time::Duration;

use agent_error::retry::{Retrier, Stop};
use agent_error::{AgentError, Error, codes};

fn retrier() -> Retrier {
    Retrier::new().max_attempts(3).seed(1)
}

fn down() -> Error {
    Error::new(
        "llm.generate",
        codes::PROVIDER_UNAVAILABLE,
        "provider is down",
    )
}

#[test]
fn three_nested_retriers_of_three_attempts_make_three_attempts_not_27() {
    let calls = Cell::new(0);
    let stops = std::cell::RefCell::new(Vec::new());
    let (outer, middle, inner) = (retrier(), retrier(), retrier());
    let outcome = outer.run_detailed_with_sleep(
        |_| {
            let m = middle.run_detailed_with_sleep(
                |_| {
                    let i = inner.run_detailed_with_sleep(
                        |_| {
                            calls.set(calls.get() + 1);
                            Err::<(), _>(down())
                        },
                        |_| {},
                    );
                    stops.borrow_mut().push(("inner", i.attempts, i.stop));
                    i.result
                },
                |_| {},
            );
            stops.borrow_mut().push(("middle", m.attempts, m.stop));
            m.result
        },
        |_| {},
    );
    assert_eq!(calls.get(), 3);
    assert_eq!((outcome.attempts, outcome.stop), (1, Stop::AlreadyRetried));
    assert_eq!(
        *stops.borrow(),
        [
            ("inner", 3, Stop::AttemptsExhausted),
            ("middle", 1, Stop::AlreadyRetried)
        ]
    );
    // The operation's own error comes back unchanged.
    let err: Error = outcome.result.unwrap_err();
    assert_eq!(err.code(), codes::PROVIDER_UNAVAILABLE);
}

#[test]
fn an_inner_error_wrapped_in_another_code_is_still_recognised_through_the_chain() {
    let calls = Cell::new(0);
    let (outer, inner) = (retrier(), retrier());
    let outcome = outer.run_detailed_with_sleep(
        |_| {
            inner
                .run_detailed_with_sleep(
                    |_| {
                        calls.set(calls.get() + 1);
                        Err::<(), _>(down())
                    },
                    |_| {},
                )
                .result
                .map_err(|e| Error::new("agent.step", codes::TIMEOUT, "step failed").with_source(e))
        },
        |_| {},
    );
    assert_eq!(calls.get(), 3);
    assert_eq!(outcome.stop, Stop::AlreadyRetried);
    let err = outcome.result.unwrap_err();
    assert_eq!(err.code(), codes::TIMEOUT);
    assert!(err.source().is_some());
}

#[test]
fn another_error_after_an_inner_give_up_is_retried_as_usual() {
    let (outer, inner) = (retrier(), retrier());
    let mut outer_attempts = 0;
    let outcome = outer.run_detailed_with_sleep(
        |_| {
            outer_attempts += 1;
            let _ = inner.run_detailed_with_sleep(|_| Err::<(), _>(down()), |_| {});
            // The caller handled that, then something else failed.
            Err::<(), _>(Error::new("tool.fetch", codes::TIMEOUT, "slow"))
        },
        |_| {},
    );
    assert_eq!(outer_attempts, 3);
    assert_eq!(outcome.stop, Stop::AttemptsExhausted);
}

#[test]
fn a_top_level_give_up_leaves_nothing_behind_for_the_next_run() {
    let r = retrier();
    let first = r.run_detailed_with_sleep(|_| Err::<(), _>(down()), |_| {});
    assert_eq!((first.attempts, first.stop), (3, Stop::AttemptsExhausted));
    let second = r.run_detailed_with_sleep(|_| Err::<(), _>(down()), |_| {});
    assert_eq!((second.attempts, second.stop), (3, Stop::AttemptsExhausted));
}

#[test]
fn an_inner_success_or_permanent_error_does_not_stop_the_outer_retrier() {
    let (outer, inner) = (retrier(), retrier());
    let outcome = outer.run_detailed_with_sleep(
        |attempt| {
            let _ = inner.run_detailed_with_sleep(|_| Ok::<_, Error>(()), |_| {});
            let _ = inner.run_detailed_with_sleep(
                |_| Err::<(), _>(Error::new("x.y", codes::INVALID_INPUT, "bad")),
                |_| {},
            );
            if attempt < 3 {
                Err(down())
            } else {
                Ok(attempt)
            }
        },
        |_| {},
    );
    assert_eq!((outcome.attempts, outcome.stop), (3, Stop::Succeeded));
}

#[test]
fn a_panicking_attempt_restores_the_scope() {
    let r = retrier();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        r.run_detailed_with_sleep(|_| -> Result<(), Error> { panic!("boom") }, |_| {})
    }));
    assert!(caught.is_err());
    // A later top-level run behaves as if nothing had happened.
    let after = r.run_detailed_with_sleep(|_| Err::<(), _>(down()), |_| {});
    assert_eq!((after.attempts, after.stop), (3, Stop::AttemptsExhausted));
}

#[tokio::test(flavor = "current_thread")]
async fn three_nested_async_retriers_make_three_attempts() {
    let calls = Cell::new(0);
    let (outer, middle, inner) = (retrier(), retrier(), retrier());
    let sleep = |_: Duration| async { tokio::task::yield_now().await };
    let outcome = outer
        .run_async_detailed(
            |_| {
                middle.run_async(
                    |_| {
                        inner.run_async(
                            |_| {
                                calls.set(calls.get() + 1);
                                async { Err::<(), _>(down()) }
                            },
                            sleep,
                        )
                    },
                    sleep,
                )
            },
            sleep,
        )
        .await;
    assert_eq!(calls.get(), 3);
    assert_eq!((outcome.attempts, outcome.stop), (1, Stop::AlreadyRetried));
}

#[tokio::test(flavor = "current_thread")]
async fn interleaved_async_runs_on_one_thread_keep_their_own_scopes() {
    // Two independent top-level runs polled in turn on one thread: each retries fully.
    let r = retrier();
    let sleep = |_: Duration| async { tokio::task::yield_now().await };
    let inner = retrier();
    let a = r.run_async_detailed(
        |_| inner.run_async(|_| async { Err::<(), _>(down()) }, sleep),
        sleep,
    );
    let b = r.run_async_detailed(|_| async { Err::<(), _>(down()) }, sleep);
    let (a, b) = tokio::join!(a, b);
    assert_eq!((a.attempts, a.stop), (1, Stop::AlreadyRetried));
    assert_eq!((b.attempts, b.stop), (3, Stop::AttemptsExhausted));
}

/// Two codes of the grammar whose 64-bit hashes (the hash the retrier once kept a give-up
/// mark as) are equal: a real collision, found by solving for the last eight bytes.
const COLLIDING: [&str; 2] = ["provider.overloafaaaybhp", "provider.aex_xyz_r51____"];

#[test]
fn a_give_up_marks_its_code_not_another_code_of_the_same_hash() {
    let failing = |code: &'static str| {
        Error::new("llm.generate", code, "down").with_policy(agent_error::RetryPolicy::DEFAULT)
    };
    let calls = Cell::new(0);
    let (outer, inner) = (retrier(), retrier());
    let outcome = outer.run_detailed_with_sleep(
        |_| {
            let given_up = inner.run_detailed_with_sleep(
                |_| {
                    calls.set(calls.get() + 1);
                    Err::<(), _>(failing(COLLIDING[0]))
                },
                |_| {},
            );
            assert_eq!(given_up.stop, Stop::AttemptsExhausted);
            // The operation answers the inner give-up with a failure of another code: it
            // is retried as usual. When the mark was a hash, this code matched it and the
            // outer run stopped at once with `AlreadyRetried`.
            Err::<(), _>(failing(COLLIDING[1]))
        },
        |_| {},
    );
    assert_eq!(
        (outcome.attempts, outcome.stop),
        (3, Stop::AttemptsExhausted)
    );
    assert_eq!(calls.get(), 9);
}
