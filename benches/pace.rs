//! Pacing a fleet: 8 replicas calling a loopback provider that enforces a token bucket of
//! requests and one of tokens, with no pacer, a pacer per replica, and one shared pacer,
//! against a provider that sends OpenAI's rate-limit headers and one that sends none; then
//! what `try_acquire` costs on a key with budget, against a token bucket under a `Mutex`
//! written by hand; and, with keys a tenant's input may name, what a new key costs a pacer
//! holding its `max_keys`, and a hot key's call while other keys come. Run with
//! `cargo bench --bench pace`.
//!
//! `AGENT_ERROR_PACE_SECONDS` sets how long each fleet runs (10 by default; 0 skips the
//! fleets), `AGENT_ERROR_PACE_CRITERION=0` skips the criterion measurements. With the
//! `redis` feature and `redis-server` on the PATH, the shared pacer also runs through a
//! `RedisStore` on a server started on a free loopback port. Under `cargo test --benches`
//! the fleets do not run.

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agent_error::recover::{Cost, Limit, LocalStore, Pacer, Store};
use criterion::{Criterion, criterion_group};

#[path = "../tests/support/rate_limited.rs"]
mod rate_limited;
#[path = "../tests/support/replicas.rs"]
mod replicas;

use rate_limited::{Bucket, Counts, Headers, Provider, Setup};
use replicas::Replica;

const REPLICAS: usize = 8;
const TASKS: usize = 4;

/// 200 requests and 16,000 tokens a second, each bucket full after a second: with calls of
/// 100 tokens on average, the tokens bind first (160 calls a second).
fn setup(headers: Headers) -> Setup {
    Setup {
        requests: Bucket::per(200, Duration::from_secs(1)),
        tokens: Bucket::per(16_000, Duration::from_secs(1)),
        headers,
        latency: Duration::from_millis(20),
    }
}

/// How the replicas are paced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pacing {
    None,
    PerReplica,
    SharedLocal,
    #[cfg(feature = "redis")]
    SharedRedis,
}

impl Pacing {
    fn name(self) -> &'static str {
        match self {
            Pacing::None => "no pacer",
            Pacing::PerReplica => "a pacer per replica",
            Pacing::SharedLocal => "shared pacer (LocalStore)",
            #[cfg(feature = "redis")]
            Pacing::SharedRedis => "shared pacer (RedisStore)",
        }
    }
}

/// One fleet's figures.
struct Row {
    pacing: Pacing,
    headers: Headers,
    counts: Counts,
    share: f64,
}

async fn fleet(
    pacing: Pacing,
    headers: Headers,
    duration: Duration,
    redis: Option<&str>,
) -> Option<Row> {
    let setup = setup(headers);
    let local: Arc<dyn Store> = Arc::new(LocalStore::new());
    let mut fleet = Vec::new();
    for _ in 0..REPLICAS {
        let pacer = match pacing {
            Pacing::None => None,
            Pacing::PerReplica => Some(Pacer::new()),
            Pacing::SharedLocal => Some(Pacer::new().shared_in(local.clone())),
            #[cfg(feature = "redis")]
            Pacing::SharedRedis => Some(Pacer::new().shared_in(redis_store(redis?).await?)),
        };
        fleet.push(Replica {
            pacer,
            tasks: TASKS,
        });
    }
    let _ = redis;
    let provider = Provider::start(setup).await;
    let (seen, timeline) = tokio::join!(
        replicas::run(provider.url(), &fleet, duration),
        timeline(&provider, duration)
    );
    eprintln!("  200s/429s a half second: {timeline}");
    let counts = provider.counts();
    assert_eq!(seen.failed, 0, "every call is answered");
    Some(Row {
        pacing,
        headers,
        share: counts.share_of_limit(&setup),
        counts,
    })
}

/// The calls answered 200 and 429 in each half second of the run.
async fn timeline(provider: &Provider, duration: Duration) -> String {
    let half = Duration::from_millis(500);
    let mut last = provider.counts();
    let mut text = String::new();
    for _ in 0..duration.as_millis() / half.as_millis() {
        tokio::time::sleep(half).await;
        let now = provider.counts();
        text.push_str(&format!(
            "{}/{} ",
            now.ok - last.ok,
            now.limited - last.limited
        ));
        last = now;
    }
    text
}

fn print(rows: &[Row], seconds: u64) {
    let setup = setup(Headers::OpenAi);
    println!(
        "\n{REPLICAS} replicas of {TASKS} tasks, {seconds} s each; provider: {} requests/s and {} tokens/s, buckets full after 1 s, answers after {} ms\n",
        setup.requests.per_second,
        setup.tokens.per_second,
        setup.latency.as_millis()
    );
    println!(
        "| pacing | provider sends | calls | 429s | share 429 | throughput / limit | 429s in the first second | 429s short of requests / tokens |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    for row in rows {
        let c = &row.counts;
        println!(
            "| {} | {} | {} | {} | {:.2}% | {:.1}% | {} | {} / {} |",
            row.pacing.name(),
            match row.headers {
                Headers::OpenAi => "OpenAI's headers",
                Headers::None => "no headers (adaptive)",
            },
            c.calls(),
            c.limited,
            100.0 * c.limited_share(),
            100.0 * row.share,
            c.limited_first_second,
            c.lacked_requests,
            c.lacked_tokens,
        );
    }
    println!();
}

fn figures(seconds: u64) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let duration = Duration::from_secs(seconds);
    let redis = redis_server::start();
    let url = redis.as_ref().map(|server| server.url());
    let pacings = [
        Pacing::None,
        Pacing::PerReplica,
        Pacing::SharedLocal,
        #[cfg(feature = "redis")]
        Pacing::SharedRedis,
    ];
    let mut rows = Vec::new();
    for headers in [Headers::OpenAi, Headers::None] {
        for &pacing in &pacings {
            eprintln!(
                "running {} against a provider with {headers:?} headers…",
                pacing.name()
            );
            match runtime.block_on(fleet(pacing, headers, duration, url.as_deref())) {
                Some(row) => rows.push(row),
                None => eprintln!("  skipped: {}", redis_server::MISSING),
            }
        }
    }
    print(&rows, seconds);
}

/// A `RedisStore` on `url`, if it keeps pacing budgets (`Store::pace` answers).
#[cfg(feature = "redis")]
async fn redis_store(url: &str) -> Option<Arc<dyn Store>> {
    let store = agent_error::redis::RedisStore::builder(url)
        .prefix("pace-bench")
        .connect()
        .await
        .ok()?;
    let probe = agent_error::store::PaceStep::default();
    agent_error::store::PaceStore::pace(&store, "pace-bench/probe", probe).await?;
    Some(Arc::new(store))
}

/// `redis-server` on a free loopback port, for the shared pacer through Redis; killed on drop.
mod redis_server {
    use std::net::{TcpListener, TcpStream};
    use std::process::{Child, Command, Stdio};
    use std::time::{Duration, Instant};

    /// Why a fleet through Redis did not run.
    pub const MISSING: &str = "no RedisStore that keeps pacing budgets: build with `--features redis`, put `redis-server` on the PATH, and a RedisStore whose `Store::pace` answers";

    pub struct Server {
        port: u16,
        child: Child,
    }

    impl Server {
        pub fn url(&self) -> String {
            format!("redis://127.0.0.1:{}", self.port)
        }
    }

    impl Drop for Server {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    /// Starts one when the `redis` feature is on and `redis-server` runs; waits at most 10 s
    /// for it to accept connections.
    pub fn start() -> Option<Server> {
        if !cfg!(feature = "redis") {
            return None;
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .ok()?
            .port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let server = Server { port, child };
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Some(server);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

/// A token bucket under a `Mutex`, per key, as a user would write one instead of a pacer.
struct HandBuckets {
    capacity: f64,
    per_second: f64,
    keys: Mutex<HashMap<String, (f64, Instant)>>,
}

impl HandBuckets {
    fn try_take(&self, key: &str, units: f64) -> Result<(), Duration> {
        let now = Instant::now();
        let mut keys = self.keys.lock().unwrap();
        let (level, at) = match keys.get_mut(key) {
            Some(bucket) => bucket,
            None => keys.entry(key.to_owned()).or_insert((self.capacity, now)),
        };
        *level =
            (*level + self.per_second * now.duration_since(*at).as_secs_f64()).min(self.capacity);
        *at = now;
        if *level >= units {
            *level -= units;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((units - *level) / self.per_second))
        }
    }
}

const KEY: &str = "openai/acct-1/gpt-4o";

/// A limit no bench spends: a trillion requests a second.
const PLENTY: Limit = Limit::requests(1 << 40, Duration::from_secs(1));

fn try_acquire(c: &mut Criterion) {
    let mut group = c.benchmark_group("pace: try_acquire on a key with budget");
    let local = Pacer::new().limit(KEY, PLENTY);
    group.bench_function("Pacer, local", |b| {
        b.iter(|| local.try_acquire(black_box(KEY), Cost::request()))
    });
    // Each replica spends from its fresh local copy; one call in 250 ms asks the store.
    let shared = Pacer::new()
        .shared_in(Arc::new(LocalStore::new()))
        .limit(KEY, PLENTY);
    group.bench_function("Pacer, shared (LocalStore), fresh local copy", |b| {
        b.iter(|| shared.try_acquire(black_box(KEY), Cost::request()))
    });
    let hand = HandBuckets {
        capacity: PLENTY.amount() as f64,
        per_second: PLENTY.amount() as f64,
        keys: Mutex::new(HashMap::new()),
    };
    group.bench_function("token bucket by key under a Mutex, by hand", |b| {
        b.iter(|| hand.try_take(black_box(KEY), 1.0))
    });
    group.finish();
}

/// A pacer full of keys that each hold something (a pause), so that forgetting one loses
/// it: the worst case for making room.
fn full_pacer() -> Pacer {
    let pacer = Pacer::new();
    for i in 0..Pacer::DEFAULT_MAX_KEYS {
        pacer.throttled(&format!("tenant-{i}"), Some(Duration::from_secs(600)));
    }
    pacer
}

/// Keys a tenant's input may name: each one new to a pacer already holding its
/// `max_keys`, and a hot key's call while other threads bring new keys.
fn many_keys(c: &mut Criterion) {
    let mut group = c.benchmark_group("pace: many keys");
    let pacer = full_pacer();
    let mut next = Pacer::DEFAULT_MAX_KEYS;
    group.bench_function("a new key, max_keys (4,096) held", |b| {
        b.iter(|| {
            next += 1;
            pacer.throttled(&format!("tenant-{next}"), Some(Duration::from_secs(600)));
        })
    });
    let pacer = full_pacer().limit(KEY, PLENTY);
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let churn = {
        let (pacer, stop) = (pacer.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut next: u64 = 1 << 32;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                next += 1;
                pacer.throttled(&format!("tenant-{next}"), Some(Duration::from_secs(600)));
            }
        })
    };
    group.bench_function(
        "a hot key's try_acquire, another thread bringing new keys",
        |b| b.iter(|| pacer.try_acquire(black_box(KEY), Cost::request())),
    );
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    churn.join().expect("the churning thread ends");
    group.finish();
}

criterion_group!(benches, try_acquire, many_keys);

fn main() {
    let seconds = std::env::var("AGENT_ERROR_PACE_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    // `cargo test --benches` runs the binary without `--bench`: criterion then checks each
    // bench once, and the fleets, which take minutes, do not run.
    let benching = std::env::args().any(|arg| arg == "--bench");
    if benching && seconds > 0 {
        figures(seconds);
    }
    if std::env::var("AGENT_ERROR_PACE_CRITERION").as_deref() != Ok("0") {
        benches();
        Criterion::default().configure_from_args().final_summary();
    }
}
