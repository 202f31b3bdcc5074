//! A loopback provider that enforces a token bucket of requests and one of tokens, as
//! OpenAI does, for the pacing tests and for `benches/pace.rs`: a real HTTP/1.1 server on
//! 127.0.0.1 that answers `200` while both buckets hold the call's cost and `429` when
//! either does not, and counts both. It sends OpenAI's rate-limit headers, or none at all
//! (a provider that only answers 429, with no `Retry-After`). Dropping it stops it.

#![allow(dead_code)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// The header in which a client says what its call costs in tokens (absent: none).
pub const TOKENS: &str = "x-tokens";

/// The path the provider answers on.
pub const PATH: &str = "/v1/chat/completions";

/// A float below a whole unit by less than this counts as the unit: the client's clock and
/// the provider's are read at different instants, and their sums round differently.
const EPSILON: f64 = 1e-6;

/// One token bucket: it holds `capacity` units and refills `per_second` of them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bucket {
    pub capacity: f64,
    pub per_second: f64,
}

impl Bucket {
    /// `capacity` units, refilled evenly over `window` (a "per minute" limit over a minute).
    pub fn per(capacity: u64, window: Duration) -> Bucket {
        Bucket {
            capacity: capacity as f64,
            per_second: capacity as f64 / window.as_secs_f64(),
        }
    }

    /// The most a provider can admit over `elapsed` from a full bucket.
    pub fn admissible(&self, elapsed: Duration) -> f64 {
        self.capacity + self.per_second * elapsed.as_secs_f64()
    }
}

/// What the provider says about its limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Headers {
    /// OpenAI's `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` on every answer,
    /// and `retry-after-ms` and `retry-after` on a 429.
    OpenAi,
    /// Nothing: a 429 carries no header that tells when to come back.
    None,
}

/// How a provider is set up.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    pub requests: Bucket,
    pub tokens: Bucket,
    pub headers: Headers,
    /// How long every answer takes after the provider decided it (a 429's too).
    pub latency: Duration,
}

/// The provider's counts at one instant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Counts {
    /// Calls answered `200`, and the tokens they spent.
    pub ok: u64,
    pub ok_tokens: u64,
    /// Calls answered `429`, and of those, the ones that lacked requests and that lacked
    /// tokens (a call that lacked both counts in both).
    pub limited: u64,
    pub lacked_requests: u64,
    pub lacked_tokens: u64,
    /// Calls answered `429` in the first second.
    pub limited_first_second: u64,
    /// Since the provider started, its buckets full.
    pub elapsed: Duration,
}

impl Counts {
    /// Calls answered in all.
    pub fn calls(&self) -> u64 {
        self.ok + self.limited
    }

    /// The share of calls answered `429` (0 when there were none).
    pub fn limited_share(&self) -> f64 {
        if self.calls() == 0 {
            0.0
        } else {
            self.limited as f64 / self.calls() as f64
        }
    }

    /// What happened between `earlier` and these counts.
    pub fn since(&self, earlier: &Counts) -> Counts {
        Counts {
            ok: self.ok - earlier.ok,
            ok_tokens: self.ok_tokens - earlier.ok_tokens,
            limited: self.limited - earlier.limited,
            lacked_requests: self.lacked_requests - earlier.lacked_requests,
            lacked_tokens: self.lacked_tokens - earlier.lacked_tokens,
            limited_first_second: self.limited_first_second - earlier.limited_first_second,
            elapsed: self.elapsed.saturating_sub(earlier.elapsed),
        }
    }

    /// What the calls answered `200` used of what the buckets refilled over `elapsed`, in
    /// the dimension used most: for counts taken once the buckets' first contents are spent.
    pub fn share_of_refill(&self, setup: &Setup) -> f64 {
        let secs = self.elapsed.as_secs_f64();
        let requests = self.ok as f64 / (setup.requests.per_second * secs);
        let tokens = self.ok_tokens as f64 / (setup.tokens.per_second * secs);
        requests.max(tokens)
    }

    /// What the calls answered `200` used of the most the provider could admit since it
    /// started, in the dimension used most: 1.0 is every unit of the limit.
    pub fn share_of_limit(&self, setup: &Setup) -> f64 {
        let requests = self.ok as f64 / setup.requests.admissible(self.elapsed);
        let tokens = self.ok_tokens as f64 / setup.tokens.admissible(self.elapsed);
        requests.max(tokens)
    }
}

/// A running provider.
pub struct Provider {
    pub setup: Setup,
    url: String,
    shared: Arc<Shared>,
    server: JoinHandle<()>,
}

struct Shared {
    setup: Setup,
    started: Instant,
    levels: Mutex<Levels>,
    ok: AtomicU64,
    ok_tokens: AtomicU64,
    limited: AtomicU64,
    lacked_requests: AtomicU64,
    lacked_tokens: AtomicU64,
    limited_first_second: AtomicU64,
}

/// What both buckets hold, as of `at`.
struct Levels {
    requests: f64,
    tokens: f64,
    at: Instant,
}

/// What the provider decided for one call, and what it tells.
struct Verdict {
    admitted: bool,
    /// `(remaining, time until full)` of requests and of tokens, after the call.
    requests: (f64, f64),
    tokens: (f64, f64),
    /// Until the call would fit (a 429 only), in seconds.
    retry_after: f64,
}

impl Provider {
    /// Starts a provider on a free port of 127.0.0.1, both buckets full.
    pub async fn start(setup: Setup) -> Provider {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a free loopback port");
        let addr = listener.local_addr().expect("the bound address");
        let started = Instant::now();
        let shared = Arc::new(Shared {
            setup,
            started,
            levels: Mutex::new(Levels {
                requests: setup.requests.capacity,
                tokens: setup.tokens.capacity,
                at: started,
            }),
            ok: AtomicU64::new(0),
            ok_tokens: AtomicU64::new(0),
            limited: AtomicU64::new(0),
            lacked_requests: AtomicU64::new(0),
            lacked_tokens: AtomicU64::new(0),
            limited_first_second: AtomicU64::new(0),
        });
        let app = Router::new()
            .route(PATH, post(answer))
            .with_state(shared.clone());
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Provider {
            setup,
            url: format!("http://{addr}{PATH}"),
            shared,
            server,
        }
    }

    /// The URL to post calls to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The counts so far.
    pub fn counts(&self) -> Counts {
        Counts {
            ok: self.shared.ok.load(Ordering::SeqCst),
            ok_tokens: self.shared.ok_tokens.load(Ordering::SeqCst),
            limited: self.shared.limited.load(Ordering::SeqCst),
            lacked_requests: self.shared.lacked_requests.load(Ordering::SeqCst),
            lacked_tokens: self.shared.lacked_tokens.load(Ordering::SeqCst),
            limited_first_second: self.shared.limited_first_second.load(Ordering::SeqCst),
            elapsed: self.shared.started.elapsed(),
        }
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        self.server.abort();
    }
}

async fn answer(State(shared): State<Arc<Shared>>, request: HeaderMap) -> Response {
    let tokens = request
        .get(TOKENS)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0);
    let verdict = shared.decide(tokens);
    if !shared.setup.latency.is_zero() {
        tokio::time::sleep(shared.setup.latency).await;
    }
    let mut headers = HeaderMap::new();
    if shared.setup.headers == Headers::OpenAi {
        let setup = &shared.setup;
        for (name, bucket, (remaining, reset)) in [
            ("requests", setup.requests, verdict.requests),
            ("tokens", setup.tokens, verdict.tokens),
        ] {
            insert(
                &mut headers,
                &format!("x-ratelimit-limit-{name}"),
                (bucket.capacity as u64).to_string(),
            );
            insert(
                &mut headers,
                &format!("x-ratelimit-remaining-{name}"),
                (remaining.max(0.0).floor() as u64).to_string(),
            );
            insert(
                &mut headers,
                &format!("x-ratelimit-reset-{name}"),
                go_duration(millis_up(reset)),
            );
        }
        if !verdict.admitted {
            let ms = millis_up(verdict.retry_after).max(1);
            insert(&mut headers, "retry-after-ms", ms.to_string());
            insert(&mut headers, "retry-after", ms.div_ceil(1000).to_string());
        }
    }
    let status = if verdict.admitted {
        StatusCode::OK
    } else {
        StatusCode::TOO_MANY_REQUESTS
    };
    (
        status,
        headers,
        if verdict.admitted {
            "{}"
        } else {
            "{\"error\":{\"code\":\"rate_limit_exceeded\"}}"
        },
    )
        .into_response()
}

fn insert(headers: &mut HeaderMap, name: &str, value: String) {
    headers.insert(
        HeaderName::from_bytes(name.as_bytes()).expect("a header name"),
        HeaderValue::from_str(&value).expect("a header value"),
    );
}

impl Shared {
    /// Admits a call of one request and `tokens` tokens if both buckets hold them, and
    /// spends them; counts the answer.
    fn decide(&self, tokens: u64) -> Verdict {
        let setup = &self.setup;
        let cost = tokens as f64;
        let mut levels = self.levels.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        let secs = now.saturating_duration_since(levels.at).as_secs_f64();
        levels.requests =
            (levels.requests + setup.requests.per_second * secs).min(setup.requests.capacity);
        levels.tokens = (levels.tokens + setup.tokens.per_second * secs).min(setup.tokens.capacity);
        levels.at = now;
        let has_request = levels.requests + EPSILON >= 1.0;
        let has_tokens = levels.tokens + EPSILON >= cost;
        let admitted = has_request && has_tokens;
        let mut retry_after = 0.0;
        if admitted {
            levels.requests -= 1.0;
            levels.tokens -= cost;
            self.ok.fetch_add(1, Ordering::SeqCst);
            self.ok_tokens.fetch_add(tokens, Ordering::SeqCst);
        } else {
            // A call above a bucket's capacity never fits: it is told the time until full.
            let wait = |level: f64, need: f64, bucket: Bucket| {
                ((need.min(bucket.capacity) - level) / bucket.per_second).max(0.0)
            };
            retry_after = wait(levels.requests, 1.0, setup.requests).max(wait(
                levels.tokens,
                cost,
                setup.tokens,
            ));
            self.limited.fetch_add(1, Ordering::SeqCst);
            self.lacked_requests
                .fetch_add(u64::from(!has_request), Ordering::SeqCst);
            self.lacked_tokens
                .fetch_add(u64::from(!has_tokens), Ordering::SeqCst);
            let first_second = now.saturating_duration_since(self.started) < Duration::from_secs(1);
            self.limited_first_second
                .fetch_add(u64::from(first_second), Ordering::SeqCst);
        }
        let full_in = |level: f64, bucket: Bucket| (bucket.capacity - level) / bucket.per_second;
        Verdict {
            admitted,
            requests: (levels.requests, full_in(levels.requests, setup.requests)),
            tokens: (levels.tokens, full_in(levels.tokens, setup.tokens)),
            retry_after,
        }
    }
}

/// Seconds as whole milliseconds, rounded up: a client never comes back too early.
fn millis_up(secs: f64) -> u64 {
    (secs * 1000.0).ceil().max(0.0) as u64
}

/// A duration of whole milliseconds as Go's `time.Duration` prints it, as OpenAI's reset
/// headers are: `"0s"`, `"20ms"`, `"1s"`, `"59.94s"`, `"6m0s"`, `"1h0m0.5s"`.
pub fn go_duration(ms: u64) -> String {
    if ms == 0 {
        return "0s".into();
    }
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let (hours, minutes, seconds, fraction) =
        (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
    let mut text = String::new();
    if hours > 0 {
        text.push_str(&format!("{hours}h"));
    }
    if hours > 0 || minutes > 0 {
        text.push_str(&format!("{minutes}m"));
    }
    text.push_str(&seconds.to_string());
    if fraction > 0 {
        let digits = format!("{fraction:03}");
        text.push('.');
        text.push_str(digits.trim_end_matches('0'));
    }
    text.push('s');
    text
}
