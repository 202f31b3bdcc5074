//! The figures of BENCHMARKS.md's "Across a fleet" section, measured against a
//! `redis-server` this program starts on loopback: round trips per call, added latency
//! against `LocalStore`, propagation between replicas, fleet-wide half-open, and what a
//! stopped Redis costs. Run with `cargo run --release -p agent-error-redis --example figures`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use agent_error::recover::{CircuitBreaker, LocalStore};
use agent_error::redis::RedisStore;
use agent_error::store::{PauseKind, PauseStore};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The tests' own `redis-server` on a free loopback port, killed on drop.
#[path = "../tests/support/mod.rs"]
mod support;

fn percentiles(mut v: Vec<Duration>) -> (Duration, Duration, Duration) {
    v.sort();
    let at = |q: f64| v[((v.len() as f64 - 1.0) * q) as usize];
    (at(0.5), at(0.99), *v.last().unwrap())
}

async fn latencies(breaker: &CircuitBreaker, key: &str, fail: bool, n: usize) -> Vec<Duration> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let started = Instant::now();
        let _ = breaker
            .call_async(key, async {
                if fail {
                    Err::<(), BoxError>("x".into())
                } else {
                    Ok(())
                }
            })
            .await;
        out.push(started.elapsed());
    }
    out
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let mut server = support::Server::start();
    let url = server.url();
    let redis = RedisStore::builder(url.as_str()).connect().await.unwrap();

    // Round trips per call.
    let shared = CircuitBreaker::new()
        .threshold(u32::MAX)
        .store(Arc::new(redis.clone()));
    let _ = latencies(&shared, "healthy", false, 10).await;
    let before = redis.round_trips();
    let _ = latencies(&shared, "healthy", false, 10_000).await;
    println!(
        "round trips, 10,000 calls on a healthy key (staleness 1 s): {}",
        redis.round_trips() - before
    );
    let before = redis.round_trips();
    let _ = latencies(&shared, "failing", true, 1_000).await;
    println!(
        "round trips, 1,000 failing calls: {}",
        redis.round_trips() - before
    );

    // Added latency against LocalStore.
    let local = CircuitBreaker::new()
        .threshold(u32::MAX)
        .store(Arc::new(LocalStore::new()));
    for (name, breaker, store) in [
        ("LocalStore", &local, None),
        ("RedisStore", &shared, Some(&redis)),
    ] {
        let _ = store;
        let (p50, p99, max) = percentiles(latencies(breaker, "healthy", false, 10_000).await);
        println!("{name} healthy key: p50 {p50:?} p99 {p99:?} max {max:?}");
        let (p50, p99, max) = percentiles(latencies(breaker, "failing", true, 2_000).await);
        println!("{name} failing key: p50 {p50:?} p99 {p99:?} max {max:?}");
    }

    // Propagation A -> B, staleness 1 s: B has a copy saying "no pause" when A writes.
    let mut worst = Duration::ZERO;
    for i in 0..5 {
        let a = RedisStore::builder(url.as_str()).connect().await.unwrap();
        let b = RedisStore::builder(url.as_str()).connect().await.unwrap();
        let key = format!("propagation-{i}");
        let _ = b.pause(PauseKind::Pause, &key).await;
        tokio::time::sleep(Duration::from_millis(137 * i)).await;
        a.set_pause(
            PauseKind::Pause,
            &key,
            Duration::from_secs(30),
            "rate_limit",
        )
        .await;
        let started = Instant::now();
        while b.pause(PauseKind::Pause, &key).await.is_none()
            && started.elapsed() < Duration::from_secs(5)
        {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        worst = worst.max(started.elapsed());
    }
    println!("propagation A -> B, worst of 5 (staleness 1 s): {worst:?}");

    // Fleet-wide half-open: 32 tasks across 4 stores, 10 rounds.
    let mut trials_per_round = Vec::new();
    for round in 0..10 {
        let key = format!("half-open-{round}");
        let mut breakers = Vec::new();
        for _ in 0..4 {
            let s = RedisStore::builder(url.as_str())
                .staleness(Duration::from_millis(100))
                .connect()
                .await
                .unwrap();
            breakers.push(Arc::new(
                CircuitBreaker::new()
                    .threshold(1)
                    .cooldown(Duration::from_millis(200))
                    .store(Arc::new(s)),
            ));
        }
        let _ = breakers[0]
            .call_async(&key, async { Err::<(), BoxError>("x".into()) })
            .await;
        tokio::time::sleep(Duration::from_millis(250)).await;
        let trials = Arc::new(AtomicU32::new(0));
        let mut tasks = Vec::new();
        for i in 0..32 {
            let (b, t, key) = (breakers[i % 4].clone(), trials.clone(), key.clone());
            tasks.push(tokio::spawn(async move {
                let _ = b
                    .call_async(&key, async {
                        t.fetch_add(1, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        Ok::<_, BoxError>(())
                    })
                    .await;
            }));
        }
        for t in tasks {
            let _ = t.await;
        }
        trials_per_round.push(trials.load(Ordering::SeqCst));
    }
    println!("half-open, 32 tasks across 4 stores, trials per round: {trials_per_round:?}");

    // Redis stopped.
    let down = RedisStore::builder(url.as_str()).connect().await.unwrap();
    let breaker = CircuitBreaker::new()
        .threshold(u32::MAX)
        .store(Arc::new(down.clone()));
    let _ = latencies(&breaker, "k", true, 10).await;
    server.kill();
    let killed = Instant::now();
    let mut worst = Duration::ZERO;
    let mut switched = None;
    for _ in 0..2_000 {
        let started = Instant::now();
        let _ = breaker
            .call_async("k", async { Err::<(), BoxError>("x".into()) })
            .await;
        worst = worst.max(started.elapsed());
        if switched.is_none() && down.is_degraded() {
            switched = Some(killed.elapsed());
        }
    }
    println!(
        "Redis stopped: worst added latency per call {worst:?} over 2,000 failing calls; switched to local state after {switched:?}"
    );
}
