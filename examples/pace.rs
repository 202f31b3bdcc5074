//! Eight replicas, four tasks each, call one provider for 3 s. The provider allows 40
//! requests a second (a bucket of 40 that refills continuously) and says so on every
//! answer with OpenAI's `x-ratelimit-*` headers; over its limit it answers 429.
//!
//! Without a pacer, nearly every call meets a 429. With one `Pacer` per replica reading
//! those headers, fewer; with one pacer shared by the fleet (through Redis when
//! `redis-server` is on `PATH`, else through one in-process `LocalStore`), only the calls
//! sent before the first answers told the limit (a few percent of so short a run; none
//! after). Run with `cargo run --example pace --features redis,http`.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agent_error::recover::{Cost, LocalStore, Pacer, Store};
use agent_error::redis::RedisStore;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

#[path = "support/own_redis.rs"]
mod own_redis;

/// The provider's limit: requests per second, and the bucket's size.
const RATE: f64 = 40.0;
const RUN: Duration = Duration::from_secs(3);
const KEY: &str = "provider/acct-1/model";

/// The provider's counts: answers 200 and answers 429.
#[derive(Default)]
struct Hits {
    ok: AtomicU32,
    throttled: AtomicU32,
}

/// A loopback provider enforcing a bucket of `RATE` requests; returns its address.
async fn provider(hits: Arc<Hits>) -> std::io::Result<String> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?.to_string();
    let bucket = Arc::new(Mutex::new((RATE, Instant::now())));
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let (hits, bucket) = (hits.clone(), bucket.clone());
            tokio::spawn(async move {
                let mut buf = [0; 1024];
                let _ = socket.read(&mut buf).await;
                let (allowed, left) = {
                    let mut b = bucket.lock().unwrap_or_else(|p| p.into_inner());
                    let now = Instant::now();
                    b.0 = (b.0 + RATE * now.duration_since(b.1).as_secs_f64()).min(RATE);
                    b.1 = now;
                    let allowed = b.0 >= 1.0;
                    if allowed {
                        b.0 -= 1.0;
                    }
                    (allowed, b.0)
                };
                // Full again after what is missing comes back, as OpenAI's reset says.
                let reset_ms = ((RATE - left) / RATE * 1000.0).ceil() as u64;
                let status = if allowed {
                    hits.ok.fetch_add(1, Ordering::Relaxed);
                    "200 OK"
                } else {
                    hits.throttled.fetch_add(1, Ordering::Relaxed);
                    "429 Too Many Requests"
                };
                let answer = format!(
                    "HTTP/1.1 {status}\r\nx-ratelimit-limit-requests: {RATE}\r\n\
                     x-ratelimit-remaining-requests: {}\r\nx-ratelimit-reset-requests: {reset_ms}ms\r\n\
                     content-length: 0\r\nconnection: close\r\n\r\n",
                    left.floor() as u64
                );
                let _ = socket.write_all(answer.as_bytes()).await;
            });
        }
    });
    Ok(addr)
}

/// Eight replicas of four tasks for `RUN`, each replica with the pacer `pacer(i)` gives it
/// (or none); the provider's answers 200 and 429.
async fn fleet(pacer: impl Fn(usize) -> Option<Pacer>) -> std::io::Result<(u32, u32, Duration)> {
    let hits = Arc::new(Hits::default());
    let url = format!("http://{}/v1/chat", provider(hits.clone()).await?);
    let started = Instant::now();
    let mut tasks = Vec::new();
    for replica in 0..8 {
        let pacer = pacer(replica);
        let client = reqwest::Client::new();
        for _ in 0..4 {
            let (pacer, client, url) = (pacer.clone(), client.clone(), url.clone());
            tasks.push(tokio::spawn(async move {
                while started.elapsed() < RUN {
                    if let Some(pacer) = &pacer
                        && pacer.acquire(KEY, Cost::request()).await.is_err()
                    {
                        continue;
                    }
                    if started.elapsed() >= RUN {
                        break;
                    }
                    match client.post(&url).send().await {
                        Ok(response) => {
                            if let Some(pacer) = &pacer {
                                pacer.observe_response(KEY, response.status(), response.headers());
                            }
                        }
                        Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
                    }
                }
            }));
        }
    }
    for task in tasks {
        let _ = task.await;
    }
    Ok((
        hits.ok.load(Ordering::Relaxed),
        hits.throttled.load(Ordering::Relaxed),
        started.elapsed(),
    ))
}

/// One line of figures; the limit is what the provider allows over the whole run (a
/// task's last wait and call may end after `RUN`).
fn print(name: &str, (ok, throttled, elapsed): (u32, u32, Duration)) {
    let all = f64::from(ok + throttled).max(1.0);
    let limit = RATE * elapsed.as_secs_f64() + RATE;
    println!(
        "{name:<34} {:>5} calls, {:>5.1}% answered 429, {:>5.1}% of the limit served",
        ok + throttled,
        100.0 * f64::from(throttled) / all,
        100.0 * f64::from(ok) / limit
    );
}

/// A shared store: Redis (`REDIS_URL`, or an own `redis-server` when one is on `PATH`),
/// else one `LocalStore`, as if the replicas were tasks of one process.
async fn shared_store() -> (Arc<dyn Store>, &'static str, Option<own_redis::OwnRedis>) {
    let own = match std::env::var("REDIS_URL") {
        Ok(url) => Some((None, url)),
        Err(_) => own_redis::start()
            .ok()
            .map(|(server, url)| (Some(server), url)),
    };
    if let Some((server, url)) = own
        && let Ok(store) = RedisStore::builder(url.as_str())
            .prefix(format!("pace-example-{}", std::process::id()))
            .connect()
            .await
    {
        return (Arc::new(store), "a shared pacer (Redis)", server);
    }
    (
        Arc::new(LocalStore::new()),
        "a shared pacer (LocalStore)",
        None,
    )
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> std::io::Result<()> {
    print("no pacer", fleet(|_| None).await?);
    print("a pacer per replica", fleet(|_| Some(Pacer::new())).await?);
    let (store, name, _server) = shared_store().await;
    print(
        name,
        fleet(|_| Some(Pacer::new().shared_in(store.clone()))).await?,
    );
    Ok(())
}
