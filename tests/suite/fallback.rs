//! `recover::Fallback` (SPEC §9): cooldowns on a controllable clock, what moves on and what
//! stops, the answer and the error that lists every failure.

use std::cell::{Cell, RefCell};
use std::time::Duration;

use agent_error::recover::{Answer, Decision, Fallback, FallbackError, ManualClock, decide};
use agent_error::retry::{Retrier, Stop};
use agent_error::{AgentError, Error, Recovery, classify, codes, display};

const SEC: Duration = Duration::from_secs(1);

fn rate_limited() -> Error {
    Error::new("llm.generate", codes::RATE_LIMIT, "provider returned 429")
}

fn down() -> Error {
    Error::new(
        "llm.generate",
        codes::PROVIDER_UNAVAILABLE,
        "provider is down",
    )
}

fn models(clock: &ManualClock) -> Fallback<&'static str> {
    Fallback::new(["primary", "secondary"])
        .retrier(Retrier::new().seed(3))
        .clock(clock.clone())
}

/// The two models on a controllable clock, with every call logged as `name#attempt`.
struct Models {
    clock: ManualClock,
    fallback: Fallback<&'static str>,
    log: RefCell<Vec<String>>,
}

impl Models {
    fn new() -> Self {
        let clock = ManualClock::new();
        Models {
            fallback: models(&clock),
            clock,
            log: RefCell::new(Vec::new()),
        }
    }

    /// Runs the fallback with `answer(model)` as each call, logged; no sleep is waited.
    fn run<T>(
        &self,
        answer: impl Fn(&'static str) -> Result<T, Error>,
    ) -> Result<Answer<T, Error>, FallbackError<Error>> {
        self.run_with_sleep(answer, |_| {})
    }

    fn run_with_sleep<T>(
        &self,
        answer: impl Fn(&'static str) -> Result<T, Error>,
        sleep: impl FnMut(Duration),
    ) -> Result<Answer<T, Error>, FallbackError<Error>> {
        self.fallback.run_with_sleep(
            |m: &&'static str, attempt| {
                self.log.borrow_mut().push(format!("{m}#{attempt}"));
                answer(m)
            },
            sleep,
        )
    }

    /// The calls logged since the last look.
    fn calls(&self) -> Vec<String> {
        self.log.take()
    }
}

#[test]
fn a_rate_limited_candidate_moves_on_at_once_and_cools_down() {
    let models = Models::new();
    let answer = models
        .run_with_sleep(
            |m| {
                if m == "primary" {
                    Err(rate_limited())
                } else {
                    Ok("hi")
                }
            },
            |_| panic!("nothing is retried"),
        )
        .unwrap();
    assert_eq!(models.calls(), ["primary#1", "secondary#1"]);
    assert_eq!(
        (answer.value, answer.candidate, answer.name()),
        ("hi", 1, "secondary")
    );
    assert_eq!(answer.attempts, 1);
    assert_eq!(answer.failures.len(), 1);
    let failure = &answer.failures[0];
    assert_eq!((failure.candidate, &*failure.name), (0, "primary"));
    assert_eq!((failure.attempts, failure.stop), (1, Stop::HandedBack));
    assert_eq!(failure.error.code(), codes::RATE_LIMIT);
    assert_eq!(models.fallback.cooling_for(0), Some(60 * SEC));
    assert_eq!(models.fallback.cooling_for(1), None);
}

#[test]
fn a_cooling_candidate_is_skipped_until_its_cooldown_ends_then_readmitted() {
    let models = Models::new();
    let primary_fails = Cell::new(true);
    let call = || {
        models.run(|m| {
            if m == "primary" && primary_fails.get() {
                Err(rate_limited())
            } else {
                Ok(m)
            }
        })
    };
    call().unwrap();
    assert_eq!(models.calls(), ["primary#1", "secondary#1"]);

    models.clock.advance(59 * SEC + Duration::from_millis(999));
    let answer = call().unwrap();
    assert_eq!(models.calls(), ["secondary#1"]);
    assert_eq!(answer.skipped, [0]);
    assert!(answer.failures.is_empty());

    primary_fails.set(false);
    models.clock.advance(Duration::from_millis(1));
    let answer = call().unwrap();
    assert_eq!(models.calls(), ["primary#1"]);
    assert_eq!((answer.value, answer.candidate), ("primary", 0));
    assert!(answer.skipped.is_empty());
}

#[test]
fn the_cooldown_is_configurable_per_candidate_and_a_longer_retry_after_wins() {
    let clock = ManualClock::new();
    let fallback = Fallback::new(["a", "b", "c"])
        .cooldown(10 * SEC)
        .cooldown_of(1, 5 * SEC)
        .clock(clock.clone());
    let err = fallback
        .run_with_sleep(
            |m: &&str, _| {
                Err::<(), _>(match *m {
                    "a" => rate_limited(),
                    "b" => rate_limited(),
                    _ => rate_limited().with_retry_after(30 * SEC),
                })
            },
            |_| {},
        )
        .unwrap_err();
    assert_eq!(err.failures().len(), 3);
    assert_eq!(fallback.cooling_for(0), Some(10 * SEC));
    assert_eq!(fallback.cooling_for(1), Some(5 * SEC));
    assert_eq!(fallback.cooling_for(2), Some(30 * SEC));
}

#[test]
fn a_recovery_of_fallback_moves_on_even_when_not_retryable() {
    let models = Models::new();
    let answer = models
        .run(|m| {
            if m == "primary" {
                Err(Error::new("llm.generate", "model_retired", "model retired")
                    .with_recovery(Recovery::Fallback))
            } else {
                Ok(1)
            }
        })
        .unwrap();
    assert_eq!(answer.candidate, 1);
    assert_eq!(answer.failures[0].stop, Stop::HandedBack);
    assert_eq!(models.fallback.cooling_for(0), Some(60 * SEC));
}

#[test]
fn a_spent_budget_moves_on_at_once_without_retrying_and_cools_down() {
    let models = Models::new();
    let answer = models
        .run(|m| {
            if m == "primary" {
                // Anthropic's spent credit balance: a 400 that is not retried.
                Err(Error::new(
                    "llm.generate",
                    codes::BUDGET_EXHAUSTED,
                    "credit balance is too low",
                ))
            } else {
                Ok(1)
            }
        })
        .unwrap();
    assert_eq!(answer.candidate, 1);
    assert_eq!(models.calls(), ["primary#1", "secondary#1"]);
    assert_eq!(models.fallback.cooling_for(0), Some(60 * SEC));
    // With no other candidate, it escalates as it says.
    let alone = Fallback::new(["primary"]).retrier(Retrier::new().seed(3));
    let err = alone
        .run_with_sleep(
            |_, _| {
                Err::<(), _>(Error::new(
                    "llm.generate",
                    codes::BUDGET_EXHAUSTED,
                    "credit balance is too low",
                ))
            },
            |_| {},
        )
        .unwrap_err();
    assert_eq!(
        (err.code(), err.recovery()),
        (codes::BUDGET_EXHAUSTED, Recovery::Escalate)
    );
    assert_eq!(err.failures().len(), 1);
}

#[test]
fn a_permanent_error_stops_without_trying_the_next_candidate() {
    let models = Models::new();
    let err = models
        .run(|_| {
            Err::<(), _>(Error::new(
                "llm.generate",
                codes::INVALID_INPUT,
                "bad request",
            ))
        })
        .unwrap_err();
    assert_eq!(models.calls(), ["primary#1"]);
    assert_eq!(err.failures().len(), 1);
    assert_eq!(err.failures()[0].stop, Stop::Permanent);
    assert_eq!(err.code(), codes::INVALID_INPUT);
    assert_eq!(err.recovery(), Recovery::Replan);
    assert_eq!(models.fallback.cooling_for(0), None);
}

#[test]
fn an_unclassified_error_stops_and_the_error_is_unclassified() {
    let fallback = models(&ManualClock::new());
    let err = fallback
        .run_with_sleep(
            |_: &&str, _| Err::<(), _>(std::io::Error::other("disk on fire")),
            |_| {},
        )
        .unwrap_err();
    assert_eq!(err.failures().len(), 1);
    assert_eq!(err.code(), codes::UNCLASSIFIED);
    assert!(!err.is_retryable());
    assert_eq!(decide(&err, 1), Decision::Abort);
}

#[test]
fn a_retryable_error_is_retried_on_its_candidate_then_moves_on_without_cooldown() {
    let models = Models::new();
    let answer = models
        .run(|m| if m == "primary" { Err(down()) } else { Ok(()) })
        .unwrap();
    assert_eq!(
        models.calls(),
        ["primary#1", "primary#2", "primary#3", "secondary#1"]
    );
    assert_eq!(answer.failures[0].stop, Stop::AttemptsExhausted);
    assert_eq!(answer.failures[0].attempts, 3);
    assert_eq!(models.fallback.cooling_for(0), None);
}

#[test]
fn the_last_healthy_candidate_is_retried_as_its_policy_says_then_cools_down() {
    let models = Models::new();
    let err = models
        .run_with_sleep(
            |_| Err::<(), _>(rate_limited()),
            |d| models.clock.advance(d),
        )
        .unwrap_err();
    assert_eq!(
        models.calls(),
        ["primary#1", "secondary#1", "secondary#2", "secondary#3"]
    );
    assert_eq!(err.failures()[1].stop, Stop::AttemptsExhausted);
    assert_eq!(err.code(), codes::RATE_LIMIT);
    assert!(models.fallback.cooling_for(0).is_some() && models.fallback.cooling_for(1).is_some());
}

#[test]
fn when_every_candidate_cools_down_each_is_tried_the_one_back_first_first() {
    let clock = ManualClock::new();
    let fallback = models(&clock).cooldown(60 * SEC).cooldown_of(1, 20 * SEC);
    let _ = fallback.run_with_sleep(|_: &&str, _| Err::<(), _>(rate_limited()), |_| {});
    clock.advance(5 * SEC);
    // Both cool down; the secondary comes back first (15 s left): it is tried first, under
    // its policy, then the primary, rather than no call at all.
    let called = RefCell::new(Vec::new());
    let err = fallback
        .run_with_sleep(
            |m: &&str, attempt| {
                called.borrow_mut().push(format!("{m}#{attempt}"));
                Err::<(), _>(rate_limited())
            },
            |d| clock.advance(d),
        )
        .unwrap_err();
    assert_eq!(
        *called.borrow(),
        [
            "secondary#1",
            "secondary#2",
            "secondary#3",
            "primary#1",
            "primary#2",
            "primary#3"
        ]
    );
    assert!(err.skipped().is_empty());
    assert_eq!(err.failures().len(), 2);
    assert_eq!(err.code(), codes::RATE_LIMIT);
    // They failed again: their cooldowns start again.
    assert!(fallback.cooling_for(1).is_some_and(|left| left > 19 * SEC));
    assert!(fallback.cooling_for(0).is_some_and(|left| left > 59 * SEC));
    // The secondary answers: its cooldown ends, and the next calls go to it while the
    // primary cools.
    let answer = fallback
        .run_with_sleep(|m: &&str, _| Ok::<_, Error>(*m), |_| {})
        .unwrap();
    assert_eq!(
        (answer.name(), answer.skipped.as_slice()),
        ("secondary", &[0][..])
    );
    assert_eq!(fallback.cooling_for(1), None);
    assert!(fallback.cooling_for(0).is_some());
    fallback.reset();
    assert_eq!(fallback.cooling_for(0), None);
}

#[test]
fn when_the_healthy_candidates_fail_one_in_cooldown_is_tried_before_giving_up() {
    let clock = ManualClock::new();
    let fallback = models(&clock);
    // The primary is rate-limited once: it cools down for a minute.
    let _ = fallback.run_with_sleep(
        |m: &&str, _| match *m {
            "primary" => Err(rate_limited()),
            _ => Ok(()),
        },
        |_| {},
    );
    assert!(fallback.cooling_for(0).is_some());
    // Then the secondary is overloaded: the call does not give up while the primary may
    // answer; it does, and is healthy again.
    let called = RefCell::new(Vec::new());
    let answer = fallback
        .run_with_sleep(
            |m: &&str, attempt| {
                called.borrow_mut().push(format!("{m}#{attempt}"));
                match *m {
                    "primary" => Ok(*m),
                    _ => Err(Error::new(
                        "llm.generate",
                        codes::PROVIDER_UNAVAILABLE,
                        "overloaded",
                    )),
                }
            },
            |d| clock.advance(d),
        )
        .unwrap();
    assert_eq!(
        *called.borrow(),
        ["secondary#1", "secondary#2", "secondary#3", "primary#1"]
    );
    assert_eq!((answer.name(), answer.failures.len()), ("primary", 1));
    assert!(answer.skipped.is_empty());
    assert_eq!(fallback.cooling_for(0), None);
}

fn spent() -> Error {
    Error::new(
        "llm.generate",
        codes::BUDGET_EXHAUSTED,
        "credit balance is too low",
    )
}

/// A candidate whose budget is spent never stands for a call that failed elsewhere: a
/// transient fault of the serving candidate decides, so the caller retries rather than pages
/// a person.
#[test]
fn a_spent_candidate_never_masks_a_transient_failure() {
    let clock = ManualClock::new();
    // The spent candidate comes second: it is tried, fails, and the overload before it
    // decides.
    let fallback = Fallback::new(["serving", "spent"])
        .retrier(Retrier::new().seed(3))
        .clock(clock.clone());
    let err = fallback
        .run_with_sleep(
            |m: &&str, _| match *m {
                "serving" => Err::<(), _>(down()),
                _ => Err(spent()),
            },
            |d| clock.advance(d),
        )
        .unwrap_err();
    assert_eq!(err.failures().len(), 2);
    assert_eq!(err.last().unwrap().name.as_ref(), "spent");
    assert_eq!(err.deciding().unwrap().name.as_ref(), "serving");
    assert_eq!(
        (err.code(), err.recovery(), err.is_retryable()),
        (codes::PROVIDER_UNAVAILABLE, Recovery::Retry, true)
    );
    assert_eq!(classify(&err).unwrap().code(), codes::PROVIDER_UNAVAILABLE);
    assert_eq!(
        display::chain(&err).to_string(),
        "llm.generate [provider_unavailable]: 2 candidates failed, the one that decides last: \
         spent: llm.generate [budget_exhausted]: credit balance is too low; and serving: \
         llm.generate [provider_unavailable]: provider is down"
    );
    assert_eq!(
        err.into_deciding().unwrap().code(),
        codes::PROVIDER_UNAVAILABLE
    );
}

/// A candidate known to be spent is no last resort while it cools down: once the serving
/// one fails, the call ends on that failure without calling the spent one; when every
/// candidate is spent, nothing is called and the call says the budget is spent.
#[test]
fn a_spent_candidate_is_no_last_resort_until_its_cooldown_ends() {
    let clock = ManualClock::new();
    let fallback = models(&clock);
    let _ = fallback.run_with_sleep(
        |m: &&str, _| match *m {
            "primary" => Err(spent()),
            _ => Ok(()),
        },
        |_| {},
    );
    assert!(fallback.cooling_for(0).is_some());
    let called = RefCell::new(Vec::new());
    let err = fallback
        .run_with_sleep(
            |m: &&str, attempt| {
                called.borrow_mut().push(format!("{m}#{attempt}"));
                match *m {
                    "primary" => Err::<(), _>(spent()),
                    _ => Err(down()),
                }
            },
            |d| clock.advance(d),
        )
        .unwrap_err();
    assert_eq!(
        *called.borrow(),
        ["secondary#1", "secondary#2", "secondary#3"]
    );
    assert_eq!(err.skipped(), [0]);
    assert_eq!(
        (err.code(), err.recovery()),
        (codes::PROVIDER_UNAVAILABLE, Recovery::Retry)
    );

    // Both spent: nothing is called, and the call escalates.
    let both = models(&clock);
    let _ = both.run_with_sleep(|_: &&str, _| Err::<(), _>(spent()), |_| {});
    let err = both
        .run_with_sleep(
            |_: &&str, _| -> Result<(), Error> { panic!("not called") },
            |_| {},
        )
        .unwrap_err();
    assert!(err.failures().is_empty());
    assert_eq!(
        (err.code(), err.recovery(), err.is_retryable()),
        (codes::BUDGET_EXHAUSTED, Recovery::Escalate, false)
    );
    assert_eq!(
        err.to_string(),
        "recover.fallback [budget_exhausted]: no candidate was called"
    );
    assert_eq!(
        display::chain(&err).to_string(),
        "recover.fallback [budget_exhausted]: no candidate was called: recover.fallback \
         [budget_exhausted]: every candidate's budget is spent; the first is tried again in 60s"
    );

    // Its cooldown over, a spent candidate is tried again like any other.
    clock.advance(61 * SEC);
    let answer = fallback
        .run_with_sleep(|m: &&str, _| Ok::<_, Error>(*m), |_| {})
        .unwrap();
    assert_eq!(answer.name(), "primary");
}

#[test]
fn with_no_candidate_nothing_is_called_and_the_error_says_so() {
    let fallback: Fallback<&str> = Fallback::new([]);
    let err = fallback
        .run_with_sleep(
            |_: &&str, _| -> Result<(), Error> { panic!("not called") },
            |_| {},
        )
        .unwrap_err();
    assert!(err.failures().is_empty() && err.skipped().is_empty());
    assert_eq!(err.code(), codes::PROVIDER_UNAVAILABLE);
    assert!(!err.is_retryable());
    assert_eq!(decide(&err, 1), Decision::Abort);
    assert_eq!(
        err.to_string(),
        "recover.fallback [provider_unavailable]: no candidate was called"
    );
    assert!(err.into_last().is_none());
}

#[test]
fn the_error_lists_every_failure_and_is_classified_by_the_last() {
    let fallback = Fallback::new(["gpt", "claude"]).clock(ManualClock::new());
    let err: FallbackError<Error> = fallback
        .run_with_sleep(
            |m: &&str, _| {
                Err::<(), _>(match *m {
                    "gpt" => rate_limited(),
                    _ => Error::new("llm.generate", codes::AUTH, "invalid api key")
                        .with_source(std::io::Error::other("key sk-123 rejected"))
                        .with_hint("check the key"),
                })
            },
            |_| {},
        )
        .unwrap_err();
    assert_eq!(err.code(), codes::AUTH);
    assert_eq!(err.op(), "llm.generate");
    assert_eq!(err.recovery(), Recovery::Escalate);
    assert_eq!(err.hints(), ["check the key"]);
    assert_eq!(err.last().unwrap().candidate, 1);
    let all = "llm.generate [auth_error]: 2 candidates failed: gpt: llm.generate [rate_limit]: provider returned 429; then claude: llm.generate [auth_error]: invalid api key: key sk-123 rejected";
    // The last error is the source: Display leaves it to the chain.
    assert_eq!(
        err.to_string(),
        "llm.generate [auth_error]: 2 candidates failed: gpt: llm.generate [rate_limit]: provider returned 429; then claude"
    );
    assert_eq!(display::chain(&err).to_string(), all);
    assert_eq!(
        agent_error::tool::render(&err),
        "[error:auth_error] 2 candidates failed: gpt: llm.generate [rate_limit]: provider returned 429; then claude\nhint: check the key"
    );
    assert_eq!(decide(&err, 1), Decision::Escalate);

    // Registered with the chain walk: found behind a box and an io::Error.
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(err);
    let io = std::io::Error::other(boxed);
    let c = classify(&io).unwrap();
    assert_eq!(c.code(), codes::AUTH);
    assert!(c.typed().is_some());
    assert_eq!(agent_error::find(&io).unwrap().code(), codes::AUTH);
}

#[test]
fn a_fallback_inside_an_outer_retrier_is_not_retried_again() {
    let fallback = models(&ManualClock::new());
    let calls = Cell::new(0);
    let outer = Retrier::new().max_attempts(3);
    let outcome = outer.run_detailed_with_sleep(
        |_| {
            fallback.run_with_sleep(
                |_: &&str, _| {
                    calls.set(calls.get() + 1);
                    Err::<(), _>(down())
                },
                |_| {},
            )
        },
        |_| {},
    );
    assert_eq!(calls.get(), 6); // 3 on each candidate, once
    assert_eq!((outcome.attempts, outcome.stop), (1, Stop::AlreadyRetried));
}

#[test]
fn candidates_can_be_anything_with_a_name() {
    type Model = fn(&str) -> Result<String, Error>;
    let fast: Model = |_| Err(rate_limited());
    let slow: Model = |p| Ok(format!("slow: {p}"));
    let fallback = Fallback::named([("fast", fast), ("slow", slow)]).clock(ManualClock::new());
    let answer = fallback.run_with_sleep(|m, _| m("hi"), |_| {}).unwrap();
    assert_eq!((answer.value.as_str(), answer.name()), ("slow: hi", "slow"));
    assert_eq!(fallback.name(0), Some("fast"));
    assert_eq!(fallback.len(), 2);
}

#[tokio::test(flavor = "current_thread")]
async fn the_async_run_falls_back_and_cools_down_too() {
    let clock = ManualClock::new();
    let fallback = models(&clock);
    let answer = fallback
        .run_async(
            async |m: &&'static str, _| {
                if *m == "primary" {
                    Err(rate_limited())
                } else {
                    Ok(*m)
                }
            },
            |_| async {},
        )
        .await
        .unwrap();
    assert_eq!(answer.value, "secondary");
    assert_eq!(answer.failures[0].stop, Stop::HandedBack);
    assert_eq!(fallback.cooling_for(0), Some(60 * SEC));
}

#[test]
fn a_peers_retry_after_cools_a_candidate_for_an_hour_at_most() {
    let m = Models::new();
    let _ = m.run(|model| match model {
        "primary" => Err(rate_limited().with_retry_after(Duration::MAX)),
        _ => Ok("answer"),
    });
    assert_eq!(
        m.fallback.cooling_for(0),
        Some(Fallback::<&str>::MAX_SERVER_COOLDOWN)
    );
    assert_eq!(Fallback::<&str>::MAX_SERVER_COOLDOWN, 3600 * SEC);
    // An hour later, the primary is tried again.
    m.clock.advance(3600 * SEC);
    assert_eq!(m.fallback.cooling_for(0), None);
}

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum LlmError {
    #[agent(rate_limited)]
    #[error("provider returned 429")]
    RateLimit,
    #[agent(code = "auth_error")]
    #[error("invalid api key")]
    BadKey(std::rc::Rc<str>),
}

#[test]
fn the_last_error_comes_back_typed_and_need_not_be_send() {
    // `Rc` is neither `Send` nor `Sync`: the failures are kept as they were returned.
    let fallback = Fallback::new(["gpt", "claude"]);
    let err = fallback
        .run_with_sleep(
            |m: &&str, _| {
                Err::<(), _>(match *m {
                    "gpt" => LlmError::RateLimit,
                    _ => LlmError::BadKey("sk-1".into()),
                })
            },
            |_| {},
        )
        .unwrap_err();
    assert!(matches!(err.failures()[0].error, LlmError::RateLimit));
    assert_eq!(err.code(), "auth_error");
    // Classified through its source too, behind any wrapper.
    assert_eq!(classify(&err).unwrap().code(), "auth_error");
    match err.into_last() {
        Some(LlmError::BadKey(key)) => assert_eq!(&*key, "sk-1"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_answer_keeps_the_typed_failures() {
    let fallback = Fallback::new(["gpt", "claude"]);
    let answer = fallback
        .run_with_sleep(
            |m: &&str, _| match *m {
                "gpt" => Err(LlmError::RateLimit),
                _ => Ok("hi"),
            },
            |_| {},
        )
        .unwrap();
    assert!(matches!(answer.failures[0].error, LlmError::RateLimit));
}

/// A helper written for the default type takes a fallback on a test clock too.
fn first_name<'a>(models: &'a Fallback<&'static str>) -> &'a str {
    models.name(0).unwrap()
}

#[test]
fn the_clock_is_not_part_of_the_type_and_a_function_is_a_clock() {
    let manual = Fallback::new(["gpt", "claude"]).clock(ManualClock::new());
    assert_eq!(first_name(&manual), "gpt");

    let now = std::sync::Arc::new(std::sync::Mutex::new(std::time::Instant::now()));
    let read = now.clone();
    let fallback = Fallback::new(["gpt", "claude"]).clock(move || *read.lock().unwrap());
    assert_eq!(first_name(&fallback), "gpt");
    let _ = fallback.run_with_sleep(|_: &&str, _| Err::<(), _>(rate_limited()), |_| {});
    assert_eq!(fallback.cooling_for(0), Some(60 * SEC));
    *now.lock().unwrap() += 45 * SEC;
    assert_eq!(fallback.cooling_for(0), Some(15 * SEC));
    *now.lock().unwrap() += 15 * SEC;
    assert_eq!(fallback.cooling_for(0), None);
}

struct Client {
    model: String,
    calls: Cell<u32>,
}

impl Client {
    async fn generate(&self, prompt: &str) -> Result<String, Error> {
        self.calls.set(self.calls.get() + 1);
        tokio::task::yield_now().await;
        match self.model.as_str() {
            "gpt-4o" => Err(rate_limited()),
            model => Ok(format!("{model}: {prompt}")),
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn the_async_run_may_borrow_the_candidate() {
    let client = |model: &str| Client {
        model: model.into(),
        calls: Cell::new(0),
    };
    let fallback = Fallback::named([("gpt-4o", client("gpt-4o")), ("claude", client("claude"))]);
    let prompt = String::from("hi");
    let answer = fallback
        .run_async(
            // The future borrows the candidate and the prompt: no clone.
            async |c: &Client, _| c.generate(&prompt).await,
            |_| async {},
        )
        .await
        .unwrap();
    assert_eq!(answer.value, "claude: hi");
    assert_eq!(fallback.candidate(0).unwrap().calls.get(), 1);
    assert_eq!(fallback.candidate(1).unwrap().calls.get(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn an_async_run_on_borrowed_candidates_can_be_spawned() {
    struct Endpoint(String);
    impl Endpoint {
        async fn get(&self) -> Result<String, Error> {
            tokio::task::yield_now().await;
            match self.0.as_str() {
                "a" => Err(rate_limited()),
                url => Ok(url.to_string()),
            }
        }
    }
    let fallback = std::sync::Arc::new(Fallback::named([
        ("a", Endpoint("a".into())),
        ("b", Endpoint("b".into())),
    ]));
    let shared = fallback.clone();
    let answer = tokio::spawn(async move {
        shared
            .run_async(async |e: &Endpoint, _| e.get().await, |_| async {})
            .await
            .map(|a| a.value)
            .map_err(|e| e.to_string())
    })
    .await
    .unwrap();
    assert_eq!(answer.as_deref(), Ok("b"));
}

#[tokio::test(flavor = "current_thread")]
async fn a_shared_cooldown_is_skipped_but_never_waited_out_by_the_candidates_pacer() {
    use agent_error::recover::{Cost, LocalStore, Pacer, Store};
    use std::sync::Arc;

    let clock = ManualClock::new();
    let store: Arc<dyn Store> = Arc::new(LocalStore::with_clock(clock.clone()));
    let pacer = Pacer::new()
        .with_clock(clock.clone())
        .shared_in(store.clone());
    // The pacer is keyed by the candidates' names, and the cooldowns are shared in the
    // same store.
    let fallback = models(&clock)
        .pacer(pacer, Cost::request())
        .store(store.clone());
    // The primary is rate-limited once: it cools down for a minute, in the store too.
    fallback
        .run_async(
            async |m: &&'static str, _| match *m {
                "primary" => Err(rate_limited()),
                _ => Ok(*m),
            },
            |_| async {},
        )
        .await
        .unwrap();
    assert_eq!(fallback.cooling_for(0), Some(60 * SEC));
    // Then the secondary is overloaded: the primary is tried as a last resort, at once. Its
    // cooldown says "prefer another candidate"; it is no pause its pacer waits out.
    let slept = RefCell::new(Vec::new());
    let answer = fallback
        .run_async(
            async |m: &&'static str, _| match *m {
                "primary" => Ok(*m),
                _ => Err(down()),
            },
            |d| {
                slept.borrow_mut().push(d);
                clock.advance(d);
                async {}
            },
        )
        .await
        .unwrap();
    assert_eq!(answer.name(), "primary");
    let slept = slept.into_inner();
    assert!(slept.iter().all(|d| *d < 5 * SEC), "{slept:?}");
}

/// A spent budget shared in the store is read by every replica: a fresh `Fallback` with the
/// same store skips the spent candidate and does not try it as a last resort.
#[tokio::test(flavor = "current_thread")]
async fn a_spent_budget_in_the_shared_store_is_no_last_resort_for_any_replica() {
    use agent_error::recover::{LocalStore, Store};
    use std::sync::Arc;

    let clock = ManualClock::new();
    let store: Arc<dyn Store> = Arc::new(LocalStore::with_clock(clock.clone()));
    let replica = || models(&clock).store(store.clone());
    let first = replica();
    first
        .run_async(
            async |m: &&'static str, _| match *m {
                "primary" => Err(spent()),
                _ => Ok(*m),
            },
            |_| async {},
        )
        .await
        .unwrap();
    let called = RefCell::new(Vec::new());
    let err = replica()
        .run_async(
            async |m: &&'static str, attempt| {
                called.borrow_mut().push(format!("{m}#{attempt}"));
                Err::<(), _>(down())
            },
            |d| {
                clock.advance(d);
                async {}
            },
        )
        .await
        .unwrap_err();
    assert_eq!(
        *called.borrow(),
        ["secondary#1", "secondary#2", "secondary#3"]
    );
    assert_eq!(err.code(), codes::PROVIDER_UNAVAILABLE);
}
