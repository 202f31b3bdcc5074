//! A streaming agent loop to copy: each task streams its answer from the first healthy of
//! two providers (`Fallback::run_stream` over a `Watch`), shows the text as it comes, goes
//! on from what was shown when a stream breaks, waits when the failure says waiting helps,
//! and gives up only when it says nothing will (`recover::decide`). Going on from what was
//! shown takes a provider that continues an answer: Anthropic does (a trailing assistant
//! message is a prefill), OpenAI's Chat API does not (it writes a new answer). So a task
//! that broke goes on at Anthropic first; when only OpenAI answers, its answer starts over
//! and the text shown is withdrawn, counted. Every failure is logged
//! with `trace::record`, which keeps secrets out of the log, and every run of the chain with
//! `trace::record_stream_outcome`: its attempts, their codes and waits, the provider.
//!
//! It runs against the provider farm on loopback on a bad day: OpenAI with an account whose
//! credit runs out early, Anthropic behind it, both throttling, overloading, breaking and
//! cutting streams. Each answer shown is checked against the one the farm meant, so a text
//! shown twice or an answer cut short would show.
//!
//! ```text
//! cargo run --example streaming_agent --features "recover stream reqwest tokio tracing"
//! ```
//!
//! The companion dependencies: `reqwest` (features `json` and `stream`), `futures-util`,
//! `tokio`, and `tracing-subscriber` to see the log; `agent-error-farm` stands in for the
//! providers (add it as a dev-dependency to test your own loop against it).

use std::time::Duration;

use agent_error::recover::{Decision, Fallback, decide};
use agent_error::retry::{Retrier, tokio_sleep};
use agent_error::stream::{StreamError, Watch};
use agent_error::{AgentError, Recovery};
use agent_error_farm::{Config, Farm, Kind, LOW_CREDIT_KEY, Rates};
use futures_util::StreamExt;
use serde_json::json;

/// How many times a task runs its chain, at most: the first run, then a run for each
/// continuation or wait the failures ask for.
const RUNS: u32 = 8;

/// Whether `kind` continues an answer from the text shown so far: Anthropic takes a trailing
/// assistant message as a prefill; OpenAI's Chat Completions API reads it as context and
/// writes a new answer (an OpenAI-compatible server may continue when asked: vLLM's
/// `continue_final_message`, Mistral's `prefix`).
fn continues(kind: Kind) -> bool {
    kind == Kind::Anthropic
}

/// How the streams of one task are opened: the request each provider expects, with the text
/// shown so far as the assistant's start when the provider continues an answer.
#[derive(Clone)]
struct Providers {
    client: reqwest::Client,
    openai: String,
    anthropic: String,
}

impl Providers {
    async fn open(
        &self,
        kind: Kind,
        prompt: &str,
        said: &str,
        // `use<>`: the stream borrows none of the arguments (it owns the response).
    ) -> Result<
        Watch<impl futures_util::Stream<Item = reqwest::Result<bytes::Bytes>> + use<>>,
        Opening,
    > {
        let mut messages = vec![json!({"role": "user", "content": prompt})];
        if !said.is_empty() && continues(kind) {
            messages.push(json!({"role": "assistant", "content": said}));
        }
        let body = json!({"model": "farm-model", "max_tokens": 1024, "stream": true, "messages": messages});
        let request = match kind {
            Kind::Anthropic => self
                .client
                .post(format!("{}/messages", self.anthropic))
                .header("x-api-key", "my-anthropic-key")
                .header("anthropic-version", "2023-06-01"),
            _ => self
                .client
                .post(format!("{}/chat/completions", self.openai))
                .bearer_auth(LOW_CREDIT_KEY),
        };
        let response = request
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .map_err(Opening::Send)?;
        // A refusal (429, 529, a spent account) is classified from its status, headers and
        // body; a stream that opens is watched: a cut or a silence is a failure, never an
        // answer.
        let watch = agent_error::reqwest::watch(response)
            .await
            .map_err(Opening::Refused)?;
        Ok(watch
            .keep_text(1 << 20)
            .idle_timeout(Duration::from_secs(2)))
    }
}

/// Why a stream did not open. The chain walk classifies it through `source()`.
#[derive(Debug)]
enum Opening {
    /// The request was not sent, or no answer came.
    Send(reqwest::Error),
    /// The provider refused it.
    Refused(agent_error::http::StatusError),
}

impl std::fmt::Display for Opening {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the stream did not open")
    }
}

impl std::error::Error for Opening {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Opening::Send(e) => Some(e),
            Opening::Refused(e) => Some(e),
        }
    }
}

/// The two orders of the providers: a task starts at OpenAI, and goes on from text shown at
/// the provider that can continue it.
struct Chains {
    start: Fallback<Kind>,
    go_on: Fallback<Kind>,
}

/// What a task showed: the answer on screen at the end, and the bytes of text it showed and
/// then withdrew when an answer started over.
#[derive(Debug, Default)]
struct Shown {
    text: String,
    withdrawn: usize,
}

/// One task of the agent: the answer it showed, or the failure it gave up on.
async fn task(chains: &Chains, providers: &Providers, prompt: &str) -> Result<Shown, StreamError> {
    // What the user has been shown of the answer so far, across runs of the chain.
    let mut shown = Shown::default();
    let mut failures = 0;
    loop {
        let chain = if shown.text.is_empty() {
            &chains.start
        } else {
            &chains.go_on
        };
        let before = shown.text.clone();
        let open = async |kind: &Kind, resume: Option<&str>, _attempt: u32| {
            // `resume` is what an earlier candidate of this run showed before it broke.
            let so_far = format!("{before}{}", resume.unwrap_or(""));
            providers.open(*kind, prompt, &so_far).await
        };
        let mut events = chain.run_stream(open, tokio_sleep);
        let mut broke = None;
        let mut speaking = None;
        while let Some(item) = events.next().await {
            match item {
                // Show each piece of text as it arrives, whichever provider sent it.
                Ok(event) => {
                    let Some(text) = event.text() else { continue };
                    // The first text of an attempt on OpenAI (`event.candidate()` names the
                    // provider) is the start of a new answer: what was shown is withdrawn.
                    if speaking != event.attempt() {
                        speaking = event.attempt();
                        if event.candidate() == Some("openai") {
                            shown.withdrawn += shown.text.len();
                            shown.text.clear();
                        }
                    }
                    shown.text.push_str(&text);
                }
                Err(e) => broke = Some(e),
            }
        }
        // How the run went, as a unary call's outcome tells it: its attempts along the
        // chain, each failure's code and wait, the provider that ran last. One log line.
        if let Some(outcome) = events.outcome() {
            agent_error::trace::record_stream_outcome(outcome);
        }
        let Some(e) = broke else {
            return Ok(shown);
        };
        agent_error::trace::record(&e);
        failures += 1;
        // Go on from what was shown, wait and run again, or give the task up.
        match decide(&e, failures) {
            Decision::Continue if failures < RUNS => {}
            Decision::Retry(delay) if failures < RUNS => tokio::time::sleep(delay).await,
            _ => return Err(e),
        }
    }
}

/// What the tasks came to.
#[derive(Debug, Default)]
pub struct Summary {
    /// Tasks whose whole answer was shown, once.
    pub completed: usize,
    /// Tasks that showed something other than their answer (text twice, or cut short).
    pub wrong: Vec<String>,
    /// Tasks whose answer started over after text was shown, and the bytes withdrawn.
    pub restarted: usize,
    pub withdrawn: usize,
    /// Tasks given up, with the failure's code and recovery.
    pub given_up: Vec<(String, String, Recovery)>,
}

/// Runs `tasks` prompts through the agent loop, `at_once` at a time, against `farm`.
pub async fn run(farm: &Farm, tasks: usize, at_once: usize) -> Summary {
    let providers = Providers {
        client: reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("a client"),
        openai: farm.url(Kind::OpenAi),
        anthropic: farm.url(Kind::Anthropic),
    };
    // OpenAI first, Anthropic behind it; each candidate under the library's retrier, and a
    // log line for each candidate that fails (a 429 that hands the call on, a spent account).
    let chain = |order: [(&str, Kind); 2]| {
        Fallback::named(order)
            .retrier(Retrier::new())
            .on_fallback(agent_error::trace::on_fallback)
    };
    let (openai, anthropic) = (("openai", Kind::OpenAi), ("anthropic", Kind::Anthropic));
    let chains = Chains {
        start: chain([openai, anthropic]),
        go_on: chain([anthropic, openai]),
    };
    let prompts: Vec<String> = (0..tasks)
        .map(|i| format!("task {i}: plan the next step"))
        .collect();
    let outcomes: Vec<_> = futures_util::stream::iter(&prompts)
        .map(|prompt| {
            let (chains, providers) = (&chains, &providers);
            async move { (prompt, task(chains, providers, prompt).await) }
        })
        .buffer_unordered(at_once)
        .collect()
        .await;
    let mut summary = Summary::default();
    for (prompt, outcome) in outcomes {
        if let Ok(shown) = &outcome
            && shown.withdrawn > 0
        {
            summary.restarted += 1;
            summary.withdrawn += shown.withdrawn;
        }
        match outcome {
            Ok(shown) if shown.text == agent_error_farm::answer(prompt) => summary.completed += 1,
            Ok(_) => summary.wrong.push(prompt.clone()),
            Err(e) => {
                let given_up = (prompt.clone(), e.code().to_owned(), e.recovery());
                summary.given_up.push(given_up);
            }
        }
    }
    summary
}

/// The farm's bad day, made harsher than [`Config::bad_day`] so that a short run meets
/// every kind of fault: a stream in three breaks, and an incident every few seconds. The
/// low-credit account runs out after a few answers.
pub fn harsh_day(seed: u64) -> Config {
    Config {
        rates: Rates {
            error_before_text: 0.1,
            error_after_text: 0.12,
            cut: 0.06,
            clean_cut: 0.04,
            silent: 0.0,
            incident_every: Duration::from_secs(3),
            throttled_for: Duration::from_millis(800),
            overloaded_for: Duration::from_millis(1200),
        },
        credit_tokens: 300,
        first_byte: Duration::from_millis(10),
        delta_gap: Duration::from_millis(2),
        ..Config::bad_day(seed)
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The failures the loop meets, one line each, without secrets.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing::Level::WARN)
        .init();
    let farm = Farm::start(harsh_day(7)).await?;
    let summary = run(&farm, 70, 4).await;
    println!(
        "{} of 70 tasks shown their whole answer once; {} shown something else; {} given up",
        summary.completed,
        summary.wrong.len(),
        summary.given_up.len()
    );
    println!(
        "{} answers started over at OpenAI, which cannot continue one: {} bytes shown and withdrawn",
        summary.restarted, summary.withdrawn
    );
    for (prompt, code, recovery) in &summary.given_up {
        println!("  gave up on {prompt:?}: {code} ({recovery})");
    }
    for kind in [Kind::OpenAi, Kind::Anthropic] {
        println!("{}: {:?}", kind.name(), farm.stats(kind));
    }
    // A task may give up on an incident that outlasts its runs (worth trying later), never
    // on a spent account or with an answer shown wrong.
    let hopeless = summary
        .given_up
        .iter()
        .any(|(_, _, r)| *r != Recovery::Retry);
    if hopeless || !summary.wrong.is_empty() {
        return Err("a task gave up on what it should have survived".into());
    }
    Ok(())
}

/// The loop as the guide gives it, on the harsh day: the tasks complete, whole and once,
/// though the first provider's credit runs out early and the second breaks, throttles and
/// overloads — a spent provider never masks the failure worth retrying or continuing. A task
/// may give up only on a failure worth retrying later (its runs spent inside an incident),
/// never on a spent account.
#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_task_completes_though_the_first_provider_runs_out_of_credit() {
        for seed in [7, 11] {
            let farm = Farm::start(harsh_day(seed)).await.unwrap();
            let summary = run(&farm, 70, 4).await;
            assert!(summary.wrong.is_empty(), "seed {seed}: {summary:?}");
            assert!(
                summary
                    .given_up
                    .iter()
                    .all(|(_, _, recovery)| *recovery == Recovery::Retry),
                "seed {seed}: {summary:?}"
            );
            assert!(summary.completed >= 67, "seed {seed}: {summary:?}");
            // The credit did run out, and the second provider did fail on the way.
            assert!(farm.stats(Kind::OpenAi).credit_spent > 0, "seed {seed}");
            let anthropic = farm.stats(Kind::Anthropic);
            assert!(anthropic.overloaded + anthropic.error_after_text + anthropic.cut > 0);
        }
    }
}
