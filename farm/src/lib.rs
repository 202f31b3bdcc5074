//! A provider farm on loopback, to test an agent against a provider's bad day.
//!
//! [`Farm::start`] serves three providers on free ports of 127.0.0.1, each speaking its
//! real wire shapes: OpenAI Chat Completions streaming with `x-ratelimit-*` headers,
//! Anthropic Messages streaming with `anthropic-ratelimit-*` headers, and an
//! OpenAI-compatible server that sends no rate-limit header. Each one enforces a token
//! bucket of requests and one of tokens a minute per API key, and has a bad day drawn from
//! a seed:
//! - windows in which every call is throttled (429 with `Retry-After`, where the provider
//!   sends headers) or the provider is overloaded (529 or 503);
//! - streams that send an error event before their first delta, or after some text;
//! - connections cut before the provider's last event, streams that end cleanly without it
//!   (a proper end of the body, which a hand-written reader takes as complete), and streams
//!   that go silent;
//! - one account whose credit runs out mid-run ([`LOW_CREDIT_KEY`]);
//! - a context window: prompts above [`Config::context_tokens`] are refused as each
//!   provider refuses them.
//!
//! The error bodies are the providers' own, quoted in the repository's provider corpus.
//! Every call's answer is drawn from its last user message alone ([`answer`]), so a consumer
//! can check that it received each answer whole and once. A call whose last message is the
//! assistant's start of that answer is answered as the real API answers it: Anthropic
//! continues it (a prefill); OpenAI's Chat Completions writes a new, whole answer (the
//! message is context); the OpenAI-compatible provider continues it only when asked as vLLM
//! is (`continue_final_message: true` with `add_generation_prompt: false`). [`Stats`] counts what each provider saw and sent: requests, 429s, output tokens
//! streamed, streams finished, retries of a refusal that cannot change;
//! [`Farm::refused`] tells the calls that could not complete.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! use agent_error_farm::{Config, Farm, Kind};
//!
//! let farm = Farm::start(Config::bad_day(7)).await?;
//! println!("OpenAI at {}", farm.url(Kind::OpenAi));
//! // … point the agent's base URL at it, run it, then:
//! println!("{:?}", farm.stats(Kind::OpenAi));
//! # Ok(()) }
//! ```

#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod answer;
mod bucket;
mod schedule;
mod server;
mod wire;

use std::time::Duration;

pub use answer::{answer, pieces, tokens};
pub use schedule::{Fault, Incident, Rates, Rng, Window};
pub use server::{Farm, Stats};
pub use wire::Kind;

/// The API key of the account whose credit runs out: once it has been sent
/// [`Config::credit_tokens`] output tokens, every call with it is refused as its provider
/// refuses a spent account (Anthropic: a 400 `invalid_request_error`; the others: a 429
/// `insufficient_quota`).
pub const LOW_CREDIT_KEY: &str = "farm-low-credit";

/// How the farm is set up.
#[derive(Clone, Debug)]
pub struct Config {
    /// The seed of the day's incidents and of each call's fault.
    pub seed: u64,
    /// How often things go wrong.
    pub rates: Rates,
    /// How far ahead incidents are drawn; after it the day is calm.
    pub horizon: Duration,
    /// Requests a minute each API key may make of each provider.
    pub requests_per_minute: u64,
    /// Tokens (prompt and output) a minute each API key may spend at each provider.
    pub tokens_per_minute: u64,
    /// The model's context window, in tokens: a longer prompt is refused.
    pub context_tokens: u64,
    /// The output tokens [`LOW_CREDIT_KEY`] may be sent before its credit is spent.
    pub credit_tokens: u64,
    /// How long a provider takes before the first byte of an answer.
    pub first_byte: Duration,
    /// How long between two deltas of a stream.
    pub delta_gap: Duration,
    /// How long a silent stream stays open before the provider drops the connection.
    pub silence: Duration,
}

impl Config {
    /// A bad day, drawn from `seed` ([`Rates::BAD_DAY`]), with limits a few dozen agents
    /// reach: 600 requests and 60,000 tokens a minute per key, a context of 4,096 tokens.
    pub fn bad_day(seed: u64) -> Config {
        Config {
            seed,
            rates: Rates::BAD_DAY,
            horizon: Duration::from_secs(600),
            requests_per_minute: 600,
            tokens_per_minute: 60_000,
            context_tokens: 4_096,
            credit_tokens: 2_000,
            first_byte: Duration::from_millis(30),
            delta_gap: Duration::from_millis(4),
            silence: Duration::from_secs(30),
        }
    }

    /// A calm day: only the buckets, the context window and the credit refuse calls.
    pub fn calm(seed: u64) -> Config {
        Config {
            rates: Rates::CALM,
            ..Config::bad_day(seed)
        }
    }
}
