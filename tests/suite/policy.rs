//! `RetryPolicy` (SPEC §2.1): constants, the run-time builder, and `backoff`, the
//! un-jittered delay `min(max_delay, base_delay * factor^retry)`.

use std::time::Duration;

use agent_error::RetryPolicy;
use agent_error::retry::Jitter;
use agent_error::retry::RetryPolicyBuilder;
use proptest::prelude::*;

const MS: fn(u64) -> Duration = Duration::from_millis;
const SECS: fn(u64) -> Duration = Duration::from_secs;

#[test]
fn never_is_one_attempt_without_delay() {
    let p = RetryPolicy::NEVER;
    assert!(!p.is_retryable());
    assert!(!p.is_rate_limited());
    assert_eq!(p.max_attempts(), 1);
    assert_eq!(p.retry_after(), None);
    assert_eq!(p.backoff(0), Duration::ZERO);
    assert_eq!(p.backoff(u32::MAX), Duration::ZERO);
}

#[test]
fn the_policy_lives_in_retry_and_at_the_root() {
    let p: agent_error::retry::RetryPolicy = agent_error::RetryPolicy::DEFAULT;
    let j: agent_error::retry::Jitter = agent_error::retry::Jitter::Full;
    assert_eq!(p.jitter(), j);
}

#[test]
fn the_default_trait_value_is_never() {
    assert_eq!(RetryPolicy::default(), RetryPolicy::NEVER);
}

#[test]
fn default_is_retryable_with_the_spec_tuning() {
    let p = RetryPolicy::DEFAULT;
    assert!(p.is_retryable());
    assert!(!p.is_rate_limited());
    assert_eq!(p.max_attempts(), 3);
    assert_eq!(p.base_delay(), MS(200));
    assert_eq!(p.factor(), 2.0);
    assert_eq!(p.max_delay(), SECS(30));
    assert_eq!(p.jitter(), Jitter::Full);
    assert_eq!(p.max_wait(), SECS(60));
    assert_eq!(p.retry_after(), None);
}

#[test]
fn rate_limited_is_default_tuning_marked_rate_limited() {
    let p = RetryPolicy::RATE_LIMITED;
    assert!(p.is_retryable());
    assert!(p.is_rate_limited());
    assert_eq!(p.max_attempts(), 3);
    assert_eq!(p.base_delay(), MS(200));
    assert_eq!(p.max_delay(), SECS(30));
    assert_eq!(p.max_wait(), SECS(60));
}

#[test]
fn the_default_constants() {
    assert_eq!(RetryPolicy::DEFAULT_MAX_ATTEMPTS, 3);
    assert_eq!(RetryPolicy::DEFAULT_BASE_DELAY, MS(200));
    assert_eq!(RetryPolicy::DEFAULT_FACTOR, 2.0);
    assert_eq!(RetryPolicy::DEFAULT_MAX_DELAY, SECS(30));
    assert_eq!(RetryPolicy::DEFAULT_JITTER, Jitter::Full);
    assert_eq!(RetryPolicy::DEFAULT_MAX_WAIT, SECS(60));
}

#[test]
fn a_policy_is_copy() {
    fn is_copy<T: Copy>() {}
    is_copy::<RetryPolicy>();
    is_copy::<Jitter>();
}

#[test]
fn with_retry_after_sets_and_clears_the_delay() {
    let p = RetryPolicy::DEFAULT.with_retry_after(Some(SECS(4)));
    assert_eq!(p.retry_after(), Some(SECS(4)));
    assert_eq!(p.with_retry_after(None).retry_after(), None);
    assert_eq!(p.with_retry_after(None), RetryPolicy::DEFAULT);
}

#[test]
fn jitter_names() {
    assert_eq!(Jitter::None.as_str(), "none");
    assert_eq!(Jitter::Full.as_str(), "full");
    assert_eq!(Jitter::Equal.as_str(), "equal");
    assert_eq!(Jitter::Decorrelated.as_str(), "decorrelated");
    assert_eq!(Jitter::Decorrelated.to_string(), "decorrelated");
}

#[test]
fn the_builder_starts_from_the_default() {
    assert_eq!(RetryPolicy::builder().build(), Ok(RetryPolicy::DEFAULT));
}

#[test]
fn the_builder_sets_every_field() {
    let p = RetryPolicy::builder()
        .max_attempts(5)
        .base_delay(MS(50))
        .max_delay(SECS(2))
        .factor(1.5)
        .jitter(Jitter::Equal)
        .max_wait(SECS(10))
        .rate_limited(true)
        .retry_after(Some(SECS(1)))
        .build()
        .unwrap();
    assert!(p.is_retryable());
    assert!(p.is_rate_limited());
    assert_eq!(p.max_attempts(), 5);
    assert_eq!(p.base_delay(), MS(50));
    assert_eq!(p.max_delay(), SECS(2));
    assert_eq!(p.factor(), 1.5);
    assert_eq!(p.jitter(), Jitter::Equal);
    assert_eq!(p.max_wait(), SECS(10));
    assert_eq!(p.retry_after(), Some(SECS(1)));
}

#[test]
fn the_builder_accepts_the_boundaries() {
    let p = RetryPolicy::builder()
        .max_attempts(1)
        .base_delay(Duration::from_nanos(1))
        .max_delay(Duration::from_nanos(1))
        .factor(1.0)
        .build()
        .unwrap();
    assert_eq!(p.max_attempts(), 1);
    assert_eq!(p.backoff(0), Duration::from_nanos(1));
    assert_eq!(p.backoff(u32::MAX), Duration::from_nanos(1));
    let huge = RetryPolicy::builder()
        .max_attempts(u32::MAX)
        .max_delay(Duration::MAX)
        .factor(f64::MAX)
        .build()
        .unwrap();
    assert_eq!(huge.max_attempts(), u32::MAX);
}

fn refusal(builder: RetryPolicyBuilder) -> String {
    builder.build().unwrap_err().to_string()
}

#[test]
fn the_builder_refuses_zero_attempts() {
    assert_eq!(
        refusal(RetryPolicy::builder().max_attempts(0)),
        "invalid retry policy: max_attempts must be at least 1"
    );
}

#[test]
fn the_builder_refuses_a_zero_base_delay() {
    assert_eq!(
        refusal(RetryPolicy::builder().base_delay(Duration::ZERO)),
        "invalid retry policy: base_delay must be more than zero"
    );
}

#[test]
fn the_builder_refuses_a_base_above_the_max() {
    assert_eq!(
        refusal(
            RetryPolicy::builder()
                .base_delay(SECS(2))
                .max_delay(SECS(1))
        ),
        "invalid retry policy: base_delay must not exceed max_delay"
    );
    // The default max delay is 30s.
    assert_eq!(
        refusal(RetryPolicy::builder().base_delay(SECS(31))),
        "invalid retry policy: base_delay must not exceed max_delay"
    );
}

#[test]
fn the_builder_refuses_a_factor_below_one_or_not_finite() {
    for factor in [0.999, 0.0, -2.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert_eq!(
            refusal(RetryPolicy::builder().factor(factor)),
            "invalid retry policy: factor must be a finite number of at least 1",
            "factor {factor}"
        );
    }
}

#[test]
fn the_refusal_is_an_error() {
    let err = RetryPolicy::builder().max_attempts(0).build().unwrap_err();
    let _: &dyn std::error::Error = &err;
}

#[test]
fn backoff_of_the_default_doubles_up_to_the_cap() {
    let p = RetryPolicy::DEFAULT;
    let delays: Vec<Duration> = (0..10).map(|r| p.backoff(r)).collect();
    assert_eq!(
        delays,
        [
            MS(200),
            MS(400),
            MS(800),
            MS(1600),
            MS(3200),
            MS(6400),
            MS(12800),
            MS(25600),
            SECS(30),
            SECS(30),
        ]
    );
    assert_eq!(p.backoff(1_000), SECS(30));
    assert_eq!(p.backoff(u32::MAX), SECS(30));
}

#[test]
fn backoff_with_a_fractional_factor() {
    let p = RetryPolicy::builder()
        .base_delay(MS(100))
        .max_delay(SECS(1))
        .factor(1.5)
        .build()
        .unwrap();
    let delays: Vec<Duration> = (0..7).map(|r| p.backoff(r)).collect();
    assert_eq!(
        delays,
        [
            MS(100),
            MS(150),
            MS(225),
            Duration::from_micros(337_500),
            Duration::from_micros(506_250),
            Duration::from_nanos(759_375_000),
            SECS(1),
        ]
    );
}

#[test]
fn backoff_with_factor_one_is_constant() {
    let p = RetryPolicy::builder()
        .base_delay(MS(300))
        .factor(1.0)
        .build()
        .unwrap();
    for retry in [0, 1, 2, 100, u32::MAX] {
        assert_eq!(p.backoff(retry), MS(300));
    }
}

#[test]
fn backoff_with_base_equal_to_max_is_the_max() {
    let p = RetryPolicy::builder()
        .base_delay(SECS(5))
        .max_delay(SECS(5))
        .build()
        .unwrap();
    assert_eq!(p.backoff(0), SECS(5));
    assert_eq!(p.backoff(9), SECS(5));
}

#[test]
fn backoff_with_a_huge_factor_saturates_without_panicking() {
    let p = RetryPolicy::builder()
        .base_delay(Duration::from_nanos(1))
        .max_delay(Duration::MAX)
        .factor(f64::MAX)
        .build()
        .unwrap();
    assert_eq!(p.backoff(0), Duration::from_nanos(1));
    assert_eq!(p.backoff(1), Duration::MAX);
    assert_eq!(p.backoff(u32::MAX), Duration::MAX);
}

#[test]
fn backoff_is_exact_beyond_u64_nanoseconds() {
    // 1,000 years is more nanoseconds than a u64 holds, but the formula still says
    // `min(max_delay, base_delay * 1)`, which is the base delay.
    let thousand_years = SECS(1_000 * 365 * 24 * 3600);
    let p = RetryPolicy::builder()
        .base_delay(thousand_years)
        .max_delay(Duration::MAX)
        .factor(1.0)
        .build()
        .unwrap();
    assert_eq!(p.backoff(0), thousand_years);
    assert_eq!(p.backoff(5), thousand_years);
}

fn any_duration() -> impl Strategy<Value = Duration> {
    prop_oneof![
        (1u64..=60_000_000_000).prop_map(Duration::from_nanos),
        (0u64..=u64::MAX, 0u32..1_000_000_000).prop_map(|(s, n)| Duration::new(s, n)),
        Just(Duration::MAX),
        Just(Duration::from_nanos(1)),
    ]
}

// `f64::next_up` is Rust 1.86: the facade's tests need 1.88 anyway (their dev-dependencies
// do); only the library is held to its `rust-version`, 1.85.
#[allow(clippy::incompatible_msrv)]
fn any_factor() -> impl Strategy<Value = f64> {
    prop_oneof![
        1.0f64..=4.0,
        1.0f64..=1e6,
        Just(1.0),
        Just(f64::MAX),
        (1.0f64..=2.0).prop_map(|f| f.next_up()),
    ]
}

/// Any policy the builder accepts.
fn any_policy() -> impl Strategy<Value = RetryPolicy> {
    (
        any_duration(),
        any_duration(),
        any_factor(),
        1u32..=u32::MAX,
    )
        .prop_map(|(a, b, factor, attempts)| {
            let (base, max) = if a <= b { (a, b) } else { (b, a) };
            let base = base.max(Duration::from_nanos(1));
            let max = max.max(base);
            RetryPolicy::builder()
                .max_attempts(attempts)
                .base_delay(base)
                .max_delay(max)
                .factor(factor)
                .build()
                .expect("a valid policy")
        })
}

/// Realistic tuning where `base * factor^retry` is exact in integers.
fn exact_case() -> impl Strategy<Value = (u64, u64, u32, u32)> {
    (
        1u64..=3_600_000_000_000,
        1u64..=86_400_000_000_000,
        prop_oneof![Just(1u32), Just(2), Just(3), Just(4), Just(10)],
        0u32..=80,
    )
}

proptest! {
    #[test]
    fn backoff_never_exceeds_the_max_delay(policy in any_policy(), retry in any::<u32>()) {
        prop_assert!(policy.backoff(retry) <= policy.max_delay());
    }

    #[test]
    fn backoff_is_at_least_the_base_delay(policy in any_policy(), retry in any::<u32>()) {
        prop_assert!(policy.backoff(retry) >= policy.base_delay());
    }

    #[test]
    fn backoff_is_non_decreasing(policy in any_policy(), retry in 0u32..u32::MAX) {
        prop_assert!(policy.backoff(retry) <= policy.backoff(retry + 1));
    }

    #[test]
    fn backoff_of_the_first_retry_is_the_base_delay(policy in any_policy()) {
        // Up to 2^53 ns (104 days) a delay is exact in the f64 the curve is computed in.
        prop_assume!(policy.base_delay() < Duration::from_nanos(1 << 53));
        prop_assert_eq!(policy.backoff(0), policy.base_delay());
    }

    #[test]
    fn backoff_saturates_at_the_max_delay(policy in any_policy()) {
        prop_assume!(policy.factor() >= 1.001);
        prop_assert_eq!(policy.backoff(u32::MAX), policy.max_delay());
    }

    #[test]
    fn backoff_follows_the_formula((base, max, factor, retry) in exact_case()) {
        let (base, max) = (base.min(max), base.max(max));
        let policy = RetryPolicy::builder()
            .base_delay(Duration::from_nanos(base))
            .max_delay(Duration::from_nanos(max))
            .factor(f64::from(factor))
            .build()
            .unwrap();
        let grown = u128::from(factor)
            .checked_pow(retry)
            .and_then(|p| p.checked_mul(u128::from(base)))
            .unwrap_or(u128::MAX);
        let expected = grown.min(u128::from(max)) as u64;
        prop_assert_eq!(policy.backoff(retry), Duration::from_nanos(expected));
    }
}
