//! `recover::CircuitBreaker` (SPEC §9): opens after exactly N failures in a row, fails fast
//! with `TOOL_DISABLED`, lets exactly one trial through after the cooldown, even from 8
//! threads; bounded memory; and a property test of its state machine.

use std::sync::Barrier;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use agent_error::recover::{
    CircuitBreaker, CircuitOpen, CircuitState, Decision, ManualClock, decide,
};
use agent_error::{AgentError, Error, Recovery, codes, tool};
use proptest::prelude::*;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

const SEC: Duration = Duration::from_secs(1);

fn failing() -> Result<(), BoxError> {
    Err(Error::new("fetch", codes::TOOL_FAILED, "HTTP 500").into())
}

fn ok() -> Result<(), BoxError> {
    Ok(())
}

fn breaker(clock: &ManualClock) -> CircuitBreaker {
    CircuitBreaker::new().clock(clock.clone())
}

#[test]
fn it_opens_after_exactly_five_failures_in_a_row_by_default() {
    let clock = ManualClock::new();
    let b = breaker(&clock);
    for n in 1..=4 {
        assert!(b.call("fetch", failing).is_err());
        assert_eq!(b.state("fetch"), CircuitState::Closed { failures: n });
    }
    assert!(b.call("fetch", failing).is_err());
    assert_eq!(
        b.state("fetch"),
        CircuitState::Open {
            closes_in: 60 * SEC
        }
    );

    let ran = AtomicU32::new(0);
    let err = b
        .call("fetch", || {
            ran.fetch_add(1, Ordering::Relaxed);
            ok()
        })
        .unwrap_err();
    assert_eq!(ran.load(Ordering::Relaxed), 0);
    let open = err.downcast_ref::<CircuitOpen>().unwrap();
    assert_eq!(
        (open.key(), open.failures(), open.closes_in()),
        ("fetch", 5, Some(60 * SEC))
    );
    assert_eq!(open.code(), "TOOL_DISABLED");
    assert_eq!(open.op(), "fetch");
    assert_eq!(open.recovery(), Recovery::Replan);
    assert!(!open.is_retryable());
    assert_eq!(
        tool::render(open),
        "[error:TOOL_DISABLED] disabled by the circuit breaker after 5 consecutive errors\nhint: this tool is disabled for 60s more, then one trial call may enable it; reach the goal another way"
    );
    assert_eq!(decide(&*err, 1), Decision::Replan);
}

#[test]
fn a_success_starts_the_count_again_and_keys_are_independent() {
    let b = breaker(&ManualClock::new()).threshold(3);
    b.call("a", failing).unwrap_err();
    b.call("a", failing).unwrap_err();
    b.call("a", ok).unwrap();
    b.call("a", failing).unwrap_err();
    b.call("a", failing).unwrap_err();
    assert_eq!(b.state("a"), CircuitState::Closed { failures: 2 });
    b.call("b", failing).unwrap_err();
    b.call("b", failing).unwrap_err();
    b.call("b", failing).unwrap_err();
    assert!(matches!(b.state("b"), CircuitState::Open { .. }));
    assert_eq!(b.state("a"), CircuitState::Closed { failures: 2 });
    assert_eq!(
        b.state("never-called"),
        CircuitState::Closed { failures: 0 }
    );
}

#[test]
fn after_the_cooldown_one_trial_closes_it_or_reopens_it() {
    let clock = ManualClock::new();
    let b = breaker(&clock).threshold(2).cooldown(30 * SEC);
    b.call("t", failing).unwrap_err();
    b.call("t", failing).unwrap_err();

    clock.advance(29 * SEC + Duration::from_millis(500));
    let err = b.acquire("t").unwrap_err();
    assert_eq!(err.closes_in(), Some(Duration::from_millis(500)));
    assert_eq!(
        err.hints(),
        [
            "this tool is disabled for 1s more, then one trial call may enable it; reach the goal another way"
        ]
    );

    clock.advance(Duration::from_millis(500));
    let trial = b.acquire("t").unwrap();
    assert!(trial.is_trial());
    assert_eq!(b.state("t"), CircuitState::HalfOpen);
    let busy = b.acquire("t").unwrap_err();
    assert_eq!(busy.closes_in(), None);
    assert_eq!(
        busy.hints(),
        [
            "this tool is disabled until a trial call running now succeeds; reach the goal another way"
        ]
    );
    trial.failure();
    assert_eq!(
        b.state("t"),
        CircuitState::Open {
            closes_in: 30 * SEC
        }
    );

    clock.advance(30 * SEC);
    assert_eq!(b.call("t", || Ok::<_, BoxError>(7)).unwrap(), 7);
    assert_eq!(b.state("t"), CircuitState::Closed { failures: 0 });
    b.call("t", failing).unwrap_err();
    assert_eq!(b.state("t"), CircuitState::Closed { failures: 1 });
}

#[test]
fn a_trial_dropped_without_a_result_lets_the_next_call_be_the_trial() {
    let clock = ManualClock::new();
    let b = breaker(&clock).threshold(1);
    b.call("t", failing).unwrap_err();
    clock.advance(60 * SEC);
    drop(b.acquire("t").unwrap());
    let trial = b.acquire("t").unwrap();
    assert!(trial.is_trial());
    trial.success();
    assert_eq!(b.state("t"), CircuitState::Closed { failures: 0 });

    // A panicking trial, through `call`, does the same.
    b.call("t", failing).unwrap_err();
    clock.advance(60 * SEC);
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        b.call("t", || -> Result<(), BoxError> { panic!("tool crashed") })
    }));
    assert!(panicked.is_err());
    assert!(b.acquire("t").unwrap().is_trial());
}

#[test]
fn half_open_lets_exactly_one_trial_through_from_eight_threads() {
    let clock = ManualClock::new();
    let b = breaker(&clock).threshold(1);
    b.call("t", failing).unwrap_err();
    b.call("u", failing).unwrap_err();
    for round in 0..200 {
        clock.advance(60 * SEC);
        let start = Barrier::new(8);
        let end = Barrier::new(8);
        let (admitted, ran) = (AtomicU32::new(0), AtomicU32::new(0));
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    start.wait();
                    let permit = b.acquire("t");
                    // Hold the trial until every thread has asked.
                    end.wait();
                    match permit {
                        Ok(permit) => {
                            admitted.fetch_add(1, Ordering::Relaxed);
                            assert!(permit.is_trial());
                            permit.failure();
                        }
                        Err(open) => assert_eq!(open.closes_in(), None),
                    }
                    // And through `call`, on another key that opens again each round.
                    let _ = b.call("u", || {
                        ran.fetch_add(1, Ordering::Relaxed);
                        std::thread::sleep(Duration::from_millis(1));
                        failing()
                    });
                });
            }
        });
        assert_eq!(admitted.load(Ordering::Relaxed), 1, "round {round}");
        assert_eq!(ran.load(Ordering::Relaxed), 1, "round {round}");
    }
}

#[cfg(feature = "anyhow")]
#[test]
fn circuit_open_is_classified_behind_any_wrapper_and_matches_tool_disabled() {
    use agent_error::tool::ToolError;
    use agent_error::{classify, display};
    let clock = ManualClock::new();
    let b = breaker(&clock).threshold(1);
    b.call("search", failing).unwrap_err();
    let err = b.call("search", || anyhow::Ok(())).unwrap_err();
    let wrapped = err.context("running the plan");
    let c = classify(wrapped.as_ref()).unwrap();
    assert_eq!(
        (c.code(), c.recovery()),
        ("TOOL_DISABLED", Recovery::Replan)
    );
    assert_eq!(
        display::chain(wrapped.as_ref()).to_string(),
        "running the plan: search [TOOL_DISABLED]: disabled by the circuit breaker after 1 consecutive errors"
    );
    let facade = ToolError::ToolDisabled {
        tool: "search".into(),
        failures: 1,
    };
    assert_eq!(facade.code(), c.code());
    assert_eq!(facade.recovery(), c.recovery());
    assert_eq!(facade.is_retryable(), c.is_retryable());
    let docs = agent_error::catalog::explain("TOOL_DISABLED");
    assert!(
        docs.iter()
            .any(|d| d.type_name == "agent_error::recover::CircuitOpen")
    );
    assert!(agent_error::catalog::conflicts(&docs).is_empty());
}

#[test]
fn memory_stays_bounded_and_failing_keys_outlive_healthy_ones() {
    let b = breaker(&ManualClock::new()).threshold(2).capacity(4);
    b.call("open", failing).unwrap_err();
    b.call("open", failing).unwrap_err();
    for i in 0..3 {
        let key = format!("healed-{i}");
        b.call(&key, failing).unwrap_err();
        b.call(&key, ok).unwrap();
    }
    assert_eq!(b.tracked(), 4);
    for i in 0..100 {
        b.call(&format!("new-{i}"), failing).unwrap_err();
        assert!(b.tracked() <= 4);
    }
    // Keys that never failed are not tracked at all.
    for i in 0..100 {
        b.call(&format!("fine-{i}"), ok).unwrap();
    }
    assert!(b.tracked() <= 4);
}

#[test]
fn the_healed_keys_go_first_when_the_map_is_full() {
    let b = breaker(&ManualClock::new()).threshold(2).capacity(3);
    b.call("open", failing).unwrap_err();
    b.call("open", failing).unwrap_err();
    b.call("healed", failing).unwrap_err();
    b.call("healed", ok).unwrap();
    b.call("failing", failing).unwrap_err();
    b.call("newcomer", failing).unwrap_err();
    assert_eq!(b.tracked(), 3);
    assert!(matches!(b.state("open"), CircuitState::Open { .. }));
    assert_eq!(b.state("failing"), CircuitState::Closed { failures: 1 });
    assert_eq!(b.state("newcomer"), CircuitState::Closed { failures: 1 });
}

#[tokio::test(flavor = "current_thread")]
async fn call_async_counts_and_fails_fast_too() {
    let b = breaker(&ManualClock::new()).threshold(1);
    let r: Result<(), BoxError> = b.call_async("t", async { failing() }).await;
    r.unwrap_err();
    let r: Result<(), BoxError> = b.call_async("t", async { unreachable!() }).await;
    assert!(r.unwrap_err().is::<CircuitOpen>());
}

#[derive(Clone, Debug)]
enum Op {
    Advance(u64),
    Call(bool),
    Abandon,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u64..40_000).prop_map(Op::Advance),
        any::<bool>().prop_map(Op::Call),
        Just(Op::Abandon),
    ]
}

/// The state machine as SPEC §9 states it, in milliseconds.
#[derive(Debug)]
enum Model {
    Closed(u32),
    Open { until: u64, failures: u32 },
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn the_breaker_follows_its_state_machine(
        threshold in 1u32..6,
        cooldown_ms in 1u64..30_000,
        ops in proptest::collection::vec(op(), 1..80),
    ) {
        let clock = ManualClock::new();
        let b = CircuitBreaker::new()
            .threshold(threshold)
            .cooldown(Duration::from_millis(cooldown_ms))
            .clock(clock.clone());
        let mut now = 0u64;
        let mut model = Model::Closed(0);
        for op in ops {
            let (ok, abandon) = match op {
                Op::Advance(ms) => {
                    now += ms;
                    clock.advance(Duration::from_millis(ms));
                    continue;
                }
                Op::Call(ok) => (ok, false),
                Op::Abandon => (false, true),
            };
            let permit = b.acquire("k");
            match (&model, permit) {
                (Model::Closed(_), Err(e)) => prop_assert!(false, "closed but refused: {e}"),
                (Model::Open { until, .. }, Err(e)) => {
                    // Never past its cooldown: refused only before `until`.
                    prop_assert!(now < *until);
                    prop_assert_eq!(e.closes_in(), Some(Duration::from_millis(until - now)));
                }
                (Model::Open { until, .. }, Ok(p)) => {
                    // Never through while open; after the cooldown, as the one trial.
                    prop_assert!(now >= *until, "let through while open");
                    prop_assert!(p.is_trial());
                    prop_assert_eq!(b.state("k"), CircuitState::HalfOpen);
                    prop_assert!(b.acquire("k").is_err(), "a second call during the trial");
                    let failures = match model { Model::Open { failures, .. } => failures, _ => 0 };
                    model = if abandon {
                        drop(p);
                        Model::Open { until: now, failures }
                    } else if ok {
                        p.success();
                        Model::Closed(0)
                    } else {
                        p.failure();
                        Model::Open { until: now + cooldown_ms, failures: failures + 1 }
                    };
                }
                (Model::Closed(n), Ok(p)) => {
                    prop_assert!(!p.is_trial());
                    let n = *n;
                    model = if abandon {
                        drop(p);
                        Model::Closed(n)
                    } else if ok {
                        p.success();
                        Model::Closed(0)
                    } else {
                        p.failure();
                        if n + 1 >= threshold {
                            Model::Open { until: now + cooldown_ms, failures: n + 1 }
                        } else {
                            Model::Closed(n + 1)
                        }
                    };
                }
            }
            let expected = match model {
                Model::Closed(n) => CircuitState::Closed { failures: n },
                Model::Open { until, .. } => CircuitState::Open {
                    closes_in: Duration::from_millis(until.saturating_sub(now)),
                },
            };
            prop_assert_eq!(b.state("k"), expected);
        }
    }
}

#[derive(Debug, AgentError)]
#[agent(op = "weather")]
enum WeatherError {
    /// The model asked for a city that does not exist.
    #[agent(code = "unknown_city", recovery = "replan")]
    #[error("unknown city")]
    UnknownCity,
    #[agent(code = "auth_error")]
    #[error("bad key")]
    BadKey,
    #[agent(code = "invalid_input")]
    #[error("bad arguments")]
    BadArgs,
    #[agent(code = "service_down", retryable)]
    #[error("weather service unavailable")]
    Down,
    #[agent(code = "timeout", retryable)]
    #[error("timed out")]
    Timeout,
    #[error(transparent)]
    Disabled(#[from] CircuitOpen),
}

#[test]
fn try_call_gives_the_tools_own_error_beside_the_refusal() {
    let b = breaker(&ManualClock::new()).threshold(1);
    match b.try_call("weather", || Err::<(), _>(WeatherError::Down)) {
        Err(agent_error::recover::CallError::Tool(WeatherError::Down)) => {}
        other => panic!("{other:?}"),
    }
    // An error type without `From<CircuitOpen>` works: `std::io::Error` here.
    let refused = b
        .try_call("weather", || Ok::<_, std::io::Error>(1))
        .unwrap_err();
    let open = refused.open().unwrap();
    assert_eq!((open.code(), open.op()), ("TOOL_DISABLED", "weather"));
    assert!(refused.into_tool().is_none());
}

#[test]
fn the_callers_mistakes_do_not_open_the_circuit() {
    let b = breaker(&ManualClock::new()).threshold(2);
    for mistake in [
        WeatherError::UnknownCity,
        WeatherError::BadKey,
        WeatherError::BadArgs,
        WeatherError::UnknownCity,
    ] {
        assert!(b.call("weather", || Err::<(), _>(mistake)).is_err());
    }
    let not_found = || Err::<(), _>(Error::new("weather", codes::NOT_FOUND, "no such station"));
    b.try_call("weather", not_found).unwrap_err();
    b.try_call("weather", not_found).unwrap_err();
    assert_eq!(b.state("weather"), CircuitState::Closed { failures: 0 });
    assert_eq!(b.call("weather", || Ok::<_, WeatherError>(21)).unwrap(), 21);
}

#[test]
fn the_tool_failing_opens_it_timeouts_outages_and_unclassified_errors() {
    let b = breaker(&ManualClock::new()).threshold(3);
    b.call("weather", || Err::<(), _>(WeatherError::Down))
        .unwrap_err();
    b.call("weather", || Err::<(), _>(WeatherError::Timeout))
        .unwrap_err();
    assert_eq!(b.state("weather"), CircuitState::Closed { failures: 2 });
    // A caller's mistake in between is an answer from the tool: the count starts again.
    b.call("weather", || Err::<(), _>(WeatherError::UnknownCity))
        .unwrap_err();
    assert_eq!(b.state("weather"), CircuitState::Closed { failures: 0 });
    let unclassified = || Err::<(), BoxError>("connection reset by peer".into());
    for _ in 0..3 {
        b.call("weather", unclassified).unwrap_err();
    }
    let err = b.call("weather", || Ok::<_, WeatherError>(1)).unwrap_err();
    // The refusal, through the enum's transparent variant: its op is the breaker's key.
    assert!(matches!(err, WeatherError::Disabled(_)));
    assert_eq!((err.code(), err.op()), ("TOOL_DISABLED", "weather"));
}

#[test]
fn a_predicate_decides_what_counts() {
    let every = breaker(&ManualClock::new()).threshold(1).counts(|_| true);
    every
        .call("weather", || Err::<(), _>(WeatherError::UnknownCity))
        .unwrap_err();
    assert!(matches!(every.state("weather"), CircuitState::Open { .. }));

    let only_timeouts = breaker(&ManualClock::new())
        .threshold(1)
        .counts(|e| agent_error::has_code(e, codes::TIMEOUT));
    only_timeouts
        .call("weather", || Err::<(), _>(WeatherError::Down))
        .unwrap_err();
    assert_eq!(
        only_timeouts.state("weather"),
        CircuitState::Closed { failures: 0 }
    );
    only_timeouts
        .call("weather", || Err::<(), _>(WeatherError::Timeout))
        .unwrap_err();
    assert!(matches!(
        only_timeouts.state("weather"),
        CircuitState::Open { .. }
    ));
}

#[tokio::test(flavor = "current_thread")]
async fn try_call_async_counts_by_classification_too() {
    let b = breaker(&ManualClock::new()).threshold(1);
    let r = b
        .try_call_async("weather", async { Err::<(), _>(WeatherError::BadArgs) })
        .await;
    assert!(matches!(
        r,
        Err(agent_error::recover::CallError::Tool(WeatherError::BadArgs))
    ));
    assert_eq!(b.state("weather"), CircuitState::Closed { failures: 0 });
    let _ = b
        .try_call_async("weather", async { Err::<(), _>(WeatherError::Down) })
        .await;
    let r = b
        .try_call_async("weather", async { Ok::<_, WeatherError>(1) })
        .await;
    assert!(r.unwrap_err().open().is_some());
}

#[test]
fn a_function_is_a_clock() {
    let now = std::sync::Arc::new(std::sync::Mutex::new(std::time::Instant::now()));
    let read = now.clone();
    let b = CircuitBreaker::new()
        .threshold(1)
        .clock(move || *read.lock().unwrap());
    b.call("t", failing).unwrap_err();
    assert_eq!(
        b.state("t"),
        CircuitState::Open {
            closes_in: 60 * SEC
        }
    );
    *now.lock().unwrap() += 60 * SEC;
    assert_eq!(b.call("t", ok).map_err(|e| e.to_string()), Ok(()));
}

/// The moves an `on_transition` hook heard, in order: each key with the state it moved to.
type Moves = std::sync::Arc<std::sync::Mutex<Vec<(String, CircuitState)>>>;

/// `breaker`, with a hook that keeps the moves it hears.
fn listening(breaker: CircuitBreaker) -> (CircuitBreaker, Moves) {
    let moves = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = moves.clone();
    let breaker = breaker.on_transition(move |key, state| {
        seen.lock().unwrap().push((key.to_string(), state));
    });
    (breaker, moves)
}

#[test]
fn the_transition_hook_hears_each_move_once() {
    let clock = ManualClock::new();
    let (b, moves) = listening(breaker(&clock).threshold(2).cooldown(10 * SEC));
    let _ = b.call("fetch", failing);
    assert!(
        moves.lock().unwrap().is_empty(),
        "one failure of two moves nothing"
    );
    let _ = b.call("fetch", failing);
    let _ = b.call("fetch", failing); // open: fails fast, moves nothing
    clock.advance(10 * SEC);
    let _ = b.call("fetch", failing); // the trial fails: open again
    clock.advance(10 * SEC);
    let permit = b.acquire("fetch").unwrap(); // a trial dropped without a result
    drop(permit);
    b.call("fetch", ok).unwrap(); // the next trial closes it
    b.call("fetch", ok).unwrap();
    let open = CircuitState::Open {
        closes_in: 10 * SEC,
    };
    let dropped = CircuitState::Open {
        closes_in: Duration::ZERO,
    };
    let closed = CircuitState::Closed { failures: 0 };
    let states: Vec<CircuitState> = moves.lock().unwrap().iter().map(|(_, s)| *s).collect();
    assert_eq!(
        states,
        [
            open,
            CircuitState::HalfOpen,
            open,
            CircuitState::HalfOpen,
            dropped,
            CircuitState::HalfOpen,
            closed
        ]
    );
    assert!(moves.lock().unwrap().iter().all(|(key, _)| key == "fetch"));
}

#[test]
fn the_transition_hook_hears_the_moves_a_shared_breaker_makes() {
    use agent_error::recover::{LocalStore, Store};
    let clock = ManualClock::new();
    let store: std::sync::Arc<dyn Store> =
        std::sync::Arc::new(LocalStore::with_clock(clock.clone()));
    let (a, moves) = listening(
        CircuitBreaker::new()
            .threshold(1)
            .cooldown(5 * SEC)
            .store(store.clone()),
    );
    let _ = a.call("search", failing);
    clock.advance(5 * SEC);
    a.call("search", ok).unwrap();
    let states: Vec<CircuitState> = moves.lock().unwrap().iter().map(|(_, s)| *s).collect();
    assert!(
        matches!(
            states[..],
            [
                CircuitState::Open { .. },
                CircuitState::HalfOpen,
                CircuitState::Closed { failures: 0 }
            ]
        ),
        "{states:?}"
    );
}
