//! Property tests: whatever a store holds or is given, no call panics, none waits past the
//! caller's caps, and every other key keeps working. In Redis, any bytes and any type
//! (string, list, set, hash, sorted set) under every key this library uses; in a
//! `LocalStore`, any deadline, duration, code and count through its public API.

use crate::support;

use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use agent_error::recover::{CircuitBreaker, CircuitState, LocalStore, ManualClock, SharedPauses};
use agent_error::redis::RedisStore;
use agent_error::retry::{Retrier, RetryBudget};
use agent_error::store::{
    BreakerRule, BucketReport, BudgetStore, CircuitStore, DimensionStep, MAX_HOLD, PaceStep,
    PaceStore, PauseKind, PauseStore, TrialToken,
};
use agent_error::{Error, codes};
use proptest::prelude::*;
use support::Server;

const TIMEOUT: Duration = Duration::from_millis(100);
/// What one store operation may take at most: the timeout, and room for the scheduler.
const ONE_CALL: Duration = Duration::from_millis(400);

/// One server and one runtime for every case.
struct World {
    started: Instant,
    server: Server,
    runtime: tokio::runtime::Runtime,
    store: RedisStore,
    conn: Mutex<redis::Connection>,
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        let server = Server::start();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        let store = runtime
            .block_on(
                RedisStore::builder(server.url())
                    .prefix("prop")
                    .staleness(Duration::ZERO)
                    .timeout(TIMEOUT)
                    .connect(),
            )
            .expect("a store");
        let conn = redis::Client::open(server.url())
            .and_then(|c| c.get_connection_with_timeout(Duration::from_secs(2)))
            .expect("a connection");
        World {
            started: Instant::now(),
            server,
            runtime,
            store,
            conn: Mutex::new(conn),
        }
    })
}

/// A value of any Redis type this library may meet under its keys.
#[derive(Clone, Debug)]
enum Value {
    String(Vec<u8>),
    List(Vec<Vec<u8>>),
    Set(Vec<Vec<u8>>),
    Hash(Vec<(Vec<u8>, Vec<u8>)>),
    SortedSet(Vec<(f64, Vec<u8>)>),
}

/// Bytes that are often what a field of this library looks like, and often not.
fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..24),
        any::<i64>().prop_map(|n| n.to_string().into_bytes()),
        any::<u64>().prop_map(|n| format!("{n}0000").into_bytes()),
        any::<f64>().prop_map(|n| n.to_string().into_bytes()),
        Just(b"-1".to_vec()),
        Just(b"".to_vec()),
        Just(b"32503680000000".to_vec()),
    ]
}

/// The fields this library writes, and others.
fn field() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => prop::sample::select(vec!["until", "set", "code", "f", "tok", "lease", "seq", "t"])
            .prop_map(|f| f.as_bytes().to_vec()),
        3 => prop::sample::select(vec!["c0", "r0", "l0", "t0", "h0", "p0", "c1", "l1", "x:1", "x:2"])
            .prop_map(|f| f.as_bytes().to_vec()),
        1 => bytes(),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    let items = || proptest::collection::vec(bytes(), 1..5);
    prop_oneof![
        bytes().prop_map(Value::String),
        items().prop_map(Value::List),
        items().prop_map(Value::Set),
        proptest::collection::vec((field(), bytes()), 1..8).prop_map(Value::Hash),
        proptest::collection::vec((-1e12f64..1e12, bytes()), 1..5).prop_map(Value::SortedSet),
    ]
}

fn write(conn: &mut redis::Connection, key: &str, value: &Value) {
    let _: () = redis::cmd("DEL").arg(key).query(conn).expect("DEL");
    let mut cmd;
    match value {
        Value::String(b) => {
            cmd = redis::cmd("SET");
            cmd.arg(key).arg(b);
        }
        Value::List(items) => {
            cmd = redis::cmd("RPUSH");
            cmd.arg(key).arg(items);
        }
        Value::Set(items) => {
            cmd = redis::cmd("SADD");
            cmd.arg(key).arg(items);
        }
        Value::Hash(fields) => {
            cmd = redis::cmd("HSET");
            cmd.arg(key);
            for (f, v) in fields {
                cmd.arg(f).arg(v);
            }
        }
        Value::SortedSet(members) => {
            cmd = redis::cmd("ZADD");
            cmd.arg(key);
            for (score, m) in members {
                cmd.arg(*score).arg(m);
            }
        }
    }
    let _: redis::Value = cmd.query(conn).expect("the value is written");
}

/// Runs one store operation, which must end within [`ONE_CALL`].
fn timed<T>(what: &str, f: impl std::future::Future<Output = T>) -> T {
    let started = Instant::now();
    let out = world().runtime.block_on(f);
    let took = started.elapsed();
    assert!(took < ONE_CALL, "{what} took {took:?}");
    out
}

const RULE: BreakerRule = BreakerRule {
    threshold: 2,
    cooldown: Duration::from_secs(30),
};

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_value_under_any_key_is_that_keys_problem_alone(
        kind in prop::sample::select(vec!["pause", "cooldown", "circuit", "budget", "pace"]),
        value in value(),
        token in any::<u64>(),
    ) {
        let w = world();
        let s = &w.store;
        let name = "bad";
        write(&mut w.conn.lock().unwrap(), &s.key(kind, name), &value);

        // Every operation on every kind of the bad name answers, within the timeout.
        for pause_kind in [PauseKind::Pause, PauseKind::Cooldown] {
            let pause = timed("pause", s.pause(pause_kind, name));
            if let Some(p) = pause {
                prop_assert!(p.remaining <= Duration::from_secs(86_400));
            }
            timed("set_pause", s.set_pause(pause_kind, name, Duration::from_millis(5), codes::RATE_LIMIT));
        }
        timed("circuit", s.circuit(name));
        timed("record_failure", s.record_failure(name, RULE));
        timed("record_success", s.record_success(name));
        if let Some(t) = timed("claim_trial", s.claim_trial(name, Duration::from_secs(1))) {
            timed("finish_trial", s.finish_trial(name, t, true, RULE));
        }
        timed("finish_trial", s.finish_trial(name, TrialToken(token), false, RULE));
        s.abandon_trial(name, TrialToken(token));
        timed("spend", s.spend(name, 1, 10));
        timed("refill", s.refill(name, 1, 10));
        let paced = timed("pace", s.pace(name, pace_step(1.0)));
        prop_assert!(paced.is_some(), "{:?}", value);

        // A retrier reading the bad pause waits within its caps.
        write(&mut w.conn.lock().unwrap(), &s.key(kind, name), &value);
        let slept = Arc::new(Mutex::new(Duration::ZERO));
        let retrier = Retrier::new()
            .max_wait(Duration::from_secs(2))
            .max_attempts(2)
            .gate(SharedPauses::new(Arc::new(s.clone()), name))
            .budget(RetryBudget::with_capacity(10).shared_in(Arc::new(s.clone()), name));
        let recorded = slept.clone();
        let started = Instant::now();
        let _ = w.runtime.block_on(retrier.run_async(
            |_| async { Err::<(), _>(Error::new("llm", codes::PROVIDER_UNAVAILABLE, "503")) },
            move |d| {
                *recorded.lock().unwrap() += d;
                async {}
            },
        ));
        prop_assert!(*slept.lock().unwrap() <= Duration::from_secs(6));
        prop_assert!(started.elapsed() < 4 * ONE_CALL, "{:?}", started.elapsed());

        // Every other key is still shared, and the store is up.
        let other = format!("good-{kind}");
        for pause_kind in [PauseKind::Pause, PauseKind::Cooldown] {
            let set = timed("set_pause", s.set_pause(pause_kind, &other, Duration::from_secs(5), codes::RATE_LIMIT));
            prop_assert!(set.remaining > Duration::from_secs(4));
            prop_assert!(timed("pause", s.pause(pause_kind, &other)).is_some());
        }
        let breaker = CircuitBreaker::new().threshold(1).store(Arc::new(s.clone()));
        let _ = w.runtime.block_on(breaker.call_async(&other, async {
            Err::<(), Box<dyn std::error::Error + Send + Sync>>("HTTP 500".into())
        }));
        let open = matches!(timed("circuit", s.circuit(&other)), CircuitState::Open { .. });
        prop_assert!(open);
        timed("record_success", s.record_success(&other));
        let paced = timed("pace", s.pace(&other, pace_step(1.0))).expect("Redis answers");
        prop_assert!(paced.buckets[0].is_some());
        prop_assert!(!s.is_degraded());
        let _: () = redis::cmd("DEL")
            .arg(s.key("circuit", &other))
            .query(&mut *w.conn.lock().unwrap())
            .unwrap();
        let _ = &w.server;
        // All the cases together, server start included, take seconds.
        prop_assert!(w.started.elapsed() < Duration::from_secs(30));
    }
}

/// A pacing step with a configured limit of 10 a second, taking `take`.
fn pace_step(take: f64) -> PaceStep {
    let mut step = PaceStep {
        replica: 1,
        ..PaceStep::default()
    };
    step.dimensions[0].configured = Some((10.0, 10.0));
    step.dimensions[0].take = take;
    step
}

/// Any number, the awkward ones often.
fn number() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>(),
        -1e6f64..1e6,
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(f64::MAX),
        Just(f64::MIN_POSITIVE),
        Just(0.0),
    ]
}

/// A step from flat inputs (a flat strategy keeps proptest's value trees small): per
/// dimension 6 numbers, 2 flags (a report, a configured limit) and a hold.
fn build_step(
    numbers: &[f64],
    flags: &[bool],
    holds: &[Duration],
    max_wait: Duration,
    replica: u64,
) -> PaceStep {
    let mut step = PaceStep {
        max_wait,
        replica,
        ..PaceStep::default()
    };
    for (d, dimension) in step.dimensions.iter_mut().enumerate() {
        let n = &numbers[6 * d..6 * d + 6];
        *dimension = DimensionStep {
            report: flags[2 * d].then_some(BucketReport {
                capacity: n[0],
                level: n[1],
                rate: n[2],
                hold: holds[d],
            }),
            configured: flags[2 * d + 1].then_some((n[0], n[3])),
            spent: n[4],
            take: n[5],
            lease: n[4].abs(),
        };
    }
    step
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// Whatever a pacing key holds (any number in any of its fields, written by another
    /// writer) and whatever numbers a pacing step carries (NaN, infinities, the largest and
    /// smallest doubles, any duration), Redis answers it within the timeout, with finite
    /// numbers, no wait longer than 25 hours, no reservation past the step's `max_wait`,
    /// and the key keeps a TTL of at most 25 hours plus the store's ttl.
    #[test]
    fn any_pacing_step_is_answered_and_the_key_expires(
        stored in proptest::collection::vec(
            (prop::sample::select(vec!["c", "r", "l", "t", "h", "p", "n", "o", "i"]), 0usize..4, number()),
            0..24,
        ),
        numbers in proptest::collection::vec(number(), 24 * 3),
        flags in proptest::collection::vec(any::<bool>(), 8 * 3),
        holds in proptest::collection::vec(duration(), 4 * 3),
        waits in proptest::collection::vec(duration(), 3),
        replica in any::<u64>(),
    ) {
        let w = world();
        let s = &w.store;
        let key = s.key("pace", "any-step");
        for (field, d, value) in &stored {
            let _: () = redis::cmd("HSET")
                .arg(&key)
                .arg(format!("{field}{d}"))
                .arg(value.to_string())
                .query(&mut *w.conn.lock().unwrap())
                .unwrap();
        }
        for i in 0..3 {
            let step = build_step(
                &numbers[24 * i..],
                &flags[8 * i..],
                &holds[4 * i..],
                waits[i],
                replica,
            );
            let answer = timed("pace", s.pace("any-step", step));
            prop_assert!(answer.is_some(), "Redis answers every step");
            let answer = answer.unwrap();
            match answer.wait {
                Ok(wait) => prop_assert!(wait <= waits[i], "{wait:?} past {:?}", waits[i]),
                Err(needed) => prop_assert!(needed <= MAX_HOLD, "{needed:?}"),
            }
            for view in answer.buckets.iter().flatten() {
                prop_assert!(view.capacity > 0.0 && view.capacity.is_finite());
                prop_assert!(view.level.is_finite() && view.rate.is_finite());
                prop_assert!(view.hold <= MAX_HOLD);
            }
            let ttl: i64 = redis::cmd("PTTL")
                .arg(s.key("pace", "any-step"))
                .query(&mut *w.conn.lock().unwrap())
                .unwrap();
            prop_assert!(ttl > 0 && ttl <= 25 * 3_600_000 + 3_600_000, "{ttl}");
        }
        prop_assert!(!s.is_degraded());
    }
}

const YEAR: Duration = Duration::from_secs(365 * 86_400);

/// An operation on a `LocalStore`, with any of its inputs.
#[derive(Clone, Debug)]
enum Op {
    Advance(Duration),
    SetPause(PauseKind, u8, Duration, String),
    Pause(PauseKind, u8),
    Failure(u8, u32, Duration),
    Success(u8),
    Claim(u8, Duration),
    Finish(u8, u64, bool, Duration),
    Abandon(u8, u64),
    Spend(u8, u32, u32),
    Refill(u8, u32, u32),
}

fn duration() -> impl Strategy<Value = Duration> {
    prop_oneof![
        (0u64..120_000).prop_map(Duration::from_millis),
        (any::<u64>(), 0u32..1_000_000_000).prop_map(|(s, n)| Duration::new(s, n)),
        Just(Duration::MAX),
        Just(Duration::ZERO),
    ]
}

fn pause_kind() -> impl Strategy<Value = PauseKind> {
    prop_oneof![Just(PauseKind::Pause), Just(PauseKind::Cooldown)]
}

fn op() -> impl Strategy<Value = Op> {
    let key = || 0u8..4;
    prop_oneof![
        duration().prop_map(Op::Advance),
        (pause_kind(), key(), duration(), ".{0,12}")
            .prop_map(|(p, k, d, c)| Op::SetPause(p, k, d, c)),
        (pause_kind(), key()).prop_map(|(p, k)| Op::Pause(p, k)),
        (key(), any::<u32>(), duration()).prop_map(|(k, t, d)| Op::Failure(k, t, d)),
        key().prop_map(Op::Success),
        (key(), duration()).prop_map(|(k, d)| Op::Claim(k, d)),
        (key(), any::<u64>(), any::<bool>(), duration())
            .prop_map(|(k, t, ok, d)| Op::Finish(k, t, ok, d)),
        (key(), any::<u64>()).prop_map(|(k, t)| Op::Abandon(k, t)),
        (key(), any::<u32>(), any::<u32>()).prop_map(|(k, c, n)| Op::Spend(k, c, n)),
        (key(), any::<u32>(), any::<u32>()).prop_map(|(k, t, n)| Op::Refill(k, t, n)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_local_store_takes_any_input(ops in proptest::collection::vec(op(), 1..40)) {
        let clock = ManualClock::new();
        let store = LocalStore::with_clock(clock.clone()).capacity(3);
        let mut tokens = Vec::new();
        for op in ops {
            match op {
                // Time is kept in u64 nanoseconds (584 years from the clock's start): a
                // run of advances of at most a year each stays well within it.
                Op::Advance(d) => clock.advance(d.min(YEAR)),
                Op::SetPause(p, k, d, c) => {
                    // The pause in force: this one, or a later one already set.
                    let p = store.set_pause_now(p, &k.to_string(), d, &c);
                    prop_assert!(p.overdue.is_zero());
                }
                Op::Pause(p, k) => {
                    if let Some(p) = store.pause_now(p, &k.to_string()) {
                        prop_assert!(p.overdue <= p.max_jitter());
                        let _ = p.wait(f64::NAN);
                        let _ = p.wait(2.0);
                    }
                }
                Op::Failure(k, t, d) => {
                    let rule = BreakerRule { threshold: t, cooldown: d };
                    store.record_failure_now(&k.to_string(), rule);
                }
                Op::Success(k) => store.record_success_now(&k.to_string()),
                Op::Claim(k, d) => {
                    if let Some(t) = store.claim_trial_now(&k.to_string(), d) {
                        tokens.push(t.0);
                    }
                }
                Op::Finish(k, t, ok, d) => {
                    let t = tokens.pop().unwrap_or(t);
                    let rule = BreakerRule { threshold: 1, cooldown: d };
                    store.finish_trial_now(&k.to_string(), TrialToken(t), ok, rule);
                }
                Op::Abandon(k, t) => store.abandon_trial(&k.to_string(), TrialToken(t)),
                Op::Spend(k, c, n) => {
                    store.spend_now(&k.to_string(), c, n);
                }
                Op::Refill(k, t, n) => store.refill_now(&k.to_string(), t, n),
            }
            for k in 0..4u8 {
                let _ = store.circuit_now(&k.to_string());
                let _ = store.pause_now(PauseKind::Pause, &k.to_string());
                let _ = store.pause_now(PauseKind::Cooldown, &k.to_string());
            }
        }
        // Every key still works after any of it.
        let fresh = BreakerRule { threshold: 1, cooldown: Duration::from_secs(1) };
        let open = matches!(store.record_failure_now("after", fresh), CircuitState::Open { .. });
        prop_assert!(open);
        for p in [PauseKind::Pause, PauseKind::Cooldown] {
            prop_assert!(store.set_pause_now(p, "after", Duration::from_secs(1), "rate_limit").remaining > Duration::ZERO);
        }
    }
}
