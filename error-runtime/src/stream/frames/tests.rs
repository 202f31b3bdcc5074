//! The framing against the `EventSource` rules, and the same events whatever the chunks.

use proptest::prelude::*;

use super::*;

const CAPS: Caps = Caps {
    line: 1 << 20,
    event: 1 << 20,
};

/// An event as the tests compare it: type, data, id, retry in milliseconds.
type Seen = (String, String, Option<String>, Option<u64>);

/// What framing `chunks` gives, then the end of the stream: each event as
/// `(name, data, id, retry)`, each bare document as `("<bare>", text, None, None)`.
fn frames(chunks: &[&[u8]], caps: Caps) -> Result<Vec<Seen>, Oversize> {
    let mut framing = Frames::new(caps);
    let mut out = Vec::new();
    let mut take = |frame: Frame| match frame {
        Frame::Event(e) => out.push((
            e.name().to_owned(),
            e.data().to_owned(),
            e.id().map(str::to_owned),
            e.retry().map(|r| r.as_millis() as u64),
        )),
        Frame::Bare(text) => out.push(("<bare>".to_owned(), text.to_string(), None, None)),
    };
    for chunk in chunks {
        framing.push(chunk);
        while let Some(frame) = framing.next()? {
            take(frame);
        }
    }
    while let Some(frame) = framing.finish()? {
        take(frame);
    }
    Ok(out)
}

fn events(input: &str) -> Vec<Seen> {
    frames(&[input.as_bytes()], CAPS).unwrap()
}

fn named(name: &str, data: &str) -> Seen {
    (name.to_owned(), data.to_owned(), None, None)
}

#[test]
fn line_ends_of_every_kind() {
    let expected = vec![named("message", "a"), named("x", "b")];
    assert_eq!(events("data: a\n\nevent: x\ndata: b\n\n"), expected);
    assert_eq!(
        events("data: a\r\n\r\nevent: x\r\ndata: b\r\n\r\n"),
        expected
    );
    assert_eq!(events("data: a\r\revent: x\rdata: b\r\r"), expected);
}

#[test]
fn data_lines_join_comments_are_skipped_and_one_space_is_stripped() {
    assert_eq!(
        events(": ping\ndata: one\ndata:  two\ndata\n: note\n\n"),
        vec![named("message", "one\n two\n")]
    );
    // A block of comments alone dispatches nothing.
    assert_eq!(events(": OPENROUTER PROCESSING\n\n: again\n\n"), vec![]);
}

#[test]
fn a_byte_order_mark_is_skipped_once() {
    assert_eq!(events("\u{FEFF}data: a\n\n"), vec![named("message", "a")]);
    let split = frames(&[b"\xEF", b"\xBB", b"\xBFdata: a\n\n"], CAPS).unwrap();
    assert_eq!(split, vec![named("message", "a")]);
    // A second one is part of the field name, so the line is not a data line.
    assert_eq!(events("\u{FEFF}\u{FEFF}data: a\n\n"), vec![]);
}

#[test]
fn retry_takes_digits_only_and_ids_carry_over() {
    let out = events("retry: 1500\nid: 7\ndata: a\n\nretry: +5\ndata: b\n\nid\ndata: c\n\n");
    assert_eq!(
        out,
        vec![
            ("message".into(), "a".into(), Some("7".into()), Some(1500)),
            ("message".into(), "b".into(), Some("7".into()), None),
            ("message".into(), "c".into(), Some(String::new()), None),
        ]
    );
}

#[test]
fn a_retry_in_a_block_without_data_is_kept_for_the_next_event() {
    let out = events("retry: 250\n\ndata: a\n\n");
    assert_eq!(out, vec![("message".into(), "a".into(), None, Some(250))]);
}

#[test]
fn an_event_whose_lines_ended_is_dispatched_at_the_end_and_a_cut_line_is_dropped() {
    assert_eq!(events("data: [DONE]\n"), vec![named("message", "[DONE]")]);
    assert_eq!(events("data: {\"choices\":[{\"delta\""), vec![]);
    assert_eq!(events("data: a\r"), vec![named("message", "a")]);
}

#[test]
fn invalid_utf8_is_replaced_not_refused() {
    let out = frames(&[b"data: a\xFFb\n\n"], CAPS).unwrap();
    assert_eq!(out, vec![named("message", "a\u{FFFD}b")]);
}

#[test]
fn a_json_document_on_its_own_lines_is_a_bare_frame() {
    let input = "data: {\"candidates\":[]}\n\n{\n  \"error\": {\n    \"code\": 503,\n    \"status\": \"UNAVAILABLE\"\n  }\n}\n";
    let out = events(input);
    assert_eq!(out[0], named("message", "{\"candidates\":[]}"));
    assert_eq!(out[1].0, "<bare>");
    let bare: String = out[1].1.split_whitespace().collect();
    assert_eq!(
        bare,
        "{\"error\":{\"code\":503,\"status\":\"UNAVAILABLE\"}}"
    );
}

#[test]
fn a_line_over_the_cap_is_refused_however_it_comes() {
    let caps = Caps {
        line: 64,
        event: 1024,
    };
    let long = format!("data: {}\n\n", "x".repeat(100));
    assert_eq!(frames(&[long.as_bytes()], caps), Err(Oversize::Line));
    let pieces: Vec<&[u8]> = long.as_bytes().chunks(7).collect();
    assert_eq!(frames(&pieces, caps), Err(Oversize::Line));
    // Without a line end at all.
    let endless = "x".repeat(100);
    assert_eq!(frames(&[endless.as_bytes()], caps), Err(Oversize::Line));
}

#[test]
fn bytes_between_events_over_the_cap_are_refused() {
    let caps = Caps {
        line: 64,
        event: 256,
    };
    let many = "data: 0123456789\n".repeat(40);
    assert_eq!(frames(&[many.as_bytes()], caps), Err(Oversize::Event));
    // Pings alone are bounded the same way.
    let pings = ": ping\n".repeat(100);
    assert_eq!(frames(&[pings.as_bytes()], caps), Err(Oversize::Event));
    // Events under the cap reset the count.
    let fine = "data: 0123456789\n\n".repeat(100);
    assert_eq!(frames(&[fine.as_bytes()], caps).unwrap().len(), 100);
}

/// Streams written from pieces that exercise the rules: line ends of each kind, comments,
/// multi-line data, names, ids, retries, a BOM, multi-byte characters.
fn stream() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("data: {\"a\":1}".to_owned()),
        Just("data:x".to_owned()),
        Just("data".to_owned()),
        Just("event: message_stop".to_owned()),
        Just("event:".to_owned()),
        Just(": ping".to_owned()),
        Just("id: 42".to_owned()),
        Just("retry: 1000".to_owned()),
        Just("data: é€😀".to_owned()),
        Just(String::new()),
        "[a-z: ]{0,8}",
    ];
    let end = prop_oneof![Just("\n"), Just("\r\n"), Just("\r")];
    (any::<bool>(), prop::collection::vec((piece, end), 0..24)).prop_map(|(bom, lines)| {
        let mut out = if bom {
            "\u{FEFF}".to_owned()
        } else {
            String::new()
        };
        for (line, end) in lines {
            out.push_str(&line);
            out.push_str(end);
        }
        out
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The events do not depend on where the stream is cut into chunks, at any byte.
    #[test]
    fn the_same_events_whatever_the_chunks(input in stream(), cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6)) {
        let bytes = input.as_bytes();
        let whole = frames(&[bytes], CAPS).unwrap();
        let mut at: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
        at.sort_unstable();
        let mut pieces = Vec::new();
        let mut from = 0;
        for cut in at {
            pieces.push(&bytes[from..cut]);
            from = cut;
        }
        pieces.push(&bytes[from..]);
        prop_assert_eq!(frames(&pieces, CAPS).unwrap(), whole.clone());
        let singles: Vec<&[u8]> = bytes.chunks(1).collect();
        prop_assert_eq!(frames(&singles, CAPS).unwrap(), whole);
    }

    /// Any bytes, cut anywhere, frame without a panic, and within tight caps end in
    /// events or a refusal, never more held than the caps allow.
    #[test]
    fn any_bytes_frame_without_a_panic(bytes in prop::collection::vec(any::<u8>(), 0..512), size in 1usize..64) {
        let pieces: Vec<&[u8]> = bytes.chunks(size).collect();
        let _ = frames(&pieces, CAPS);
        let _ = frames(&pieces, Caps { line: 16, event: 48 });
    }
}
