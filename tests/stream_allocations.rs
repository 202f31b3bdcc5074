//! A healthy event through `stream::Watch` allocates nothing of its own: its data is a slice
//! of the bytes it came in, and the watch's buffer grows once for many events.

use std::convert::Infallible;
use std::task::{Context, Poll, Waker};

use agent_error::stream::{Provider, Watch};
use bytes::Bytes;
use futures_util::Stream;

#[path = "support/counting.rs"]
mod counting;
use counting::allocations;

const CHAT: &str = "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1731000000,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" token\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n";
const ANTHROPIC: &str = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\" token\"}}\n\n";

/// The allocations made while `events` events of `event` are read through a watch, one an
/// item, each dropped once read; and the events read.
fn allocations_reading(event: &str, events: usize, provider: Provider) -> (usize, usize) {
    let chunks: Vec<Result<Bytes, Infallible>> = (0..events)
        .map(|_| Ok(Bytes::copy_from_slice(event.as_bytes())))
        .collect();
    let watch = Watch::new(futures_util::stream::iter(chunks))
        .provider(provider)
        .idle_timeout(None);
    let mut watch = std::pin::pin!(watch);
    let mut cx = Context::from_waker(Waker::noop());
    allocations(|| {
        let mut read = 0;
        while let Poll::Ready(Some(item)) = watch.as_mut().poll_next(&mut cx) {
            read += usize::from(item.is_ok());
        }
        read
    })
}

#[test]
fn a_healthy_event_allocates_nothing_of_its_own() {
    for (event, provider) in [
        (CHAT, Provider::OpenAiChat),
        (ANTHROPIC, Provider::Anthropic),
    ] {
        let (few, read_few) = allocations_reading(event, 100, provider);
        let (many, read_many) = allocations_reading(event, 10_000, provider);
        assert_eq!((read_few, read_many), (100, 10_000));
        // Three for the stream, none for its events: the buffer, its sharing when the first
        // event's bytes are split off, and the boxed error the stream ends in (it has no
        // last event).
        assert_eq!((few, many), (3, 3), "{provider}");
    }
}
