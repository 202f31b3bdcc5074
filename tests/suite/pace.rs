//! Pacing calls against a real loopback provider that enforces a token bucket of requests
//! (50 a second) and one of tokens (4,000 a second; calls cost 50 to 150, so the tokens
//! bind first, at about 40 calls a second): 16 tokio tasks calling through reqwest, paced
//! by `Pacer` or not, each answer taking 10 ms.
//!
//! The runs `benches/pace.rs` measures too (the adaptive rate, replicas sharing a store) are
//! timed, so out of the default `cargo test`: `cargo test --all-features --test suite --
//! --ignored pace::`, as CI runs them.

use std::sync::Arc;
use std::time::Duration;

use agent_error::recover::{Cost, Limit, LocalStore, Pacer, Store};
use http::HeaderMap;

use crate::support::rate_limited;
use crate::support::replicas;

use rate_limited::{Bucket, Counts, Headers, Provider, Setup, go_duration};
use replicas::{KEY, Replica, run};

const SECOND: Duration = Duration::from_secs(1);

fn setup(headers: Headers) -> Setup {
    Setup {
        requests: Bucket::per(50, SECOND),
        tokens: Bucket::per(4_000, SECOND),
        headers,
        latency: Duration::from_millis(10),
    }
}

/// `n` replicas of `tasks` tasks, each replica's pacer made by `pacer`.
fn fleet(n: usize, tasks: usize, pacer: impl Fn() -> Option<Pacer>) -> Vec<Replica> {
    (0..n)
        .map(|_| Replica {
            pacer: pacer(),
            tasks,
        })
        .collect()
}

/// Runs `replicas` against a new provider for `duration`: the provider's counts at `mark`
/// and at the end.
async fn measure(
    setup: Setup,
    replicas: &[Replica],
    duration: Duration,
    mark: Duration,
) -> (Counts, Counts) {
    let provider = Provider::start(setup).await;
    let at_mark = async {
        tokio::time::sleep(mark).await;
        provider.counts()
    };
    let (seen, at_mark) = tokio::join!(run(provider.url(), replicas, duration), at_mark);
    let end = provider.counts();
    assert_eq!(seen.failed, 0, "every call is answered");
    assert_eq!(
        seen.sent,
        end.calls(),
        "the provider answered every call sent"
    );
    (at_mark, end)
}

#[tokio::test]
async fn the_loopback_provider_enforces_its_buckets_and_tells_them_as_openai_does() {
    let setup = Setup {
        requests: Bucket::per(2, 2 * SECOND),
        tokens: Bucket::per(1_000, 2 * SECOND),
        headers: Headers::OpenAi,
        latency: Duration::ZERO,
    };
    let provider = Provider::start(setup).await;
    let client = reqwest::Client::new();
    let call = |tokens: u64| {
        client
            .post(provider.url())
            .header(rate_limited::TOKENS, tokens.to_string())
            .send()
    };
    let header = |headers: &HeaderMap, name: &str| headers[name].to_str().unwrap().to_owned();
    let first = call(500).await.unwrap();
    assert_eq!(first.status(), 200);
    let h = first.headers();
    assert_eq!(header(h, "x-ratelimit-limit-requests"), "2");
    assert_eq!(header(h, "x-ratelimit-remaining-requests"), "1");
    assert_eq!(header(h, "x-ratelimit-limit-tokens"), "1000");
    assert_eq!(header(h, "x-ratelimit-remaining-tokens"), "500");
    // Full again after a second of refill at 1 request and 500 tokens a second.
    let reset: f64 = header(h, "x-ratelimit-reset-requests")
        .trim_end_matches('s')
        .parse()
        .unwrap();
    assert!((0.99..=1.0).contains(&reset), "{reset}");
    assert!(h.get("retry-after-ms").is_none());
    // 600 tokens are not there: 429, nothing spent, back in about 0.2 s.
    let refused = call(600).await.unwrap();
    assert_eq!(refused.status(), 429);
    let ms: u64 = header(refused.headers(), "retry-after-ms").parse().unwrap();
    assert!((150..=200).contains(&ms), "{ms}");
    assert_eq!(header(refused.headers(), "retry-after"), "1");
    assert_eq!(
        header(refused.headers(), "x-ratelimit-remaining-requests"),
        "1"
    );
    let counts = provider.counts();
    assert_eq!((counts.ok, counts.ok_tokens, counts.limited), (1, 500, 1));
    assert_eq!((counts.lacked_requests, counts.lacked_tokens), (0, 1));

    let silent = Provider::start(Setup {
        headers: Headers::None,
        ..setup
    })
    .await;
    let calls = |n| async move {
        let mut last = None;
        for _ in 0..n {
            last = Some(
                reqwest::Client::new()
                    .post(silent.url())
                    .send()
                    .await
                    .unwrap(),
            );
        }
        last.unwrap()
    };
    let third = calls(3).await;
    assert_eq!(third.status(), 429);
    assert!(
        third
            .headers()
            .keys()
            .all(|name| !name.as_str().contains("ratelimit")
                && !name.as_str().starts_with("retry-after")),
        "{:?}",
        third.headers()
    );

    assert_eq!(
        [0, 20, 999, 1000, 59_940, 360_000, 3_600_500].map(go_duration),
        ["0s", "20ms", "999ms", "1s", "59.94s", "6m0s", "1h0m0.5s"]
    );
}

/// One pacer that reads every answer's headers. Before the first answers come back it
/// knows nothing and lets calls go, so the only 429s it may meet are those of its first
/// second (7 to 10 of about 140 calls here); after, the budget it reads is the provider's
/// own, less the calls it reserved since, so none is answered 429.
///
/// The calls then use about 82% of the refill, not all of it: each 429 it did not foresee
/// cuts the share of the refill a pacer without a store takes (to 0.7, grown back a little
/// on each success), and those of the first second count as such.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_pacer_reading_every_answer_meets_no_429_after_its_first_second() {
    let setup = setup(Headers::OpenAi);
    let (first, end) = measure(
        setup,
        &fleet(1, 16, || Some(Pacer::new())),
        3 * SECOND,
        SECOND,
    )
    .await;
    let after = end.since(&first);
    assert_eq!(after.limited, 0, "{after:?}");
    assert!(after.share_of_refill(&setup) >= 0.75, "{after:?}");
    assert!(end.limited_share() <= 0.1, "{end:?}");
    assert!(end.share_of_limit(&setup) >= 0.75, "{end:?}");
}

/// Without headers and with no pacer, 16 tasks send far more than the limit and most calls
/// are answered 429; the adaptive rate falls on each 429 and the share of 429s falls with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "timed: run with --ignored"]
async fn the_adaptive_rate_cuts_the_429s_of_a_provider_that_sends_no_headers() {
    let setup = setup(Headers::None);
    let (_, unpaced) = measure(setup, &fleet(1, 16, || None), 2 * SECOND, SECOND).await;
    let (_, paced) = measure(
        setup,
        &fleet(1, 16, || Some(Pacer::new())),
        3 * SECOND,
        SECOND,
    )
    .await;
    assert!(unpaced.limited_share() > 0.5, "{unpaced:?}");
    assert!(paced.ok > 0, "{paced:?}");
    assert!(
        paced.limited_share() < unpaced.limited_share() / 2.0,
        "paced {paced:?}, unpaced {unpaced:?}"
    );
}

/// Four replicas, each its own pacer and client, sharing their budgets through one
/// `LocalStore`. Their 429s all come before each replica's copy has synced with the
/// store's once (the first second); after, none, and the calls use the refill.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "timed: run with --ignored"]
async fn replicas_sharing_a_store_meet_no_429_once_their_copies_have_synced() {
    let setup = setup(Headers::OpenAi);
    let store: Arc<dyn Store> = Arc::new(LocalStore::new());
    let replicas = fleet(4, 4, || Some(Pacer::new().shared_in(store.clone())));
    let (first, end) = measure(setup, &replicas, 4 * SECOND, 2 * SECOND).await;
    let after = end.since(&first);
    assert_eq!(end.limited, end.limited_first_second, "{end:?}");
    assert_eq!(after.limited, 0, "{after:?}");
    assert!(after.share_of_refill(&setup) >= 0.9, "{after:?}");
    assert!(end.limited_share() <= 0.1, "{end:?}");
}

/// A provider that sends no headers, paced by its limits configured 2% below the
/// provider's, as a limit known from documentation is best set: the pacer's buckets spend
/// a call's units when it is reserved, the provider's when it arrives, and a call that
/// travels faster than the one before it (a busy machine delays some more than others)
/// arrives before the refill the pacer counted on; the 2% the provider keeps absorbs that.
/// Only at the start, while the provider's buckets are full, can one call too many go.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_configured_limit_keeps_a_provider_without_headers_under_it() {
    let setup = setup(Headers::None);
    let pacer = || {
        Some(
            Pacer::new()
                .limit(KEY, Limit::requests(49, SECOND))
                .limit(KEY, Limit::tokens(3_920, SECOND)),
        )
    };
    let (first, end) = measure(setup, &fleet(1, 16, pacer), 3 * SECOND, SECOND).await;
    let after = end.since(&first);
    assert_eq!(after.limited, 0, "{after:?}");
    assert!(end.limited <= 2, "{end:?}");
    assert!(end.share_of_limit(&setup) >= 0.95, "{end:?}");
}

/// A store whose every answer comes 100 ms after it is computed (a slow network).
#[derive(Debug)]
struct Slow(LocalStore);

const LATENCY: Duration = Duration::from_millis(100);

impl agent_error::store::WaitLimit for Slow {
    fn wait_limit(&self) -> Duration {
        Duration::from_secs(1)
    }
}

impl agent_error::store::PauseStore for Slow {
    fn pause<'a>(
        &'a self,
        kind: agent_error::store::PauseKind,
        key: &'a str,
    ) -> agent_error::store::StoreFuture<'a, Option<agent_error::store::Pause>> {
        Box::pin(async move {
            let pause = self.0.pause(kind, key).await;
            tokio::time::sleep(LATENCY).await;
            pause
        })
    }

    fn set_pause<'a>(
        &'a self,
        kind: agent_error::store::PauseKind,
        key: &'a str,
        wait: Duration,
        code: &'a str,
    ) -> agent_error::store::StoreFuture<'a, agent_error::store::Pause> {
        Box::pin(async move {
            let pause = self.0.set_pause(kind, key, wait, code).await;
            tokio::time::sleep(LATENCY).await;
            pause
        })
    }
}

impl agent_error::store::PaceStore for Slow {
    fn pace<'a>(
        &'a self,
        key: &'a str,
        step: agent_error::store::PaceStep,
    ) -> agent_error::store::StoreFuture<'a, Option<agent_error::store::PaceAnswer>> {
        Box::pin(async move {
            let answer = self.0.pace(key, step).await;
            tokio::time::sleep(LATENCY).await;
            answer
        })
    }
}

/// The time spent asking a slow store counts against `max_wait`: a call either goes within
/// it, store and wait together, or is refused with a `rate_limit` error.
#[tokio::test]
async fn acquire_never_waits_past_max_wait_with_a_slow_store() {
    let max_wait = Duration::from_millis(300);
    // One call every 450 ms: the second waits about 250 ms once the store has answered.
    let pacer = Pacer::new()
        .limit(KEY, Limit::requests(1, Duration::from_millis(450)))
        .staleness(Duration::ZERO)
        .max_wait(max_wait)
        .shared_in(Arc::new(Slow(LocalStore::new())));
    for _ in 0..4 {
        let started = std::time::Instant::now();
        let acquired = pacer
            .acquire(KEY, agent_error::recover::Cost::request())
            .await;
        let took = started.elapsed();
        assert!(
            took <= max_wait + Duration::from_millis(30),
            "{acquired:?} after {took:?}"
        );
    }
}

/// At the limit, again and again: four tasks of 15 calls each against a bucket of 20
/// requests refilled at 10 a second, one pacer reading OpenAI's headers (what remains
/// floored, resets in whole milliseconds rounded up) on every answer. Calls go before any
/// header is read, so the first burst may meet one 429; after, none. Eight runs at once
/// (a busy machine delays some answers more than others), half of them sharing their
/// budget through a store, each held to that. The calls made before the first answer are
/// on their way when it comes: the budget it tells is short of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_limit_a_pacer_fed_by_headers_meets_no_429_after_its_first_burst() {
    let setup = Setup {
        requests: Bucket::per(20, Duration::from_secs(2)),
        tokens: Bucket::per(1_000_000, SECOND),
        headers: Headers::OpenAi,
        latency: Duration::from_millis(10),
    };
    let runs = (0..8).map(|run| async move {
        let provider = Provider::start(setup).await;
        // Half of the runs share their budget through a store, leasing from it.
        let pacer = if run % 2 == 0 {
            Pacer::new()
        } else {
            Pacer::new().shared_in(Arc::new(LocalStore::new()))
        };
        let client = reqwest::Client::new();
        let tasks = (0..4).map(|_| {
            let (pacer, client, url) = (pacer.clone(), client.clone(), provider.url().to_owned());
            tokio::spawn(async move {
                let mut done = 0;
                while done < 15 {
                    match pacer
                        .reserve(KEY, Cost::request(), Duration::from_secs(5))
                        .await
                    {
                        Ok(wait) => tokio::time::sleep(wait).await,
                        Err(needed) => {
                            tokio::time::sleep(needed).await;
                            continue;
                        }
                    }
                    let answer = client
                        .post(&url)
                        .body("{}")
                        .send()
                        .await
                        .expect("an answer");
                    pacer.observe_response(KEY, answer.status().as_u16(), answer.headers());
                    done += u32::from(answer.status().is_success());
                }
            })
        });
        for task in tasks.collect::<Vec<_>>() {
            task.await.expect("a task");
        }
        provider.counts()
    });
    let counts = futures_util::future::join_all(runs).await;
    let limited: Vec<u64> = counts.iter().map(|c| c.limited).collect();
    assert!(
        limited.iter().all(|&n| n <= 1),
        "429s of each run: {limited:?}"
    );
}
