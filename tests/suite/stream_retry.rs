//! Streams under the retrier and the fallback chain, end to end: a loopback HTTP/1.1
//! server plays one script a connection, the real reqwest client opens each attempt through `agent_error::reqwest::watch`, and the server's
//! connection count is the attempt count. A stream that failed before it spoke is opened
//! again under the failure's policy, its Retry-After, the budget and shared pauses; one that
//! spoke is handed back with its partial text, or continued on the next candidate.
#![cfg(all(feature = "stream", feature = "reqwest", feature = "tokio"))]

use std::convert::Infallible;
use std::error::Error as StdError;
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agent_error::recover::{Fallback, LocalStore, SharedPauses, Store};
use agent_error::retry::{Retrier, RetryBudget, RunStream, Stop, StreamOutcome};
use agent_error::stream::{Event, FailureKind, StreamError, Watch};
use agent_error::{AgentError, Recovery};
use futures_util::{Stream, StreamExt};

use crate::support::sse;

use crate::support::providers;

use providers::{
    A_HELLO, A_OPEN, A_OVERLOADED, ANTHROPIC, C_HELLO, DONE, R_CREATED, RATE_LIMITED_BODY,
    RESPONSES,
};
use sse::{Framing, Script, Server, events, serve_each};

type BoxError = Box<dyn StdError + Send + Sync>;

// Error heads, each with the body its provider documents for that status.
const UNAVAILABLE_BODY: &str = r#"{"error":{"message":"The server is overloaded or not ready yet.","type":"server_error","param":null,"code":null}}"#;
const UNAUTHORIZED_BODY: &str =
    r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#;

// The Responses API's `error` event as documented (flat `code` and `message`), asking in its
// message alone for a short wait.
const R_RATE_LIMITED_SOON: &str = r#"event: error
data: {"type":"error","code":"rate_limit_exceeded","message":"Rate limit reached for gpt-4o. Please try again in 0.2s.","param":null,"sequence_number":1}

"#;

// An Anthropic text delta that continues "Hello".
const A_WORLD: &str = r#"event: content_block_delta
data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": " world"}}

"#;

/// A client that opens a connection for every request (none is pooled), so that the
/// server's connection count is the number of attempts.
fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap()
}

/// Opens `url`'s stream; an error head is the opening's error.
async fn open(
    client: &reqwest::Client,
    url: &str,
) -> Result<Watch<impl Stream<Item = reqwest::Result<bytes::Bytes>> + Send + use<>>, BoxError> {
    let response = client.get(url).send().await?;
    Ok(agent_error::reqwest::watch(response).await?)
}

/// The complete Anthropic stream, one write an event.
fn complete() -> Script {
    Script::ok(Framing::Chunked).send_all(events(ANTHROPIC))
}

/// The `data` of each event of `fixtures`, in order: what the caller must receive.
fn data(fixtures: &[&str]) -> Vec<String> {
    fixtures
        .iter()
        .flat_map(|fixture| events(fixture))
        .map(|event| {
            event
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(|value| value.strip_prefix(' ').unwrap_or(value))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect()
}

/// The delays a run asked to sleep, recorded instead of slept.
#[derive(Clone, Default)]
struct Slept(Arc<Mutex<Vec<Duration>>>);

impl Slept {
    /// A sleep that records its delay and returns at once.
    fn sleep(&self) -> impl FnMut(Duration) -> std::future::Ready<()> + 'static {
        let log = self.0.clone();
        move |delay| {
            log.lock().unwrap().push(delay);
            std::future::ready(())
        }
    }

    fn delays(&self) -> Vec<Duration> {
        self.0.lock().unwrap().clone()
    }
}

/// What a run yielded to its end, and when each event came.
#[derive(Debug)]
struct Ran {
    events: Vec<Event>,
    received: Vec<Instant>,
    /// The error it ended in, if any (always its last item).
    error: Option<StreamError>,
    /// How the run went, as its stream told once it ended.
    outcome: StreamOutcome,
}

impl Ran {
    fn data(&self) -> Vec<String> {
        self.events.iter().map(|e| e.data().to_owned()).collect()
    }

    fn error(&self) -> &StreamError {
        self.error.as_ref().expect("the run ends in an error")
    }
}

/// Reads a run to its end, within 10 s; nothing may come after its error, and its outcome
/// is told only with its last item.
async fn run_to_end<F>(mut stream: RunStream<F>) -> Ran
where
    F: Future<Output = (Result<(), StreamError>, StreamOutcome)>,
{
    let run = async {
        let mut events = Vec::new();
        let mut received = Vec::new();
        let mut error = None;
        while let Some(item) = stream.next().await {
            match item {
                Ok(event) => {
                    assert!(stream.outcome().is_none(), "no outcome before the end");
                    received.push(Instant::now());
                    events.push(event);
                }
                Err(e) => {
                    // The error is the stream's last item: the outcome is told with it.
                    assert!(stream.outcome().is_some(), "the outcome with the error");
                    assert!(stream.next().await.is_none(), "nothing after the error");
                    error = Some(e);
                    break;
                }
            }
        }
        let outcome = stream
            .take_outcome()
            .expect("an outcome once the stream ended");
        Ran {
            events,
            received,
            error,
            outcome,
        }
    };
    tokio::time::timeout(Duration::from_secs(10), run)
        .await
        .expect("the run ends within 10 s")
}

/// How each attempt's watch reads: whether it keeps the text (1 KiB), whether its consumer
/// buffers, its idle timeout.
#[derive(Clone, Copy, Debug)]
struct Reading {
    keep_text: bool,
    buffered: bool,
    idle: Duration,
}

/// Text kept, nothing buffered, the default idle timeout: what most agents want.
const KEEPING: Reading = Reading {
    keep_text: true,
    buffered: false,
    idle: Duration::from_secs(60),
};

/// Opens `url`'s stream, its watch reading as `reading` says.
async fn open_reading(
    client: &reqwest::Client,
    url: &str,
    reading: Reading,
) -> Result<Watch<impl Stream<Item = reqwest::Result<bytes::Bytes>> + Send + use<>>, BoxError> {
    let mut watch = open(client, url)
        .await?
        .buffered(reading.buffered)
        .idle_timeout(reading.idle);
    if reading.keep_text {
        watch = watch.keep_text(1024);
    }
    Ok(watch)
}

/// Runs `server`'s stream under `retrier`, reading as `reading` says; the delays are
/// recorded in `slept`, not slept.
async fn run_stream(retrier: &Retrier, server: &Server, slept: &Slept, reading: Reading) -> Ran {
    let client = client();
    let (client, url) = (&client, server.url.as_str());
    let opened = retrier.run_stream(
        move |_attempt| open_reading(client, url, reading),
        slept.sleep(),
    );
    run_to_end(opened).await
}

/// A retrier with a fixed jitter seed.
fn retrier() -> Retrier {
    Retrier::new().seed(1)
}

/// The codes of the failures a retrier retried, in order.
fn counting(retrier: Retrier) -> (Retrier, Arc<Mutex<Vec<String>>>) {
    let codes = Arc::new(Mutex::new(Vec::new()));
    let log = codes.clone();
    let retrier = retrier.on_retry(move |e, _, _| log.lock().unwrap().push(e.code().to_owned()));
    (retrier, codes)
}

/// The exact classification a test expects of a run's error.
#[track_caller]
fn expect(e: &StreamError, code: &str, retryable: bool, recovery: Recovery) {
    assert_eq!(
        (e.code(), e.is_retryable(), e.recovery()),
        (code, retryable, recovery),
        "{e}"
    );
}

// Re-opened while it has said nothing.

#[tokio::test]
async fn the_retrier_reopens_a_stream_that_failed_before_it_spoke() {
    let cases = [
        (
            "cut after the metadata",
            Script::ok(Framing::Close).send_all(events(A_OPEN)),
            data(&[A_OPEN]),
            "stream_interrupted",
        ),
        (
            "an overloaded_error event first",
            Script::ok(Framing::Chunked).send(A_OVERLOADED),
            Vec::new(),
            "provider_unavailable",
        ),
        (
            "a 503 head",
            Script::status(503, UNAVAILABLE_BODY),
            Vec::new(),
            "provider_unavailable",
        ),
    ];
    for (name, failing, before, code) in cases {
        let server = serve_each([failing, complete()]).await;
        let (retrier, retried) = counting(retrier());
        let slept = Slept::default();
        let ran = run_stream(&retrier, &server, &slept, KEEPING).await;
        assert!(ran.error.is_none(), "{name}: {:?}", ran.error);
        // The failed attempt's metadata, then every event of the successful one, in order.
        let expected = [before, data(&[ANTHROPIC])].concat();
        assert_eq!(ran.data(), expected, "{name}");
        assert_eq!(server.connections(), 2, "{name}");
        assert_eq!(*retried.lock().unwrap(), [code], "{name}");
        // The outcome tells what a unary call's does: two attempts, the first failed with
        // its code and the backoff waited after it.
        let outcome = &ran.outcome;
        assert_eq!(
            (outcome.attempts, outcome.stop),
            (2, Stop::Succeeded),
            "{name}"
        );
        let record: Vec<_> = outcome
            .record
            .iter()
            .map(|a| (a.number(), a.code()))
            .collect();
        assert_eq!(record, [(1, code)], "{name}");
        assert_eq!(outcome.waited, slept.delays().iter().sum(), "{name}");
        assert_eq!(outcome.candidate(), None, "{name}");
        // No delay was asked for: the policy's first jittered backoff, at most 200 ms.
        let delays = slept.delays();
        assert_eq!(delays.len(), 1, "{name}");
        assert!(
            delays[0] <= Duration::from_millis(200),
            "{name}: {delays:?}"
        );
    }
}

#[tokio::test]
async fn the_retrier_hands_back_a_stream_that_failed_after_text() {
    let cases = [
        (
            "cut after text",
            Script::ok(Framing::Close)
                .send_all(events(A_OPEN))
                .send(A_HELLO),
            "stream_interrupted",
            FailureKind::Interrupted,
        ),
        (
            "an overloaded_error event after text",
            Script::ok(Framing::Chunked)
                .send_all(events(A_OPEN))
                .send(A_HELLO)
                .send(A_OVERLOADED),
            "provider_unavailable",
            FailureKind::ErrorEvent,
        ),
    ];
    for (name, failing, code, failure) in cases {
        for reading in [
            KEEPING,
            Reading {
                keep_text: false,
                ..KEEPING
            },
        ] {
            let server = serve_each([failing.clone(), complete()]).await;
            let (retrier, retried) = counting(retrier());
            let slept = Slept::default();
            let ran = run_stream(&retrier, &server, &slept, reading).await;
            assert_eq!(ran.data(), data(&[A_OPEN, A_HELLO]), "{name}");
            assert_eq!(server.connections(), 1, "{name}");
            let e = ran.error();
            expect(e, code, false, Recovery::Continue);
            assert_eq!(e.failure(), failure, "{name}");
            assert_eq!(e.delivered().text_bytes(), 5, "{name}");
            let kept = reading.keep_text.then_some("Hello");
            assert_eq!(e.partial_text(), kept, "{name}");
            assert!(retried.lock().unwrap().is_empty(), "{name}");
            assert!(slept.delays().is_empty(), "{name}");
            let outcome = &ran.outcome;
            assert_eq!(
                (outcome.attempts, outcome.stop),
                (1, Stop::Permanent),
                "{name}"
            );
            let record: Vec<_> = outcome
                .record
                .iter()
                .map(|a| (a.code(), a.wait()))
                .collect();
            assert_eq!(record, [(code, None)], "{name}");
        }
    }
}

#[tokio::test]
async fn a_buffering_consumer_is_reopened_after_text() {
    let failing = Script::ok(Framing::Close)
        .send_all(events(A_OPEN))
        .send(A_HELLO);
    let server = serve_each([failing, complete()]).await;
    let reading = Reading {
        buffered: true,
        ..KEEPING
    };
    let ran = run_stream(&retrier(), &server, &Slept::default(), reading).await;
    assert!(ran.error.is_none(), "{:?}", ran.error);
    // The buffering consumer drops what the failed attempt said; it was still yielded.
    assert_eq!(ran.data(), data(&[A_OPEN, A_HELLO, ANTHROPIC]));
    assert_eq!(server.connections(), 2);
}

/// Each event's attempt and whether it starts it: `n` events of `attempt`, the first marked.
fn attempt_marks(attempt: u32, n: usize) -> Vec<(Option<u32>, bool)> {
    (0..n).map(|i| (Some(attempt), i == 0)).collect()
}

#[tokio::test]
async fn each_attempt_of_a_run_marks_where_its_events_begin() {
    let cases = [
        (
            "cut after text, read by a buffering consumer",
            Script::ok(Framing::Close)
                .send_all(events(A_OPEN))
                .send(A_HELLO),
            [attempt_marks(1, 3), attempt_marks(2, 8)].concat(),
        ),
        (
            "a 503 head: the first attempt yielded nothing",
            Script::status(503, UNAVAILABLE_BODY),
            attempt_marks(2, 8),
        ),
    ];
    for (name, failing, marks) in cases {
        let server = serve_each([failing, complete()]).await;
        let reading = Reading {
            buffered: true,
            ..KEEPING
        };
        let ran = run_stream(&retrier(), &server, &Slept::default(), reading).await;
        assert!(ran.error.is_none(), "{name}: {:?}", ran.error);
        let seen: Vec<_> = ran
            .events
            .iter()
            .map(|e| (e.attempt(), e.starts_attempt()))
            .collect();
        assert_eq!(seen, marks, "{name}");
        // A buffering consumer that starts over where an attempt starts holds the answer of
        // the attempt that completed, once.
        let mut kept = Vec::new();
        for event in &ran.events {
            if event.starts_attempt() {
                kept.clear();
            }
            kept.push(event.data().to_owned());
        }
        assert_eq!(kept, data(&[ANTHROPIC]), "{name}");
    }
}

#[tokio::test]
async fn a_stream_that_went_silent_before_it_spoke_is_reopened() {
    let silent = Script::ok(Framing::Chunked).send_all(events(A_OPEN)).hold();
    let server = serve_each([silent, complete()]).await;
    let reading = Reading {
        idle: Duration::from_millis(300),
        ..KEEPING
    };
    let (retrier, retried) = counting(retrier());
    let started = Instant::now();
    let ran = run_stream(&retrier, &server, &Slept::default(), reading).await;
    assert!(ran.error.is_none(), "{:?}", ran.error);
    assert_eq!(ran.data(), data(&[A_OPEN, ANTHROPIC]));
    assert_eq!(server.connections(), 2);
    assert_eq!(*retried.lock().unwrap(), ["timeout"]);
    assert!(started.elapsed() >= Duration::from_millis(300));
}

// Retry-After, from the event, the stream's headers, or an error head.

#[tokio::test]
async fn a_delay_asked_for_is_waited_exactly() {
    let cases = [
        (
            "an error event's message: try again in 0.2s",
            Script::ok(Framing::Chunked)
                .send(R_CREATED)
                .send(R_RATE_LIMITED_SOON),
            Script::ok(Framing::Chunked).send_all(events(RESPONSES)),
            data(&[R_CREATED, RESPONSES]),
            Duration::from_millis(200),
        ),
        (
            "a 429 head with retry-after: 1",
            Script::status(429, RATE_LIMITED_BODY).header("retry-after", "1"),
            complete(),
            data(&[ANTHROPIC]),
            Duration::from_secs(1),
        ),
        (
            "an error event on a 200 head with retry-after: 2",
            Script::ok(Framing::Chunked)
                .header("retry-after", "2")
                .send_all(events(A_OPEN))
                .send(A_OVERLOADED),
            complete(),
            data(&[A_OPEN, ANTHROPIC]),
            Duration::from_secs(2),
        ),
    ];
    for (name, failing, succeeding, expected, delay) in cases {
        let server = serve_each([failing, succeeding]).await;
        let slept = Slept::default();
        let ran = run_stream(&retrier(), &server, &slept, KEEPING).await;
        assert!(ran.error.is_none(), "{name}: {:?}", ran.error);
        assert_eq!(ran.data(), expected, "{name}");
        assert_eq!(server.connections(), 2, "{name}");
        assert_eq!(slept.delays(), [delay], "{name}");
    }
}

#[tokio::test]
async fn a_delay_over_the_retriers_max_wait_ends_the_run_at_once() {
    for (name, retry_after) in [("10 s", "10"), ("10 days", "864000")] {
        let failing = Script::status(429, RATE_LIMITED_BODY).header("retry-after", retry_after);
        let server = serve_each([failing, complete()]).await;
        let retrier = retrier().max_wait(Duration::from_secs(5));
        let slept = Slept::default();
        let started = Instant::now();
        let ran = run_stream(&retrier, &server, &slept, KEEPING).await;
        assert!(started.elapsed() < Duration::from_secs(3), "{name}");
        assert!(ran.events.is_empty(), "{name}");
        assert_eq!(server.connections(), 1, "{name}");
        let e = ran.error();
        expect(e, "rate_limit", true, Recovery::Retry);
        assert_eq!(e.failure(), FailureKind::Opening, "{name}");
        assert_eq!(e.status(), Some(429), "{name}");
        let asked = Duration::from_secs(retry_after.parse().unwrap());
        assert_eq!(e.retry_after(), Some(asked), "{name}");
        assert!(slept.delays().is_empty(), "{name}");
    }
}

// The retrier's caps, its budget, its shared pauses.

/// A stream that always breaks before it speaks.
fn always_cut() -> Script {
    Script::ok(Framing::Close).send_all(events(A_OPEN))
}

#[tokio::test]
async fn the_policy_and_max_attempts_bound_the_attempts() {
    // `stream_interrupted`'s own policy: 3 attempts; the retrier's cap: 2.
    for (name, retrier, attempts) in [
        ("the policy", retrier(), 3),
        ("max_attempts(2)", retrier().max_attempts(2), 2),
    ] {
        let server = serve_each([always_cut()]).await;
        let slept = Slept::default();
        let ran = run_stream(&retrier, &server, &slept, KEEPING).await;
        assert_eq!(server.connections(), attempts, "{name}");
        assert_eq!(ran.data(), data(&vec![A_OPEN; attempts]), "{name}");
        // The last failure, as it was: nothing delivered, so still retryable in itself.
        expect(ran.error(), "stream_interrupted", true, Recovery::Retry);
        assert_eq!(slept.delays().len(), attempts - 1, "{name}");
    }
}

#[tokio::test]
async fn the_retry_budget_bounds_the_attempts_of_every_retrier_sharing_it() {
    // Room for one retry (5 tokens).
    let budget = RetryBudget::with_capacity(RetryBudget::RETRY_COST);
    let server = serve_each([always_cut()]).await;
    let slept = Slept::default();
    let first = retrier().budget(budget.clone());
    let ran = run_stream(&first, &server, &slept, KEEPING).await;
    assert_eq!(server.connections(), 2);
    assert_eq!(budget.available(), 0);
    expect(ran.error(), "stream_interrupted", true, Recovery::Retry);
    assert_eq!(slept.delays().len(), 1);

    // Another retrier on the emptied budget makes no retry at all.
    let server = serve_each([always_cut()]).await;
    let second = retrier().budget(budget.clone());
    let ran = run_stream(&second, &server, &slept, KEEPING).await;
    assert_eq!(server.connections(), 1);
    expect(ran.error(), "stream_interrupted", true, Recovery::Retry);
    assert_eq!(slept.delays().len(), 1);
}

#[tokio::test]
async fn a_pause_one_retrier_met_is_waited_by_another_on_the_same_key() {
    let store: Arc<dyn Store> = Arc::new(LocalStore::new());
    let key = "anthropic/acct-1/claude-opus";

    // A meets a 429 asking for 1 s: it waits the pause out, plus a jitter of at most a fifth.
    let a = retrier().gate(SharedPauses::new(store.clone(), key));
    let throttled = Script::status(429, RATE_LIMITED_BODY).header("retry-after", "1");
    let server = serve_each([throttled, complete()]).await;
    let slept = Slept::default();
    let ran = run_stream(&a, &server, &slept, KEEPING).await;
    assert!(ran.error.is_none(), "{:?}", ran.error);
    assert_eq!(server.connections(), 2);
    let delays = slept.delays();
    assert_eq!(delays.len(), 1, "{delays:?}");
    assert!(
        delays[0] >= Duration::from_secs(1) && delays[0] <= Duration::from_millis(1200),
        "{delays:?}"
    );

    // B, on the same store and key, waits for what is left of that pause before its first
    // attempt (the recorded sleeps did not sleep, so nearly all of it).
    let b = retrier().gate(SharedPauses::new(store.clone(), key));
    let server = serve_each([complete()]).await;
    let slept = Slept::default();
    let ran = run_stream(&b, &server, &slept, KEEPING).await;
    assert!(ran.error.is_none(), "{:?}", ran.error);
    assert_eq!(server.connections(), 1);
    let delays = slept.delays();
    assert_eq!(delays.len(), 1, "{delays:?}");
    assert!(
        delays[0] >= Duration::from_millis(800) && delays[0] <= Duration::from_millis(1200),
        "{delays:?}"
    );

    // C, on another key, does not wait.
    let c = retrier().gate(SharedPauses::new(store, "openai/acct-1/gpt-4o"));
    let server = serve_each([complete()]).await;
    let slept = Slept::default();
    let ran = run_stream(&c, &server, &slept, KEEPING).await;
    assert!(ran.error.is_none(), "{:?}", ran.error);
    assert!(slept.delays().is_empty());
}

// Delivered as they arrive.

#[tokio::test]
async fn each_event_is_received_before_the_next_is_sent() {
    let script = Script::ok(Framing::Chunked)
        .send(C_HELLO)
        .pause(Duration::from_millis(300))
        .send(providers::c_finish("stop"))
        .send(DONE);
    let server = serve_each([script]).await;
    let ran = run_stream(&retrier(), &server, &Slept::default(), KEEPING).await;
    assert!(ran.error.is_none(), "{:?}", ran.error);
    assert_eq!(ran.events.len(), 3);
    let sent = server.sent();
    assert_eq!(sent.len(), 3);
    assert!(sent[1] - sent[0] >= Duration::from_millis(300));
    // The first event reached the caller while the server was still pausing.
    assert!(
        ran.received[0] < sent[1],
        "received {:?} after the second was sent",
        ran.received[0] - sent[1]
    );
    assert!(ran.received[1] >= sent[1]);
}

#[tokio::test]
async fn a_failed_attempts_metadata_is_received_before_it_fails() {
    let failing = Script::ok(Framing::Chunked)
        .send_all(events(A_OPEN))
        .pause(Duration::from_millis(300))
        .send(A_OVERLOADED);
    let server = serve_each([failing, complete()]).await;
    let ran = run_stream(&retrier(), &server, &Slept::default(), KEEPING).await;
    assert!(ran.error.is_none(), "{:?}", ran.error);
    assert_eq!(ran.data(), data(&[A_OPEN, ANTHROPIC]));
    // Sent: `message_start`, `ping`, the error; then the second connection's eight events.
    let sent = server.sent();
    assert_eq!(sent.len(), 3 + 8);
    assert!(
        ran.received[1] < sent[2],
        "the failed attempt's ping came {:?} after its error was sent",
        ran.received[1] - sent[2]
    );
}

/// A Chat stream of 200,000 text deltas, one a chunk, always ready; `read` counts the chunks
/// the watch took from it.
fn always_ready(
    read: &Arc<AtomicUsize>,
) -> Watch<impl Stream<Item = Result<&'static str, Infallible>> + use<>> {
    let read = read.clone();
    let chunks = futures_util::stream::iter(0..200_000).map(move |_| {
        read.fetch_add(1, Ordering::Relaxed);
        Ok(C_HELLO)
    });
    Watch::new(chunks)
}

/// Receives the first 1,000 events of `run`: the most chunks its source had been read ahead
/// of what the caller received.
async fn most_read_ahead(
    run: impl Stream<Item = Result<Event, StreamError>>,
    read: &AtomicUsize,
) -> usize {
    let mut run = pin!(run);
    let mut most = 0;
    for received in 1..=1_000 {
        let event = run.next().await.expect("an event");
        assert!(event.is_ok(), "{event:?}");
        most = most.max(read.load(Ordering::Relaxed) - received);
    }
    most
}

/// The most a run reads ahead of its caller: the events waiting for the caller, and the one
/// being handed on.
const READ_AHEAD: usize = 16 + 1;

#[tokio::test]
async fn the_retrier_reads_an_always_ready_source_only_a_few_events_ahead() {
    let read = Arc::new(AtomicUsize::new(0));
    let retrier = retrier();
    let run = retrier.run_stream(
        |_| std::future::ready(Ok::<_, Infallible>(always_ready(&read))),
        |_| async {},
    );
    let most = most_read_ahead(run, &read).await;
    assert!(most <= READ_AHEAD, "the retrier read {most} chunks ahead");
}

#[tokio::test]
async fn a_fallback_chain_reads_an_always_ready_source_only_a_few_events_ahead() {
    let read = Arc::new(AtomicUsize::new(0));
    let models = Fallback::new([0]).retrier(retrier());
    let run = models.run_stream(
        async |_: &i32, _: Option<&str>, _| Ok::<_, Infallible>(always_ready(&read)),
        |_| async {},
    );
    let most = most_read_ahead(run, &read).await;
    assert!(most <= READ_AHEAD, "the fallback read {most} chunks ahead");
}

// The fallback chain.

/// The calls a fallback's opener saw: the candidate's index, the resume text, the attempt.
type Calls = Mutex<Vec<(usize, Option<String>, u32)>>;

/// Runs the servers' streams as a fallback chain (candidate `i` is `servers[i]`), reading as
/// `reading` says; the opener's calls are logged in `calls`.
async fn run_fallback(
    models: &Fallback<usize>,
    servers: &[&Server],
    calls: &Calls,
    slept: &Slept,
    reading: Reading,
) -> Ran {
    let client = client();
    let client = &client;
    let opened = models.run_stream(
        async |index: &usize, resume: Option<&str>, attempt: u32| {
            calls
                .lock()
                .unwrap()
                .push((*index, resume.map(str::to_owned), attempt));
            open_reading(client, &servers[*index].url, reading).await
        },
        slept.sleep(),
    );
    run_to_end(opened).await
}

#[tokio::test]
async fn a_rate_limited_candidate_falls_back_to_the_next_and_cools_down() {
    let throttled = serve_each([Script::status(429, RATE_LIMITED_BODY)]).await;
    let healthy = serve_each([complete()]).await;
    let models = Fallback::new([0, 1]).retrier(retrier());
    let (calls, slept) = (Calls::default(), Slept::default());
    let ran = run_fallback(&models, &[&throttled, &healthy], &calls, &slept, KEEPING).await;
    assert!(ran.error.is_none(), "{:?}", ran.error);
    assert_eq!(ran.data(), data(&[ANTHROPIC]));
    assert_eq!((throttled.connections(), healthy.connections()), (1, 1));
    assert_eq!(*calls.lock().unwrap(), [(0, None, 1), (1, None, 1)]);
    // Not retried on the throttled candidate: there was another to go to.
    assert!(slept.delays().is_empty());
    assert!(models.cooling_for(0).is_some());
    assert_eq!(models.cooling_for(1), None);

    // The outcome covers the chain: the throttled candidate's attempt, then the answer.
    let outcome = &ran.outcome;
    assert_eq!((outcome.attempts, outcome.stop), (2, Stop::Succeeded));
    let record: Vec<_> = outcome
        .record
        .iter()
        .map(|a| (a.number(), a.code()))
        .collect();
    assert_eq!(record, [(1, "rate_limit")]);
    assert_eq!(outcome.candidate(), Some("1"));

    // While it cools down, the throttled candidate is not called at all.
    let ran = run_fallback(&models, &[&throttled, &healthy], &calls, &slept, KEEPING).await;
    assert!(ran.error.is_none(), "{:?}", ran.error);
    assert_eq!((throttled.connections(), healthy.connections()), (1, 2));
    assert_eq!(ran.outcome.summary().to_string(), "1 attempt; succeeded");
}

#[tokio::test]
async fn a_candidate_that_broke_after_text_hands_its_text_to_the_next() {
    let broken = serve_each([Script::ok(Framing::Close)
        .send_all(events(A_OPEN))
        .send(A_HELLO)])
    .await;
    let rest = [A_OPEN, A_WORLD, &providers::a_stop("end_turn")].concat();
    let continuing = serve_each([Script::ok(Framing::Chunked).send_all(events(&rest))]).await;
    let models = Fallback::new([0, 1]).retrier(retrier());
    let (calls, slept) = (Calls::default(), Slept::default());
    let ran = run_fallback(&models, &[&broken, &continuing], &calls, &slept, KEEPING).await;
    assert!(ran.error.is_none(), "{:?}", ran.error);
    // What the first said, then the second's continuation.
    assert_eq!(ran.data(), data(&[A_OPEN, A_HELLO, &rest]));
    assert_eq!((broken.connections(), continuing.connections()), (1, 1));
    assert_eq!(
        *calls.lock().unwrap(),
        [(0, None, 1), (1, Some("Hello".to_owned()), 1)]
    );
    assert!(slept.delays().is_empty());
    // A cut connection says nothing of the next call: no cooldown.
    assert_eq!(models.cooling_for(0), None);
    assert_eq!(models.cooling_for(1), None);
}

#[tokio::test]
async fn a_permanent_failure_stops_the_chain() {
    let refused = serve_each([Script::status(401, UNAUTHORIZED_BODY)]).await;
    let healthy = serve_each([complete()]).await;
    let models = Fallback::new([0, 1]).retrier(retrier());
    let (calls, slept) = (Calls::default(), Slept::default());
    let ran = run_fallback(&models, &[&refused, &healthy], &calls, &slept, KEEPING).await;
    assert!(ran.events.is_empty());
    let e = ran.error();
    assert_eq!((e.code(), e.is_retryable()), ("auth_error", false), "{e}");
    assert_eq!(e.failure(), FailureKind::Opening);
    assert_eq!(e.status(), Some(401));
    assert_eq!((refused.connections(), healthy.connections()), (1, 0));
    assert_eq!(*calls.lock().unwrap(), [(0, None, 1)]);
    assert!(slept.delays().is_empty());
    assert_eq!(models.cooling_for(0), None);
}

#[tokio::test]
async fn a_servers_retry_after_lengthens_the_cooldown() {
    let throttled = Script::status(429, RATE_LIMITED_BODY).header("retry-after", "120");
    let throttled = serve_each([throttled]).await;
    let healthy = serve_each([complete()]).await;
    let models = Fallback::new([0, 1]).retrier(retrier());
    let (calls, slept) = (Calls::default(), Slept::default());
    let ran = run_fallback(&models, &[&throttled, &healthy], &calls, &slept, KEEPING).await;
    assert!(ran.error.is_none(), "{:?}", ran.error);
    let cooling = models.cooling_for(0).expect("cooling down");
    assert!(
        cooling > Duration::from_secs(110) && cooling <= Duration::from_secs(120),
        "{cooling:?}"
    );
}

#[tokio::test]
async fn the_last_candidate_that_broke_after_text_hands_it_back() {
    let broken = serve_each([Script::ok(Framing::Close)
        .send_all(events(A_OPEN))
        .send(A_HELLO)])
    .await;
    let models = Fallback::new([0]).retrier(retrier());
    let (calls, slept) = (Calls::default(), Slept::default());
    let ran = run_fallback(&models, &[&broken], &calls, &slept, KEEPING).await;
    assert_eq!(ran.data(), data(&[A_OPEN, A_HELLO]));
    let e = ran.error();
    expect(e, "stream_interrupted", false, Recovery::Continue);
    assert_eq!(e.partial_text(), Some("Hello"));
    assert_eq!(broken.connections(), 1);
    assert_eq!(*calls.lock().unwrap(), [(0, None, 1)]);
    assert!(slept.delays().is_empty());
    assert_eq!(models.cooling_for(0), None);
}

#[tokio::test]
async fn a_chain_that_spoke_is_not_retried_from_the_start_when_the_next_candidate_fails() {
    // The first candidate says "Hello" and breaks; the second, given "Hello" to continue
    // from, answers 503 until its retries are spent. The reader has seen "Hello": the run
    // as a whole failed after it delivered, so its error must not invite a retry from the
    // start.
    let broken = serve_each([Script::ok(Framing::Close)
        .send_all(events(A_OPEN))
        .send(A_HELLO)])
    .await;
    let unavailable = serve_each([Script::status(503, UNAVAILABLE_BODY)]).await;
    let models = Fallback::new([0, 1]).retrier(retrier());
    let (calls, slept) = (Calls::default(), Slept::default());
    let ran = run_fallback(&models, &[&broken, &unavailable], &calls, &slept, KEEPING).await;
    assert_eq!(ran.data(), data(&[A_OPEN, A_HELLO]));
    assert_eq!((broken.connections(), unavailable.connections()), (1, 3));
    // Every attempt along the chain, numbered as the events are: the cut on the first
    // candidate, then the second's three 503s, with the waits between them.
    let outcome = &ran.outcome;
    assert_eq!(
        (outcome.attempts, outcome.stop),
        (4, Stop::AttemptsExhausted)
    );
    let record: Vec<_> = outcome
        .record
        .iter()
        .map(|a| (a.number(), a.code(), a.wait().is_some()))
        .collect();
    assert_eq!(
        record,
        [
            (1, "stream_interrupted", false),
            (2, "provider_unavailable", true),
            (3, "provider_unavailable", true),
            (4, "provider_unavailable", false),
        ]
    );
    assert_eq!(outcome.waited, slept.delays().iter().sum());
    assert_eq!(outcome.candidate(), Some("1"));
    let e = ran.error();
    assert_eq!(
        (e.is_retryable(), e.recovery(), e.partial_text()),
        (false, Recovery::Continue, Some("Hello")),
        "{e}"
    );
    assert!(!e.delivered().is_empty(), "{e}");
}

#[tokio::test]
async fn a_candidate_that_continues_marks_where_its_events_begin() {
    let broken = serve_each([Script::ok(Framing::Close)
        .send_all(events(A_OPEN))
        .send(A_HELLO)])
    .await;
    let rest = [A_OPEN, A_WORLD, &providers::a_stop("end_turn")].concat();
    let continuing = serve_each([Script::ok(Framing::Chunked).send_all(events(&rest))]).await;
    let models = Fallback::new([0, 1]).retrier(retrier());
    let (calls, slept) = (Calls::default(), Slept::default());
    let ran = run_fallback(&models, &[&broken, &continuing], &calls, &slept, KEEPING).await;
    assert!(ran.error.is_none(), "{:?}", ran.error);
    // The attempts are counted along the chain: the second candidate's stream is the run's
    // second attempt, though its opener was told attempt 1 on that candidate.
    let seen: Vec<_> = ran
        .events
        .iter()
        .map(|e| (e.attempt(), e.starts_attempt()))
        .collect();
    assert_eq!(seen, [attempt_marks(1, 3), attempt_marks(2, 5)].concat());
    assert_eq!(
        *calls.lock().unwrap(),
        [(0, None, 1), (1, Some("Hello".to_owned()), 1)]
    );
}
