//! The watch over hostile and arbitrary streams: it never panics, ends, and holds to its caps.

use std::convert::Infallible;
use std::task::{Context, Poll, Waker};

use proptest::prelude::*;

use super::*;
use crate::AgentError;
use crate::stream::FailureKind;

/// Everything the watch yields for `chunks`, read by hand (no runtime, so no idle timer).
fn read(
    mut watch: Watch<impl TryStream<Ok = Vec<u8>, Error = Infallible>>,
) -> Vec<Result<Event, StreamError>> {
    read_to_end(&mut watch)
}

/// Everything the watch yields, read by hand to its end; the watch stays to be asked.
fn read_to_end(
    watch: &mut Watch<impl TryStream<Ok = Vec<u8>, Error = Infallible>>,
) -> Vec<Result<Event, StreamError>> {
    let mut cx = Context::from_waker(Waker::noop());
    let mut out = Vec::new();
    loop {
        match Pin::new(&mut *watch).poll_next(&mut cx) {
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

/// Each provider's healthy events short of its terminal one (with the comments and openers
/// its servers send), and its terminal event: `data: [DONE]`, `response.completed`,
/// `message_stop`, and for Gemini, which has none, the chunk with `finishReason`.
const SHAPES: [(Provider, &[&str], &str); 4] = [
    (
        Provider::OpenAiChat,
        &[
            ": OPENROUTER PROCESSING\n\n",
            "data: {\"choices\":[],\"prompt_filter_results\":[]}\n\n",
            "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n",
            "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"},\"finish_reason\":null}]}\n\n",
            "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{}\"}}]},\"finish_reason\":null}]}\n\n",
            // A normal stop is not the end: `[DONE]` is.
            "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
            "data: {\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2,\"total_tokens\":11}}\n\n",
        ],
        "data: [DONE]\n\n",
    ),
    (
        Provider::OpenAiResponses,
        &[
            "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"status\":\"in_progress\",\"output\":[]}}\n\n",
            "event: response.in_progress\ndata: {\"type\":\"response.in_progress\",\"sequence_number\":1,\"response\":{\"status\":\"in_progress\"}}\n\n",
            "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":2,\"output_index\":0,\"content_index\":0,\"delta\":\"Hel\"}\n\n",
            "event: response.output_text.done\ndata: {\"type\":\"response.output_text.done\",\"sequence_number\":3,\"output_index\":0,\"content_index\":0,\"text\":\"Hel\"}\n\n",
            ": keep-alive\n\n",
        ],
        "event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":4,\"response\":{\"status\":\"completed\",\"error\":null,\"incomplete_details\":null}}\n\n",
    ),
    (
        Provider::Anthropic,
        &[
            "event: message_start\ndata: {\"type\": \"message_start\", \"message\": {\"type\": \"message\", \"role\": \"assistant\", \"content\": [], \"stop_reason\": null}}\n\n",
            "event: content_block_start\ndata: {\"type\": \"content_block_start\", \"index\": 0, \"content_block\": {\"type\": \"text\", \"text\": \"\"}}\n\n",
            "event: ping\ndata: {\"type\": \"ping\"}\n\n",
            "event: content_block_delta\ndata: {\"type\": \"content_block_delta\", \"index\": 0, \"delta\": {\"type\": \"text_delta\", \"text\": \"Hel\"}}\n\n",
            "event: content_block_stop\ndata: {\"type\": \"content_block_stop\", \"index\": 0}\n\n",
            // A normal stop is not the end: `message_stop` is.
            "event: message_delta\ndata: {\"type\": \"message_delta\", \"delta\": {\"stop_reason\": \"end_turn\", \"stop_sequence\": null}, \"usage\": {\"output_tokens\": 15}}\n\n",
        ],
        "event: message_stop\ndata: {\"type\": \"message_stop\"}\n\n",
    ),
    (
        Provider::Gemini,
        &[
            "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hel\"}], \"role\": \"model\"}, \"index\": 0}], \"modelVersion\": \"gemini-2.0-flash\"}\n\n",
            "data: {\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"f\", \"args\": {\"choices\": []}}}], \"role\": \"model\"}, \"index\": 0}]}\n\n",
        ],
        "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"lo\"}], \"role\": \"model\"}, \"finishReason\": \"STOP\", \"index\": 0}]}\n\n",
    ),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A provider's stream that ends without its terminal event, whatever its events, its
    /// line ends and its chunking, and wherever in the terminal event it was cut (short of
    /// that event's last line ending): never judged complete. Its events are yielded, then
    /// `stream_interrupted`, once; the watch says it is not complete.
    #[test]
    fn a_stream_without_its_terminal_event_is_never_complete(
        shape in 0..SHAPES.len(),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
        cut in any::<prop::sample::Index>(),
        named in any::<bool>(),
        crlf in any::<bool>(),
        sizes in prop::collection::vec(1usize..97, 1..8),
    ) {
        let (provider, healthy, terminal) = SHAPES[shape];
        let line_ends = |text: &str| if crlf { text.replace('\n', "\r\n") } else { text.to_owned() };
        let mut text: String = picks.iter().map(|pick| line_ends(pick.get::<&str>(healthy))).collect();
        // The terminal event, cut before the line end of its last line: that line never
        // ended, so the event is not there.
        let terminal = line_ends(terminal);
        let last_line_end = terminal.trim_end_matches(['\r', '\n']).len();
        text.push_str(&terminal[..cut.index(last_line_end + 1)]);
        let bytes = text.into_bytes();
        let mut pieces = Vec::new();
        let mut at = 0;
        for size in sizes.iter().cycle() {
            if at == bytes.len() {
                break;
            }
            let end = bytes.len().min(at + size);
            pieces.push(bytes[at..end].to_vec());
            at = end;
        }
        let mut watch = Watch::new(chunks(pieces)).keep_text(64);
        if named {
            watch = watch.provider(provider);
        }
        let out = read_to_end(&mut watch);
        let Some((Err(e), events)) = out.split_last() else {
            return Err(TestCaseError::fail(format!("judged complete: {out:?}")));
        };
        prop_assert!(events.iter().all(Result::is_ok), "{:?}", out);
        prop_assert_eq!((e.code(), e.failure()), ("stream_interrupted", FailureKind::Interrupted));
        prop_assert_eq!(e.delivered().events(), events.len() as u64);
        prop_assert!(!watch.is_complete());
        if events.iter().any(|event| event.as_ref().is_ok_and(|event| event.data() != "{\"choices\":[],\"prompt_filter_results\":[]}")) {
            prop_assert_eq!(watch.recognised(), Some(provider));
        }
    }

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
                Err(e) => prop_assert!(!matches!(e.failure(), FailureKind::Idle | FailureKind::Opening)),
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
        ("invalid_output", FailureKind::Oversized)
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
    assert_eq!(
        out[0].as_ref().unwrap_err().failure(),
        FailureKind::Oversized
    );
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
                ("stream_interrupted", FailureKind::Interrupted, Some(said)),
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
