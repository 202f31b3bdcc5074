//! What a store holds was written by another process, or by nobody this library knows: a
//! pause longer than a call may wait, a deadline in the year 3000, a key of the wrong type,
//! a claim whose caller went away. Each is that key's problem, bounded by the caller's caps.

use crate::support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_error::recover::{CircuitBreaker, CircuitState, LocalStore, SharedPauses, Store};
use agent_error::redis::{RedisStore, Unavailable};
use agent_error::retry::Retrier;
use agent_error::store::{BreakerRule, CircuitStore, PauseKind, PauseStore};
use agent_error::{AgentError, Error, codes};
use support::Server;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

const DAY: Duration = Duration::from_secs(86_400);

/// The server's time in milliseconds since the epoch, for values written by hand.
const YEAR_3000_MS: &str = "32503680000000";

async fn store(server: &Server, unavailable: Unavailable) -> RedisStore {
    RedisStore::builder(server.url())
        .staleness(Duration::from_millis(200))
        .timeout(Duration::from_millis(200))
        .retry_interval(Duration::from_secs(5))
        .when_unavailable(unavailable)
        .connect()
        .await
        .expect("a store")
}

/// Asserts that `err` is the `rate_limit` error of a pause about `wait` long.
fn assert_paused(err: &dyn AgentError, wait: Duration) {
    assert_eq!(err.code(), codes::RATE_LIMIT);
    let retry_after = err.retry_policy().retry_after().expect("a retry_after");
    assert!(
        retry_after <= wait && retry_after + Duration::from_secs(2) > wait,
        "{retry_after:?}"
    );
}

#[test]
fn a_local_pause_longer_than_the_caps_ends_the_call_at_once() {
    let store: Arc<dyn Store> = Arc::new(LocalStore::new());
    store_pause_now(&store, "openai/acct-1/gpt-4o", 10 * DAY);
    let retrier = Retrier::new()
        .max_wait(Duration::from_secs(60))
        .gate(SharedPauses::new(store.clone(), "openai/acct-1/gpt-4o"));
    let (mut calls, mut slept) = (0, Vec::new());
    let outcome = retrier.run_detailed_with_sleep(
        |_| {
            calls += 1;
            Ok::<_, Error>(())
        },
        |d| slept.push(d),
    );
    assert_eq!((calls, slept.len(), outcome.attempts), (0, 0, 0));
    assert_eq!(outcome.stop.to_string(), "paused");
    assert_paused(&outcome.result.unwrap_err(), 10 * DAY);

    // `max_elapsed` bounds it too, whatever `max_wait` says.
    store_pause_now(&store, "anthropic/acct-1", Duration::from_secs(40));
    let retrier = Retrier::new()
        .max_elapsed(Duration::from_secs(30))
        .gate(SharedPauses::new(store, "anthropic/acct-1"));
    let (mut calls, mut slept) = (0, Vec::new());
    let outcome = retrier.run_detailed_with_sleep(
        |_| {
            calls += 1;
            Ok::<_, BoxError>(())
        },
        |d| slept.push(d),
    );
    assert_eq!(
        (calls, slept.len(), outcome.stop.to_string()),
        (0, 0, "paused".to_owned())
    );
    let err = outcome.result.unwrap_err();
    assert_paused(agent_error::find(&*err).unwrap(), Duration::from_secs(40));
}

fn store_pause_now(store: &Arc<dyn Store>, key: &str, wait: Duration) {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    let set = std::future::Future::poll(
        std::pin::pin!(store.set_pause(PauseKind::Pause, key, wait, "rate_limit")),
        &mut cx,
    );
    assert!(set.is_ready(), "a local store answers at once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_pause_longer_than_the_caps_ends_the_call_at_once() {
    let server = Server::start();
    let (a, b) = (
        store(&server, Unavailable::Local).await,
        store(&server, Unavailable::Local).await,
    );
    let key = "openai/acct-1/gpt-4o";
    a.set_pause(
        PauseKind::Pause,
        key,
        2 * Duration::from_secs(3600),
        "rate_limit",
    )
    .await;
    let retrier = Arc::new(
        Retrier::new()
            .max_wait(Duration::from_secs(60))
            .gate(SharedPauses::new(Arc::new(b), key)),
    );
    let calls = Arc::new(Mutex::new(0));
    let slept = Arc::new(Mutex::new(Vec::new()));
    let (c, s) = (calls.clone(), slept.clone());
    let outcome = retrier
        .run_async_detailed(
            |_| {
                *c.lock().unwrap() += 1;
                async { Ok::<_, Error>(()) }
            },
            |d| {
                s.lock().unwrap().push(d);
                async {}
            },
        )
        .await;
    assert_eq!(
        (*calls.lock().unwrap(), slept.lock().unwrap().len()),
        (0, 0)
    );
    assert_eq!(
        (outcome.attempts, outcome.stop.to_string()),
        (0, "paused".to_owned())
    );
    assert_paused(&outcome.result.unwrap_err(), 2 * Duration::from_secs(3600));

    // The blocking API, on a thread of its own, ends the same way.
    let (c, s) = (calls.clone(), slept.clone());
    let outcome = tokio::task::spawn_blocking(move || {
        retrier.run_detailed_with_sleep(
            |_| {
                *c.lock().unwrap() += 1;
                Ok::<_, Error>(())
            },
            |d| s.lock().unwrap().push(d),
        )
    })
    .await
    .unwrap();
    assert_eq!(
        (*calls.lock().unwrap(), slept.lock().unwrap().len()),
        (0, 0)
    );
    assert_eq!(outcome.stop.to_string(), "paused");
    assert_paused(&outcome.result.unwrap_err(), 2 * Duration::from_secs(3600));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadline_in_the_year_3000_is_not_obeyed() {
    let server = Server::start();
    let store = store(&server, Unavailable::Local).await;
    let pause = store.key("pause", "openai/acct-1/gpt-4o");
    let circuit = store.key("circuit", "search");
    server.command(&[
        "HSET",
        &pause,
        "until",
        YEAR_3000_MS,
        "set",
        "1",
        "code",
        "rate_limit",
    ]);
    server.command(&["HSET", &circuit, "f", "5", "until", YEAR_3000_MS]);

    let retrier = Retrier::new().gate(SharedPauses::new(
        Arc::new(store.clone()),
        "openai/acct-1/gpt-4o",
    ));
    let slept = Mutex::new(Vec::new());
    let outcome = retrier
        .run_async_detailed(
            |_| async { Ok::<_, Error>(()) },
            |d| {
                slept.lock().unwrap().push(d);
                async {}
            },
        )
        .await;
    assert_eq!((outcome.attempts, slept.lock().unwrap().len()), (1, 0));
    assert!(outcome.result.is_ok());

    let breaker = CircuitBreaker::new().store(Arc::new(store.clone()));
    let answer = breaker
        .call_async("search", async { Ok::<_, BoxError>("found") })
        .await;
    assert_eq!(answer.unwrap(), "found");
    assert!(!store.is_degraded());
    // Both keys were repaired: no replica obeys them again.
    assert_eq!(server.command(&["EXISTS", &pause]), redis::Value::Int(0));
    assert_eq!(
        server.command(&["HGET", &circuit, "until"]),
        redis::Value::Nil
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_key_is_that_keys_problem_alone() {
    let server = Server::start();
    let a = store(&server, Unavailable::Local).await;
    let b = store(&server, Unavailable::Local).await;
    let closed = store(&server, Unavailable::FailClosed).await;
    let rule = BreakerRule {
        threshold: 2,
        cooldown: Duration::from_secs(60),
    };
    // The fleet disabled `search`.
    a.record_failure("search", rule).await;
    a.record_failure("search", rule).await;
    // Two keys that this library never wrote: a non-integer count, a key of another type.
    let garbled = b.key("circuit", "fetch");
    let wrong_type = b.key("circuit", "browse");
    server.command(&["HSET", &garbled, "f", "many", "until", "soon"]);
    server.command(&["SET", &wrong_type, "not a hash"]);

    let breaker = CircuitBreaker::new()
        .threshold(2)
        .store(Arc::new(b.clone()));
    let failed = breaker
        .call_async("fetch", async { Err::<(), BoxError>("HTTP 500".into()) })
        .await;
    assert!(failed.is_err());
    let browsed = breaker
        .call_async("browse", async { Ok::<_, BoxError>("page") })
        .await;
    assert_eq!(browsed.unwrap(), "page");
    assert!(!b.is_degraded());
    // Every other key is still shared: `search` stays disabled here too.
    assert!(matches!(
        b.circuit("search").await,
        CircuitState::Open { .. }
    ));
    let refused = breaker
        .call_async("search", async { Ok::<_, BoxError>("results") })
        .await;
    let refused = refused.unwrap_err();
    let code = agent_error::find(&*refused).map(|e| e.code().to_owned());
    assert_eq!(
        code.as_deref(),
        Some(agent_error::recover::TOOL_DISABLED),
        "{refused}"
    );

    // Under `FailClosed` a bad key does not refuse every healthy tool.
    server.command(&["SET", &wrong_type, "not a hash"]);
    let closed_breaker = CircuitBreaker::new().store(Arc::new(closed.clone()));
    let _ = closed_breaker
        .call_async("browse", async { Ok::<_, BoxError>("page") })
        .await;
    let healthy = closed_breaker
        .call_async("weather", async { Ok::<_, BoxError>("sunny") })
        .await;
    assert_eq!(healthy.unwrap(), "sunny");
    assert!(!closed.is_degraded());

    // The bad keys were repaired into what this library writes.
    for key in [&garbled, &wrong_type] {
        let kind = server.command(&["TYPE", key]);
        assert!(
            kind == redis::Value::SimpleString("hash".into())
                || kind == redis::Value::SimpleString("none".into())
                || kind == redis::Value::Okay,
            "{key}: {kind:?}"
        );
    }
    assert_eq!(
        b.circuit("fetch").await,
        CircuitState::Closed { failures: 1 }
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_dropped_in_flight_frees_the_trial() {
    let server = Server::start();
    let (a, b) = (
        store(&server, Unavailable::Local).await,
        store(&server, Unavailable::Local).await,
    );
    let rule = BreakerRule {
        threshold: 2,
        cooldown: Duration::from_millis(100),
    };
    a.record_failure("fetch", rule).await;
    a.record_failure("fetch", rule).await;
    tokio::time::sleep(Duration::from_millis(150)).await;
    // A caller's timeout drops the claim while its script runs on the server, before
    // anyone reads the answer.
    drop(a.claim_trial("fetch", Duration::from_secs(30)));
    // Its script reaches the server before any other claim.
    tokio::time::sleep(Duration::from_millis(50)).await;
    // The next caller anywhere can be the trial, well before the 30 s lease ends.
    let mut token = None;
    for _ in 0..40 {
        token = b.claim_trial("fetch", Duration::from_secs(30)).await;
        if token.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    eprintln!(
        "{:?}",
        server.command(&["HGETALL", &b.key("circuit", "fetch")])
    );
    assert!(token.is_some(), "the dropped claim kept the trial");
}
