//! Recovering in an agent loop: fallback chains, circuit breakers and one
//! decision function, built on the classification and the [`Retrier`](crate::retry::Retrier).
//! [`decide`] needs no feature; the rest comes with the `recover` feature.
//!
//! - [`Fallback`]: ordered candidates (models, endpoints); a rate-limited one, or one whose
//!   error asks for a fallback, is skipped for a cooldown and the next one answers.
//! - [`CircuitBreaker`]: a key (a tool) that keeps failing is disabled for a while with a
//!   [`CircuitOpen`] error (`TOOL_DISABLED`, recovery `replan`), then one trial call decides.
//! - [`decide`]: retry (after how long), continue from the partial output, fall back,
//!   compact, replan, abort or escalate; [`decide_after`] the same after a
//!   [`Retrier`](crate::retry::Retrier) run, from its outcome.
//! - Nested retries do not multiply: that one lives in the retrier itself (see
//!   [`Retrier`](crate::retry::Retrier#nested-retriers-do-not-multiply) and
//!   [`Stop::AlreadyRetried`](crate::retry::Stop::AlreadyRetried)), so that every retrier
//!   in a call path, this module's included, takes part.
//!
//! - [`Pacer`]: stays under a provider's limits, learned from the headers of every
//!   response (or configured, or adaptive where none are sent), before the 429s.
//! - [`Store`]: where that state lives. Without one, each value keeps its own, in the
//!   process; with one ([`LocalStore`] in a process, a shared store such as the `redis`
//!   feature's across a fleet) cooldowns, circuits, server-announced pauses and budgets
//!   are shared, so that what one replica learns every replica knows.
//!
//! Time comes from a [`Clock`]: the monotonic [`SystemClock`] by default, a [`ManualClock`]
//! that tests move by hand.
//!
#![cfg_attr(
    feature = "recover",
    doc = r#"
Two models in a fallback chain, and a tool behind a circuit breaker:

```
use agent_error::recover::{CallError, CircuitBreaker, Fallback};
use agent_error::{AgentError, Recovery};

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum LlmError {
    #[agent(code = "rate_limit", rate_limited)]
    #[error("provider returned 429")]
    RateLimited,
}

// The first model is throttled: the second answers, and the first cools down.
let models = Fallback::new(["gpt-4o", "claude-sonnet"]);
let answer = models
    .run(|model: &&str, _attempt| match *model {
        "gpt-4o" => Err(LlmError::RateLimited),
        model => Ok(format!("hello from {model}")),
    })
    .unwrap();
assert_eq!((answer.name(), answer.value.as_str()), ("claude-sonnet", "hello from claude-sonnet"));
assert!(models.cooling_for(0).is_some());

#[derive(Debug, AgentError)]
#[agent(op = "tool.search")]
enum SearchError {
    #[agent(code = "search_down", retryable)]
    #[error("search backend unavailable")]
    Down,
}

// After two failures in a row, the tool is not called: the model is told to replan.
let breaker = CircuitBreaker::new().threshold(2);
let search = || Err::<Vec<String>, _>(SearchError::Down);
for _ in 0..2 {
    assert!(matches!(breaker.try_call("search", search), Err(CallError::Tool(SearchError::Down))));
}
match breaker.try_call("search", search) {
    Err(CallError::Open(open)) => assert_eq!(open.recovery(), Recovery::Replan),
    other => panic!("the circuit should be open: {other:?}"),
}
```
"#
)]

#[cfg(feature = "recover")]
mod breaker;
mod decide;
#[cfg(feature = "recover")]
mod fallback;
#[cfg(feature = "recover")]
mod pauses;

pub use decide::{Decision, decide, decide_after};
#[cfg(feature = "recover")]
pub use {
    crate::pace::{Cost, Limit, PaceGate, Pacer},
    crate::store::bucket::Dimension,
    crate::store::circuit::CircuitState,
    crate::store::clock::{Clock, ManualClock, SystemClock},
    crate::store::local::{LocalStore, Store},
    breaker::{CallError, CircuitBreaker, CircuitOpen, Permit, TOOL_DISABLED},
    fallback::{Answer, BoxError, Failure, Fallback, FallbackError, OnFallback},
    pauses::SharedPauses,
};
