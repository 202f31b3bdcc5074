use std::sync::Arc;
use std::time::Duration;

use super::*;
use crate::AgentError;
use crate::store::clock::ManualClock;
use crate::store::local::LocalStore;

const KEY: &str = "openai/acct-1/gpt-4o";

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[test]
fn a_configured_limit_lets_its_budget_go_then_spreads_the_calls_that_wait() {
    let clock = ManualClock::new();
    let pacer = Pacer::new()
        .with_clock(clock.clone())
        .limit(KEY, Limit::requests(2, Duration::from_secs(1)));
    let waits: Vec<_> = (0..5)
        .map(|_| block_on_ready(pacer.reserve(KEY, Cost::request(), Duration::from_secs(10))))
        .collect();
    assert_eq!(
        waits,
        [
            Ok(ms(0)),
            Ok(ms(0)),
            Ok(ms(500)),
            Ok(ms(1000)),
            Ok(ms(1500))
        ]
    );
    // Past the last turn, a full second's budget is back.
    clock.advance(ms(2_500));
    assert_eq!(pacer.try_acquire(KEY, Cost::request()), Ok(()));
}

#[test]
fn try_acquire_spends_nothing_when_it_says_to_wait() {
    let clock = ManualClock::new();
    let pacer = Pacer::new()
        .with_clock(clock.clone())
        .limit(KEY, Limit::requests(1, Duration::from_secs(4)));
    assert_eq!(pacer.try_acquire(KEY, Cost::request()), Ok(()));
    for _ in 0..3 {
        assert_eq!(pacer.try_acquire(KEY, Cost::request()), Err(ms(4_000)));
    }
    clock.advance(ms(4_000));
    assert_eq!(pacer.try_acquire(KEY, Cost::request()), Ok(()));
}

#[test]
fn a_wait_beyond_max_wait_is_a_rate_limit_error_carrying_it() {
    let pacer = Pacer::new()
        .with_clock(ManualClock::new())
        .max_wait(ms(100))
        .limit(KEY, Limit::requests(1, Duration::from_secs(60)));
    let sleep = |_| async {};
    assert_eq!(
        block_on_ready(pacer.acquire_with_sleep(KEY, Cost::request(), sleep)).ok(),
        Some(Duration::ZERO)
    );
    let err = block_on_ready(pacer.acquire_with_sleep(KEY, Cost::request(), sleep)).unwrap_err();
    assert_eq!(err.code(), crate::codes::RATE_LIMIT);
    assert_eq!(err.retry_after(), Some(Duration::from_secs(60)));
    assert_eq!(err.op(), "pace");
}

#[test]
fn token_limits_are_checked_against_the_estimate_and_settled_with_the_usage() {
    let clock = ManualClock::new();
    let pacer = Pacer::new()
        .with_clock(clock.clone())
        .limit(KEY, Limit::tokens(1_000, Duration::from_secs(10)));
    assert_eq!(pacer.try_acquire(KEY, Cost::tokens(800)), Ok(()));
    // 200 left, 100 a second come back: 600 more need 4 s.
    assert_eq!(pacer.try_acquire(KEY, Cost::tokens(600)), Err(ms(4_000)));
    // The answer used 300: 500 are given back.
    pacer.settle(KEY, Cost::tokens(800), Cost::tokens(300));
    assert_eq!(pacer.remaining(KEY, Dimension::Tokens), Some(700.0));
    assert_eq!(pacer.try_acquire(KEY, Cost::tokens(600)), Ok(()));
}

#[test]
fn a_split_cost_counts_each_part_against_its_own_limit() {
    let pacer = Pacer::new()
        .with_clock(ManualClock::new())
        .limit(
            KEY,
            Limit::new(Dimension::OutputTokens, 100, Duration::from_secs(1)),
        )
        .limit(
            KEY,
            Limit::new(Dimension::InputTokens, 10_000, Duration::from_secs(1)),
        );
    assert_eq!(pacer.try_acquire(KEY, Cost::split(5_000, 50)), Ok(()));
    // The input limit has room, the output one does not.
    assert_eq!(pacer.try_acquire(KEY, Cost::split(10, 80)), Err(ms(300)));
    // A single estimate counts against both.
    assert_eq!(pacer.try_acquire(KEY, Cost::tokens(40)), Ok(()));
}

#[test]
fn the_adaptive_rate_holds_a_key_only_after_a_rate_limit() {
    let clock = ManualClock::new();
    let pacer = Pacer::new().with_clock(clock.clone());
    for _ in 0..100 {
        assert_eq!(pacer.try_acquire(KEY, Cost::request()), Ok(()));
        clock.advance(ms(10));
    }
    assert_eq!(pacer.adaptive_rate(KEY), None);
    pacer.throttled(KEY, None);
    let rate = pacer.adaptive_rate(KEY).unwrap();
    assert!(rate > 30.0 && rate < 100.0, "{rate}");
    // Calls now come at that rate, not at once.
    let mut granted = 0;
    for _ in 0..100 {
        if pacer.try_acquire(KEY, Cost::request()).is_ok() {
            granted += 1;
        }
        clock.advance(ms(1));
    }
    assert!(granted < 20, "{granted} calls in 100 ms at {rate}/s");
    // Without the adaptive rate, nothing holds a key with no limits.
    let off = Pacer::new().with_clock(clock.clone()).adaptive(false);
    off.throttled(KEY, None);
    assert_eq!(off.adaptive_rate(KEY), None);
}

#[test]
fn a_retry_after_pauses_the_key() {
    let clock = ManualClock::new();
    let pacer = Pacer::new().with_clock(clock.clone());
    pacer.throttled(KEY, Some(Duration::from_secs(3)));
    assert_eq!(pacer.try_acquire(KEY, Cost::request()), Err(ms(3_000)));
    clock.advance(ms(3_000));
    assert_eq!(pacer.try_acquire(KEY, Cost::request()), Ok(()));
    // A pause from a peer is bounded.
    pacer.throttled(KEY, Some(Duration::MAX));
    assert_eq!(
        pacer.try_acquire(KEY, Cost::request()),
        Err(crate::store::MAX_HOLD)
    );
}

/// A message's wait too long to believe pauses the key, as a long `Retry-After` does, and
/// no longer than any pause from a peer.
#[cfg(feature = "http")]
#[test]
fn a_wait_too_long_to_believe_pauses_the_key_for_at_most_the_longest_hold() {
    let pacer = Pacer::new().with_clock(ManualClock::new());
    for message in ["Please try again in 1080h.", "retry in 5000000000s"] {
        let throttled =
            crate::http::StatusError::from_parts(429u16, &http::HeaderMap::new(), message);
        pacer.failed(KEY, &throttled);
        assert_eq!(
            pacer.try_acquire(KEY, Cost::request()),
            Err(crate::store::MAX_HOLD),
            "{message}"
        );
    }
}

#[test]
fn at_most_max_keys_are_kept() {
    let pacer = Pacer::new().with_clock(ManualClock::new()).max_keys(8);
    for i in 0..1_000 {
        pacer.throttled(&format!("key-{i}"), Some(Duration::from_secs(1)));
    }
    assert_eq!(pacer.state.keys.len(), 8);
    // The newest key is kept.
    assert!(pacer.try_acquire("key-999", Cost::request()).is_err());
}

/// Keys may come from a tenant's input: a new key costs the same whether the pacer keeps
/// 64 keys or 4,096 (every one of them holding a pause, so that none is free to forget),
/// not a scan of them all. Timed as a ratio, each side the best of three runs.
#[test]
fn pacers_sharing_a_store_share_the_budget() {
    let clock = ManualClock::new();
    let store: Arc<dyn crate::store::local::Store> =
        Arc::new(LocalStore::with_clock(clock.clone()));
    let limit = Limit::requests(20, Duration::from_secs(60));
    let replicas: Vec<Pacer> = (0..3)
        .map(|_| {
            Pacer::new()
                .with_clock(clock.clone())
                .shared_in(store.clone())
                .limit(KEY, limit)
        })
        .collect();
    let mut granted = 0;
    for round in 0..30 {
        for pacer in &replicas {
            if pacer.try_acquire(KEY, Cost::request()).is_ok() {
                granted += 1;
            }
        }
        // Past the staleness now and then: what was spent locally is told.
        if round % 5 == 4 {
            clock.advance(ms(300));
        }
    }
    // 20 to start with, and one every 3 s came back over the 2.7 s that passed.
    assert!((20..=21).contains(&granted), "{granted}");
}

#[test]
fn a_replica_whose_store_does_not_answer_paces_alone_with_its_share() {
    #[derive(Debug)]
    struct Down;
    impl crate::store::WaitLimit for Down {}
    impl crate::store::PauseStore for Down {
        fn pause<'a>(
            &'a self,
            _: crate::store::PauseKind,
            _: &'a str,
        ) -> crate::store::StoreFuture<'a, Option<crate::store::Pause>> {
            Box::pin(std::future::ready(None))
        }
        fn set_pause<'a>(
            &'a self,
            _: crate::store::PauseKind,
            _: &'a str,
            _: Duration,
            _: &'a str,
        ) -> crate::store::StoreFuture<'a, crate::store::Pause> {
            unreachable!("no pause is set in this test")
        }
    }
    // Keeps no buckets: `pace` answers `None`, as a store that is down does.
    impl crate::store::PaceStore for Down {}
    let clock = ManualClock::new();
    let pacer = Pacer::new()
        .with_clock(clock.clone())
        .shared_in(Arc::new(Down))
        .limit(KEY, Limit::requests(4, Duration::from_secs(4)));
    let granted = (0..10)
        .filter(|_| pacer.try_acquire(KEY, Cost::request()).is_ok())
        .count();
    assert_eq!(granted, 4);
}

/// A store whose answers to pacing steps wait until the test lets them go, while
/// `holding`: so that the steps of concurrent calls are answered in another order.
#[derive(Debug)]
struct Held {
    inner: LocalStore,
    holding: std::sync::atomic::AtomicBool,
    gates: std::sync::Mutex<Vec<Arc<std::sync::atomic::AtomicBool>>>,
}

impl crate::store::WaitLimit for Held {}

impl crate::store::PauseStore for Held {
    fn pause<'a>(
        &'a self,
        kind: crate::store::PauseKind,
        key: &'a str,
    ) -> crate::store::StoreFuture<'a, Option<crate::store::Pause>> {
        self.inner.pause(kind, key)
    }
    fn set_pause<'a>(
        &'a self,
        kind: crate::store::PauseKind,
        key: &'a str,
        wait: Duration,
        code: &'a str,
    ) -> crate::store::StoreFuture<'a, crate::store::Pause> {
        self.inner.set_pause(kind, key, wait, code)
    }
}

impl PaceStore for Held {
    fn pace<'a>(
        &'a self,
        key: &'a str,
        step: PaceStep,
    ) -> crate::store::StoreFuture<'a, Option<PaceAnswer>> {
        use std::sync::atomic::Ordering::SeqCst;
        let answer = self.inner.pace_now(key, &step);
        if !self.holding.load(SeqCst) {
            return Box::pin(std::future::ready(Some(answer)));
        }
        let gate = Arc::new(std::sync::atomic::AtomicBool::new(false));
        self.gates.lock().unwrap().push(gate.clone());
        Box::pin(std::future::poll_fn(move |_| {
            if gate.load(SeqCst) {
                std::task::Poll::Ready(Some(answer))
            } else {
                std::task::Poll::Pending
            }
        }))
    }
}

/// Two calls step the store at once and their answers come back in the other order: the
/// budget each leased is held, spent or given back, never dropped.
#[test]
fn leases_of_steps_answered_out_of_order_are_all_kept() {
    use std::sync::atomic::Ordering::SeqCst;
    use std::task::{Context, Poll, Waker};

    let clock = ManualClock::new();
    let store = Arc::new(Held {
        inner: LocalStore::with_clock(clock.clone()),
        holding: false.into(),
        gates: Default::default(),
    });
    let pacer = Pacer::new()
        .with_clock(clock.clone())
        .shared_in(store.clone())
        .limit(KEY, Limit::requests(100, Duration::from_secs(3600)));
    // A first call: the replica learns the budget.
    assert_eq!(pacer.try_acquire(KEY, Cost::request()), Ok(()));
    clock.advance(ms(300));
    store.holding.store(true, SeqCst);
    let mut a = std::pin::pin!(pacer.reserve(KEY, Cost::request(), Duration::ZERO));
    let mut b = std::pin::pin!(pacer.reserve(KEY, Cost::request(), Duration::ZERO));
    let mut cx = Context::from_waker(Waker::noop());
    assert!(a.as_mut().poll(&mut cx).is_pending());
    assert!(b.as_mut().poll(&mut cx).is_pending());
    let gates = store.gates.lock().unwrap().clone();
    assert_eq!(gates.len(), 2);
    gates[1].store(true, SeqCst);
    assert_eq!(b.as_mut().poll(&mut cx), Poll::Ready(Ok(Duration::ZERO)));
    gates[0].store(true, SeqCst);
    assert_eq!(a.as_mut().poll(&mut cx), Poll::Ready(Ok(Duration::ZERO)));
    // Three calls went: what the store keeps and what the replica holds make the rest.
    store.holding.store(false, SeqCst);
    clock.advance(ms(300));
    let left = |pacer: &Pacer| pacer.remaining(KEY, Dimension::Requests).unwrap();
    assert!(left(&pacer) > 50.0, "{}", left(&pacer));
    let stored = |store: &Held| {
        store.inner.pace_now(KEY, &PaceStep::default()).buckets[0]
            .unwrap()
            .level
    };
    // The next step gives back what was not spent.
    assert_eq!(pacer.try_acquire(KEY, Cost::request()), Ok(()));
    let (held, kept) = (left(&pacer) - stored(&store), stored(&store));
    assert!(
        (held + kept - 96.0).abs() < 0.05,
        "{held} held, {kept} kept"
    );
}

/// Polls a future that completes at its first poll.
fn block_on_ready<F: std::future::Future>(future: F) -> F::Output {
    crate::store::block_on(future, Duration::ZERO).expect("the future is ready at once")
}

#[cfg(feature = "http")]
mod headers {
    use super::*;
    use http::{HeaderMap, HeaderValue};

    fn headers(fields: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in fields {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn openai_headers_are_a_bucket_that_refills_at_what_is_missing_over_the_reset() {
        let clock = ManualClock::new();
        let pacer = Pacer::new().with_clock(clock.clone());
        // 10,000 tokens a minute, 1,000 left, full again in 54 s: 1,000 tokens come back
        // every 6 s, less the margin for rounding (up to a token more left, and 1 ms more
        // to the reset): (9,000 − 1) / 54.001 s.
        pacer.observe(
            KEY,
            &headers(&[
                ("x-ratelimit-limit-requests", "500"),
                ("x-ratelimit-remaining-requests", "499"),
                ("x-ratelimit-reset-requests", "120ms"),
                ("x-ratelimit-limit-tokens", "10000"),
                ("x-ratelimit-remaining-tokens", "1000"),
                ("x-ratelimit-reset-tokens", "54s"),
            ]),
        );
        assert_eq!(pacer.try_acquire(KEY, Cost::tokens(1_000)), Ok(()));
        let wait = pacer.try_acquire(KEY, Cost::tokens(500)).unwrap_err();
        let expected = Duration::from_secs_f64(500.0 * 54.001 / 8_999.0);
        assert!(
            wait.abs_diff(expected) < Duration::from_micros(1),
            "{wait:?}"
        );
        clock.advance(wait);
        assert_eq!(pacer.try_acquire(KEY, Cost::tokens(500)), Ok(()));
        // Headers turn the adaptive rate off for the key.
        pacer.throttled(KEY, None);
        assert_eq!(pacer.adaptive_rate(KEY), None);
    }

    /// A free tier's limit of one: none left, full again in 1m30.5s. The next call waits
    /// for the reset (past a minute's `max_wait`, so it is a `rate_limit` at once), not for
    /// the short probe of a refill that was not told.
    #[test]
    fn a_limit_of_one_waits_for_its_reset() {
        let clock = ManualClock::new();
        let pacer = Pacer::new().with_clock(clock.clone());
        pacer.observe(
            KEY,
            &headers(&[
                ("x-ratelimit-limit-requests", "1"),
                ("x-ratelimit-remaining-requests", "0"),
                ("x-ratelimit-reset-requests", "1m30.5s"),
            ]),
        );
        assert_eq!(
            pacer.try_acquire(KEY, Cost::request()),
            Err(ms(90_500)),
            "the reset is when the one request is back"
        );
        let refused = block_on_ready(pacer.acquire(KEY, Cost::request())).unwrap_err();
        assert_eq!(refused.code(), crate::codes::RATE_LIMIT);
        assert_eq!(refused.retry_after(), Some(ms(90_500)));
        clock.advance(ms(90_500));
        assert_eq!(pacer.try_acquire(KEY, Cost::request()), Ok(()));
        // Its answer says the same again: the next waits for that reset.
        pacer.observe(
            KEY,
            &headers(&[
                ("x-ratelimit-limit-requests", "1"),
                ("x-ratelimit-remaining-requests", "0"),
                ("x-ratelimit-reset-requests", "1m30s"),
            ]),
        );
        assert_eq!(pacer.try_acquire(KEY, Cost::request()), Err(ms(90_000)));
    }

    /// Almost full, so that the margin for rounding leaves no refill to read: the reset is
    /// when the bucket is full again, and what is left goes now.
    #[test]
    fn a_bucket_almost_full_is_full_again_at_its_reset() {
        let clock = ManualClock::new();
        let pacer = Pacer::new().with_clock(clock.clone());
        pacer.observe(
            KEY,
            &headers(&[
                ("x-ratelimit-limit-requests", "20"),
                ("x-ratelimit-remaining-requests", "19"),
                ("x-ratelimit-reset-requests", "100ms"),
            ]),
        );
        for _ in 0..19 {
            assert_eq!(pacer.try_acquire(KEY, Cost::request()), Ok(()));
        }
        assert_eq!(pacer.try_acquire(KEY, Cost::request()), Err(ms(100)));
    }

    /// The calls that went before any answer told the limit are on their way when the
    /// first answer comes: the budget it tells is short of them.
    #[test]
    fn the_first_limit_known_is_short_of_the_calls_that_went_before_it() {
        let pacer = Pacer::new().with_clock(ManualClock::new());
        for _ in 0..4 {
            assert_eq!(pacer.try_acquire(KEY, Cost::request()), Ok(()));
        }
        // Written when the first of the four had arrived.
        pacer.observe(
            KEY,
            &headers(&[
                ("x-ratelimit-limit-requests", "20"),
                ("x-ratelimit-remaining-requests", "19"),
                ("x-ratelimit-reset-requests", "100ms"),
            ]),
        );
        assert_eq!(pacer.remaining(KEY, Dimension::Requests), Some(16.0));
    }

    /// "Spent, but back now": none left, full again in `0s` (a case of OpenAI's own
    /// documentation). The next call goes at once.
    #[test]
    fn a_spent_budget_whose_reset_is_now_lets_the_next_call_go() {
        let pacer = Pacer::new().with_clock(ManualClock::new());
        pacer.observe(
            KEY,
            &headers(&[
                ("x-ratelimit-limit-tokens", "10000"),
                ("x-ratelimit-remaining-tokens", "0"),
                ("x-ratelimit-reset-tokens", "0s"),
            ]),
        );
        assert_eq!(pacer.try_acquire(KEY, Cost::tokens(100)), Ok(()));
    }

    /// A peer's number (the usage in a response body, a caller's estimate) is bounded by the
    /// bucket: however large, the key waits at most about a window and a bucket, never
    /// years, and a full report afterwards is believed once that time passed.
    #[test]
    fn a_huge_cost_or_settle_never_locks_a_key() {
        let clock = ManualClock::new();
        let pacer = Pacer::new().with_clock(clock.clone());
        // 1,000 tokens, half left, full again in half a second: 1,000 tokens a second.
        let half = headers(&[
            ("x-ratelimit-limit-tokens", "1000"),
            ("x-ratelimit-remaining-tokens", "500"),
            ("x-ratelimit-reset-tokens", "500ms"),
        ]);
        pacer.observe(KEY, &half);
        pacer.settle(KEY, Cost::tokens(0), Cost::tokens(u64::MAX));
        let wait = pacer.try_acquire(KEY, Cost::tokens(1)).unwrap_err();
        assert!(wait <= Duration::from_secs(3), "{wait:?}");
        clock.advance(wait);
        assert_eq!(pacer.try_acquire(KEY, Cost::tokens(1)), Ok(()));
        // A cost over the bucket waits for a full bucket, and spends no more than one.
        clock.advance(Duration::from_secs(5));
        assert_eq!(pacer.try_acquire(KEY, Cost::tokens(u64::MAX)), Ok(()));
        let wait = pacer.try_acquire(KEY, Cost::tokens(1)).unwrap_err();
        assert!(wait <= Duration::from_secs(3), "{wait:?}");
    }

    #[test]
    fn a_later_report_never_raises_what_is_left_above_what_was_reserved() {
        let pacer = Pacer::new().with_clock(ManualClock::new());
        let report = headers(&[
            ("x-ratelimit-limit-requests", "10"),
            ("x-ratelimit-remaining-requests", "5"),
            ("x-ratelimit-reset-requests", "50s"),
        ]);
        pacer.observe(KEY, &report);
        for _ in 0..5 {
            assert_eq!(pacer.try_acquire(KEY, Cost::request()), Ok(()));
        }
        // A response written before those five were sent still says 5.
        pacer.observe(KEY, &report);
        assert_eq!(pacer.remaining(KEY, Dimension::Requests), Some(0.0));
    }

    #[test]
    fn a_spent_budget_with_no_reset_waits_a_second_then_twice_as_long() {
        let clock = ManualClock::new();
        let pacer = Pacer::new().with_clock(clock.clone());
        // Azure sends only what remains.
        let spent = headers(&[("x-ratelimit-remaining-requests", "0")]);
        pacer.observe(KEY, &spent);
        assert_eq!(pacer.try_acquire(KEY, Cost::request()), Err(ms(1_000)));
        clock.advance(ms(1_000));
        pacer.observe(KEY, &spent);
        assert_eq!(pacer.try_acquire(KEY, Cost::request()), Err(ms(2_000)));
        clock.advance(ms(2_000));
        pacer.observe(KEY, &headers(&[("x-ratelimit-remaining-requests", "40")]));
        assert_eq!(pacer.try_acquire(KEY, Cost::request()), Ok(()));
    }

    #[test]
    fn what_is_left_of_a_budget_with_no_known_rate_is_spent_then_probed() {
        let clock = ManualClock::new();
        let pacer = Pacer::new().with_clock(clock.clone());
        // Azure sends only what remains: five calls go, the sixth is a probe after the
        // short default, and calls waiting behind it take one turn a second.
        pacer.observe(KEY, &headers(&[("x-ratelimit-remaining-requests", "5")]));
        for _ in 0..5 {
            assert_eq!(pacer.try_acquire(KEY, Cost::request()), Ok(()));
        }
        assert_eq!(pacer.try_acquire(KEY, Cost::request()), Err(ms(1_000)));
        let waits: Vec<_> = (0..2)
            .map(|_| block_on_ready(pacer.reserve(KEY, Cost::request(), Duration::from_secs(60))))
            .collect();
        assert_eq!(waits, [Ok(ms(1_000)), Ok(ms(2_000))]);
        // The probe's answer tells the budget again.
        clock.advance(ms(1_000));
        pacer.observe(KEY, &headers(&[("x-ratelimit-remaining-requests", "3")]));
        assert_eq!(pacer.try_acquire(KEY, Cost::request()), Ok(()));

        // OpenAI's full bucket with a reset of zero says no rate either.
        let full = headers(&[
            ("x-ratelimit-limit-requests", "10"),
            ("x-ratelimit-remaining-requests", "10"),
            ("x-ratelimit-reset-requests", "0s"),
        ]);
        pacer.observe("openai", &full);
        let granted = (0..1_000)
            .filter(|_| pacer.try_acquire("openai", Cost::request()).is_ok())
            .count();
        assert_eq!(granted, 10);
        assert_eq!(pacer.try_acquire("openai", Cost::request()), Err(ms(1_000)));
    }

    #[test]
    fn an_ietf_item_without_a_policy_is_r_units_now_and_the_next_at_t() {
        let clock = ManualClock::new();
        let pacer = Pacer::new().with_clock(clock.clone());
        pacer.observe(KEY, &headers(&[("ratelimit", "\"default\";r=0;t=50")]));
        assert_eq!(pacer.try_acquire(KEY, Cost::request()), Err(ms(50_000)));
        pacer.observe("two", &headers(&[("ratelimit", "\"default\";r=2;t=2")]));
        assert_eq!(pacer.try_acquire("two", Cost::request()), Ok(()));
        assert_eq!(pacer.try_acquire("two", Cost::request()), Ok(()));
        assert_eq!(pacer.try_acquire("two", Cost::request()), Err(ms(2_000)));
        clock.advance(ms(2_000));
        assert_eq!(pacer.try_acquire("two", Cost::request()), Ok(()));
    }

    #[test]
    fn an_ietf_item_with_a_malformed_reset_is_dropped_and_no_reset_waits_the_short_default() {
        let clock = ManualClock::new();
        let pacer = Pacer::new().with_clock(clock.clone());
        pacer.observe(KEY, &headers(&[("ratelimit", "\"default\";r=0;t=-5")]));
        assert_eq!(pacer.try_acquire(KEY, Cost::request()), Ok(()));
        assert_eq!(pacer.remaining(KEY, Dimension::Requests), None);
        // Spent, and no reset said: the short default, not a window's period.
        pacer.observe("spent", &headers(&[("ratelimit", "\"default\";r=0")]));
        assert_eq!(pacer.try_acquire("spent", Cost::request()), Err(ms(1_000)));
        pacer.observe(
            "older",
            &headers(&[("ratelimit-limit", "10"), ("ratelimit-remaining", "0")]),
        );
        assert_eq!(pacer.try_acquire("older", Cost::request()), Err(ms(1_000)));
    }

    #[test]
    fn a_window_holds_until_its_reset_and_spreads_the_next_one() {
        let clock = ManualClock::new();
        let pacer = Pacer::new().with_clock(clock.clone());
        pacer.observe(
            KEY,
            &headers(&[
                ("ratelimit-policy", "\"default\";q=60;w=60"),
                ("ratelimit", "\"default\";r=0;t=10"),
            ]),
        );
        let waits: Vec<_> = (0..3)
            .map(|_| block_on_ready(pacer.reserve(KEY, Cost::request(), Duration::from_secs(60))))
            .collect();
        assert_eq!(waits, [Ok(ms(11_000)), Ok(ms(12_000)), Ok(ms(13_000))]);
    }

    #[test]
    fn retry_after_pauses_and_implausible_values_are_not_obeyed() {
        let clock = ManualClock::new();
        let pacer = Pacer::new().with_clock(clock.clone());
        pacer.observe(
            KEY,
            &headers(&[
                ("retry-after", "2"),
                ("x-ratelimit-limit-requests", "-5"),
                ("x-ratelimit-remaining-requests", "NaN"),
                ("x-ratelimit-reset-requests", "9999h"),
            ]),
        );
        assert_eq!(pacer.try_acquire(KEY, Cost::request()), Err(ms(2_000)));
        assert_eq!(pacer.remaining(KEY, Dimension::Requests), None);
        clock.advance(ms(2_000));
        assert_eq!(pacer.try_acquire(KEY, Cost::request()), Ok(()));
        // A reset in the year 3000 is not obeyed either.
        pacer.observe(
            "anthropic",
            &headers(&[
                ("anthropic-ratelimit-requests-limit", "50"),
                ("anthropic-ratelimit-requests-remaining", "0"),
                ("anthropic-ratelimit-requests-reset", "3000-01-01T00:00:00Z"),
            ]),
        );
        assert!(
            pacer.try_acquire("anthropic", Cost::request()).unwrap_err() <= Duration::from_secs(32)
        );
    }

    /// A provider's bucket of requests as OpenAI keeps it: `capacity` that refills evenly,
    /// told in its headers with `remaining` rounded down and the time until full in whole
    /// milliseconds (rounded to the nearest, as a server printing a duration does).
    struct Provider {
        capacity: f64,
        per_second: f64,
        level: f64,
        at: Duration,
    }

    impl Provider {
        /// Refills to `now`; admits a call if a whole request is there, and answers its
        /// headers.
        fn call(&mut self, now: Duration) -> (bool, HeaderMap) {
            let elapsed = now.saturating_sub(self.at).as_secs_f64();
            self.level = (self.level + self.per_second * elapsed).min(self.capacity);
            self.at = now;
            let admitted = self.level >= 1.0;
            if admitted {
                self.level -= 1.0;
            }
            let full_in = (self.capacity - self.level) / self.per_second;
            let mut map = HeaderMap::new();
            let mut put = |name: &'static str, value: String| {
                map.insert(name, HeaderValue::from_str(&value).unwrap());
            };
            put("x-ratelimit-limit-requests", format!("{}", self.capacity));
            put(
                "x-ratelimit-remaining-requests",
                format!("{}", self.level.floor()),
            );
            put(
                "x-ratelimit-reset-requests",
                format!("{}ms", (full_in * 1000.0).round()),
            );
            (admitted, map)
        }
    }

    /// At the limit, `tasks` callers each reserve their turn, call when it comes, and feed
    /// the pacer the answer's headers `latency` later, for `runs` calls in all: how many
    /// were sent before the provider's bucket held them.
    fn early_calls(
        (capacity, per_second, start): (f64, f64, f64),
        tasks: usize,
        latency: Duration,
    ) -> usize {
        let clock = ManualClock::new();
        let pacer = Pacer::new().with_clock(clock.clone());
        let mut provider = Provider {
            capacity,
            per_second,
            level: start,
            at: Duration::ZERO,
        };
        // The pacer first learns the bucket spent, as a run at the limit leaves it.
        pacer.observe(KEY, &provider.call(Duration::ZERO).1);
        // (when, task, what happens then: true a call arrives, false its answer is read)
        let mut events: Vec<(Duration, usize, bool, Option<HeaderMap>)> = Vec::new();
        let mut now = Duration::ZERO;
        let mut early = 0;
        let reserve = |now: Duration| {
            block_on_ready(pacer.reserve(KEY, Cost::request(), Duration::from_secs(3_600)))
                .map(|wait| now + wait)
                .expect("a turn within an hour")
        };
        for task in 0..tasks {
            events.push((reserve(now), task, true, None));
        }
        for _ in 0..2_000 {
            let i = (0..events.len())
                .min_by_key(|&i| (events[i].0, events[i].1))
                .unwrap();
            let (at, task, arrives, headers) = events.swap_remove(i);
            clock.advance(at - now);
            now = at;
            if arrives {
                let (admitted, headers) = provider.call(now);
                early += usize::from(!admitted);
                events.push((now + latency, task, false, Some(headers)));
            } else {
                pacer.observe(KEY, &headers.unwrap());
                events.push((reserve(now), task, true, None));
            }
        }
        early
    }

    #[test]
    fn a_paced_call_never_goes_before_the_providers_bucket_holds_it() {
        // At most a bucket's worth of callers wait at once: the pacer's debt is bounded by
        // one bucket.
        let mut failed = Vec::new();
        for bucket in [(50.0, 50.0), (10.0, 10.0 / 60.0), (4_000.0, 4_000.0)] {
            // What the provider's bucket holds beyond the whole units it tells.
            for start in [0.0, 0.3, 0.7, 0.99] {
                for tasks in [1, 4, 8] {
                    for latency in [ms(0), ms(3), ms(10)] {
                        let bucket = (bucket.0, bucket.1, start + 1.0);
                        let early = early_calls(bucket, tasks, latency);
                        if early > 0 {
                            failed.push((bucket, tasks, latency, early));
                        }
                    }
                }
            }
        }
        assert_eq!(
            failed,
            [],
            "(capacity, per second, level), tasks, latency, early calls"
        );
    }

    /// The names a provider's rate-limit fields use, for the property below.
    const NAMES: [&str; 14] = [
        "x-ratelimit-limit-requests",
        "x-ratelimit-remaining-requests",
        "x-ratelimit-reset-requests",
        "x-ratelimit-remaining-tokens",
        "anthropic-ratelimit-output-tokens-remaining",
        "anthropic-ratelimit-output-tokens-reset",
        "ratelimit",
        "ratelimit-policy",
        "ratelimit-remaining",
        "ratelimit-reset",
        "x-ratelimit-reset",
        "x-ratelimit-remaining",
        "retry-after",
        "retry-after-ms",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 256, failure_persistence: None, ..Default::default() })]

        /// Whatever a peer sends, a pacer never panics, never asks a call to wait past 25
        /// hours, never reserves past a reservation's cap, and keeps what is left finite.
        #[test]
        fn no_header_a_peer_sends_holds_a_call_past_the_caps(
            fields in proptest::collection::vec((0..NAMES.len(), "[ -~]{0,40}"), 0..12),
            cap_ms in 0u64..5_000,
        ) {
            let clock = ManualClock::new();
            let pacer = Pacer::new().with_clock(clock.clone()).max_keys(4);
            let mut map = HeaderMap::new();
            for (name, value) in &fields {
                if let Ok(value) = HeaderValue::from_str(value) {
                    map.append(NAMES[*name], value);
                }
            }
            for round in 0..3 {
                pacer.observe_response(KEY, 200 + 229 * (round % 2), &map);
                let cap = ms(cap_ms);
                match block_on_ready(pacer.reserve(KEY, Cost::tokens(100), cap)) {
                    Ok(wait) => proptest::prop_assert!(wait <= cap),
                    Err(needed) => proptest::prop_assert!(needed <= crate::store::MAX_HOLD),
                }
                for d in Dimension::ALL {
                    if let Some(left) = pacer.remaining(KEY, d) {
                        proptest::prop_assert!(left.is_finite());
                    }
                }
                clock.advance(ms(700));
            }
        }
    }

    #[test]
    fn a_429_status_lowers_the_adaptive_rate_and_a_success_raises_it() {
        let clock = ManualClock::new();
        let pacer = Pacer::new().with_clock(clock.clone());
        let none = HeaderMap::new();
        for _ in 0..20 {
            pacer.try_acquire(KEY, Cost::request()).unwrap();
            pacer.observe_response(KEY, 200, &none);
            clock.advance(ms(50));
        }
        pacer.observe_response(KEY, 429, &none);
        let fallen = pacer.adaptive_rate(KEY).unwrap();
        for _ in 0..200 {
            clock.advance(ms(50));
            if pacer.try_acquire(KEY, Cost::request()).is_ok() {
                pacer.observe_response(KEY, http::StatusCode::OK, &none);
            }
        }
        assert!(pacer.adaptive_rate(KEY).unwrap() > fallen);
    }
}

/// Whatever costs, usages, headers and time a pacer meets, alone or sharing a store: no
/// wait is longer than 25 hours, a reservation never needs more than the `max_wait` it was
/// given, nothing panics, and once every hold has run out a response saying the budget is
/// full lets the next call go at once: no number a peer sent locks a key.
#[cfg(feature = "http")]
mod properties {
    use super::*;
    use crate::store::MAX_HOLD;
    use http::{HeaderMap, HeaderName, HeaderValue};
    use proptest::prelude::*;

    /// A header value a peer might send: numbers in and out of range, durations, garbage.
    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<u64>().prop_map(|n| n.to_string()),
            (0u64..100_000).prop_map(|n| n.to_string()),
            any::<i64>().prop_map(|n| n.to_string()),
            any::<f64>().prop_map(|x| x.to_string()),
            (
                0u64..100_000,
                prop::sample::select(vec!["ms", "s", "m", "h", "m0s"])
            )
                .prop_map(|(n, unit)| format!("{n}{unit}")),
            Just("1e308".to_owned()),
            Just("-0".to_owned()),
            Just("NaN".to_owned()),
            Just(String::new()),
            "[ -~]{0,24}",
        ]
    }

    /// One field of a rate-limit family, with a value.
    fn field() -> impl Strategy<Value = (&'static str, String)> {
        let names = prop::sample::select(vec![
            "x-ratelimit-limit-requests",
            "x-ratelimit-remaining-requests",
            "x-ratelimit-reset-requests",
            "x-ratelimit-limit-tokens",
            "x-ratelimit-remaining-tokens",
            "x-ratelimit-reset-tokens",
            "anthropic-ratelimit-requests-limit",
            "anthropic-ratelimit-requests-remaining",
            "anthropic-ratelimit-input-tokens-remaining",
            "anthropic-ratelimit-output-tokens-limit",
            "ratelimit-limit",
            "ratelimit-remaining",
            "ratelimit-reset",
            "x-ratelimit-remaining",
            "retry-after",
            "retry-after-ms",
        ]);
        let ietf =
            (value(), value()).prop_map(|(r, t)| ("ratelimit", format!("\"default\";r={r};t={t}")));
        let policy = (value(), value())
            .prop_map(|(q, w)| ("ratelimit-policy", format!("\"default\";q={q};w={w}")));
        prop_oneof![4 => (names, value()), 1 => ietf, 1 => policy]
    }

    #[derive(Clone, Debug)]
    enum Op {
        Observe(Vec<(&'static str, String)>),
        Acquire { tokens: u64, max_wait: Duration },
        Settle { estimated: u64, actual: u64 },
        Throttled(Option<Duration>),
        Advance(Duration),
    }

    fn op() -> impl Strategy<Value = Op> {
        let tokens = prop_oneof![0u64..10_000, any::<u64>()];
        prop_oneof![
            3 => prop::collection::vec(field(), 0..6).prop_map(Op::Observe),
            4 => (tokens.clone(), 0u64..200_000).prop_map(|(tokens, ms)| Op::Acquire {
                tokens,
                max_wait: Duration::from_millis(ms),
            }),
            2 => (tokens.clone(), tokens).prop_map(|(estimated, actual)| Op::Settle {
                estimated,
                actual,
            }),
            1 => prop::option::of((0u64..200_000).prop_map(Duration::from_millis))
                .prop_map(Op::Throttled),
            2 => (0u64..120_000).prop_map(|ms| Op::Advance(Duration::from_millis(ms))),
        ]
    }

    fn header_map(fields: &[(&'static str, String)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in fields {
            if let Ok(value) = HeaderValue::from_str(value) {
                map.append(HeaderName::from_static(name), value);
            }
        }
        map
    }

    /// Responses saying every budget is full: OpenAI's requests and tokens, Anthropic's
    /// input and output tokens.
    fn full() -> [HeaderMap; 2] {
        let openai = header_map(&[
            ("x-ratelimit-limit-requests", "100".to_owned()),
            ("x-ratelimit-remaining-requests", "100".to_owned()),
            ("x-ratelimit-reset-requests", "1s".to_owned()),
            ("x-ratelimit-limit-tokens", "100000".to_owned()),
            ("x-ratelimit-remaining-tokens", "100000".to_owned()),
            ("x-ratelimit-reset-tokens", "1s".to_owned()),
        ]);
        let anthropic = header_map(&[
            (
                "anthropic-ratelimit-input-tokens-limit",
                "100000".to_owned(),
            ),
            (
                "anthropic-ratelimit-input-tokens-remaining",
                "100000".to_owned(),
            ),
            (
                "anthropic-ratelimit-output-tokens-limit",
                "100000".to_owned(),
            ),
            (
                "anthropic-ratelimit-output-tokens-remaining",
                "100000".to_owned(),
            ),
        ]);
        [openai, anthropic]
    }

    fn run(pacers: &[Pacer], clock: &ManualClock, ops: &[Op]) -> Result<(), TestCaseError> {
        for (i, op) in ops.iter().enumerate() {
            let pacer = &pacers[i % pacers.len()];
            match op {
                Op::Observe(fields) => pacer.observe(KEY, &header_map(fields)),
                Op::Acquire { tokens, max_wait } => {
                    let cost = Cost::tokens(*tokens);
                    match block_on_ready(pacer.reserve(KEY, cost, *max_wait)) {
                        Ok(wait) => prop_assert!(wait <= *max_wait, "{op:?}: {wait:?}"),
                        Err(needed) => prop_assert!(needed <= MAX_HOLD, "{op:?}: {needed:?}"),
                    }
                    if let Err(wait) = pacer.try_acquire(KEY, cost) {
                        prop_assert!(wait <= MAX_HOLD, "{op:?}: {wait:?}");
                    }
                }
                Op::Settle { estimated, actual } => {
                    pacer.settle(KEY, Cost::tokens(*estimated), Cost::tokens(*actual));
                }
                Op::Throttled(wait) => pacer.throttled(KEY, *wait),
                Op::Advance(by) => clock.advance(*by),
            }
        }
        // Every hold runs out within 25 hours; then a response says the budget is full.
        clock.advance(MAX_HOLD + Duration::from_secs(1));
        for pacer in pacers {
            for response in full() {
                pacer.observe(KEY, &response);
            }
            prop_assert_eq!(pacer.try_acquire(KEY, Cost::tokens(1_000)), Ok(()));
        }
        Ok(())
    }

    /// The cases each property runs: 512 in the edit loop; CI asks for 2048 with
    /// `AGENT_ERROR_PACE_CASES` (`.ci/run`, with the timed tests).
    fn cases() -> u32 {
        std::env::var("AGENT_ERROR_PACE_CASES")
            .ok()
            .and_then(|cases| cases.parse().ok())
            .unwrap_or(512)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(cases()))]

        #[test]
        fn alone_no_number_holds_a_key_past_the_caps(ops in prop::collection::vec(op(), 0..40)) {
            let clock = ManualClock::new();
            let pacer = Pacer::new().with_clock(clock.clone());
            run(&[pacer], &clock, &ops)?;
        }

        #[test]
        fn shared_no_number_holds_a_key_past_the_caps(ops in prop::collection::vec(op(), 0..40)) {
            let clock = ManualClock::new();
            let store: Arc<dyn crate::store::local::Store> =
                Arc::new(LocalStore::with_clock(clock.clone()));
            let pacers: Vec<Pacer> = (0..2)
                .map(|_| Pacer::new().with_clock(clock.clone()).shared_in(store.clone()))
                .collect();
            run(&pacers, &clock, &ops)?;
        }
    }
}

/// Every reservation counts: whatever the limit, the longest wait, the number of callers and
/// of replicas, the calls granted by any time `t` are at most `capacity + rate·t + 1`, and a
/// reservation whose wait would pass `max_wait` is refused; on a pacer alone and on pacers
/// sharing a `LocalStore`.
mod every_reservation_counts {
    use super::*;
    use crate::store::MAX_HOLD;
    use proptest::prelude::*;

    /// Grant times (from the start) of every call of `rounds` (time to advance, then the
    /// calls made at once), on `replicas` pacers (sharing a store when more than none).
    fn grants(
        limit: Limit,
        max_wait: Duration,
        rounds: &[(u64, usize)],
        replicas: usize,
    ) -> Result<Vec<Duration>, TestCaseError> {
        let clock = ManualClock::new();
        let store: Arc<dyn crate::store::PaceStore> =
            Arc::new(LocalStore::with_clock(clock.clone()));
        let pacers: Vec<Pacer> = (0..replicas.max(1))
            .map(|_| {
                let pacer = Pacer::new()
                    .with_clock(clock.clone())
                    .max_wait(max_wait)
                    .limit(KEY, limit);
                if replicas == 0 {
                    pacer
                } else {
                    pacer.shared_in(store.clone())
                }
            })
            .collect();
        let mut now = Duration::ZERO;
        let mut granted = Vec::new();
        for (i, &(advance, calls)) in rounds.iter().enumerate() {
            clock.advance(ms(advance));
            now += ms(advance);
            for call in 0..calls {
                let pacer = &pacers[(i + call) % pacers.len()];
                match block_on_ready(pacer.reserve(KEY, Cost::request(), max_wait)) {
                    Ok(wait) => {
                        prop_assert!(wait <= max_wait, "waits {wait:?} past {max_wait:?}");
                        granted.push(now + wait);
                    }
                    Err(needed) => prop_assert!(
                        needed > max_wait || needed == MAX_HOLD,
                        "refused with {needed:?}, within {max_wait:?}"
                    ),
                }
            }
        }
        granted.sort();
        Ok(granted)
    }

    /// Whether the grants follow the limit's curve from the start: the n-th grant at `t`
    /// has n at most `capacity + rate·t + 1`.
    fn under_the_curve(limit: Limit, granted: &[Duration]) -> Result<(), TestCaseError> {
        let capacity = limit.amount() as f64;
        let rate = capacity / limit.per().as_secs_f64();
        for (n, at) in granted.iter().enumerate() {
            let allowed = capacity + rate * at.as_secs_f64() + 1.0;
            prop_assert!(
                (n + 1) as f64 <= allowed + 1e-6,
                "{} calls granted by {at:?}, where {limit:?} allows {allowed:.2}",
                n + 1
            );
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn grants_never_pass_the_limits_curve(
            amount in 1u64..100,
            per_ms in 10u64..20_000,
            max_wait_ms in prop_oneof![0u64..5_000, 0u64..200_000, Just(u64::MAX / 1_000_000)],
            rounds in proptest::collection::vec((0u64..3_000, 1usize..120), 1..6),
            replicas in 0usize..4,
        ) {
            let limit = Limit::requests(amount, ms(per_ms));
            let granted = grants(limit, ms(max_wait_ms), &rounds, replicas)?;
            under_the_curve(limit, &granted)?;
        }
    }

    #[test]
    fn a_queue_deeper_than_twice_the_capacity_waits_its_turn() {
        let limit = Limit::requests(20, Duration::from_secs(1));
        let granted = grants(limit, ms(1_500), &[(0, 200)], 0).unwrap();
        // 20 at once, then one every 50 ms up to the longest wait: 50 in all.
        assert_eq!(granted.len(), 50);
        assert_eq!(granted[19], Duration::ZERO);
        assert_eq!(granted[20], ms(50));
        assert_eq!(granted[49], ms(1_500));
        under_the_curve(limit, &granted).unwrap();
        let shared = grants(limit, ms(1_500), &[(0, 200)], 2).unwrap();
        assert_eq!(shared.len(), 50);
        under_the_curve(limit, &shared).unwrap();
    }
}
