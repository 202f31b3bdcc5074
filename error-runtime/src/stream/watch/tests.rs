//! The watch over hostile and arbitrary streams: it never panics, ends, and holds to its caps.

use std::convert::Infallible;
use std::task::{Context, Poll, Waker};

use proptest::prelude::*;

use super::*;
use crate::AgentError;
use crate::stream::Failure;

/// Everything the watch yields for `chunks`, read by hand (no runtime, so no idle timer).
fn read(
    watch: Watch<impl TryStream<Ok = Vec<u8>, Error = Infallible>>,
) -> Vec<Result<Event, StreamError>> {
    let mut watch = std::pin::pin!(watch);
    let mut cx = Context::from_waker(Waker::noop());
    let mut out = Vec::new();
    loop {
        match watch.as_mut().poll_next(&mut cx) {
            Poll::Ready(Some(item)) => out.push(item),
            Poll::Ready(None) => return out,
            Poll::Pending => panic!("an in-memory stream never waits"),
        }
    }
}

fn chunks(pieces: Vec<Vec<u8>>) -> impl TryStream<Ok = Vec<u8>, Error = Infallible> {
    futures_util::stream::iter(pieces.into_iter().map(Ok))
}

/// Pieces of the providers' streams, and hostile ones.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":null}]}\n\n".to_owned()),
        Just("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n".to_owned()),
        Just("data: [DONE]\n\n".to_owned()),
        Just("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n".to_owned()),
        Just("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n".to_owned()),
        Just("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"a\\nb\"}}\n\n".to_owned()),
        Just("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"g\"}]},\"finishReason\":\"STOP\"}]}\n\n".to_owned()),
        Just("{\n  \"error\": {\"code\": 503, \"status\": \"UNAVAILABLE\"}\n}\n".to_owned()),
        Just(": ping\n\n".to_owned()),
        Just("data: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n\n".to_owned()),
        "\\PC{0,16}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any mix of the providers' events and noise, cut anywhere: no panic, the stream ends,
    /// an error comes last and once, and what it says was delivered is what was yielded.
    #[test]
    fn any_stream_ends_in_events_then_at_most_one_error(
        pieces in prop::collection::vec(piece(), 0..16),
        junk in prop::collection::vec(any::<u8>(), 0..64),
        size in 1usize..97,
        cut in any::<prop::sample::Index>(),
    ) {
        // The stream may be cut anywhere, an event's blank line included.
        let mut bytes = pieces.concat().into_bytes();
        bytes.truncate(cut.index(bytes.len() + 1));
        let kept = String::from_utf8_lossy(&bytes).into_owned();
        let ends = ["[DONE]", "message_stop", "finishReason"].iter().any(|t| kept.contains(t));
        bytes.extend(junk);
        let pieces: Vec<Vec<u8>> = bytes.chunks(size).map(<[u8]>::to_vec).collect();
        let out = read(Watch::new(chunks(pieces)).keep_text(64));
        let errors = out.iter().filter(|item| item.is_err()).count();
        prop_assert!(errors <= 1);
        if let Some(Err(e)) = out.last() {
            let events = out.len() as u64 - 1;
            prop_assert_eq!(e.delivered().events(), events);
            prop_assert!(!e.message().contains('\n'));
            prop_assert!(e.partial_text().is_none_or(|t| t.len() <= 64));
        } else {
            prop_assert_eq!(errors, 0);
            // A clean end only where the provider's terminal event came.
            prop_assert!(ends, "ended cleanly without a terminal event");
        }
    }

    /// Tight caps hold whatever comes: no event yielded holds more than the cap between
    /// events (three times it, where invalid bytes became U+FFFD).
    #[test]
    fn caps_hold(bytes in prop::collection::vec(any::<u8>(), 0..2048), size in 1usize..300) {
        let pieces: Vec<Vec<u8>> = bytes.chunks(size).map(<[u8]>::to_vec).collect();
        let out = read(Watch::new(chunks(pieces)).max_line(64).max_event(128));
        for item in &out {
            match item {
                Ok(event) => prop_assert!(event.data().len() <= 128 * 3),
                // No timer runs and nothing is opened: the failure is the bytes' own.
                Err(e) => prop_assert!(!matches!(e.failure(), Failure::Idle | Failure::Opening)),
            }
        }
    }
}

#[test]
fn a_huge_item_is_framed_a_piece_at_a_time_and_refused_at_the_cap() {
    let mut line = b"data: ".to_vec();
    line.extend(std::iter::repeat_n(b'x', 8 * 1024 * 1024));
    let out = read(Watch::new(chunks(vec![line])).max_line(1024 * 1024));
    assert_eq!(out.len(), 1);
    let e = out[0].as_ref().unwrap_err();
    assert_eq!(
        (e.code(), e.failure()),
        ("invalid_output", Failure::Oversized)
    );
}

#[test]
fn a_million_pings_end_in_bounded_time_and_memory() {
    let pings = b": ping\n\n".repeat(1_000_000);
    let started = std::time::Instant::now();
    let out = read(Watch::new(chunks(
        pings.chunks(4096).map(<[u8]>::to_vec).collect(),
    )));
    // 8 MB of comments and no event: past the 4 MiB cap between events.
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].as_ref().unwrap_err().failure(), Failure::Oversized);
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}

/// A stream whose bytes end before an event's blank line: the event is dispatched, as the
/// standard says, and the end is still judged. Each provider's stream, cut so, without its
/// terminal event.
#[test]
fn a_cut_before_an_events_blank_line_is_never_a_clean_end() {
    let cuts = [
        // OpenAI Chat: two deltas, the second's blank line and `[DONE]` never came.
        (
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"},\"finish_reason\":null}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":null}]}\n",
            "Hello",
        ),
        // Anthropic: a text delta, without `message_stop`.
        (
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}\n",
            "Hel",
        ),
        // Gemini: a chunk without `finishReason`.
        (
            "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hel\"}]}}]}\n",
            "Hel",
        ),
        // No line end on the last line: that line is dropped, the end still judged.
        (
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"},\"finish_reason\":null}]}\n\ndata: {\"choi",
            "Hel",
        ),
    ];
    for (cut, said) in cuts {
        for size in [1, 7, cut.len()] {
            let pieces = cut.as_bytes().chunks(size).map(<[u8]>::to_vec).collect();
            let out = read(Watch::new(chunks(pieces)).keep_text(64));
            let e = out.last().expect("something").as_ref().expect_err(cut);
            assert_eq!(
                (e.code(), e.failure(), e.partial_text()),
                ("stream_interrupted", Failure::Interrupted, Some(said)),
                "{cut:?} in pieces of {size}"
            );
            assert_eq!(out.iter().filter(|item| item.is_err()).count(), 1);
        }
    }
    // The same events, whole: a clean end.
    let whole = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n";
    let out = read(Watch::new(chunks(vec![whole.as_bytes().to_vec()])));
    assert!(out.iter().all(Result::is_ok), "{out:?}");
}

/// A Gemini function call whose arguments have keys OpenAI Chat uses is still Gemini's: it
/// is delivered, and its stream ends cleanly (read as Chat, the clean end was an
/// interruption, and a re-run showed the caller the same call again).
#[test]
fn a_function_calls_arguments_do_not_make_the_stream_another_providers() {
    let call = "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"pick\",\"args\":{\"choices\":[\"a\",\"b\"],\"object\":\"chat.completion.chunk\"}}}]},\"finishReason\":\"STOP\"}]}\n\n";
    let mut watch = Box::pin(Watch::new(chunks(vec![call.as_bytes().to_vec()])));
    let mut cx = Context::from_waker(Waker::noop());
    let mut out = Vec::new();
    while let Poll::Ready(Some(item)) = watch.as_mut().poll_next(&mut cx) {
        out.push(item);
    }
    assert!(out.iter().all(Result::is_ok), "{out:?}");
    assert_eq!(out.len(), 1);
    assert_eq!(watch.recognised(), Some(Provider::Gemini));
    assert!(!watch.delivered().is_empty(), "the call was delivered");
}

/// A Gemini stream the server cancels after chunks (`CANCELLED`, code 499) was interrupted,
/// not refused as bad input: `stream_interrupted`, continued after what it delivered.
#[test]
fn a_stream_the_server_cancels_is_interrupted() {
    let stream = "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Hel\"}]}}]}\n\n{\"error\":{\"code\":499,\"message\":\"The operation was cancelled.\",\"status\":\"CANCELLED\"}}\n";
    let out = read(Watch::new(chunks(vec![stream.as_bytes().to_vec()])).keep_text(64));
    let e = out.last().unwrap().as_ref().unwrap_err();
    assert_eq!(
        (e.code(), e.recovery(), e.partial_text()),
        ("stream_interrupted", crate::Recovery::Continue, Some("Hel"))
    );
    // Before any text, it is retried.
    let first = "{\"error\":{\"code\":499,\"message\":\"The operation was cancelled.\",\"status\":\"CANCELLED\"}}\n";
    let out = read(Watch::new(chunks(vec![first.as_bytes().to_vec()])).provider(Provider::Gemini));
    let e = out.last().unwrap().as_ref().unwrap_err();
    assert_eq!((e.code(), e.is_retryable()), ("stream_interrupted", true));
}
