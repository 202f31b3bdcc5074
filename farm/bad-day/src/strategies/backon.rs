//! backon with a hand-written `is_retryable`, and a stream that fails retried whole, the way
//! open-source coding agents retry a turn: re-send the request, read the new stream from
//! its start. A call whose retries are spent without showing text falls back to the next
//! provider, retried the same way.

use std::time::Duration;

use backon::{ExponentialBuilder, Retryable};

use super::none::read_stream;
use super::{Call, CallFuture, Env, Replica, Show, Strategy, fallback_order};
use crate::sse::request;

/// backon around the whole call.
pub struct Backon;

impl Strategy for Backon {
    fn name(&self) -> &'static str {
        "backon + hand is_retryable"
    }

    fn follows(&self) -> &'static str {
        "backon's README (`Retryable::retry` with `ExponentialBuilder`, `when`, `adjust` for Retry-After); the stream retried whole as codex retries a turn; a call that failed before it showed text falls back to Anthropic"
    }

    fn replica(&self, env: &Env) -> Box<dyn Replica> {
        Box::new(Hand {
            env: env.clone(),
            client: crate::sse::client(),
        })
    }
}

struct Hand {
    env: Env,
    client: reqwest::Client,
}

/// A failure as the hand-written code sees it.
#[derive(Debug)]
enum Failure {
    /// A status, with the `Retry-After` it came with.
    Status(u16, Option<Duration>),
    /// The stream failed (an error event, a transport error).
    Stream(String),
    /// The request could not be sent.
    Send(String),
}

/// The hand-written rule: 429, 5xx and 529, a failed stream and a failed send are retried.
fn is_retryable(f: &Failure) -> bool {
    match f {
        Failure::Status(s, _) => *s == 429 || *s >= 500,
        Failure::Stream(_) | Failure::Send(_) => true,
    }
}

impl Replica for Hand {
    fn call<'a>(&'a self, call: Call<'a>, show: Show<'a>) -> CallFuture<'a> {
        Box::pin(async move {
            let show = tokio::sync::Mutex::new(show);
            let mut failure = String::new();
            for kind in fallback_order(call.primary) {
                let attempt = || async {
                    let response = request(
                        &self.client,
                        self.env.url(kind),
                        kind,
                        call.key,
                        call.prompt,
                        None,
                    )
                    .send()
                    .await
                    .map_err(|e| Failure::Send(e.to_string()))?;
                    let status = response.status().as_u16();
                    if status >= 400 {
                        let wait = response
                            .headers()
                            .get("retry-after")
                            .and_then(|v| v.to_str().ok())
                            .and_then(|v| v.parse::<u64>().ok())
                            .map(Duration::from_secs);
                        return Err(Failure::Status(status, wait));
                    }
                    let mut show = show.lock().await;
                    read_stream(response, &mut show)
                        .await
                        .map_err(Failure::Stream)
                };
                let outcome = attempt
                    .retry(
                        ExponentialBuilder::default()
                            .with_max_times(4)
                            .with_jitter(),
                    )
                    .sleep(tokio::time::sleep)
                    .when(is_retryable)
                    // `adjust` hears `None` once the retries are spent: keep it so.
                    .adjust(|f, backoff| match f {
                        Failure::Status(_, Some(wait)) => backoff.map(|_| *wait),
                        _ => backoff,
                    })
                    .await;
                failure = match outcome {
                    Ok(()) => return Ok(()),
                    Err(Failure::Status(status, _)) => format!("status {status}"),
                    Err(Failure::Stream(why) | Failure::Send(why)) => why,
                };
                // Once text was shown, another provider would show the answer again.
                if !show.lock().await.text.is_empty() {
                    break;
                }
            }
            Err(failure)
        })
    }
}
