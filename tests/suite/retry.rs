//! The retrier obeys each failing error's own policy: every decision path, with a fake
//! sleep so that no test waits for real.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_error::retry::{Retrier, RetryBudget, Stop};
use agent_error::{AgentError, Error, RetryPolicy, codes};
use proptest::prelude::*;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum Llm {
    #[agent(rate_limited, retry(max_wait = "10s"))]
    #[error("throttled")]
    RateLimit {
        #[retry_after]
        after: Option<Duration>,
    },
    #[agent(
        retryable,
        retry(attempts = 5, base = "100ms", max = "1s", jitter = "none")
    )]
    #[error("deadline exceeded")]
    Timeout,
    #[agent(
        retryable,
        retry(attempts = 4, base = "100ms", max = "250ms", jitter = "none")
    )]
    #[error("overloaded")]
    Overloaded,
    #[error("bad request")]
    BadRequest,
}

fn fail_times<E>(n: u32, make: impl Fn() -> E) -> impl FnMut(u32) -> Result<u32, E> {
    move |attempt| {
        if attempt <= n {
            Err(make())
        } else {
            Ok(attempt)
        }
    }
}

fn run<E: std::error::Error + 'static>(
    retrier: &Retrier,
    op: impl FnMut(u32) -> Result<u32, E>,
) -> (agent_error::retry::Outcome<u32, E>, Vec<Duration>) {
    let mut slept = Vec::new();
    let outcome = retrier.run_detailed_with_sleep(op, |d| slept.push(d));
    (outcome, slept)
}

#[test]
fn succeeds_first_time_without_sleeping() {
    let (outcome, slept) = run(&Retrier::new(), fail_times(0, || Llm::Timeout));
    assert_eq!(outcome.result.unwrap(), 1);
    assert_eq!(
        (outcome.attempts, outcome.stop, outcome.waited),
        (1, Stop::Succeeded, Duration::ZERO)
    );
    assert!(slept.is_empty());
}

#[test]
fn follows_the_policy_backoff_exactly_without_jitter() {
    let (outcome, slept) = run(&Retrier::new(), fail_times(4, || Llm::Timeout));
    assert_eq!(outcome.result.unwrap(), 5);
    assert_eq!(outcome.stop, Stop::Succeeded);
    let ms = |n| Duration::from_millis(n);
    assert_eq!(slept, [ms(100), ms(200), ms(400), ms(800)]);
    assert_eq!(outcome.waited, ms(1500));
}

#[test]
fn backoff_is_capped_at_max_delay() {
    let (outcome, slept) = run(&Retrier::new(), fail_times(10, || Llm::Overloaded));
    assert_eq!(outcome.stop, Stop::AttemptsExhausted);
    assert_eq!(outcome.attempts, 4);
    let ms = |n| Duration::from_millis(n);
    assert_eq!(slept, [ms(100), ms(200), ms(250)]);
}

#[test]
fn permanent_errors_return_at_once_unchanged() {
    let (outcome, slept) = run(&Retrier::new(), fail_times(10, || Llm::BadRequest));
    assert_eq!(outcome.stop, Stop::Permanent);
    assert_eq!(outcome.attempts, 1);
    assert!(slept.is_empty());
    assert_eq!(outcome.result.unwrap_err().code(), "bad_request");
}

#[test]
fn unclassified_errors_are_not_retried() {
    let (outcome, slept) = run(
        &Retrier::new(),
        fail_times(10, || std::io::Error::other("reset")),
    );
    assert_eq!((outcome.stop, outcome.attempts), (Stop::Permanent, 1));
    assert!(slept.is_empty());
}

#[test]
fn the_policy_is_found_through_the_chain() {
    // A classified error behind an io::Error, which hides it from `source()`.
    let (outcome, slept) = run(
        &Retrier::new(),
        fail_times(2, || std::io::Error::other(Llm::Timeout)),
    );
    assert_eq!((outcome.stop, outcome.attempts), (Stop::Succeeded, 3));
    assert_eq!(
        slept,
        [Duration::from_millis(100), Duration::from_millis(200)]
    );
}

#[test]
fn retry_after_is_honoured_exactly() {
    let after = Some(Duration::from_millis(1_234));
    let (outcome, slept) = run(&Retrier::new(), fail_times(2, || Llm::RateLimit { after }));
    assert_eq!((outcome.stop, outcome.attempts), (Stop::Succeeded, 3));
    assert_eq!(slept, [Duration::from_millis(1_234); 2]);
}

#[test]
fn retry_after_beyond_the_policy_max_wait_gives_up() {
    let after = Some(Duration::from_secs(11));
    let (outcome, slept) = run(&Retrier::new(), fail_times(2, || Llm::RateLimit { after }));
    assert_eq!((outcome.stop, outcome.attempts), (Stop::WaitTooLong, 1));
    assert!(slept.is_empty());
}

#[test]
fn retry_after_beyond_the_retriers_max_wait_gives_up() {
    let after = Some(Duration::from_secs(5));
    let retrier = Retrier::new().max_wait(Duration::from_secs(4));
    let (outcome, _) = run(&retrier, fail_times(2, || Llm::RateLimit { after }));
    assert_eq!(outcome.stop, Stop::WaitTooLong);
    let retrier = Retrier::new().max_wait(Duration::from_secs(5));
    let (outcome, slept) = run(&retrier, fail_times(1, || Llm::RateLimit { after }));
    assert_eq!(outcome.stop, Stop::Succeeded);
    assert_eq!(slept, [Duration::from_secs(5)]);
}

#[test]
fn the_retriers_attempt_cap_is_below_the_policys() {
    let (outcome, slept) = run(
        &Retrier::new().max_attempts(2),
        fail_times(10, || Llm::Timeout),
    );
    assert_eq!(
        (outcome.stop, outcome.attempts),
        (Stop::AttemptsExhausted, 2)
    );
    assert_eq!(slept.len(), 1);
}

#[test]
fn no_retry_ends_after_max_elapsed() {
    // Delays 100, 200, 400: the third would end at 700ms, past 500ms.
    let retrier = Retrier::new().max_elapsed(Duration::from_millis(500));
    let (outcome, slept) = run(&retrier, fail_times(10, || Llm::Timeout));
    assert_eq!((outcome.stop, outcome.attempts), (Stop::Deadline, 3));
    assert_eq!(
        slept,
        [Duration::from_millis(100), Duration::from_millis(200)]
    );
}

#[test]
fn on_retry_sees_the_error_the_retry_number_and_the_delay() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let retrier = Retrier::new().on_retry(move |e, retry, delay| {
        log.lock()
            .unwrap()
            .push((e.code().to_string(), retry, delay))
    });
    let (outcome, _) = run(&retrier, fail_times(2, || Llm::Timeout));
    assert_eq!(outcome.stop, Stop::Succeeded);
    let ms = |n| Duration::from_millis(n);
    assert_eq!(
        *seen.lock().unwrap(),
        [
            ("timeout".to_string(), 1, ms(100)),
            ("timeout".to_string(), 2, ms(200))
        ]
    );
}

#[test]
fn run_returns_the_last_error_unchanged() {
    let retrier = Retrier::new().max_attempts(1);
    let err = retrier
        .run(|_| {
            Err::<(), _>(Error::new("db.query", codes::TIMEOUT, "slow").with_hint("add an index"))
        })
        .unwrap_err();
    assert_eq!(err.to_string(), "db.query [timeout]: slow");
    assert_eq!(err.hints(), ["add an index"]);
}

#[test]
fn the_same_seed_gives_the_same_delays_within_the_backoff() {
    let policy = RetryPolicy::builder().max_attempts(6).build().unwrap();
    let make = move || Error::new("x", "flaky", "again").with_policy(policy);
    let (_, a) = run(&Retrier::new().seed(42), fail_times(5, make));
    let (_, b) = run(&Retrier::new().seed(42), fail_times(5, make));
    let (_, c) = run(&Retrier::new().seed(43), fail_times(5, make));
    assert_eq!(a, b);
    assert_ne!(a, c);
    for (retry, delay) in a.iter().enumerate() {
        assert!(
            *delay <= policy.backoff(retry as u32),
            "{delay:?} above backoff of retry {retry}"
        );
    }
}

#[test]
fn an_empty_budget_stops_retries() {
    let budget = RetryBudget::with_costs(12, 5, 10, 1);
    let retrier = Retrier::new().budget(budget.clone());
    // A timeout costs 10: one retry, then 2 tokens are left, too few for another.
    let (outcome, slept) = run(&retrier, fail_times(10, || Llm::Timeout));
    assert_eq!((outcome.stop, outcome.attempts), (Stop::BudgetEmpty, 2));
    assert_eq!(slept.len(), 1);
    assert_eq!(budget.available(), 2);
}

#[test]
fn successes_refill_the_budget() {
    let budget = RetryBudget::with_costs(100, 5, 10, 1);
    let retrier = Retrier::new().budget(budget.clone());
    let (outcome, _) = run(&retrier, fail_times(2, || Llm::Overloaded));
    assert_eq!(outcome.stop, Stop::Succeeded);
    // Two retries cost 10 and the success after them gives the 10 back.
    assert_eq!(budget.available(), 100);
    assert!(budget.try_spend(50));
    let (outcome, _) = run(&retrier, fail_times(0, || Llm::Overloaded));
    assert_eq!(outcome.stop, Stop::Succeeded);
    assert_eq!(budget.available(), 51);
}

#[test]
fn a_shared_budget_bounds_retries_across_threads() {
    let budget = RetryBudget::with_costs(100, 5, 10, 1);
    let retries = Arc::new(std::sync::atomic::AtomicU32::new(0));
    std::thread::scope(|scope| {
        for _ in 0..8 {
            let retrier = Retrier::new().budget(budget.clone());
            let retries = retries.clone();
            scope.spawn(move || {
                let counted = move |_: &dyn AgentError, _, _| {
                    retries.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                };
                let retrier = retrier.on_retry(counted);
                let outcome =
                    retrier.run_detailed_with_sleep(fail_times(100, || Llm::Overloaded), |_| {});
                assert!(matches!(
                    outcome.stop,
                    Stop::BudgetEmpty | Stop::AttemptsExhausted
                ));
            });
        }
    });
    // 100 tokens at 5 a retry pay for 20 retries in all, however the threads interleave.
    assert_eq!(retries.load(std::sync::atomic::Ordering::Relaxed), 20);
    assert_eq!(budget.available(), 0);
}

#[test]
fn run_async_obeys_the_same_policy() {
    let slept = Arc::new(Mutex::new(Vec::new()));
    let log = slept.clone();
    let retrier = Retrier::new();
    let future = retrier.run_async_detailed(
        |attempt| async move {
            if attempt < 3 {
                Err(Llm::Timeout)
            } else {
                Ok(attempt)
            }
        },
        move |d| {
            log.lock().unwrap().push(d);
            std::future::ready(())
        },
    );
    let outcome = block_on(future);
    assert_eq!((outcome.stop, outcome.attempts), (Stop::Succeeded, 3));
    assert_eq!(
        *slept.lock().unwrap(),
        [Duration::from_millis(100), Duration::from_millis(200)]
    );
}

#[cfg(feature = "tokio")]
#[test]
fn tokio_sleep_drives_run_async() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
    let retrier = Retrier::new();
    let result = runtime.block_on(retrier.run_async(
        |attempt| async move {
            if attempt < 2 {
                Err(Llm::Timeout)
            } else {
                Ok(attempt)
            }
        },
        agent_error::retry::tokio_sleep,
    ));
    assert_eq!(result.unwrap(), 2);
}

/// A minimal executor for futures that never wait on I/O.
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

proptest! {
    #[test]
    fn jittered_delays_never_exceed_max_delay(
        seed in any::<u64>(),
        base_ms in 1u64..10_000,
        extra_ms in 0u64..100_000,
        factor in 1.0f64..10.0,
        jitter in 0usize..4,
        retry in any::<u32>(),
        previous_ms in proptest::option::of(0u64..1_000_000),
    ) {
        let jitter = [agent_error::retry::Jitter::None, agent_error::retry::Jitter::Full, agent_error::retry::Jitter::Equal, agent_error::retry::Jitter::Decorrelated][jitter];
        let policy = RetryPolicy::builder()
            .base_delay(Duration::from_millis(base_ms))
            .max_delay(Duration::from_millis(base_ms + extra_ms))
            .factor(factor)
            .jitter(jitter)
            .build()
            .unwrap();
        let rng = agent_error::retry::JitterSource::seeded(seed);
        let delay = policy.delay(retry, previous_ms.map(Duration::from_millis), &rng);
        prop_assert!(delay <= policy.max_delay());
        if jitter != agent_error::retry::Jitter::Decorrelated {
            prop_assert!(delay <= policy.backoff(retry));
        }
    }
}

#[test]
fn each_code_counts_its_own_failures_in_a_row() {
    // 429, then 503 twice, then success: each kind stays within its own 3 attempts.
    let mut answers = [
        Error::new("llm", codes::RATE_LIMIT, "429"),
        Error::new("llm", codes::PROVIDER_UNAVAILABLE, "503"),
        Error::new("llm", codes::PROVIDER_UNAVAILABLE, "503"),
    ]
    .into_iter();
    let (outcome, slept) = run(&Retrier::new().seed(5), |_| {
        answers.next().map_or(Ok(0), Err)
    });
    assert_eq!(
        (outcome.stop, outcome.attempts, slept.len()),
        (Stop::Succeeded, 4, 3)
    );
    // A third 503 in a row is one too many for the default policy.
    let mut answers = [
        Error::new("llm", codes::RATE_LIMIT, "429"),
        Error::new("llm", codes::TIMEOUT, "t"),
        Error::new("llm", codes::TIMEOUT, "t"),
        Error::new("llm", codes::TIMEOUT, "t"),
    ]
    .into_iter();
    let (outcome, _) = run(&Retrier::new().seed(5), |_| {
        answers.next().map_or(Ok(0), Err)
    });
    assert_eq!(
        (outcome.stop, outcome.attempts),
        (Stop::AttemptsExhausted, 4)
    );
}

#[test]
fn the_retriers_default_cap_bounds_alternating_codes() {
    let (outcome, slept) = run(&Retrier::new().seed(5), |attempt| {
        Err::<u32, _>(Error::new(
            "llm",
            if attempt % 2 == 0 {
                codes::TIMEOUT
            } else {
                codes::PROVIDER_UNAVAILABLE
            },
            "down",
        ))
    });
    // Alternating codes each start a new streak; the run stops at twice the largest
    // policy's attempts (3 by default), below the retrier's own cap.
    assert_eq!(
        (outcome.stop, outcome.attempts),
        (Stop::AttemptsExhausted, 6)
    );
    const { assert!(6 < Retrier::DEFAULT_ATTEMPT_CAP) };
    assert_eq!(slept.len(), 5);
}

/// A plain `io::Error` is classified (SPEC §7): a timeout is retried like a derived one.
#[test]
fn a_foreign_io_timeout_is_retried_by_its_classification() {
    let outcome = Retrier::new().seed(1).run_detailed_with_sleep(
        fail_times(2, || std::io::Error::from(std::io::ErrorKind::TimedOut)),
        |_| {},
    );
    assert_eq!((outcome.stop, outcome.attempts), (Stop::Succeeded, 3));
    let refused = Retrier::new().seed(1).run_detailed_with_sleep(
        fail_times(9, || {
            std::io::Error::from(std::io::ErrorKind::ConnectionRefused)
        }),
        |_| {},
    );
    // provider_unavailable: the default policy's 3 attempts.
    assert_eq!(
        (refused.stop, refused.attempts),
        (Stop::AttemptsExhausted, 3)
    );
    let other = Retrier::new()
        .run_detailed_with_sleep(fail_times(9, || std::io::Error::other("disk full")), |_| {});
    assert_eq!((other.stop, other.attempts), (Stop::Permanent, 1));
}

/// A retrier tries first what recognised its last failure (this run's or the last run's):
/// whatever the next failure is, it is classified as `classify` would.
#[test]
fn what_a_retrier_remembers_never_changes_how_the_next_failure_is_classified() {
    use std::io::{Error as IoError, ErrorKind};
    type Boxed = Box<dyn std::error::Error + Send + Sync>;
    let codes_seen = Arc::new(Mutex::new(Vec::new()));
    let seen = codes_seen.clone();
    let retrier = Retrier::new()
        .seed(4)
        .on_retry(move |e, _, _| seen.lock().unwrap().push(e.code().to_owned()));
    let codes = |outcome: &agent_error::retry::Outcome<u32, Boxed>| {
        (
            outcome.stop,
            outcome.attempts,
            codes_seen.lock().unwrap().drain(..).collect::<Vec<_>>(),
        )
    };
    // A bare io timeout, then a connection refused: one link each, told apart by kind.
    let outcome = retrier.run_detailed_with_sleep(
        |attempt| -> Result<u32, Boxed> {
            match attempt {
                1 => Err(IoError::from(ErrorKind::TimedOut).into()),
                2 => Err(IoError::from(ErrorKind::ConnectionRefused).into()),
                _ => Ok(attempt),
            }
        },
        |_| {},
    );
    assert_eq!(
        codes(&outcome),
        (
            Stop::Succeeded,
            3,
            vec!["timeout".into(), "provider_unavailable".into()]
        )
    );
    // An io::Error of the same kind that wraps a typed error: the typed error decides.
    let outcome = retrier.run_detailed_with_sleep(
        |_| -> Result<u32, Boxed> {
            Err(IoError::new(
                ErrorKind::TimedOut,
                Error::new("llm", codes::AUTH, "bad key"),
            )
            .into())
        },
        |_| {},
    );
    assert_eq!(codes(&outcome), (Stop::Permanent, 1, vec![]));
    // A typed error, then a foreign one, then a typed one of another type, in one run.
    let outcome = retrier.run_detailed_with_sleep(
        |attempt| -> Result<u32, Boxed> {
            match attempt {
                1 => Err(Box::new(Llm::Overloaded)),
                2 => Err(IoError::from(ErrorKind::TimedOut).into()),
                3 => Err(Error::new("llm", codes::RATE_LIMIT, "slow down").into()),
                4 => Err(IoError::from(ErrorKind::Other).into()),
                _ => Ok(attempt),
            }
        },
        |_| {},
    );
    assert_eq!(
        codes(&outcome),
        (
            Stop::Permanent,
            4,
            vec!["overloaded".into(), "timeout".into(), "rate_limit".into()]
        )
    );
    // A typed error again, after the retrier last met an unclassified foreign one.
    let outcome = retrier.run_detailed_with_sleep(
        fail_times(1, || -> Boxed { Box::new(Llm::Timeout) }),
        |_| {},
    );
    assert_eq!(
        codes(&outcome),
        (Stop::Succeeded, 2, vec!["timeout".into()])
    );
}

/// Boxed errors and `anyhow::Error` do not implement `Error`: the retrier takes them as they
/// are and gives the very same error back.
#[cfg(feature = "anyhow")]
#[test]
fn boxed_and_anyhow_errors_are_retried_and_given_back_unchanged() {
    type Boxed = Box<dyn std::error::Error + Send + Sync>;
    let outcome = Retrier::new().seed(2).run_detailed_with_sleep(
        fail_times(5, || -> Boxed {
            Box::new(std::io::Error::from(std::io::ErrorKind::TimedOut))
        }),
        |_| {},
    );
    assert_eq!(
        (outcome.stop, outcome.attempts),
        (Stop::AttemptsExhausted, 3)
    );
    let err: Boxed = outcome.result.unwrap_err();
    assert_eq!(
        err.downcast_ref::<std::io::Error>().map(|e| e.kind()),
        Some(std::io::ErrorKind::TimedOut)
    );

    let result: Result<u32, anyhow::Error> = Retrier::new()
        .seed(3)
        .run_detailed_with_sleep(
            fail_times(1, || {
                anyhow::Error::new(Error::new("llm.generate", codes::RATE_LIMIT, "slow down"))
                    .context("turn 2")
            }),
            |_| {},
        )
        .result;
    assert_eq!(result.unwrap(), 2);

    let permanent = Retrier::new()
        .run(|_| -> Result<(), anyhow::Error> { Err(anyhow::anyhow!("no such model")) })
        .unwrap_err();
    assert_eq!(permanent.to_string(), "no such model");
}

/// A peer that cycles 429, 503 and 504, each with `Retry-After: 60`, as the default
/// retrier (and so `RetryMiddleware` and tower's `RetryLayer`) meets it.
#[test]
fn a_peer_cycling_codes_cannot_drive_the_retry_loop() {
    use agent_error::http::StatusError;
    let cycle = |attempt: u32| {
        let status = [429, 503, 504][(attempt as usize - 1) % 3];
        Err::<u32, _>(StatusError::new(status).with_retry_after(Duration::from_secs(60)))
    };
    let (outcome, slept) = run(&Retrier::new().seed(5), cycle);
    assert_eq!((outcome.stop, outcome.attempts), (Stop::WaitTooLong, 2));
    assert_eq!(slept, [Duration::from_secs(60)]);
    // Without delays, alternating codes stop at twice the default policy's attempts.
    let (outcome, slept) = run(&Retrier::new().seed(5), |attempt| {
        let status = [429, 503, 504][(attempt as usize - 1) % 3];
        Err::<u32, _>(StatusError::new(status))
    });
    assert_eq!(
        (outcome.stop, outcome.attempts),
        (Stop::AttemptsExhausted, 6)
    );
    assert_eq!(slept.len(), 5);
    // Small delays add up to the policy's max_wait (60 s) in all, never more.
    let (outcome, slept) = run(&Retrier::new().seed(5), |attempt| {
        let status = [429, 503][(attempt as usize - 1) % 2];
        Err::<u32, _>(StatusError::new(status).with_retry_after(Duration::from_secs(25)))
    });
    assert_eq!(outcome.stop, Stop::WaitTooLong);
    assert_eq!(slept, [Duration::from_secs(25), Duration::from_secs(25)]);
}

#[test]
fn a_clone_shares_the_budget_and_the_hook() {
    let budget = RetryBudget::with_costs(12, 5, 10, 1);
    let retries = Arc::new(Mutex::new(0));
    let count = retries.clone();
    let retrier = Retrier::new()
        .budget(budget.clone())
        .on_retry(move |_, _, _| *count.lock().unwrap() += 1);
    let clone = retrier.clone();
    // The clone's timeout retry spends 10 of the 12 tokens, in the one bucket.
    let (outcome, _) = run(&clone, fail_times(10, || Llm::Timeout));
    assert_eq!((outcome.stop, outcome.attempts), (Stop::BudgetEmpty, 2));
    assert_eq!(budget.available(), 2);
    // The original finds the bucket nearly empty: no retry.
    let (outcome, slept) = run(&retrier, fail_times(10, || Llm::Timeout));
    assert_eq!((outcome.stop, outcome.attempts), (Stop::BudgetEmpty, 1));
    assert!(slept.is_empty());
    assert_eq!(
        *retries.lock().unwrap(),
        1,
        "the hook is shared: one retry in all"
    );
}

#[test]
fn a_clones_caps_are_its_own() {
    let retrier = Retrier::new().max_attempts(5);
    let fewer = retrier.clone().max_attempts(2);
    let (outcome, _) = run(&fewer, fail_times(10, || Llm::Timeout));
    assert_eq!(outcome.attempts, 2);
    let (outcome, _) = run(&retrier, fail_times(10, || Llm::Timeout));
    assert_eq!(outcome.attempts, 5, "the original's cap, not the clone's");
}

/// Two codes of the grammar that the retrier once told apart by a 64-bit hash of their
/// bytes, and whose hashes were equal: a real collision, found by solving for the last eight
/// bytes. The retrier now compares the codes themselves.
const COLLIDING: [&str; 2] = ["provider.overloafaaaybhp", "provider.aex_xyz_r51____"];

#[test]
fn distinct_codes_keep_separate_streaks_even_when_their_hashes_collide() {
    let (outcome, slept) = run(&Retrier::new().seed(5), |attempt| {
        let code = COLLIDING[(attempt % 2) as usize];
        Err::<u32, _>(Error::new("llm", code, "down").with_policy(RetryPolicy::DEFAULT))
    });
    // Each change of code starts a new streak, so the run stops at twice the policy's 3
    // attempts. When the streak was kept by hash, the two codes made one streak of 3.
    assert_eq!(
        (outcome.stop, outcome.attempts),
        (Stop::AttemptsExhausted, 6)
    );
    assert_eq!(slept.len(), 5);
}
