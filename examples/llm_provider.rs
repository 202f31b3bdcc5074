//! A simulated model provider and an agent loop that reacts to each failure the way the
//! failure asks: waits out a 429's Retry-After, backs off on a 503, compacts the prompt
//! on a context overflow, and falls back to a second model when rate-limited.
//!
//! `cargo run --example llm_provider --features http` (time is simulated: nothing really sleeps)

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::time::{Duration, SystemTime};

use agent_error::http::{StatusError, is_context_overflow};
use agent_error::retry::{Retrier, RetryBudget};
use agent_error::{AgentError, Recovery, find};

/// One scripted HTTP answer: status, Retry-After header, body.
type Answer = (u16, Option<&'static str>, &'static str);

/// A provider that answers from a script, then 200.
struct Provider {
    name: &'static str,
    script: RefCell<VecDeque<Answer>>,
    calls: Cell<u32>,
}

impl Provider {
    fn new(name: &'static str, script: &[Answer]) -> Self {
        Provider {
            name,
            script: RefCell::new(script.iter().copied().collect()),
            calls: Cell::new(0),
        }
    }

    fn generate(&self, prompt: &str) -> Result<String, StatusError> {
        self.calls.set(self.calls.get() + 1);
        match self.script.borrow_mut().pop_front() {
            Some((status, retry_after, body)) => {
                println!(
                    "  {} <- HTTP {status}{}",
                    self.name,
                    retry_after
                        .map(|r| format!(" (Retry-After: {r})"))
                        .unwrap_or_default()
                );
                Err(
                    StatusError::from_response(status, retry_after, body, SystemTime::now())
                        .with_op("llm.generate"),
                )
            }
            None => {
                println!("  {} <- HTTP 200", self.name);
                Ok(format!(
                    "{} answered {} chars of prompt",
                    self.name,
                    prompt.len()
                ))
            }
        }
    }
}

fn retrier() -> Retrier {
    Retrier::new()
        .seed(7)
        .max_attempts(5)
        .budget(RetryBudget::new())
        .on_retry(|e, retry, delay| println!("  retry {retry} after {delay:?}: {e}"))
}

/// A sleep that only says how long it would wait.
fn pretend_sleep(delay: Duration) {
    println!("  (waiting {delay:?})");
}

fn main() {
    println!("1. 429 with Retry-After, then 503, then 200: the retrier obeys each");
    let provider = Provider::new(
        "primary",
        &[(429, Some("2"), "rate limited"), (503, None, "overloaded")],
    );
    let outcome = retrier().run_detailed_with_sleep(|_| provider.generate("hello"), pretend_sleep);
    println!(
        "  => {:?} after {} attempts ({}), waited {:?}\n",
        outcome.result, outcome.attempts, outcome.stop, outcome.waited
    );

    println!("2. a context overflow: not retried; the loop compacts the prompt and asks again");
    let provider = Provider::new(
        "primary",
        &[(
            400,
            None,
            r#"{"error":{"code":"context_length_exceeded","message":"This model's maximum context length is 128000 tokens."}}"#,
        )],
    );
    let mut prompt = "a very long conversation ".repeat(8);
    let answer = loop {
        match retrier()
            .run_detailed_with_sleep(|_| provider.generate(&prompt), pretend_sleep)
            .result
        {
            Ok(answer) => break answer,
            Err(e) if is_context_overflow(&e) => {
                println!(
                    "  {} (recovery: {}, hint: {})",
                    e,
                    e.recovery(),
                    e.hints()[0]
                );
                prompt.truncate(prompt.len() / 4);
                println!("  compacted the prompt to {} chars", prompt.len());
            }
            Err(e) => panic!("unexpected: {e}"),
        }
    };
    println!("  => {answer}\n");

    println!("3. rate-limited with a second model configured: fall back instead of waiting");
    let primary = Provider::new("primary", &[(429, Some("20"), "rate limited")]);
    let secondary = Provider::new("secondary", &[]);
    // Only one attempt per model: a rate limit is a reason to switch, not to wait.
    let once = Retrier::new().max_attempts(1);
    let answer = match once.run(|_| primary.generate("hello")) {
        Ok(answer) => answer,
        Err(e) if find(&e).is_some_and(|c| c.is_rate_limited()) => {
            println!("  {e}: retry-after {:?}, falling back", e.retry_after());
            once.run(|_| secondary.generate("hello"))
                .expect("the secondary answers")
        }
        Err(e) => panic!("unexpected: {e}"),
    };
    println!(
        "  => {answer} (primary called {}x, secondary {}x)\n",
        primary.calls.get(),
        secondary.calls.get()
    );

    println!("4. a spent quota is a 429 too, but retrying cannot help");
    let provider = Provider::new(
        "primary",
        &[(429, None, r#"{"error":{"type":"insufficient_quota"}}"#)],
    );
    let outcome = retrier().run_detailed_with_sleep(|_| provider.generate("hello"), pretend_sleep);
    let e = outcome.result.unwrap_err();
    assert_eq!(e.recovery(), Recovery::Escalate);
    println!(
        "  => {e} ({}, after {} attempt; recovery: {})",
        outcome.stop,
        outcome.attempts,
        e.recovery()
    );
}
