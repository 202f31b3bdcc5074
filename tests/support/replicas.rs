//! Replicas of one client calling a provider through reqwest for a fixed time, each as
//! several tokio tasks with its own client and, when paced, a `Pacer` consulted before
//! every call and told every answer: what `tests/suite/pace.rs` and `benches/pace.rs` run
//! against the loopback provider of `rate_limited.rs`.

#![allow(dead_code)]

use std::time::{Duration, Instant};

use agent_error::recover::{Cost, Pacer};

use super::rate_limited::TOKENS;

/// The key every call is paced under: one provider, account and model.
pub const KEY: &str = "loopback/acct-1/model";

/// The longest a paced call waits for its turn; one that needs longer waits that long, then
/// asks again.
pub const MAX_WAIT: Duration = Duration::from_secs(2);

/// How long one call may take before the client gives up on it.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// One replica: `tasks` tasks calling in a loop, paced by `pacer` or not at all.
#[derive(Clone, Debug)]
pub struct Replica {
    pub pacer: Option<Pacer>,
    pub tasks: usize,
}

/// What the clients saw, beside what the provider counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// Calls sent.
    pub sent: u64,
    /// Calls whose answer did not arrive (transport errors and timeouts).
    pub failed: u64,
}

/// The tokens the `n`-th call of a task costs: from 50 to 150, 100 on average.
pub fn tokens_of(n: u64) -> u64 {
    50 + n * 37 % 101
}

/// Runs `replicas` against `url` until `duration` has passed, then returns what they saw.
pub async fn run(url: &str, replicas: &[Replica], duration: Duration) -> Seen {
    let end = Instant::now() + duration;
    let mut tasks = Vec::new();
    for (r, replica) in replicas.iter().enumerate() {
        let client = reqwest::Client::builder()
            .timeout(CALL_TIMEOUT)
            .build()
            .expect("a reqwest client");
        for t in 0..replica.tasks {
            let (client, pacer, url) = (client.clone(), replica.pacer.clone(), url.to_owned());
            // Tasks start at different points of the cost sequence.
            let first = (r * 31 + t * 7) as u64;
            tasks.push(tokio::spawn(calls(client, pacer, url, end, first)));
        }
    }
    let mut seen = Seen::default();
    for task in tasks {
        let one = task.await.expect("a replica's task");
        seen.sent += one.sent;
        seen.failed += one.failed;
    }
    seen
}

/// One task's loop: reserve, call, tell the pacer, until `end`.
async fn calls(
    client: reqwest::Client,
    pacer: Option<Pacer>,
    url: String,
    end: Instant,
    first: u64,
) -> Seen {
    let mut seen = Seen::default();
    let mut n = first;
    while Instant::now() < end {
        n += 1;
        let tokens = tokens_of(n);
        if let Some(pacer) = &pacer {
            let wait = match pacer.reserve(KEY, Cost::tokens(tokens), MAX_WAIT).await {
                Ok(wait) => wait,
                Err(needed) => {
                    sleep_until_at_most(needed.min(MAX_WAIT), end).await;
                    continue;
                }
            };
            if Instant::now() + wait >= end {
                break;
            }
            if !wait.is_zero() {
                tokio::time::sleep(wait).await;
            }
        }
        seen.sent += 1;
        let answer = client
            .post(&url)
            .header(TOKENS, tokens.to_string())
            .body("{}")
            .send()
            .await;
        match answer {
            Ok(response) => {
                if let Some(pacer) = &pacer {
                    pacer.observe_response(KEY, response.status().as_u16(), response.headers());
                }
                if response.bytes().await.is_err() {
                    seen.failed += 1;
                }
            }
            Err(_) => seen.failed += 1,
        }
    }
    seen
}

async fn sleep_until_at_most(wait: Duration, end: Instant) {
    let left = end.saturating_duration_since(Instant::now());
    tokio::time::sleep(wait.min(left)).await;
}
