//! Four replicas call one provider that answers 429 with `retry-after: 2` for its first
//! 2 s. Each replica starts 300 ms after the previous one. With a `LocalStore` each, every
//! replica meets the 429 itself; with one `RedisStore` the first replica's 429 pauses the
//! others before they call. Run with `cargo run --example fleet --features redis,http`
//! (it starts its own `redis-server` on loopback unless `REDIS_URL` is set).

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use agent_error::http::StatusError;
use agent_error::recover::{LocalStore, SharedPauses, Store};
use agent_error::redis::RedisStore;
use agent_error::retry::{Retrier, tokio_sleep};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[path = "support/own_redis.rs"]
mod own_redis;

/// The provider's counts: every request, and the 429s among them.
#[derive(Default)]
struct Hits {
    all: AtomicU32,
    throttled: AtomicU32,
}

/// A loopback provider that throttles for its first 2 s; returns its address.
async fn provider(hits: Arc<Hits>) -> std::io::Result<String> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?.to_string();
    let started = Instant::now();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let hits = hits.clone();
            tokio::spawn(async move {
                let mut buf = [0; 1024];
                let _ = socket.read(&mut buf).await;
                hits.all.fetch_add(1, Ordering::Relaxed);
                let answer = if started.elapsed() < Duration::from_secs(2) {
                    hits.throttled.fetch_add(1, Ordering::Relaxed);
                    "HTTP/1.1 429 Too Many Requests\r\nretry-after: 2\r\ncontent-length: 0\r\n\r\n"
                } else {
                    "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"
                };
                let _ = socket.write_all(answer.as_bytes()).await;
            });
        }
    });
    Ok(addr)
}

/// One request: the status, and a 429 as a `StatusError` with its `retry-after`.
async fn call(addr: &str) -> Result<(), StatusError> {
    let io = async {
        let mut socket = TcpStream::connect(addr).await?;
        socket
            .write_all(b"GET /v1/chat HTTP/1.1\r\nhost: provider\r\nconnection: close\r\n\r\n")
            .await?;
        let mut text = String::new();
        socket.read_to_string(&mut text).await?;
        Ok::<_, std::io::Error>(text)
    };
    let text = io.await.map_err(|_| StatusError::new(503))?;
    if text.starts_with("HTTP/1.1 429") {
        let after = text
            .lines()
            .find_map(|l| l.strip_prefix("retry-after: "))
            .and_then(|s| s.trim().parse().ok())
            .map(Duration::from_secs);
        return Err(StatusError::new(429).with_retry_after(after.unwrap_or(Duration::from_secs(1))));
    }
    Ok(())
}

/// Four replicas, each with the store `make` gives it, three calls each; the provider's hits.
async fn fleet(make: impl Fn() -> Arc<dyn Store>) -> std::io::Result<(u32, u32)> {
    let hits = Arc::new(Hits::default());
    let addr = provider(hits.clone()).await?;
    let mut replicas = Vec::new();
    for i in 0..4u64 {
        let retrier = Retrier::new().gate(SharedPauses::new(make(), "provider/acct-1/model"));
        let addr = addr.clone();
        replicas.push(tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300 * i)).await;
            for _ in 0..3 {
                let _ = retrier.run_async(|_| call(&addr), tokio_sleep).await;
            }
        }));
    }
    for r in replicas {
        let _ = r.await;
    }
    Ok((
        hits.all.load(Ordering::Relaxed),
        hits.throttled.load(Ordering::Relaxed),
    ))
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (all, throttled) = fleet(|| Arc::new(LocalStore::new())).await?;
    println!("LocalStore (one per replica): provider hits {all}, of which 429: {throttled}");

    let (_server, url) = match std::env::var("REDIS_URL") {
        Ok(url) => (None, url),
        Err(_) => {
            let (server, url) = own_redis::start()?;
            (Some(server), url)
        }
    };
    // Each replica its own connection and local copy, as separate processes would have.
    let mut stores = Vec::new();
    for _ in 0..4 {
        stores.push(
            RedisStore::builder(url.as_str())
                .prefix(format!("fleet-example-{}", std::process::id()))
                .connect()
                .await?,
        );
    }
    let next = AtomicU32::new(0);
    let (all, throttled) = fleet(|| {
        let i = next.fetch_add(1, Ordering::Relaxed) as usize;
        Arc::new(stores[i % 4].clone()) as Arc<dyn Store>
    })
    .await?;
    println!("RedisStore (shared):          provider hits {all}, of which 429: {throttled}");
    Ok(())
}
