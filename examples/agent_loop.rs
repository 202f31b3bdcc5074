//! A small agent loop with two fake models and two tools, recovering as `guide::agent_loop` says:
//! a 429 falls back to the other model, a context overflow compacts the history, a tool
//! that keeps failing is disabled by the circuit breaker, and nested retries stay bounded.
//! Deterministic: a manual clock, and sleeps that only move it.
//!
//! `cargo run --example agent_loop --features recover`

use std::cell::Cell;
use std::time::Duration;

use agent_error::recover::{CircuitBreaker, Decision, Fallback, ManualClock, decide};
use agent_error::retry::Retrier;
use agent_error::{Error, codes, display, tool};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// What a model asks for next.
#[derive(Debug)]
enum Reply {
    CallTool(&'static str),
    Answer(String),
}

/// Two fake models: "primary" is rate-limited on its first call; both overflow their
/// context past 4 messages; otherwise they search, then fetch, and replan when fetch is
/// disabled.
struct Models {
    primary_calls: Cell<u32>,
}

impl Models {
    fn generate(&self, model: &str, history: &[String]) -> Result<Reply, Error> {
        if model == "primary" {
            self.primary_calls.set(self.primary_calls.get() + 1);
            if self.primary_calls.get() == 1 {
                return Err(
                    Error::new("llm.generate", codes::RATE_LIMIT, "provider returned 429")
                        .with_retry_after(Duration::from_secs(20)),
                );
            }
        }
        if history.len() > 4 {
            return Err(Error::new(
                "llm.generate",
                codes::CONTEXT_OVERFLOW,
                "prompt is too long: 9000 tokens > 8192 maximum",
            ));
        }
        let last = history.last().map_or("", String::as_str);
        let searched = history
            .iter()
            .any(|m| m.starts_with("tool search") || m.starts_with("summary"));
        Ok(if last.contains("TOOL_DISABLED") {
            Reply::Answer(format!(
                "replanned without fetch, from the search results, by {model}"
            ))
        } else if searched {
            Reply::CallTool("fetch")
        } else {
            Reply::CallTool("search")
        })
    }
}

/// Two fake tools: `search` works, `fetch` always fails (its site is down).
fn run_tool(name: &str) -> Result<String, BoxError> {
    match name {
        "search" => Ok("3 results".into()),
        _ => Err(Error::new(
            "fetch",
            codes::TOOL_FAILED,
            "HTTP 503 from docs.example.com",
        )
        .into()),
    }
}

fn main() {
    let clock = ManualClock::new();
    let sleep = |d: Duration| clock.advance(d);
    let models = Models {
        primary_calls: Cell::new(0),
    };
    let fallback = Fallback::new(["primary", "secondary"])
        .retrier(Retrier::new().seed(1))
        .clock(clock.clone());
    let breaker = CircuitBreaker::new()
        .threshold(3)
        .cooldown(Duration::from_secs(120))
        .clock(clock.clone());

    let mut history = vec!["user: summarise the docs".to_string()];
    for step in 1..=12 {
        let reply = fallback.run_with_sleep(|model, _| models.generate(model, &history), sleep);
        let answer = match reply {
            Ok(answer) => answer,
            Err(err) => match decide(&err, 1) {
                Decision::Compact => {
                    println!("step {step}: {} -> compact", display::chain(&err));
                    let dropped = history.len() - 2;
                    history.drain(1..history.len() - 1);
                    history.insert(1, format!("summary of {dropped} messages"));
                    continue;
                }
                other => {
                    println!("step {step}: {} -> {other}", display::chain(&err));
                    return;
                }
            },
        };
        for failure in &answer.failures {
            println!(
                "step {step}: {} failed ({}), cooling down for {:?}",
                failure.name,
                display::chain(&failure.error),
                fallback.cooling_for(failure.candidate).unwrap_or_default(),
            );
        }
        match answer.value {
            Reply::Answer(text) => {
                println!("step {step}: {} answered: {text}", answer.name);
                break;
            }
            Reply::CallTool(name) => {
                let result = breaker.call(name, || run_tool(name));
                let text = match &result {
                    Ok(out) => format!("tool {name}: {out}"),
                    Err(e) => match agent_error::classify(&**e) {
                        Some(c) => tool::render(&*c).replace('\n', " | "),
                        None => format!("[error] {e}"),
                    },
                };
                println!("step {step}: {} asked for {name} -> {text}", answer.name);
                history.push(format!("tool {name}: {text}"));
            }
        }
        clock.advance(Duration::from_secs(1));
    }

    // Retries that stay bounded: the loop's retrier around a client's retrier around the
    // SDK's, all of 3 attempts, against a provider that is down.
    let calls = Cell::new(0);
    let sdk = Retrier::new().max_attempts(3).seed(2);
    let client = Retrier::new().max_attempts(3).seed(3);
    let agent = Retrier::new().max_attempts(3).seed(4);
    let outcome = agent.run_detailed_with_sleep(
        |_| {
            client
                .run_detailed_with_sleep(
                    |_| {
                        sdk.run_detailed_with_sleep(
                            |_| {
                                calls.set(calls.get() + 1);
                                Err::<(), _>(Error::new(
                                    "llm.generate",
                                    codes::PROVIDER_UNAVAILABLE,
                                    "provider is down",
                                ))
                            },
                            sleep,
                        )
                        .result
                    },
                    sleep,
                )
                .result
        },
        sleep,
    );
    println!(
        "nested retriers of 3 attempts: {} calls to the provider (not 27), the outer one stopped: {}",
        calls.get(),
        outcome.stop
    );
}
