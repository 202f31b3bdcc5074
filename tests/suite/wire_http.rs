//! End to end over loopback HTTP, with the gateway and client of `examples/remote.rs`: the
//! server answers problem+json 429 with Retry-After, then 503 twice, then 200; the client
//! turns responses into classified errors and the retrier obeys them. Binds 127.0.0.1 on
//! an ephemeral port; nothing else is contacted; bounded in time.
#![cfg(all(feature = "serde", feature = "reqwest", feature = "tokio"))]

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use agent_error::AgentError;
use agent_error::retry::{Stop, tokio_sleep};

#[path = "../../examples/remote.rs"]
#[allow(dead_code)]
mod remote;

#[test]
fn the_retrier_obeys_what_the_server_says_over_http() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (base, flaky_hits, quota_hits) = remote::serve().await;
        let client = reqwest::Client::builder()
            .no_proxy()
            .timeout(Duration::from_secs(5))
            .build()
            .unwrap();

        let url = format!("{base}/flaky");
        let started = Instant::now();
        let outcome = tokio::time::timeout(
            Duration::from_secs(20),
            remote::retrier().run_async_detailed(|_| remote::call(&client, &url), tokio_sleep),
        )
        .await
        .expect("bounded in time");
        let elapsed = started.elapsed();
        assert_eq!(outcome.result.as_deref(), Ok("hello"));
        assert_eq!((outcome.stop, outcome.attempts), (Stop::Succeeded, 4));
        assert_eq!(flaky_hits.load(Ordering::SeqCst), 4);
        // Retry-After: 1 is waited exactly; the two 503s back off with full jitter, at most
        // 200ms and 400ms.
        assert!(
            outcome.waited >= Duration::from_secs(1),
            "{:?}",
            outcome.waited
        );
        assert!(
            outcome.waited <= Duration::from_millis(1600),
            "{:?}",
            outcome.waited
        );
        assert!(elapsed >= Duration::from_secs(1), "{elapsed:?}");
        assert!(elapsed < Duration::from_secs(6), "{elapsed:?}");

        let url = format!("{base}/quota");
        let outcome = remote::retrier()
            .run_async_detailed(|_| remote::call(&client, &url), tokio_sleep)
            .await;
        let err = outcome.result.unwrap_err();
        assert_eq!((outcome.stop, outcome.attempts), (Stop::Permanent, 1));
        assert_eq!(
            (err.code(), err.is_retryable(), err.op()),
            ("budget_exhausted", false, "llm.generate")
        );
        assert_eq!(quota_hits.load(Ordering::SeqCst), 1);
    });
}
