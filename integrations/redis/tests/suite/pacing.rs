//! Pacers sharing their budgets through a real `redis-server`: the pacing script computes
//! what the in-process store computes, replicas together stay under the limit, and a
//! replica that loses Redis paces alone with its share.

use crate::support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_error::recover::{Cost, Dimension, Limit, LocalStore, Pacer};
use agent_error::redis::RedisStore;
use agent_error::store::{BucketReport, BucketView, PaceAnswer, PaceStep, PaceStore};
use support::Server;

const KEY: &str = "openai/acct-1/gpt-4o";

async fn store(server: &Server, timeout: Duration) -> RedisStore {
    RedisStore::builder(server.url())
        .timeout(timeout)
        .retry_interval(Duration::from_millis(200))
        .connect()
        .await
        .expect("a store")
}

fn report(capacity: f64, level: f64, rate: f64, hold: Duration) -> BucketReport {
    BucketReport {
        capacity,
        level,
        rate,
        hold,
    }
}

/// How far apart the two stores' clocks may read one step: the round trip to Redis, on a
/// busy machine.
const SLACK: Duration = Duration::from_millis(50);

fn close(a: Duration, b: Duration) -> bool {
    a.abs_diff(b) <= SLACK
}

/// Asserts that Redis answered what the local store answered, up to what the clocks'
/// difference explains: a level differs by at most the refill over it, a wait or a hold by
/// at most that difference.
fn assert_agree(step: usize, local: &PaceAnswer, redis: &PaceAnswer) {
    let why = format!("step {step}: local {local:?}, redis {redis:?}");
    match (local.wait, redis.wait) {
        (Ok(a), Ok(b)) | (Err(a), Err(b)) => assert!(close(a, b), "{why}"),
        _ => panic!("reserved in one store only: {why}"),
    }
    assert_eq!(local.replicas, redis.replicas, "{why}");
    for (a, b) in local.buckets.iter().zip(&redis.buckets) {
        match (a, b) {
            (None, None) => {}
            (Some(a), Some(b)) => assert_views_agree(a, b, &why),
            _ => panic!("a bucket known in one store only: {why}"),
        }
    }
}

fn assert_views_agree(a: &BucketView, b: &BucketView, why: &str) {
    assert!((a.capacity - b.capacity).abs() < 1e-9, "{why}");
    assert!((a.rate - b.rate).abs() < 1e-9, "{why}");
    let refill = a.rate * SLACK.as_secs_f64() + 1e-6;
    assert!((a.level - b.level).abs() <= refill, "{why}");
    assert!(close(a.hold, b.hold), "{why}");
}

/// A step, and what its answer must be.
type Checked = (PaceStep, fn(&PaceAnswer) -> bool);

/// The steps of the agreement test, each with what it must answer (checked on both stores).
fn steps() -> Vec<Checked> {
    const R: usize = 0;
    const T: usize = 1;
    const I: usize = 2;
    const O: usize = 3;
    let secs = Duration::from_secs;
    let step = |replica: u64, max_wait: Duration| PaceStep {
        max_wait,
        replica,
        ..PaceStep::default()
    };
    let mut steps: Vec<Checked> = Vec::new();

    // A configured limit: a full bucket, one request taken.
    let mut s = step(1, Duration::ZERO);
    s.dimensions[R].configured = Some((20.0, 20.0 / 60.0));
    s.dimensions[R].take = 1.0;
    steps.push((s, |a| {
        a.wait == Ok(Duration::ZERO) && a.buckets[R].is_some_and(|b| b.level > 18.9)
    }));

    // A report on tokens, from a second replica.
    let mut s = step(2, Duration::ZERO);
    s.dimensions[R].configured = Some((20.0, 20.0 / 60.0));
    s.dimensions[R].take = 1.0;
    s.dimensions[T].report = Some(report(1000.0, 100.0, 10.0, Duration::ZERO));
    s.dimensions[T].take = 50.0;
    steps.push((s, |a| a.wait == Ok(Duration::ZERO) && a.replicas == 2));

    // A more lenient report, by less than what was reserved lately (50 tokens), does not
    // raise the level: the most restrictive wins. The take needs 5 s, more than its
    // max_wait: refused, nothing taken.
    let mut s = step(3, secs(1));
    s.dimensions[R].take = 1.0;
    s.dimensions[T].report = Some(report(1000.0, 90.0, 10.0, Duration::ZERO));
    s.dimensions[T].take = 100.0;
    steps.push((s, |a| {
        matches!(a.wait, Err(w) if w > Duration::from_millis(4900))
            && a.replicas == 3
            && a.buckets[T].is_some_and(|b| b.level < 51.0)
    }));

    // The same within its max_wait: reserved, the level goes below zero.
    let mut s = step(1, secs(10));
    s.dimensions[T].take = 100.0;
    steps.push((s, |a| {
        matches!(a.wait, Ok(w) if w > Duration::from_millis(4900))
            && a.buckets[T].is_some_and(|b| b.level < -49.0)
    }));

    // Spent meanwhile: tokens given back, requests spent.
    let mut s = step(2, Duration::ZERO);
    s.dimensions[T].spent = -20.0;
    s.dimensions[R].spent = 3.0;
    steps.push((s, |a| a.wait == Ok(Duration::ZERO)));

    // A window: nothing comes back for 2 s, then 100 a minute.
    let mut s = step(3, Duration::ZERO);
    s.dimensions[I].report = Some(report(100.0, 0.0, 100.0 / 60.0, secs(2)));
    s.dimensions[I].take = 1.0;
    steps.push((s, |a| {
        matches!(a.wait, Err(w) if w > Duration::from_millis(2550))
            && a.buckets[I].is_some_and(|b| b.hold > Duration::from_millis(1900))
    }));

    // No refill known: what is left is spent, then a take waits the short default for its
    // probe (refused here, nothing taken).
    let mut s = step(1, Duration::ZERO);
    s.dimensions[O].report = Some(report(50.0, 10.0, 0.0, Duration::ZERO));
    s.dimensions[O].take = 20.0;
    steps.push((s, |a| {
        a.wait == Err(Duration::from_secs(1)) && a.buckets[O].is_some_and(|b| b.level == 10.0)
    }));
    let mut s = step(1, Duration::ZERO);
    s.dimensions[O].take = 10.0;
    steps.push((s, |a| {
        a.wait == Ok(Duration::ZERO) && a.buckets[O].is_some_and(|b| b.level == 0.0)
    }));

    // A report that first tells the refill is not taken as it is: the 10 reserved since the
    // last report may still be on their way, and are counted.
    let mut s = step(2, Duration::ZERO);
    s.dimensions[O].report = Some(report(50.0, 40.0, 1.0, Duration::ZERO));
    steps.push((s, |a| {
        a.buckets[O].is_some_and(|b| (b.level - 30.0).abs() < 0.01)
    }));

    // A take above the capacity waits for a full bucket.
    let mut s = step(2, Duration::ZERO);
    s.dimensions[R].take = 30.0;
    steps.push((
        s,
        |a| matches!(a.wait, Err(w) if w > Duration::from_secs(14)),
    ));

    // An implausible report changes nothing; a first report on a configured bucket is
    // taken as it is.
    let mut s = step(3, Duration::ZERO);
    s.dimensions[R].report = Some(report(0.0, 0.0, 1.0, Duration::ZERO));
    s.dimensions[T].report = Some(report(f64::NAN, 1.0, 1.0, Duration::ZERO));
    steps.push((s, |a| a.buckets[R].is_some_and(|b| b.capacity == 20.0)));
    let mut s = step(3, Duration::ZERO);
    s.dimensions[R].report = Some(report(20.0, 2.0, 0.5, Duration::ZERO));
    s.dimensions[R].take = 1.0;
    steps.push((s, |a| {
        a.wait == Ok(Duration::ZERO) && a.buckets[R].is_some_and(|b| b.level < 1.1)
    }));

    // Then the most restrictive wins while calls may be on their way: a report of 3 left,
    // no more than the requests reserved lately, keeps the level near 0.
    let mut s = step(1, Duration::ZERO);
    s.dimensions[R].report = Some(report(20.0, 3.0, 0.5, Duration::ZERO));
    s.dimensions[R].take = 1.0;
    s.dimensions[R].configured = Some((5.0, 1.0));
    steps.push((s, |a| {
        a.wait == Ok(Duration::ZERO)
            && a.buckets[R].is_some_and(|b| b.level < 0.2 && b.capacity == 20.0)
    }));

    // A peer's number spent (a response's usage of u64::MAX tokens) counts one bucket at
    // most, and takes the level no lower than minus one bucket: the next take waits about
    // two windows, not years.
    let mut s = step(2, Duration::ZERO);
    s.dimensions[T].spent = u64::MAX as f64;
    s.dimensions[T].take = 1.0;
    steps.push((s, |a| {
        matches!(a.wait, Err(w) if w < Duration::from_secs(250))
            && a.buckets[T].is_some_and(|b| b.level >= -1000.0)
    }));

    // A report of more than what is known and was reserved lately lifts the level to it,
    // less what was reserved lately (3 requests and the one just taken).
    let mut s = step(3, Duration::ZERO);
    s.dimensions[R].report = Some(report(20.0, 15.0, 0.5, Duration::ZERO));
    steps.push((s, |a| {
        a.buckets[R].is_some_and(|b| (b.level - 11.0).abs() < 0.01)
    }));
    steps
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_script_computes_what_the_local_store_computes() {
    let server = Server::start();
    let redis = store(&server, Duration::from_secs(2)).await;
    let local = LocalStore::new();
    for (i, (step, expected)) in steps().into_iter().enumerate() {
        let remote = redis.pace(KEY, step).await.expect("Redis answers");
        let here = local.pace_now(KEY, &step);
        assert_agree(i, &here, &remote);
        assert!(expected(&here), "step {i}: {here:?}");
    }
}

/// A budget whose refill no response told (Azure sends only what remains): what is left
/// is spent, then one call goes a second as a probe, and the script computes it as the
/// local store does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_budget_with_no_known_rate_is_spent_then_probed_once_a_second() {
    let server = Server::start();
    let redis = store(&server, Duration::from_secs(2)).await;
    let local = LocalStore::new();
    let mut step = PaceStep {
        max_wait: Duration::from_secs(10),
        replica: 1,
        ..PaceStep::default()
    };
    step.dimensions[0].report = Some(report(5.0, 5.0, 0.0, Duration::ZERO));
    step.dimensions[0].take = 1.0;
    let secs = Duration::from_secs;
    for (i, expected) in [0, 0, 0, 0, 0, 1, 2, 3].into_iter().enumerate() {
        let remote = redis.pace(KEY, step).await.expect("Redis answers");
        let here = local.pace_now(KEY, &step);
        assert_agree(i, &here, &remote);
        assert!(
            matches!(here.wait, Ok(w) if close(w, secs(expected))),
            "step {i}: {here:?}"
        );
        step.dimensions[0].report = None;
    }
    // A call that may not wait is told the next turn, and spends nothing.
    step.max_wait = Duration::ZERO;
    let remote = redis.pace(KEY, step).await.expect("Redis answers");
    let here = local.pace_now(KEY, &step);
    assert_agree(8, &here, &remote);
    assert!(matches!(here.wait, Err(w) if close(w, secs(4))), "{here:?}");
    assert!(
        remote.buckets[0].is_some_and(|b| b.level == -3.0),
        "{remote:?}"
    );
}

/// A fleet's first calls go before any response told the limit: the bucket the first
/// report makes is short of them, on both stores.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_limit_known_is_short_of_what_went_before_it() {
    let server = Server::start();
    let redis = store(&server, Duration::from_secs(2)).await;
    let local = LocalStore::new();
    let mut step = PaceStep {
        replica: 1,
        ..PaceStep::default()
    };
    step.dimensions[0].take = 1.0;
    for i in 0..30 {
        let remote = redis.pace(KEY, step).await.expect("Redis answers");
        let here = local.pace_now(KEY, &step);
        assert_agree(i, &here, &remote);
        assert_eq!(here.wait, Ok(Duration::ZERO));
    }
    // Written when 10 of the 30 had arrived: the 20 others are spent too.
    step.dimensions[0].report = Some(report(240.0, 230.0, 4.0, Duration::ZERO));
    step.dimensions[0].take = 0.0;
    let remote = redis.pace(KEY, step).await.expect("Redis answers");
    let here = local.pace_now(KEY, &step);
    assert_agree(30, &here, &remote);
    assert!(
        remote.buckets[0].is_some_and(|b| (b.level - 210.0).abs() < 0.1),
        "{remote:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_are_counted_for_ten_seconds_at_most_64() {
    let server = Server::start();
    let redis = store(&server, Duration::from_secs(2)).await;
    let local = LocalStore::new();
    let mut step = PaceStep::default();
    step.dimensions[0].configured = Some((10.0, 1.0));
    for replica in 1..=70 {
        step.replica = replica;
        let remote = redis.pace(KEY, step).await.expect("Redis answers");
        let here = local.pace_now(KEY, &step);
        assert_eq!(remote.replicas, here.replicas);
        assert_eq!(remote.replicas, u32::try_from(replica.min(64)).unwrap());
    }
    // Seen again, a replica is counted once.
    step.replica = 1;
    let remote = redis.pace(KEY, step).await.expect("Redis answers");
    assert_eq!(remote.replicas, local.pace_now(KEY, &step).replicas);
    let fields = hash_fields(&server, &redis.key("pace", KEY));
    assert_eq!(fields.iter().filter(|f| f.starts_with("x:")).count(), 64);

    // A replica last seen more than 10 s ago is forgotten.
    let other = redis.key("pace", "other");
    let old = format!("{}", now_ms(&server) - 10_500);
    server.command(&["HSET", &other, "x:7", &old]);
    step.replica = 8;
    assert_eq!(redis.pace("other", step).await.unwrap().replicas, 1);
    assert_eq!(
        hash_fields(&server, &other)
            .iter()
            .filter(|f| f.starts_with("x:"))
            .count(),
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_lives_until_its_buckets_are_full_again_plus_the_ttl() {
    let server = Server::start();
    let redis = RedisStore::builder(server.url())
        .timeout(Duration::from_secs(2))
        .ttl(Duration::from_secs(60))
        .connect()
        .await
        .unwrap();
    // 20 a minute, 2 taken: full again in 6 s.
    let mut step = PaceStep::default();
    step.dimensions[0].configured = Some((20.0, 20.0 / 60.0));
    step.dimensions[0].take = 2.0;
    redis.pace(KEY, step).await.unwrap();
    let ttl = pttl(&server, &redis.key("pace", KEY));
    assert!((65_900..=66_000).contains(&ttl), "{ttl}");

    // No refill known and not full: the longest hold, 25 h, plus the ttl.
    let mut step = PaceStep::default();
    step.dimensions[3].report = Some(report(50.0, 10.0, 0.0, Duration::ZERO));
    redis.pace("no-rate", step).await.unwrap();
    let ttl = pttl(&server, &redis.key("pace", "no-rate"));
    assert!((90_059_900..=90_060_000).contains(&ttl), "{ttl}");

    // Nothing but the replica: the ttl.
    redis.pace("nothing", PaceStep::default()).await.unwrap();
    let ttl = pttl(&server, &redis.key("pace", "nothing"));
    assert!((59_900..=60_000).contains(&ttl), "{ttl}");
}

/// 40 calls at once, across 3 replicas (each its own store, as separate processes would
/// have), on a limit of 20 a minute: together they are granted the 20, and at most what
/// came back while the calls ran (the bucket refills at 1 every 3 s; the run lasts
/// milliseconds, so in practice exactly 20).
///
/// The pacers' staleness is zero, so that every reservation is one step on Redis and no
/// replica leases budget it could not spend: this checks the store's atomicity.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pacers_sharing_redis_never_grant_more_than_the_limit() {
    let server = Server::start();
    let limit = Limit::requests(20, Duration::from_secs(60));
    let mut pacers = Vec::new();
    for _ in 0..3 {
        // A generous timeout: a replica that could not reach Redis would pace alone.
        let store = store(&server, Duration::from_secs(2)).await;
        pacers.push(
            Pacer::new()
                .limit(KEY, limit)
                .staleness(Duration::ZERO)
                .shared_in(Arc::new(store)),
        );
    }
    let started = Instant::now();
    let mut calls = Vec::new();
    for i in 0..40 {
        let pacer = pacers[i % 3].clone();
        calls.push(tokio::spawn(async move {
            if i % 2 == 0 {
                pacer
                    .reserve(KEY, Cost::request(), Duration::ZERO)
                    .await
                    .is_ok()
            } else {
                tokio::task::spawn_blocking(move || pacer.try_acquire(KEY, Cost::request()).is_ok())
                    .await
                    .unwrap()
            }
        }));
    }
    let mut granted = 0;
    for call in calls {
        granted += u32::from(call.await.unwrap());
    }
    let elapsed = started.elapsed();
    // What came back while the calls ran: 20 a minute.
    let refilled = (elapsed.as_secs_f64() / 3.0).floor() as u32;
    assert!(
        (20..=20 + refilled).contains(&granted),
        "{granted} granted in {elapsed:?}"
    );

    // The three replicas are counted: a fourth one stepping sees them.
    let observer = store(&server, Duration::from_secs(2)).await;
    let step = PaceStep {
        replica: 4,
        ..PaceStep::default()
    };
    assert_eq!(observer.pace(KEY, step).await.unwrap().replicas, 4);
}

/// Every reservation counts through Redis: 200 calls at once on three replicas, under a
/// limit of 20 a second with a longest wait of 1.5 s, are granted at most as the limit
/// refills (about 50 by 1.5 s), never all together.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_queue_deeper_than_twice_the_capacity_waits_its_turn() {
    let server = Server::start();
    let limit = Limit::requests(20, Duration::from_secs(1));
    let mut pacers = Vec::new();
    for _ in 0..3 {
        let store = store(&server, Duration::from_secs(2)).await;
        pacers.push(
            Pacer::new()
                .limit(KEY, limit)
                .max_wait(Duration::from_millis(1_500))
                .shared_in(Arc::new(store)),
        );
    }
    let granted = support::grants(&pacers, KEY, 200, Duration::from_millis(1_500)).await;
    support::assert_under_the_curve(limit, &granted);
    assert!(
        (40..=60).contains(&granted.len()),
        "{} granted",
        granted.len()
    );
}

/// The property, on Redis: whatever the limit, the longest wait, the number of calls made
/// at once and of replicas, grants follow the limit's curve.
#[test]
fn grants_never_pass_the_limits_curve() {
    let server = Server::start();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let stores: Vec<Arc<RedisStore>> = (0..3)
        .map(|_| Arc::new(runtime.block_on(store(&server, Duration::from_secs(2)))))
        .collect();
    support::grants_follow_the_curve(&runtime, &stores, 12);
}

/// Redis stopped: the store answers `None` within its timeout, and each pacer goes on
/// alone with its share of the limit (half of 20, for 2 replicas).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_server_leaves_each_pacer_its_share() {
    let mut server = Server::start();
    let timeout = Duration::from_millis(100);
    let limit = Limit::requests(20, Duration::from_secs(60));
    let a = Pacer::new()
        .limit(KEY, limit)
        .shared_in(Arc::new(store(&server, timeout).await));
    let b_store = store(&server, timeout).await;
    let b = Pacer::new()
        .limit(KEY, limit)
        .shared_in(Arc::new(b_store.clone()));
    // Two rounds, each past the pacers' staleness so that every call asks the store: at
    // the second, both know they are 2.
    for _ in 0..2 {
        for pacer in [&a, &b] {
            assert_eq!(
                pacer.reserve(KEY, Cost::request(), Duration::ZERO).await,
                Ok(Duration::ZERO)
            );
        }
        tokio::time::sleep(Pacer::DEFAULT_STALENESS + Duration::from_millis(50)).await;
    }
    // 4 of 20 spent, as the store knew it at a's last step, with a's lease.
    let left = a.remaining(KEY, Dimension::Requests).unwrap();
    assert!((8.0..=17.5).contains(&left), "{left}");
    server.kill();

    let started = Instant::now();
    let step = PaceStep {
        replica: 9,
        ..PaceStep::default()
    };
    assert_eq!(b_store.pace(KEY, step).await, None);
    assert!(started.elapsed() <= timeout + Duration::from_millis(100));

    // Each pacer: its share of what the fleet had left (16 of 20, some of it leased to one
    // replica or the other), with its own lease; never more than its share of the limit,
    // 10, and the two together never more than what was left.
    let mut both = 0;
    for pacer in [&a, &b] {
        let mut granted = 0;
        while pacer
            .reserve(KEY, Cost::request(), Duration::ZERO)
            .await
            .is_ok()
        {
            granted += 1;
            assert!(granted <= 10, "more than the share");
        }
        both += granted;
        let left = pacer.remaining(KEY, Dimension::Requests).unwrap();
        assert!((0.0..1.0).contains(&left), "{left}");
        // The next one comes back at the share's rate: 10 a minute.
        let wait = pacer.try_acquire(KEY, Cost::request()).unwrap_err();
        assert!(
            wait > Duration::ZERO && wait <= Duration::from_secs(6),
            "{wait:?}"
        );
    }
    assert!((1..=16).contains(&both), "{both}");
}

fn hash_fields(server: &Server, key: &str) -> Vec<String> {
    match server.command(&["HKEYS", key]) {
        redis::Value::Array(items) => items
            .into_iter()
            .filter_map(|v| match v {
                redis::Value::BulkString(b) => String::from_utf8(b).ok(),
                _ => None,
            })
            .collect(),
        other => panic!("{other:?}"),
    }
}

fn pttl(server: &Server, key: &str) -> i64 {
    match server.command(&["PTTL", key]) {
        redis::Value::Int(ms) => ms,
        other => panic!("{other:?}"),
    }
}

fn now_ms(server: &Server) -> i64 {
    match server.command(&["TIME"]) {
        redis::Value::Array(t) => {
            let read = |v: &redis::Value| match v {
                redis::Value::BulkString(b) => {
                    std::str::from_utf8(b).unwrap().parse::<i64>().unwrap()
                }
                other => panic!("{other:?}"),
            };
            read(&t[0]) * 1000 + read(&t[1]) / 1000
        }
        other => panic!("{other:?}"),
    }
}

/// Redis paused for 1.5 s in a 4 s run: each replica paces alone meanwhile, and tells
/// the store what it spent when the store answers again, so that the fleet does not spend
/// a second time what the store's bucket refilled during the outage. Two replicas on a
/// limit of 20 a second never grant more than 20 + 20 a second.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_replicas_spent_alone_is_told_when_the_store_is_back() {
    let server = Server::start();
    let limit = Limit::requests(20, Duration::from_secs(1));
    let mut pacers = Vec::new();
    for _ in 0..2 {
        let store = store(&server, Duration::from_millis(50)).await;
        pacers.push(Pacer::new().limit(KEY, limit).shared_in(Arc::new(store)));
    }
    let started = Instant::now();
    let run = Duration::from_secs(4);
    let mut loops = Vec::new();
    for pacer in pacers {
        loops.push(tokio::spawn(async move {
            let mut granted = 0u32;
            while started.elapsed() < run {
                match pacer.reserve(KEY, Cost::request(), Duration::ZERO).await {
                    Ok(_) => granted += 1,
                    Err(_) => tokio::time::sleep(Duration::from_millis(5)).await,
                }
            }
            granted
        }));
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    server.command(&["CLIENT", "PAUSE", "1500", "ALL"]);
    let mut granted = 0;
    for one in loops {
        granted += one.await.unwrap();
    }
    let elapsed = started.elapsed().as_secs_f64();
    let bound = 20.0 + 20.0 * elapsed;
    eprintln!("{granted} granted in {elapsed:.2} s, against a bound of {bound:.0}");
    assert!(
        f64::from(granted) <= bound + 2.0,
        "{granted} granted in {elapsed:.2} s, against a bound of {bound:.0}"
    );
}
