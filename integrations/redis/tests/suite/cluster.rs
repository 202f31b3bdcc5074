//! Replicas sharing state through a real Redis Cluster of three masters on loopback: every
//! operation is one script on one key, so pauses, circuits and pacing budgets are shared
//! whatever node holds each key; and a store made for one server refuses a cluster node.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use agent_error::recover::{CircuitState, Cost, Limit, Pacer};
use agent_error::redis::RedisStore;
use agent_error::store::{BreakerRule, CircuitStore, PauseKind, PauseStore};
use support::Cluster;

async fn store(cluster: &Cluster) -> RedisStore {
    RedisStore::cluster_builder(cluster.urls())
        .staleness(Duration::from_millis(100))
        .timeout(Duration::from_secs(2))
        .connect()
        .await
        .expect("a store on the cluster")
}

/// How many keys each node holds.
fn keys_per_node(cluster: &Cluster) -> Vec<i64> {
    cluster
        .nodes
        .iter()
        .map(|node| match node.command(&["DBSIZE"]) {
            redis::Value::Int(n) => n,
            other => panic!("DBSIZE answered {other:?}"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pauses_circuits_and_pacing_budgets_are_shared_on_a_cluster() {
    let cluster = Cluster::start();
    let (a, b) = (store(&cluster).await, store(&cluster).await);
    let names: Vec<String> = (0..30).map(|i| format!("openai/acct-{i}/gpt-4o")).collect();

    // Pauses: what one replica announces, the other obeys.
    for name in &names {
        a.set_pause(
            PauseKind::Pause,
            name,
            Duration::from_secs(30),
            "rate_limit",
        )
        .await;
    }
    let mut seen = 0;
    for name in &names {
        if b.pause(PauseKind::Pause, name)
            .await
            .is_some_and(|p| p.remaining > Duration::from_secs(29))
        {
            seen += 1;
        }
    }
    assert_eq!(
        seen,
        names.len(),
        "every pause is seen by the second replica"
    );

    // Pacing: one request an hour per key, spent by the first replica (other keys: the
    // pauses above hold these).
    let names: Vec<String> = (0..30)
        .map(|i| format!("anthropic/acct-{i}/claude"))
        .collect();
    let limit = |pacer: Pacer| {
        names.iter().fold(pacer, |pacer, name| {
            pacer.limit(name.clone(), Limit::requests(1, Duration::from_secs(3600)))
        })
    };
    let first = limit(Pacer::new().shared_in(Arc::new(a.clone())));
    let second = limit(Pacer::new().shared_in(Arc::new(b.clone())));
    for name in &names {
        let granted = first.reserve(name, Cost::request(), Duration::ZERO).await;
        assert_eq!(granted, Ok(Duration::ZERO), "{name}");
    }
    let mut held = 0;
    for name in &names {
        if second
            .reserve(name, Cost::request(), Duration::ZERO)
            .await
            .is_err_and(|wait| wait > Duration::from_secs(3000))
        {
            held += 1;
        }
    }
    assert_eq!(
        held,
        names.len(),
        "every budget spent by one replica holds the other"
    );

    // Circuits: opened by one replica, open for the other.
    let rule = BreakerRule {
        threshold: 1,
        cooldown: Duration::from_secs(60),
    };
    for i in 0..10 {
        let tool = format!("tool-{i}");
        a.record_failure(&tool, rule).await;
        assert!(
            matches!(b.circuit(&tool).await, CircuitState::Open { .. }),
            "{tool}"
        );
    }

    assert!(
        !a.is_degraded() && !b.is_degraded(),
        "no MOVED taken for Redis down"
    );
    let spread = keys_per_node(&cluster);
    assert!(
        spread.iter().filter(|n| **n > 0).count() >= 2,
        "the keys live on several nodes: {spread:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_for_one_server_refuses_a_cluster_node() {
    let cluster = Cluster::start();
    let refused = RedisStore::builder(cluster.nodes[0].url())
        .timeout(Duration::from_secs(2))
        .connect()
        .await
        .expect_err("a cluster node is refused");
    assert!(
        refused.to_string().contains("cluster_builder"),
        "the error says what to write instead: {refused}"
    );
}

/// Every reservation counts on a cluster too: 200 calls at once on three replicas, under
/// 20 a second with a longest wait of 1.5 s, follow the limit's curve; and so do calls of
/// any limit and longest wait.
#[test]
fn grants_never_pass_the_limits_curve() {
    let cluster = Cluster::start();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let stores: Vec<Arc<RedisStore>> = (0..3)
        .map(|_| Arc::new(runtime.block_on(store(&cluster))))
        .collect();
    let pacers_for = |key: &str, limit: Limit, replicas: usize| -> Vec<Pacer> {
        stores[..replicas]
            .iter()
            .map(|store| Pacer::new().limit(key, limit).shared_in(store.clone()))
            .collect()
    };
    let limit = Limit::requests(20, Duration::from_secs(1));
    let max_wait = Duration::from_millis(1_500);
    let granted = runtime.block_on(support::grants(
        &pacers_for("queue", limit, 3),
        "queue",
        200,
        max_wait,
    ));
    support::assert_under_the_curve(limit, &granted);
    assert!(
        (40..=60).contains(&granted.len()),
        "{} granted",
        granted.len()
    );

    support::grants_follow_the_curve(&runtime, &stores, 8);
}
