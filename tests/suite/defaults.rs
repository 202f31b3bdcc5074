//! SPEC §1.3 defaults: retry, tuning precedence (variant, container, runtime), recovery,
//! `#[retry_after]`, and the codes made from variant names.

use std::time::Duration;

use agent_error::retry::Jitter;
use agent_error::{AgentError, Recovery, RetryPolicy};

const MS: fn(u64) -> Duration = Duration::from_millis;
const SECS: fn(u64) -> Duration = Duration::from_secs;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum Plain {
    #[error("permanent")]
    Permanent,

    #[agent(retryable)]
    #[error("transient")]
    Transient,

    #[agent(rate_limited)]
    #[error("throttled")]
    Throttled,

    #[agent(retry(attempts = 4))]
    #[error("tuned")]
    Tuned,
}

#[test]
fn a_variant_is_not_retryable_by_default() {
    let e = Plain::Permanent;
    let p = e.retry_policy();
    assert_eq!(p, RetryPolicy::NEVER);
    assert!(!p.is_retryable());
    assert!(!p.is_rate_limited());
    assert_eq!(p.max_attempts(), 1);
    assert_eq!(p.retry_after(), None);
    assert!(!e.is_retryable());
    assert!(!e.is_rate_limited());
    assert_eq!(e.retry_after(), None);
}

#[test]
fn retryable_uses_the_runtime_defaults() {
    let e = Plain::Transient;
    let p = e.retry_policy();
    assert!(p.is_retryable());
    assert!(!p.is_rate_limited());
    assert_eq!(p.max_attempts(), 3);
    assert_eq!(p.base_delay(), MS(200));
    assert_eq!(p.factor(), 2.0);
    assert_eq!(p.max_delay(), SECS(30));
    assert_eq!(p.jitter(), Jitter::Full);
    assert_eq!(p.max_wait(), SECS(60));
    assert_eq!(p.retry_after(), None);
    assert_eq!(p, RetryPolicy::DEFAULT);
    assert!(e.is_retryable());
    assert!(!e.is_rate_limited());
}

#[test]
fn rate_limited_is_retryable_and_rate_limited() {
    let e = Plain::Throttled;
    let p = e.retry_policy();
    assert!(p.is_retryable());
    assert!(p.is_rate_limited());
    assert_eq!(p.max_attempts(), 3);
    assert_eq!(p.base_delay(), MS(200));
    assert_eq!(p, RetryPolicy::RATE_LIMITED);
    assert!(e.is_retryable());
    assert!(e.is_rate_limited());
}

#[test]
fn retry_tuning_alone_makes_a_variant_retryable() {
    let e = Plain::Tuned;
    let p = e.retry_policy();
    assert!(e.is_retryable());
    assert!(!e.is_rate_limited());
    assert_eq!(p.max_attempts(), 4);
    assert_eq!(p.base_delay(), MS(200));
    assert_eq!(p.max_delay(), SECS(30));
    assert_eq!(p.factor(), 2.0);
    assert_eq!(p.jitter(), Jitter::Full);
    assert_eq!(p.max_wait(), SECS(60));
}

#[derive(Debug, AgentError)]
#[agent(
    op = "llm.generate",
    retry(attempts = 5, base = "1s", jitter = "equal")
)]
enum Layered {
    #[agent(retryable)]
    #[error("container tuning")]
    ContainerTuning,

    #[agent(retry(attempts = 2, max = "10s", factor = 3.0, max_wait = "2m"))]
    #[error("variant tuning")]
    VariantTuning,

    #[agent(rate_limited, retry(jitter = "none", base = "250ms"))]
    #[error("rate limited")]
    RateLimitedTuning,

    #[error("permanent")]
    Permanent,
}

#[test]
fn container_tuning_fills_a_retryable_variant() {
    let p = Layered::ContainerTuning.retry_policy();
    assert!(p.is_retryable());
    assert_eq!(p.max_attempts(), 5);
    assert_eq!(p.base_delay(), SECS(1));
    assert_eq!(p.max_delay(), SECS(30));
    assert_eq!(p.factor(), 2.0);
    assert_eq!(p.jitter(), Jitter::Equal);
    assert_eq!(p.max_wait(), SECS(60));
}

#[test]
fn variant_tuning_wins_field_by_field() {
    let p = Layered::VariantTuning.retry_policy();
    assert!(p.is_retryable());
    assert_eq!(p.max_attempts(), 2);
    assert_eq!(p.base_delay(), SECS(1));
    assert_eq!(p.max_delay(), SECS(10));
    assert_eq!(p.factor(), 3.0);
    assert_eq!(p.jitter(), Jitter::Equal);
    assert_eq!(p.max_wait(), SECS(120));
}

#[test]
fn rate_limited_with_tuning_keeps_the_mark() {
    let e = Layered::RateLimitedTuning;
    let p = e.retry_policy();
    assert!(p.is_rate_limited());
    assert!(e.is_rate_limited());
    assert_eq!(p.max_attempts(), 5);
    assert_eq!(p.base_delay(), MS(250));
    assert_eq!(p.jitter(), Jitter::None);
}

#[test]
fn container_tuning_does_not_make_a_variant_retryable() {
    let e = Layered::Permanent;
    assert_eq!(e.retry_policy(), RetryPolicy::NEVER);
    assert!(!e.is_retryable());
    assert_eq!(e.recovery(), Recovery::Abort);
}

#[derive(Debug, AgentError)]
#[agent(
    op = "fs.read",
    code = "busy",
    retry(
        attempts = 6,
        base = "1.5s",
        max = "1h",
        factor = 3,
        jitter = "decorrelated",
        max_wait = "90s"
    )
)]
#[error("file is busy")]
struct Busy;

#[test]
fn a_struct_takes_retry_tuning_on_the_container() {
    let p = Busy.retry_policy();
    assert!(p.is_retryable());
    assert!(!p.is_rate_limited());
    assert_eq!(p.max_attempts(), 6);
    assert_eq!(p.base_delay(), MS(1500));
    assert_eq!(p.max_delay(), SECS(3600));
    assert_eq!(p.factor(), 3.0);
    assert_eq!(p.jitter(), Jitter::Decorrelated);
    assert_eq!(p.max_wait(), SECS(90));
    assert_eq!(Busy.recovery(), Recovery::Retry);
}

#[derive(Debug, AgentError)]
#[agent(op = "units.check")]
enum Units {
    #[agent(retry(base = "100ns", max = "500us"))]
    #[error("small")]
    Small,
    #[agent(retry(base = "2m", max = "1h"))]
    #[error("large")]
    Large,
}

#[test]
fn durations_accept_every_unit() {
    let small = Units::Small.retry_policy();
    assert_eq!(small.base_delay(), Duration::from_nanos(100));
    assert_eq!(small.max_delay(), Duration::from_micros(500));
    let large = Units::Large.retry_policy();
    assert_eq!(large.base_delay(), SECS(120));
    assert_eq!(large.max_delay(), SECS(3600));
}

#[derive(Debug, AgentError)]
#[agent(op = "agent.step")]
enum Recoveries {
    #[error("a")]
    Permanent,
    #[agent(retryable)]
    #[error("b")]
    Retryable,
    #[agent(rate_limited)]
    #[error("c")]
    RateLimited,
    // `recovery = "retry"` needs a retried variant: on a permanent one it is a compile
    // error (ui-tests/recovery-retry-on-permanent.rs).
    #[agent(retry(attempts = 5), recovery = "retry")]
    #[error("d")]
    ExplicitRetry,
    #[agent(recovery = "replan")]
    #[error("e")]
    Replan,
    #[agent(rate_limited, recovery = "fallback")]
    #[error("f")]
    Fallback,
    #[agent(recovery = "compact")]
    #[error("g")]
    Compact,
    #[agent(retryable, recovery = "abort")]
    #[error("h")]
    Abort,
    #[agent(recovery = "escalate")]
    #[error("i")]
    Escalate,
    #[agent(recovery = "continue")]
    #[error("j")]
    Continue,
    // A failure retried before it delivers, continued from after it did.
    #[agent(retryable, recovery = "continue")]
    #[error("k")]
    RetriedThenContinued,
}

#[test]
fn recovery_defaults_to_retry_when_retryable_and_abort_otherwise() {
    assert_eq!(Recoveries::Permanent.recovery(), Recovery::Abort);
    assert_eq!(Recoveries::Retryable.recovery(), Recovery::Retry);
    assert_eq!(Recoveries::RateLimited.recovery(), Recovery::Retry);
}

#[test]
fn an_explicit_recovery_wins() {
    assert_eq!(Recoveries::ExplicitRetry.recovery(), Recovery::Retry);
    assert_eq!(Recoveries::Replan.recovery(), Recovery::Replan);
    assert_eq!(Recoveries::Fallback.recovery(), Recovery::Fallback);
    assert_eq!(Recoveries::Compact.recovery(), Recovery::Compact);
    assert_eq!(Recoveries::Abort.recovery(), Recovery::Abort);
    assert_eq!(Recoveries::Escalate.recovery(), Recovery::Escalate);
    assert_eq!(Recoveries::Continue.recovery(), Recovery::Continue);
    assert_eq!(
        Recoveries::RetriedThenContinued.recovery(),
        Recovery::Continue
    );
}

#[test]
fn a_continue_recovery_is_in_the_catalog() {
    use agent_error::catalog::Catalog;
    let entries: Vec<(&str, bool, Recovery)> = Recoveries::CODES
        .iter()
        .filter(|d| d.recovery == Recovery::Continue)
        .map(|d| (d.variant, d.retryable, d.recovery))
        .collect();
    assert_eq!(
        entries,
        [
            ("Continue", false, Recovery::Continue),
            ("RetriedThenContinued", true, Recovery::Continue)
        ]
    );
}

#[test]
fn an_explicit_recovery_does_not_change_retryability() {
    assert!(!Recoveries::Replan.is_retryable());
    assert!(!Recoveries::Escalate.is_retryable());
    assert!(!Recoveries::Continue.is_retryable());
    assert_eq!(Recoveries::Continue.retry_policy(), RetryPolicy::NEVER);
    assert!(Recoveries::RetriedThenContinued.is_retryable());
    assert_eq!(
        Recoveries::RetriedThenContinued.retry_policy(),
        RetryPolicy::DEFAULT
    );
    assert!(Recoveries::Abort.is_retryable());
    assert!(Recoveries::Fallback.is_rate_limited());
}

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum RetryAfter {
    #[agent(rate_limited)]
    #[error("throttled")]
    Optional {
        #[retry_after]
        wait: Option<Duration>,
    },

    #[agent(retryable, retry(max_wait = "5m"))]
    #[error("unavailable")]
    Required(#[retry_after] Duration),
}

#[test]
fn an_optional_retry_after_that_is_present_flows_into_the_policy() {
    let e = RetryAfter::Optional {
        wait: Some(SECS(7)),
    };
    assert_eq!(e.retry_after(), Some(SECS(7)));
    let p = e.retry_policy();
    assert_eq!(p.retry_after(), Some(SECS(7)));
    assert_eq!(p, RetryPolicy::RATE_LIMITED.with_retry_after(Some(SECS(7))));
}

#[test]
fn an_optional_retry_after_that_is_absent_is_none() {
    let e = RetryAfter::Optional { wait: None };
    assert_eq!(e.retry_after(), None);
    assert_eq!(e.retry_policy().retry_after(), None);
    assert_eq!(e.retry_policy(), RetryPolicy::RATE_LIMITED);
}

#[test]
fn a_duration_retry_after_flows_into_the_policy() {
    let e = RetryAfter::Required(MS(1500));
    assert_eq!(e.retry_after(), Some(MS(1500)));
    let p = e.retry_policy();
    assert_eq!(p.retry_after(), Some(MS(1500)));
    assert_eq!(p.max_wait(), SECS(300));
}

#[derive(Debug, AgentError)]
#[agent(op = "codes.check")]
enum SnakeCodes {
    #[error("a")]
    RateLimited,
    #[error("b")]
    HTTPError,
    #[error("c")]
    IOError,
    #[error("d")]
    MissingApiKey,
    #[error("e")]
    Http2Error,
    #[error("f")]
    Timeout,
    #[allow(clippy::upper_case_acronyms)]
    #[error("g")]
    ABC,
    #[agent(code = "custom.code_1")]
    #[error("h")]
    Explicit,
}

#[test]
fn default_codes_are_snake_case_variant_names() {
    assert_eq!(SnakeCodes::RateLimited.code(), "rate_limited");
    assert_eq!(SnakeCodes::HTTPError.code(), "http_error");
    assert_eq!(SnakeCodes::IOError.code(), "io_error");
    assert_eq!(SnakeCodes::MissingApiKey.code(), "missing_api_key");
    assert_eq!(SnakeCodes::Http2Error.code(), "http2_error");
    assert_eq!(SnakeCodes::Timeout.code(), "timeout");
    assert_eq!(SnakeCodes::ABC.code(), "abc");
}

#[test]
fn an_explicit_code_is_kept_as_written() {
    assert_eq!(SnakeCodes::Explicit.code(), "custom.code_1");
}

#[derive(Debug, AgentError)]
#[agent(op = "codes.check", rename_all = "snake_case")]
enum ExplicitSnake {
    #[error("a")]
    InvalidArgs,
}

#[test]
fn rename_all_snake_case_is_the_default_rule() {
    assert_eq!(ExplicitSnake::InvalidArgs.code(), "invalid_args");
}

#[derive(Debug, AgentError)]
#[agent(op = "codes.check", rename_all = "SCREAMING_SNAKE_CASE")]
enum Screaming {
    #[error("a")]
    InvalidArgs,
    #[error("b")]
    HTTPError,
    #[error("c")]
    Timeout,
    #[agent(code = "kept_lower")]
    #[error("d")]
    Explicit,
}

#[test]
fn rename_all_screaming_snake_case() {
    assert_eq!(Screaming::InvalidArgs.code(), "INVALID_ARGS");
    assert_eq!(Screaming::HTTPError.code(), "HTTP_ERROR");
    assert_eq!(Screaming::Timeout.code(), "TIMEOUT");
    assert_eq!(Screaming::Explicit.code(), "kept_lower");
}

#[derive(Debug, AgentError)]
#[agent(op = "auth.login", namespace = "auth")]
enum Namespaced {
    #[error("a")]
    MissingApiKey,
    #[agent(code = "expired")]
    #[error("b")]
    Explicit,
}

#[test]
fn a_namespace_prefixes_every_code() {
    assert_eq!(Namespaced::MissingApiKey.code(), "auth.missing_api_key");
    assert_eq!(Namespaced::Explicit.code(), "auth.expired");
    assert_eq!(
        Namespaced::MissingApiKey.to_string(),
        "auth.login [auth.missing_api_key]: a"
    );
}

#[derive(Debug, AgentError)]
#[agent(
    op = "tool.run",
    namespace = "tool",
    rename_all = "SCREAMING_SNAKE_CASE"
)]
enum NamespacedScreaming {
    #[error("a")]
    InvalidArgs,
}

#[test]
fn a_namespace_with_screaming_codes() {
    assert_eq!(NamespacedScreaming::InvalidArgs.code(), "tool.INVALID_ARGS");
}

#[derive(Debug, AgentError)]
#[agent(op = "kv.get")]
#[error("missing")]
struct KeyMissing;

#[test]
fn a_struct_code_defaults_to_its_snake_case_name() {
    assert_eq!(KeyMissing.code(), "key_missing");
}

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum Ops {
    #[error("a")]
    ContainerOp,
    #[agent(op = "llm.embed")]
    #[error("b")]
    VariantOp,
}

#[test]
fn a_variant_op_wins_over_the_container_op() {
    assert_eq!(Ops::ContainerOp.op(), "llm.generate");
    assert_eq!(Ops::VariantOp.op(), "llm.embed");
    assert_eq!(Ops::VariantOp.to_string(), "llm.embed [variant_op]: b");
}

#[derive(Debug, AgentError)]
enum OpFieldWithContainerDefault {
    #[agent(op = "tool.default")]
    #[error("a")]
    Fixed,
    #[error("b")]
    FromField {
        #[op]
        op: String,
    },
}

#[test]
fn an_op_field_gives_the_op_at_run_time() {
    assert_eq!(OpFieldWithContainerDefault::Fixed.op(), "tool.default");
    let e = OpFieldWithContainerDefault::FromField {
        op: "tool.custom".into(),
    };
    assert_eq!(e.op(), "tool.custom");
}

#[derive(Debug, AgentError)]
#[agent(op = "tool.default")]
enum OpFieldOverContainer {
    #[error("a")]
    FromField {
        #[op]
        op: &'static str,
    },
}

#[test]
fn an_op_field_wins_over_the_container_op() {
    let e = OpFieldOverContainer::FromField { op: "tool.other" };
    assert_eq!(e.op(), "tool.other");
    assert_eq!(e.to_string(), "tool.other [from_field]: a");
}

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate", code = "rate_limit", rate_limited)]
#[error("throttled")]
struct Throttled {
    #[retry_after]
    retry_after: Option<Duration>,
}

#[test]
fn a_struct_takes_rate_limited_and_retry_after_on_the_container() {
    let e = Throttled {
        retry_after: Some(SECS(9)),
    };
    assert!(e.is_rate_limited());
    assert_eq!(e.retry_after(), Some(SECS(9)));
    assert_eq!(
        e.retry_policy(),
        RetryPolicy::RATE_LIMITED.with_retry_after(Some(SECS(9)))
    );
    assert_eq!(e.recovery(), Recovery::Retry);
}

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate", docs_url = "https://errors.example.com/{code}")]
enum Documented {
    #[agent(status = 503, since = "1.2", deprecated = "use `timeout` instead")]
    #[error("old timeout")]
    OldTimeout,
}

#[test]
fn catalog_keys_leave_the_runtime_behaviour_alone() {
    let e = Documented::OldTimeout;
    assert_eq!(e.code(), "old_timeout");
    assert_eq!(e.to_string(), "llm.generate [old_timeout]: old timeout");
    assert_eq!(e.retry_policy(), RetryPolicy::NEVER);
    assert_eq!(e.recovery(), Recovery::Abort);
    assert!(e.hints().is_empty());
}
