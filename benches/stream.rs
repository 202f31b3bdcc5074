//! What watching a stream costs: a healthy event through `stream::Watch` against the bare
//! SSE parsers on the same events, in one run. The parsers compared for the choice are
//! `eventsource-stream`, `sse-stream` and `sseer` (whose line parser the watch uses, and whose
//! own event stream is the bare parser the watch is held to).
//!
//! Streams are driven by hand (a no-op waker, no runtime, no timer): the cost is the
//! parsing and the watching alone. Each event is consumed by reading its data's length.
//! Run with `cargo bench --bench stream --features stream`.
//!
//! With `AGENT_ERROR_KERNEL=<reader>/<shape> <bench binary> <events>` (reader `watch`,
//! `sseer`, `sse-stream`, `eventsource-stream` or `none`; shape `chat` or `anthropic`), the
//! binary reads that many events, one an item, and exits, for `scripts/stream_instructions.py`
//! to count the instructions under callgrind.

use std::convert::Infallible;
use std::hint::black_box;
use std::task::{Context, Poll, Waker};

use agent_error::stream::{Provider, Watch};
use bytes::{Bytes, BytesMut};
use criterion::{BatchSize, Criterion, Throughput};
use futures_util::Stream;

/// Events a run: one short answer's worth.
const EVENTS: usize = 1_000;

/// An OpenAI Chat Completions text chunk, as OpenAI sends it.
const CHAT: &str = "data: {\"id\":\"chatcmpl-9xYz\",\"object\":\"chat.completion.chunk\",\"created\":1731000000,\"model\":\"gpt-4o-2024-08-06\",\"system_fingerprint\":\"fp_abc123\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" token\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n";

/// An Anthropic Messages text delta, as Anthropic sends it.
const ANTHROPIC: &str = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\" token\"}}\n\n";

/// The events one an item, as a server flushes them and as hyper hands them on: each item a
/// slice of one read buffer (already shared, as reqwest's are).
fn per_event(event: &str) -> Vec<Bytes> {
    per_event_of(event, EVENTS)
}

/// `events` events one an item, as [`per_event`] makes them.
fn per_event_of(event: &str, events: usize) -> Vec<Bytes> {
    let mut read = BytesMut::from(event.repeat(events).as_bytes());
    (0..events)
        .map(|_| read.split_to(event.len()).freeze())
        .collect()
}

/// The same bytes in 4 KiB items, as a busy connection delivers them.
fn in_4k(event: &str) -> Vec<Bytes> {
    let mut read = BytesMut::from(event.repeat(EVENTS).as_bytes());
    std::iter::from_fn(|| (!read.is_empty()).then(|| read.split_to(read.len().min(4096)).freeze()))
        .collect()
}

/// Drains a stream by hand, returning the events and the bytes of data seen.
fn drain<S: Stream>(stream: S, mut data_len: impl FnMut(S::Item) -> usize) -> (usize, usize) {
    let mut stream = std::pin::pin!(stream);
    let mut cx = Context::from_waker(Waker::noop());
    let (mut events, mut bytes) = (0, 0);
    while let Poll::Ready(Some(item)) = stream.as_mut().poll_next(&mut cx) {
        events += 1;
        bytes += data_len(item);
    }
    (events, black_box(bytes))
}

fn items(chunks: Vec<Bytes>) -> impl Stream<Item = Result<Bytes, Infallible>> {
    futures_util::stream::iter(chunks.into_iter().map(Ok))
}

/// The ways of reading the events that are timed.
#[derive(Clone, Copy)]
enum Reader {
    EventsourceStream,
    SseStream,
    Sseer,
    Watch(Provider),
}

impl Reader {
    fn name(self) -> &'static str {
        match self {
            Reader::EventsourceStream => "eventsource-stream",
            Reader::SseStream => "sse-stream",
            Reader::Sseer => "sseer",
            Reader::Watch(_) => "watch",
        }
    }

    fn read(self, chunks: Vec<Bytes>) -> (usize, usize) {
        match self {
            Reader::EventsourceStream => {
                drain(eventsource_stream::EventStream::new(items(chunks)), |e| {
                    e.map_or(0, |e| e.data.len())
                })
            }
            Reader::SseStream => drain(sse_stream::SseByteStream::new(items(chunks)), |e| {
                e.ok().and_then(|e| e.data).map_or(0, |d| d.len())
            }),
            Reader::Sseer => drain(sseer::EventStream::new(items(chunks)), |e| {
                e.map_or(0, |e| e.data.len())
            }),
            Reader::Watch(provider) => drain(
                Watch::new(items(chunks))
                    .provider(provider)
                    .idle_timeout(None),
                |e| e.map_or(0, |e| e.data().len()),
            ),
        }
    }
}

fn bench(c: &mut Criterion) {
    let readers = [
        Reader::EventsourceStream,
        Reader::SseStream,
        Reader::Sseer,
        Reader::Watch(Provider::OpenAiChat),
    ];
    for (label, chunks) in [
        ("chat/one event an item", per_event(CHAT)),
        ("chat/4 KiB items", in_4k(CHAT)),
    ] {
        let mut group = c.benchmark_group(label);
        group.throughput(Throughput::Elements(EVENTS as u64));
        for reader in readers {
            // Every reader sees every event: the watch ends without an error, the stream
            // having no `[DONE]`, only because it is cut; count the events alone.
            assert!(reader.read(chunks.clone()).0 >= EVENTS, "{}", reader.name());
            group.bench_function(reader.name(), |b| {
                b.iter_batched(|| chunks.clone(), |c| reader.read(c), BatchSize::SmallInput)
            });
        }
        group.finish();
    }
    let mut group = c.benchmark_group("anthropic/one event an item");
    group.throughput(Throughput::Elements(EVENTS as u64));
    let chunks = per_event(ANTHROPIC);
    for reader in [
        Reader::Sseer,
        Reader::SseStream,
        Reader::Watch(Provider::Anthropic),
    ] {
        group.bench_function(reader.name(), |b| {
            b.iter_batched(|| chunks.clone(), |c| reader.read(c), BatchSize::SmallInput)
        });
    }
    group.finish();
}

/// Reads `events` events of `shape` with the reader named `reader`, once.
fn run_kernel(kernel: &str, events: usize) -> Result<(), String> {
    let (reader, shape) = kernel.split_once('/').ok_or("expected <reader>/<shape>")?;
    let (event, provider) = match shape {
        "chat" => (CHAT, Provider::OpenAiChat),
        "anthropic" => (ANTHROPIC, Provider::Anthropic),
        _ => return Err(format!("unknown shape {shape}")),
    };
    let chunks = per_event_of(event, events);
    let reader = match reader {
        "none" => {
            drop(black_box(chunks));
            return Ok(());
        }
        "eventsource-stream" => Reader::EventsourceStream,
        "sse-stream" => Reader::SseStream,
        "sseer" => Reader::Sseer,
        "watch" => Reader::Watch(provider),
        _ => return Err(format!("unknown reader {reader}")),
    };
    black_box(reader.read(chunks));
    Ok(())
}

fn main() {
    if let Ok(kernel) = std::env::var("AGENT_ERROR_KERNEL") {
        let events = std::env::args()
            .skip(1)
            .find_map(|arg| arg.parse().ok())
            .unwrap_or(10_000);
        if let Err(e) = run_kernel(&kernel, events) {
            eprintln!("{e}");
            std::process::exit(2);
        }
        return;
    }
    let mut criterion = Criterion::default().configure_from_args();
    bench(&mut criterion);
    criterion.final_summary();
}
