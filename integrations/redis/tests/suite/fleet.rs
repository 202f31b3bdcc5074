//! Replicas sharing state through a real `redis-server` on loopback: two stores in one
//! process play two replicas; one test runs a second OS process.

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use agent_error::recover::{
    CircuitBreaker, CircuitState, Cost, Fallback, Pacer, SharedPauses, Store,
};
use agent_error::redis::{RedisStore, Unavailable};
use agent_error::retry::Retrier;
use agent_error::store::{BreakerRule, BudgetStore, CircuitStore, PauseKind, PauseStore};
use agent_error::{Error, codes};
use support::Server;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

async fn store(server: &Server) -> RedisStore {
    RedisStore::builder(server.url())
        .staleness(Duration::from_millis(200))
        .timeout(Duration::from_millis(100))
        .retry_interval(Duration::from_millis(200))
        .connect()
        .await
        .expect("a store")
}

const RULE: BreakerRule = BreakerRule {
    threshold: 2,
    cooldown: Duration::from_millis(300),
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cooldown_set_by_one_replica_is_skipped_by_another() {
    let server = Server::start();
    let (a, b) = (store(&server).await, store(&server).await);
    let replica_a = Fallback::new(["gpt-4o", "claude"]).store(Arc::new(a));
    let replica_b = Fallback::new(["gpt-4o", "claude"]).store(Arc::new(b));
    let calls = AtomicU32::new(0);
    let call = |model: &&'static str, _| {
        let model: &'static str = model;
        let calls = &calls;
        async move {
            if model == "gpt-4o" {
                calls.fetch_add(1, Ordering::Relaxed);
                Err(Error::new("llm", codes::RATE_LIMIT, "429"))
            } else {
                Ok(model)
            }
        }
    };
    let answer = replica_a.run_async(call, |_| async {}).await.unwrap();
    assert_eq!((answer.value, answer.failures.len()), ("claude", 1));
    let answer = replica_b.run_async(call, |_| async {}).await.unwrap();
    assert_eq!(
        (answer.value, answer.failures.len(), answer.skipped),
        ("claude", 0, vec![0])
    );
    assert_eq!(calls.load(Ordering::Relaxed), 1);
}

/// The keys in the server, but a pacer's buckets, sorted.
fn pause_and_cooldown_keys(server: &Server) -> Vec<String> {
    let redis::Value::Array(keys) = server.command(&["KEYS", "*"]) else {
        panic!("KEYS answers an array");
    };
    let mut keys: Vec<String> = keys
        .into_iter()
        .map(|k| match k {
            redis::Value::BulkString(b) => String::from_utf8(b).expect("a UTF-8 key"),
            other => panic!("a key: {other:?}"),
        })
        .filter(|k| !k.contains(":pace:"))
        .collect();
    keys.sort();
    keys
}

/// A call of a fallback over `x` then `y` in `store`, `x` answering 429 when
/// `x_limited`: the candidate that answered, and those skipped.
async fn answered_by(store: RedisStore, x_limited: bool) -> (&'static str, Vec<usize>) {
    let models = Fallback::new(["x", "y"]).store(Arc::new(store));
    let answer = models
        .run_async(
            async |model: &&'static str, _| match *model {
                "x" if x_limited => Err(Error::new("llm", codes::RATE_LIMIT, "429")),
                model => Ok(model),
            },
            |_| async {},
        )
        .await
        .unwrap();
    (answer.value, answer.skipped)
}

/// What a retrier gated on the shared pauses of `key` sleeps before its one attempt.
async fn slept_on(store: RedisStore, key: &str) -> Vec<Duration> {
    let retrier = Retrier::new().gate(SharedPauses::new(Arc::new(store), key));
    let slept = std::sync::Mutex::new(Vec::new());
    let outcome = retrier
        .run_async_detailed(
            |_| async { Ok::<_, agent_error::http::StatusError>(()) },
            |d| {
                slept.lock().unwrap().push(d);
                async {}
            },
        )
        .await;
    assert_eq!(outcome.attempts, 1);
    slept.into_inner().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pause_on_a_key_named_cooldown_x_cools_no_candidate_x() {
    let server = Server::start();
    let (a, b) = (store(&server).await, store(&server).await);
    // Replica A meets a 429 on its pacer's key and on its retrier's, both named `cooldown:x`.
    let pacer = Pacer::new().shared_in(Arc::new(a.clone()));
    pacer.throttled("cooldown:x", Some(Duration::from_secs(30)));
    assert!(
        pacer
            .reserve("cooldown:x", Cost::request(), Duration::ZERO)
            .await
            .is_err()
    );
    let retrier = Retrier::new().gate(SharedPauses::new(Arc::new(a.clone()), "cooldown:x"));
    let _ = retrier
        .run_async_detailed(
            |attempt| async move {
                match attempt {
                    1 => Err(agent_error::http::StatusError::new(429)
                        .with_retry_after(Duration::from_secs(20))),
                    _ => Ok(()),
                }
            },
            |_| async {},
        )
        .await;
    // Replica B's fallback still calls candidate x first.
    assert_eq!(answered_by(b.clone(), false).await, ("x", vec![]));
    assert!(slept_on(b, "cooldown:x").await[0] > Duration::from_secs(29));
    assert_eq!(
        pause_and_cooldown_keys(&server),
        [a.key("pause", "cooldown:x")]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cooldown_of_candidate_x_pauses_no_key_named_cooldown_x() {
    let server = Server::start();
    let (a, b) = (store(&server).await, store(&server).await);
    // Replica B's fallback meets a 429 on x, which cools down fleet-wide.
    assert_eq!(answered_by(b.clone(), true).await, ("y", vec![]));
    assert_eq!(answered_by(a.clone(), false).await, ("y", vec![0]));
    // Replica A's retrier and pacer on a key named `cooldown:x` go at once.
    assert_eq!(
        slept_on(a.clone(), "cooldown:x").await,
        Vec::<Duration>::new()
    );
    let pacer = Pacer::new().shared_in(Arc::new(a.clone()));
    assert_eq!(
        pacer
            .reserve("cooldown:x", Cost::request(), Duration::ZERO)
            .await,
        Ok(Duration::ZERO)
    );
    assert_eq!(pause_and_cooldown_keys(&server), [a.key("cooldown", "x")]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_later_deadline_wins() {
    let server = Server::start();
    let (a, b) = (store(&server).await, store(&server).await);
    a.set_pause(
        PauseKind::Pause,
        "openai/acct-1/gpt-4o",
        Duration::from_secs(30),
        "rate_limit",
    )
    .await;
    let in_force = b
        .set_pause(
            PauseKind::Pause,
            "openai/acct-1/gpt-4o",
            Duration::from_secs(5),
            "rate_limit",
        )
        .await;
    assert!(in_force.remaining > Duration::from_secs(29), "{in_force:?}");
    let ttl = server.command(&["PTTL", &a.key("pause", "openai/acct-1/gpt-4o")]);
    assert!(
        matches!(ttl, redis::Value::Int(ms) if ms > 30_000 && ms <= 32_000),
        "{ttl:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retrier_waits_for_a_pause_another_replica_met() {
    let server = Server::start();
    let (a, b) = (store(&server).await, store(&server).await);
    let key = "openai/acct-1/gpt-4o";
    let a = Retrier::new().gate(SharedPauses::new(Arc::new(a), key));
    let b = Retrier::new().gate(SharedPauses::new(Arc::new(b), key));
    let _ = a
        .run_async_detailed(
            |attempt| async move {
                match attempt {
                    1 => Err(agent_error::http::StatusError::new(429)
                        .with_retry_after(Duration::from_secs(20))),
                    _ => Ok(()),
                }
            },
            |_| async {},
        )
        .await;
    let slept = std::sync::Mutex::new(Vec::new());
    let outcome = b
        .run_async_detailed(
            |_| async { Ok::<_, agent_error::http::StatusError>(()) },
            |d| {
                slept.lock().unwrap().push(d);
                async {}
            },
        )
        .await;
    let slept = slept.into_inner().unwrap();
    assert_eq!(outcome.attempts, 1);
    // The deadline, then a positive jitter of at most 1 s.
    assert!(
        slept[0] > Duration::from_secs(19) && slept[0] <= Duration::from_secs(21),
        "{slept:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_breaker_opens_for_every_replica_and_one_trial_runs_fleet_wide() {
    let server = Server::start();
    let mut stores = Vec::new();
    for _ in 0..4 {
        stores.push(Arc::new(store(&server).await) as Arc<dyn Store>);
    }
    let breakers: Vec<_> = stores
        .iter()
        .map(|s| {
            Arc::new(
                CircuitBreaker::new()
                    .threshold(2)
                    .cooldown(Duration::from_millis(800))
                    .store(s.clone()),
            )
        })
        .collect();
    for b in &breakers[..2] {
        let _ = b
            .call_async("search", async { Err::<(), BoxError>("HTTP 500".into()) })
            .await;
    }
    // Within the staleness (200 ms) every replica refuses.
    tokio::time::sleep(Duration::from_millis(210)).await;
    for b in &breakers {
        let r = b
            .call_async("search", async { Ok::<_, BoxError>(()) })
            .await;
        assert!(r.is_err());
    }
    tokio::time::sleep(Duration::from_millis(600)).await;
    let trials = Arc::new(AtomicU32::new(0));
    let mut tasks = Vec::new();
    for i in 0..32 {
        let breaker = breakers[i % 4].clone();
        let trials = trials.clone();
        tasks.push(tokio::spawn(async move {
            breaker
                .call_async("search", async {
                    trials.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    Ok::<_, BoxError>(())
                })
                .await
                .is_ok()
        }));
    }
    let mut ok = 0;
    for t in tasks {
        ok += u32::from(t.await.unwrap());
    }
    assert_eq!((trials.load(Ordering::SeqCst), ok), (1, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trial_permit_expires_when_its_holder_dies() {
    let server = Server::start();
    let (a, b) = (store(&server).await, store(&server).await);
    a.record_failure("fetch", RULE).await;
    a.record_failure("fetch", RULE).await;
    tokio::time::sleep(Duration::from_millis(320)).await;
    let token = a.claim_trial("fetch", Duration::from_millis(300)).await;
    assert!(token.is_some());
    // A is gone without a word: B cannot claim until the lease ends, then it can.
    assert_eq!(
        b.claim_trial("fetch", Duration::from_millis(300)).await,
        None
    );
    tokio::time::sleep(Duration::from_millis(320)).await;
    let token_b = b.claim_trial("fetch", Duration::from_millis(300)).await;
    assert!(token_b.is_some() && token_b != token);
    // A's late report with its old token changes nothing.
    a.finish_trial("fetch", token.unwrap(), true, RULE).await;
    tokio::time::sleep(Duration::from_millis(220)).await;
    assert_eq!(b.circuit("fetch").await, CircuitState::HalfOpen);
    b.finish_trial("fetch", token_b.unwrap(), true, RULE).await;
    assert_eq!(
        b.circuit("fetch").await,
        CircuitState::Closed { failures: 0 }
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_healthy_key_makes_no_round_trip_in_steady_state() {
    let server = Server::start();
    let store = RedisStore::builder(server.url())
        .staleness(Duration::from_secs(5))
        .connect()
        .await
        .unwrap();
    let breaker = CircuitBreaker::new().store(Arc::new(store.clone()));
    breaker
        .call_async("read_file", async { Ok::<_, BoxError>(()) })
        .await
        .unwrap();
    let (trips, scripts) = (store.round_trips(), server.script_calls());
    for _ in 0..1000 {
        breaker
            .call_async("read_file", async { Ok::<_, BoxError>(()) })
            .await
            .unwrap();
    }
    assert_eq!(
        (store.round_trips() - trips, server.script_calls() - scripts),
        (0, 0)
    );
    // One per failure.
    let _ = breaker
        .call_async("read_file", async { Err::<(), BoxError>("x".into()) })
        .await;
    assert_eq!(store.round_trips() - trips, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripts_are_loaded_again_after_script_flush() {
    let server = Server::start();
    let store = store(&server).await;
    store
        .set_pause(PauseKind::Pause, "k", Duration::from_secs(10), "rate_limit")
        .await;
    server.command(&["SCRIPT", "FLUSH"]);
    let p = store
        .set_pause(PauseKind::Pause, "k", Duration::from_secs(20), "rate_limit")
        .await;
    assert!(p.remaining > Duration::from_secs(19));
    assert!(!store.is_degraded());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flushall_forgets_the_state_and_the_store_goes_on() {
    let server = Server::start();
    let (a, b) = (store(&server).await, store(&server).await);
    a.record_failure("t", RULE).await;
    a.record_failure("t", RULE).await;
    server.command(&["FLUSHALL"]);
    assert_eq!(b.circuit("t").await, CircuitState::Closed { failures: 0 });
    assert_eq!(
        b.record_failure("t", RULE).await,
        CircuitState::Closed { failures: 1 }
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_server_costs_a_call_at_most_the_timeout() {
    let server = Server::start();
    let store = store(&server).await;
    store
        .set_pause(PauseKind::Pause, "p", Duration::from_secs(10), "rate_limit")
        .await;
    server.command(&["CLIENT", "PAUSE", "1500", "ALL"]);
    let started = Instant::now();
    let pause = store
        .set_pause(PauseKind::Pause, "p", Duration::from_secs(20), "rate_limit")
        .await;
    let took = started.elapsed();
    assert!(took < Duration::from_millis(400), "{took:?}");
    assert!(store.is_degraded());
    // Served locally: this replica's own pause.
    assert!(pause.remaining > Duration::from_secs(19));
    tokio::time::sleep(Duration::from_millis(1600)).await;
    let bounded = Instant::now();
    while store.is_degraded() && bounded.elapsed() < Duration::from_secs(5) {
        let _ = store.pause(PauseKind::Pause, "p").await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!store.is_degraded());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_mid_run_is_served_locally_then_reconnected() {
    let mut server = Server::start();
    let store = store(&server).await;
    let breaker = CircuitBreaker::new()
        .threshold(2)
        .store(Arc::new(store.clone()));
    breaker
        .call_async("t", async { Ok::<_, BoxError>(()) })
        .await
        .unwrap();
    server.kill();
    let mut worst = Duration::ZERO;
    for _ in 0..2 {
        let started = Instant::now();
        let _ = breaker
            .call_async("t", async { Err::<(), BoxError>("down".into()) })
            .await;
        worst = worst.max(started.elapsed());
    }
    assert!(worst < Duration::from_millis(400), "{worst:?}");
    assert!(store.is_degraded());
    // Served locally: this replica's own two failures opened the circuit.
    assert!(
        breaker
            .call_async("t", async { Ok::<_, BoxError>(()) })
            .await
            .is_err()
    );
    server.restart();
    let bounded = Instant::now();
    while store.is_degraded() && bounded.elapsed() < Duration::from_secs(10) {
        let _ = store
            .set_pause(PauseKind::Pause, "probe", Duration::from_millis(10), "x")
            .await;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(!store.is_degraded());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fail_open_and_fail_closed_when_the_server_is_gone() {
    let mut server = Server::start();
    let open = RedisStore::builder(server.url())
        .timeout(Duration::from_millis(50))
        .when_unavailable(Unavailable::FailOpen)
        .connect()
        .await
        .unwrap();
    let closed = RedisStore::builder(server.url())
        .timeout(Duration::from_millis(50))
        .when_unavailable(Unavailable::FailClosed)
        .connect()
        .await
        .unwrap();
    server.kill();
    assert_eq!(open.pause(PauseKind::Pause, "k").await, None);
    assert!(open.spend("b", 5, 10).await);
    assert!(closed.pause(PauseKind::Pause, "k").await.is_some());
    assert!(matches!(
        closed.circuit("t").await,
        CircuitState::Open { .. }
    ));
    assert!(!closed.spend("b", 5, 10).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pause_reaches_another_replica_within_staleness_and_a_round_trip() {
    let server = Server::start();
    let (a, b) = (store(&server).await, store(&server).await);
    assert_eq!(b.pause(PauseKind::Pause, "m").await, None); // B now holds a copy saying "no pause"
    a.set_pause(PauseKind::Pause, "m", Duration::from_secs(10), "rate_limit")
        .await;
    let started = Instant::now();
    while b.pause(PauseKind::Pause, "m").await.is_none()
        && started.elapsed() < Duration::from_secs(2)
    {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(b.pause(PauseKind::Pause, "m").await.is_some());
    assert!(
        started.elapsed() <= Duration::from_millis(200 + 100),
        "{:?}",
        started.elapsed()
    );
}

/// The child process: sets a pause and exits.
#[test]
fn child_process_sets_a_pause() {
    let Ok(url) = std::env::var("AGENT_ERROR_REDIS_CHILD_URL") else {
        return;
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let store = RedisStore::builder(url).connect().await.unwrap();
        store
            .set_pause(
                PauseKind::Pause,
                "shared/by/child",
                Duration::from_secs(30),
                "rate_limit",
            )
            .await;
        assert!(!store.is_degraded());
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pause_set_in_another_process_is_seen_here() {
    let server = Server::start();
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "fleet::child_process_sets_a_pause",
            "--nocapture",
        ])
        .env("AGENT_ERROR_REDIS_CHILD_URL", server.url())
        .status()
        .unwrap();
    assert!(status.success());
    let store = store(&server).await;
    let pause = store
        .pause(PauseKind::Pause, "shared/by/child")
        .await
        .expect("the child's pause");
    assert!(pause.remaining > Duration::from_secs(25));
    assert_eq!(pause.code, "rate_limit");
}
