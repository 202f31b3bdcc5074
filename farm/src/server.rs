//! The providers' HTTP servers: one axum server a provider on a free loopback port, each
//! deciding every call from its buckets, the day's incidents and the call's drawn fault.

use std::collections::{HashMap, HashSet};
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use axum::routing::post;
use bytes::Bytes;
use futures_util::stream;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::bucket::Buckets;
use crate::schedule::{self, Fault, Incident, Window};
use crate::wire::{self, Kind, Reply};
use crate::{Config, LOW_CREDIT_KEY, answer};

/// What one provider saw and sent, counted as it happened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Requests received.
    pub requests: u64,
    /// Answered 429 (a bucket or a throttled window; a spent quota is not counted here).
    pub throttled: u64,
    /// Of those, answered 429 by a bucket: what a client that paces itself avoids.
    pub bucket_throttled: u64,
    /// Answered as overloaded (529 or 503).
    pub overloaded: u64,
    /// Refused for a prompt over the context window.
    pub context_overflow: u64,
    /// Refused for a spent credit.
    pub credit_spent: u64,
    /// Refused for a request the farm could not read.
    pub malformed: u64,
    /// Calls not streamed that met their fault, answered 500.
    pub server_errors: u64,
    /// Streams started (`200 OK`).
    pub streams: u64,
    /// Streams that sent the provider's last event.
    pub finished: u64,
    /// Streams that sent an error event before any text.
    pub error_before_text: u64,
    /// Streams that sent an error event after some text.
    pub error_after_text: u64,
    /// Connections cut before the last event (a transport error).
    pub cut: u64,
    /// Streams ended cleanly before the last event (a proper end of the body).
    pub clean_cut: u64,
    /// Streams that went silent.
    pub silent: u64,
    /// Output tokens sent in deltas, finished or not.
    pub output_tokens: u64,
    /// Refusals that cannot change of a prompt refused so already: retries that could not
    /// succeed. A prompt over the context window counts wherever it was refused before
    /// (every provider of the farm has the same window, so sending it to the next one is
    /// hopeless too); a spent credit counts where the same provider refused it before (the
    /// account at another provider is another account).
    pub hopeless_retries: u64,
}

/// The counters behind [`Stats`].
#[derive(Default)]
struct Counters([AtomicU64; 17]);

#[derive(Clone, Copy)]
enum Count {
    Requests,
    Throttled,
    BucketThrottled,
    Overloaded,
    ContextOverflow,
    CreditSpent,
    Malformed,
    ServerErrors,
    Streams,
    Finished,
    ErrorBeforeText,
    ErrorAfterText,
    Cut,
    CleanCut,
    Silent,
    OutputTokens,
    HopelessRetries,
}

impl Counters {
    fn add(&self, count: Count, n: u64) {
        self.0[count as usize].fetch_add(n, Ordering::Relaxed);
    }

    fn snapshot(&self) -> Stats {
        let get = |c: Count| self.0[c as usize].load(Ordering::Relaxed);
        Stats {
            requests: get(Count::Requests),
            throttled: get(Count::Throttled),
            bucket_throttled: get(Count::BucketThrottled),
            overloaded: get(Count::Overloaded),
            context_overflow: get(Count::ContextOverflow),
            credit_spent: get(Count::CreditSpent),
            malformed: get(Count::Malformed),
            server_errors: get(Count::ServerErrors),
            streams: get(Count::Streams),
            finished: get(Count::Finished),
            error_before_text: get(Count::ErrorBeforeText),
            error_after_text: get(Count::ErrorAfterText),
            cut: get(Count::Cut),
            clean_cut: get(Count::CleanCut),
            silent: get(Count::Silent),
            output_tokens: get(Count::OutputTokens),
            hopeless_retries: get(Count::HopelessRetries),
        }
    }
}

/// One provider's state.
struct Provider {
    kind: Kind,
    config: Config,
    start: Instant,
    windows: Vec<Window>,
    /// Each API key's buckets.
    buckets: Mutex<HashMap<String, Buckets>>,
    /// How many times each prompt (by hash) has been seen.
    seen: Mutex<HashMap<u64, u64>>,
    /// How many times each prompt (by hash) was refused for good.
    refused: Mutex<HashMap<u64, u64>>,
    /// The prompts (by hash) some provider of the farm refused as over the context window.
    too_long: Arc<Mutex<HashSet<u64>>>,
    /// Output tokens sent to [`LOW_CREDIT_KEY`].
    credit_used: AtomicU64,
    counters: Counters,
}

impl Provider {
    /// Counts a refusal for good of `call`'s prompt (over the context window when
    /// `too_long`, else for a spent credit), and a hopeless retry if it was refused so before
    /// (see [`Stats::hopeless_retries`]).
    fn refuse(&self, call: &Call, too_long: bool) {
        let mut refused = self.refused.lock().unwrap_or_else(PoisonError::into_inner);
        let n = refused.entry(call.hash).or_insert(0);
        let again = if too_long {
            !self
                .too_long
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(call.hash)
        } else {
            *n > 0
        };
        if again {
            self.counters.add(Count::HopelessRetries, 1);
        }
        *n += 1;
    }
}

/// A running farm: three providers on loopback. Dropping it stops them.
pub struct Farm {
    providers: Vec<(Arc<Provider>, SocketAddr, JoinHandle<()>)>,
}

impl Farm {
    /// Starts the three providers on free ports of 127.0.0.1.
    pub async fn start(config: Config) -> io::Result<Farm> {
        let mut providers = Vec::new();
        let too_long = Arc::new(Mutex::new(HashSet::new()));
        for kind in Kind::ALL {
            let provider = Arc::new(Provider {
                kind,
                windows: schedule::windows(
                    config.seed,
                    kind.index(),
                    &config.rates,
                    config.horizon,
                ),
                config: config.clone(),
                start: Instant::now(),
                buckets: Mutex::new(HashMap::new()),
                seen: Mutex::new(HashMap::new()),
                refused: Mutex::new(HashMap::new()),
                too_long: too_long.clone(),
                credit_used: AtomicU64::new(0),
                counters: Counters::default(),
            });
            let listener = TcpListener::bind("127.0.0.1:0").await?;
            let addr = listener.local_addr()?;
            let app = Router::new()
                .route(kind.path(), post(handle))
                .with_state(provider.clone());
            let task = tokio::spawn(async move {
                let _ = axum::serve(listener, app).await;
            });
            providers.push((provider, addr, task));
        }
        Ok(Farm { providers })
    }

    fn provider(&self, kind: Kind) -> &(Arc<Provider>, SocketAddr, JoinHandle<()>) {
        let i = Kind::ALL.iter().position(|k| *k == kind).unwrap_or(0);
        &self.providers[i]
    }

    /// The base URL of `kind`, such as `http://127.0.0.1:41234/v1` (the path of its endpoint
    /// is [`Kind::path`]).
    pub fn url(&self, kind: Kind) -> String {
        format!("http://{}/v1", self.provider(kind).1)
    }

    /// What `kind` has counted so far.
    pub fn stats(&self, kind: Kind) -> Stats {
        self.provider(kind).0.counters.snapshot()
    }

    /// Whether some provider refused `prompt` for good (over the context window, or on a
    /// spent account): a call that cannot complete there.
    pub fn refused(&self, prompt: &str) -> bool {
        let hash = answer::hash(prompt);
        self.providers.iter().any(|(p, _, _)| {
            p.refused
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .contains_key(&hash)
        })
    }

    /// Whether [`LOW_CREDIT_KEY`]'s credit at `kind` is spent.
    pub fn credit_spent(&self, kind: Kind) -> bool {
        let p = &self.provider(kind).0;
        p.credit_used.load(Ordering::Relaxed) >= p.config.credit_tokens
    }

    /// The incidents of `kind`'s day, from the farm's start.
    pub fn incidents(&self, kind: Kind) -> &[Window] {
        &self.provider(kind).0.windows
    }
}

impl Drop for Farm {
    fn drop(&mut self) {
        for (_, _, task) in &self.providers {
            task.abort();
        }
    }
}

/// A call as the farm reads it.
struct Call {
    key: String,
    model: String,
    /// The text of the last user message: what the answer is drawn from.
    prompt: String,
    /// Its hash: what the farm keys the prompt's sightings, refusals and faults on.
    hash: u64,
    /// The text of a trailing assistant message to continue from, where the endpoint
    /// continues one (see [`continues`]); `None` where the model writes a new answer.
    resume: Option<String>,
    /// Tokens of every message.
    prompt_tokens: u64,
    stream: bool,
}

/// Whether `kind` continues a trailing assistant message in `body`, as its real API does:
/// Anthropic's Messages API always (a prefill); OpenAI's Chat Completions never (the
/// message is context, and the model writes a new answer); the OpenAI-compatible server,
/// as vLLM does, only when the request asks with `continue_final_message: true` (and
/// `add_generation_prompt: false`, which vLLM requires beside it).
fn continues(kind: Kind, body: &Value) -> Result<bool, String> {
    match kind {
        Kind::Anthropic => Ok(true),
        Kind::OpenAi => Ok(false),
        Kind::Compatible => {
            let asked = body.get("continue_final_message").and_then(Value::as_bool) == Some(true);
            // vLLM's default for `add_generation_prompt` is true, and it refuses both.
            let generation_prompt = body
                .get("add_generation_prompt")
                .and_then(Value::as_bool)
                .unwrap_or(true);
            if asked && generation_prompt {
                return Err(
                    "Cannot set both `continue_final_message` and `add_generation_prompt` to True."
                        .into(),
                );
            }
            Ok(asked)
        }
    }
}

fn read_call(kind: Kind, headers: &HeaderMap, body: &[u8]) -> Result<Call, String> {
    let value: Value = serde_json::from_slice(body).map_err(|e| format!("invalid JSON: {e}"))?;
    let key = match kind {
        Kind::Anthropic => headers.get("x-api-key").and_then(|v| v.to_str().ok()),
        Kind::OpenAi | Kind::Compatible => headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer ")),
    }
    .unwrap_or("")
    .to_string();
    let messages = value
        .get("messages")
        .and_then(Value::as_array)
        .filter(|m| !m.is_empty())
        .ok_or("messages: at least one message is required")?;
    let texts: Vec<String> = messages.iter().map(text_of).collect();
    let prompt_tokens = texts.iter().map(|t| answer::tokens(t)).sum();
    let last_is_assistant = messages
        .last()
        .and_then(|m| m.get("role"))
        .and_then(Value::as_str)
        == Some("assistant");
    let continues = continues(kind, &value)?;
    let (prompt, resume) = if last_is_assistant && texts.len() >= 2 {
        let said = texts.last().cloned().unwrap_or_default();
        // Anthropic refuses a prefill that ends in white space.
        if kind == Kind::Anthropic && said.ends_with(char::is_whitespace) {
            return Err(
                "messages: final assistant content cannot end with trailing whitespace".into(),
            );
        }
        (texts[texts.len() - 2].clone(), continues.then_some(said))
    } else {
        (texts.last().cloned().unwrap_or_default(), None)
    };
    Ok(Call {
        key,
        model: value
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or("farm-model")
            .to_string(),
        hash: answer::hash(&prompt),
        prompt,
        resume,
        prompt_tokens,
        stream: value
            .get("stream")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    })
}

/// The pieces of the answer still to send: all of them, or, for a call that continues an
/// assistant message holding the start of the answer, what follows it (cut mid-piece where
/// the text it holds ends). An assistant message that is not the answer's start, or one
/// the endpoint does not continue, gets the whole answer, as a model would write it.
fn rest_of_answer(call: &Call) -> Vec<String> {
    let pieces = answer::pieces(&call.prompt);
    let Some(said) = call.resume.as_deref().filter(|s| !s.is_empty()) else {
        return pieces;
    };
    let whole: String = pieces.concat();
    if !whole.starts_with(said) || said.len() >= whole.len() {
        return pieces;
    }
    let mut at = 0;
    let mut rest = Vec::new();
    for piece in pieces {
        let end = at + piece.len();
        if end > said.len() {
            let skip = said.len().saturating_sub(at);
            rest.push(piece[skip..].to_string());
        }
        at = end;
    }
    rest
}

/// A message's text: its `content` string, or its text blocks joined.
fn text_of(message: &Value) -> String {
    match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

async fn handle(State(p): State<Arc<Provider>>, headers: HeaderMap, body: Bytes) -> Response {
    p.counters.add(Count::Requests, 1);
    tokio::time::sleep(p.config.first_byte).await;
    let call = match read_call(p.kind, &headers, &body) {
        Ok(call) => call,
        Err(what) => {
            p.counters.add(Count::Malformed, 1);
            return reply(wire::malformed(p.kind, &what));
        }
    };
    if call.key == LOW_CREDIT_KEY && p.credit_used.load(Ordering::Relaxed) >= p.config.credit_tokens
    {
        p.counters.add(Count::CreditSpent, 1);
        p.refuse(&call, false);
        return reply(wire::credit_spent(p.kind));
    }
    if call.prompt_tokens > p.config.context_tokens {
        p.counters.add(Count::ContextOverflow, 1);
        p.refuse(&call, true);
        return reply(wire::context_overflow(
            p.kind,
            call.prompt_tokens,
            p.config.context_tokens,
        ));
    }
    let pieces = rest_of_answer(&call);
    let output_tokens = pieces.len() as u64;
    let now = Instant::now();
    let admitted = {
        let mut buckets = p.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        let b = buckets.entry(call.key.clone()).or_insert_with(|| {
            Buckets::new(
                p.config.requests_per_minute,
                p.config.tokens_per_minute,
                p.start,
            )
        });
        b.admit(call.prompt_tokens + output_tokens, now)
    };
    let elapsed = now.duration_since(p.start);
    if let Some(window) = schedule::incident_at(&p.windows, elapsed) {
        let limits = match &admitted {
            Ok(limits) | Err((limits, _)) => *limits,
        };
        return match window.incident {
            Incident::Throttled => {
                p.counters.add(Count::Throttled, 1);
                reply(wire::throttled(
                    p.kind,
                    &limits,
                    window.until - elapsed,
                    &call.model,
                ))
            }
            Incident::Overloaded => {
                p.counters.add(Count::Overloaded, 1);
                reply(wire::overloaded(p.kind))
            }
        };
    }
    let limits = match admitted {
        Ok(limits) => limits,
        Err((limits, wait)) => {
            p.counters.add(Count::Throttled, 1);
            p.counters.add(Count::BucketThrottled, 1);
            return reply(wire::throttled(p.kind, &limits, wait, &call.model));
        }
    };
    let nth = {
        let mut seen = p.seen.lock().unwrap_or_else(PoisonError::into_inner);
        let n = seen.entry(call.hash).or_insert(0);
        *n += 1;
        *n - 1
    };
    let fault = schedule::fault(
        p.config.seed,
        p.kind.index(),
        call.hash,
        nth,
        &p.config.rates,
    );
    let id = format!("farm-{}-{}-{nth}", p.kind.name(), call.hash % 1_000_000);
    let mut response = Response::new(if call.stream {
        p.counters.add(Count::Streams, 1);
        let steps = plan(&p, &call, &id, &pieces, fault);
        Body::from_stream(run(p.clone(), call.key == LOW_CREDIT_KEY, steps))
    } else if fault.is_some() {
        // Not streamed: the fault is a failure on the provider's side.
        p.counters.add(Count::ServerErrors, 1);
        return reply(wire::server_error(p.kind));
    } else {
        p.counters.add(Count::OutputTokens, output_tokens);
        p.counters.add(Count::Finished, 1);
        if call.key == LOW_CREDIT_KEY {
            p.credit_used.fetch_add(output_tokens, Ordering::Relaxed);
        }
        Body::from(whole(p.kind, &id, &call, &pieces))
    });
    *response.status_mut() = StatusCode::OK;
    let content_type = if call.stream {
        "text/event-stream"
    } else {
        "application/json"
    };
    response
        .headers_mut()
        .insert("content-type", HeaderValue::from_static(content_type));
    for (name, value) in wire::limit_headers(p.kind, &limits) {
        insert(response.headers_mut(), &name, &value);
    }
    response
}

/// A non-streamed answer's body.
fn whole(kind: Kind, id: &str, call: &Call, pieces: &[String]) -> String {
    let text: String = pieces.concat();
    let tokens = pieces.len() as u64;
    match kind {
        Kind::Anthropic => serde_json::json!({"id": id, "type": "message", "role": "assistant",
            "model": call.model, "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn", "usage": {"input_tokens": call.prompt_tokens, "output_tokens": tokens}}),
        Kind::OpenAi | Kind::Compatible => serde_json::json!({"id": id, "object": "chat.completion",
            "created": 0, "model": call.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": call.prompt_tokens, "completion_tokens": tokens,
                "total_tokens": call.prompt_tokens + tokens}}),
    }
    .to_string()
}

/// One step of a stream.
enum Step {
    /// Send these bytes.
    Send(Bytes),
    /// Send a delta of one output token.
    Delta(Bytes),
    /// Wait.
    Sleep(Duration),
    /// Count the stream finished (its last event was sent).
    Finished,
    /// Cut the connection.
    Cut,
}

/// The steps of a stream with `fault`.
fn plan(
    p: &Provider,
    call: &Call,
    id: &str,
    pieces: &[String],
    fault: Option<(Fault, usize)>,
) -> Vec<Step> {
    let kind = p.kind;
    let mut steps: Vec<Step> = wire::stream_start(kind, id, &call.model, call.prompt_tokens)
        .into_iter()
        .map(Step::Send)
        .collect();
    let (fault, after) = match fault {
        Some((fault, after)) => (Some(fault), after.min(pieces.len().saturating_sub(1))),
        None => (None, pieces.len()),
    };
    if fault == Some(Fault::ErrorBeforeText) {
        p.counters.add(Count::ErrorBeforeText, 1);
        steps.push(Step::Send(wire::stream_error(kind)));
        return steps;
    }
    for piece in &pieces[..after] {
        steps.push(Step::Sleep(p.config.delta_gap));
        steps.push(Step::Delta(wire::delta(kind, id, &call.model, piece)));
    }
    match fault {
        None => {
            steps.extend(
                wire::stream_end(
                    kind,
                    id,
                    &call.model,
                    call.prompt_tokens,
                    pieces.len() as u64,
                )
                .into_iter()
                .map(Step::Send),
            );
            steps.push(Step::Finished);
        }
        Some(Fault::ErrorAfterText) => {
            p.counters.add(Count::ErrorAfterText, 1);
            steps.push(Step::Send(wire::stream_error(kind)));
        }
        Some(Fault::Cut) => {
            p.counters.add(Count::Cut, 1);
            // Let the deltas sent reach the client before the connection goes: a cut drops
            // what the server has not written yet.
            steps.push(Step::Sleep(
                p.config.delta_gap.max(Duration::from_millis(20)),
            ));
            steps.push(Step::Cut);
        }
        Some(Fault::CleanCut) => {
            p.counters.add(Count::CleanCut, 1);
            // The body ends here, as a server that closed the stream properly ends it.
        }
        Some(Fault::Silent) => {
            p.counters.add(Count::Silent, 1);
            steps.push(Step::Sleep(p.config.silence));
            steps.push(Step::Cut);
        }
        Some(Fault::ErrorBeforeText) => {}
    }
    steps
}

/// The body of a stream: its steps, in order, counting output tokens as they are sent.
fn run(
    p: Arc<Provider>,
    low_credit: bool,
    steps: Vec<Step>,
) -> impl futures_util::Stream<Item = io::Result<Bytes>> + Send {
    stream::unfold((p, steps.into_iter()), move |(p, mut steps)| async move {
        loop {
            match steps.next()? {
                Step::Send(bytes) => return Some((Ok(bytes), (p, steps))),
                Step::Delta(bytes) => {
                    p.counters.add(Count::OutputTokens, 1);
                    if low_credit {
                        p.credit_used.fetch_add(1, Ordering::Relaxed);
                    }
                    return Some((Ok(bytes), (p, steps)));
                }
                Step::Sleep(d) => tokio::time::sleep(d).await,
                Step::Finished => p.counters.add(Count::Finished, 1),
                Step::Cut => {
                    let cut =
                        io::Error::new(io::ErrorKind::ConnectionReset, "the farm cut the stream");
                    return Some((Err(cut), (p, steps)));
                }
            }
        }
    })
}

fn reply(r: Reply) -> Response {
    let mut response = Response::new(Body::from(r.body));
    *response.status_mut() =
        StatusCode::from_u16(r.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    response
        .headers_mut()
        .insert("content-type", HeaderValue::from_static("application/json"));
    for (name, value) in &r.headers {
        insert(response.headers_mut(), name, value);
    }
    response
}

fn insert(headers: &mut HeaderMap, name: &str, value: &str) {
    if let (Ok(name), Ok(value)) = (HeaderName::try_from(name), HeaderValue::try_from(value)) {
        headers.insert(name, value);
    }
}
