//! On a tokio runtime with one thread (what a plain `#[tokio::test]` builds): a blocking
//! API cannot let the runtime reach Redis, so it is served the replica's own state at once,
//! and the store stays up (Redis is not the one that failed to answer); an async API awaits
//! Redis and shares the state as usual.

use crate::support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_error::recover::{CircuitBreaker, CircuitState, Cost, Limit, Pacer, Store};
use agent_error::redis::{RedisStore, Unavailable};
use agent_error::retry::{Retrier, RetryBudget};
use agent_error::store::CircuitStore;
use agent_error::{Error, codes};
use support::Server;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

async fn store(server: &Server, unavailable: Unavailable) -> RedisStore {
    RedisStore::builder(server.url())
        .staleness(Duration::from_millis(200))
        .timeout(Duration::from_millis(50))
        .retry_interval(Duration::from_secs(5))
        .when_unavailable(unavailable)
        .connect()
        .await
        .expect("a store")
}

fn failing() -> Result<(), BoxError> {
    Err("HTTP 500".into())
}

#[tokio::test]
async fn a_blocking_breaker_serves_the_failures_it_counted_and_leaves_the_store_up() {
    let server = Server::start();
    let redis = store(&server, Unavailable::Local).await;
    let breaker = CircuitBreaker::new()
        .threshold(1)
        .store(Arc::new(redis.clone()));
    let started = Instant::now();
    assert!(breaker.call("search", failing).is_err());
    let mut ran = false;
    let refused = breaker.call("search", || {
        ran = true;
        Ok::<_, BoxError>(())
    });
    assert!(
        refused.is_err() && !ran,
        "an open circuit does not run the call"
    );
    assert!(matches!(breaker.state("search"), CircuitState::Open { .. }));
    assert!(!redis.is_degraded(), "Redis answers: the store is up");
    // No wait for a runtime that cannot run.
    assert!(
        started.elapsed() < Duration::from_millis(50),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_blocking_breaker_obeys_fail_closed() {
    let server = Server::start();
    let redis = store(&server, Unavailable::FailClosed).await;
    let breaker = CircuitBreaker::new().store(Arc::new(redis.clone()));
    let mut ran = false;
    let refused = breaker.call("search", || {
        ran = true;
        Ok::<_, BoxError>(())
    });
    assert!(refused.is_err() && !ran, "fail closed holds the call back");
    assert!(!redis.is_degraded());
}

#[tokio::test]
async fn an_async_breaker_shares_its_circuit() {
    let server = Server::start();
    let (a, b) = (
        store(&server, Unavailable::Local).await,
        store(&server, Unavailable::Local).await,
    );
    let replica_a = CircuitBreaker::new()
        .threshold(1)
        .store(Arc::new(a.clone()));
    let replica_b = CircuitBreaker::new()
        .threshold(1)
        .store(Arc::new(b.clone()));
    let _ = replica_a.call_async("search", async { failing() }).await;
    let refused = replica_b
        .call_async("search", async { Ok::<_, BoxError>(()) })
        .await;
    assert!(refused.is_err());
    assert!(!a.is_degraded() && !b.is_degraded());
}

/// Two replicas share a budget of one retry: between them, three calls.
#[tokio::test]
async fn an_async_retrier_spends_a_shared_budget_once_fleet_wide() {
    let server = Server::start();
    let mut calls = Vec::new();
    let mut stores = Vec::new();
    for _ in 0..2 {
        let redis = store(&server, Unavailable::Local).await;
        stores.push(redis.clone());
        let shared: Arc<dyn Store> = Arc::new(redis);
        let budget = RetryBudget::with_costs(5, 5, 5, 0).shared_in(shared, "openai");
        let retrier = Retrier::new().max_attempts(3).budget(budget);
        // Spawned: the run's future is `Send`, awaits and all.
        let n = tokio::spawn(async move {
            let mut n = 0;
            let result = retrier
                .run_async(
                    |_| {
                        n += 1;
                        async {
                            Err::<(), _>(Error::new("llm", codes::PROVIDER_UNAVAILABLE, "503"))
                        }
                    },
                    |_| async {},
                )
                .await;
            assert!(result.is_err());
            n
        })
        .await
        .unwrap();
        calls.push(n);
    }
    assert_eq!(calls, [2, 1]);
    assert!(stores.iter().all(|s| !s.is_degraded()));
}

/// A blocking `try_acquire` cannot reach Redis from the runtime's own thread: it paces from
/// what the replica knows, and the store stays up, so that the async calls after it (here a
/// circuit another replica opened) are still shared.
#[tokio::test]
async fn a_blocking_pacer_leaves_the_store_up_for_the_async_calls() {
    let server = Server::start();
    let (a, b) = (
        store(&server, Unavailable::Local).await,
        store(&server, Unavailable::Local).await,
    );
    let pacer = Pacer::new()
        .limit("openai/gpt-4o", Limit::requests(10, Duration::from_secs(1)))
        .shared_in(Arc::new(a.clone()));
    let started = Instant::now();
    assert_eq!(pacer.try_acquire("openai/gpt-4o", Cost::request()), Ok(()));
    assert!(
        started.elapsed() < Duration::from_millis(50),
        "{:?}",
        started.elapsed()
    );
    assert!(!a.is_degraded(), "Redis answers: the store is up");

    let replica_b = CircuitBreaker::new().threshold(1).store(Arc::new(b));
    let _ = replica_b.call_async("search", async { failing() }).await;
    assert!(matches!(
        a.circuit("search").await,
        CircuitState::Open { .. }
    ));
}
