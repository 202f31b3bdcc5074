//! Each provider's events read as the providers document them, and the fast shapes read
//! exactly as the full reading reads them.

use proptest::prelude::*;

use super::*;

// The watch's readings, which keep all output content as their text.

fn chat(data: &str) -> Reading<'_> {
    super::chat(Keep::Content, data)
}

fn chat_in_full(data: &str) -> Reading<'_> {
    super::chat_in_full(Keep::Content, data)
}

fn anthropic<'a>(name: Option<&str>, data: &'a str) -> Reading<'a> {
    super::anthropic(Keep::Content, name, data)
}

fn responses<'a>(name: Option<&str>, data: &'a str) -> Reading<'a> {
    super::responses(Keep::Content, name, data)
}

fn gemini(data: &str) -> Reading<'_> {
    super::gemini(Keep::Content, data)
}

fn text(reading: &Reading<'_>) -> Option<String> {
    reading.text.as_deref().map(str::to_owned)
}

#[test]
fn chat_chunks() {
    let role = r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}"#;
    let r = chat(role);
    assert!(!r.content && r.stop.is_none() && !r.terminal && r.error.is_none());

    let hello = r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}]}"#;
    assert_eq!(text(&chat(hello)).as_deref(), Some("Hello"));

    let stop =
        r#"{"id":"c","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"length"}]}"#;
    assert_eq!(chat(stop).stop.as_deref(), Some("length"));

    assert!(chat("[DONE]").terminal);
    // Azure's opener: no choices, the prompt's filter results.
    let azure = r#"{"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}]}"#;
    assert_eq!(chat(azure), Reading::default());

    let refusal = r#"{"choices":[{"index":0,"delta":{"refusal":"I can't help with that."},"finish_reason":null}]}"#;
    let r = chat(refusal);
    assert!(r.refusal && r.content);

    let tool = r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]},"finish_reason":null}]}"#;
    assert_eq!(text(&chat(tool)).as_deref(), Some("{\"city\":"));

    let vllm = r#"{"error": {"object": "error", "message": "boom", "type": "InternalServerError", "param": null, "code": 500}}"#;
    assert_eq!(chat(vllm).error, Some(vllm));
    let openrouter = r#"{"id":"x","object":"chat.completion.chunk","error":{"code":502,"message":"Provider disconnected"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}"#;
    assert_eq!(chat(openrouter).error, Some(openrouter));
    let tgi = r#"{"error":"Request failed during generation: Server error: CUDA out of memory","error_type":"generation"}"#;
    assert_eq!(chat(tgi).error, Some(tgi));
}

#[test]
fn anthropic_events() {
    let delta =
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#;
    assert_eq!(
        text(&anthropic(Some("content_block_delta"), delta)).as_deref(),
        Some("Hi")
    );
    let json = r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\""}}"#;
    assert_eq!(
        text(&anthropic(Some("content_block_delta"), json)).as_deref(),
        Some("{\"a\"")
    );
    let stop = r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":5}}"#;
    assert_eq!(
        anthropic(Some("message_delta"), stop).stop.as_deref(),
        Some("max_tokens")
    );
    assert!(anthropic(Some("message_stop"), r#"{"type":"message_stop"}"#).terminal);
    assert_eq!(
        anthropic(Some("ping"), r#"{"type": "ping"}"#),
        Reading::default()
    );
    let error = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    assert_eq!(anthropic(Some("error"), error).error, Some(error));
    // Without `event:` lines, the data's type says the same.
    assert!(anthropic(None, r#"{"type":"message_stop"}"#).terminal);
}

#[test]
fn responses_events() {
    let delta = r#"{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi","sequence_number":4}"#;
    assert_eq!(
        text(&responses(Some("response.output_text.delta"), delta)).as_deref(),
        Some("Hi")
    );
    let failed = r#"{"type":"response.failed","response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"The model failed"}}}"#;
    let error = responses(Some("response.failed"), failed).error.unwrap();
    assert!(error.starts_with(r#"{"id":"resp_1""#) && error.ends_with("}}"));
    let incomplete = r#"{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}"#;
    let r = responses(Some("response.incomplete"), incomplete);
    assert!(r.terminal);
    assert_eq!(r.stop.as_deref(), Some("max_output_tokens"));
    assert!(
        responses(
            Some("response.completed"),
            r#"{"type":"response.completed"}"#
        )
        .terminal
    );
    let created = r#"{"type":"response.created","response":{"status":"in_progress","error":null}}"#;
    assert_eq!(
        responses(Some("response.created"), created),
        Reading::default()
    );
}

#[test]
fn gemini_chunks() {
    let chunk = r#"{"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":3}}"#;
    let r = gemini(chunk);
    assert_eq!(text(&r).as_deref(), Some("Hi"));
    assert!(r.stop.is_none());
    let last = r#"{"candidates":[{"content":{"parts":[{"text":"!"}],"role":"model"},"finishReason":"MAX_TOKENS","index":0}]}"#;
    assert_eq!(gemini(last).stop.as_deref(), Some("MAX_TOKENS"));
    let blocked = r#"{"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[]}}"#;
    let r = gemini(blocked);
    assert!(r.blocked);
    assert_eq!(r.stop.as_deref(), Some("SAFETY"));
    let error =
        r#"{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}"#;
    assert_eq!(gemini(error).error, Some(error));
}

#[test]
fn recognition_from_the_first_event_that_tells() {
    let chat = r#"{"id":"c","object":"chat.completion.chunk","choices":[]}"#;
    assert_eq!(Provider::recognise(None, chat), Some(Provider::OpenAiChat));
    assert_eq!(
        Provider::recognise(None, "[DONE]"),
        Some(Provider::OpenAiChat)
    );
    assert_eq!(
        Provider::recognise(Some("message_start"), "{}"),
        Some(Provider::Anthropic)
    );
    assert_eq!(
        Provider::recognise(Some("response.created"), "{}"),
        Some(Provider::OpenAiResponses)
    );
    assert_eq!(
        Provider::recognise(None, r#"{"candidates":[]}"#),
        Some(Provider::Gemini)
    );
    // An error first tells nothing of who sent it.
    assert_eq!(
        Provider::recognise(Some("error"), r#"{"type":"error","error":{}}"#),
        None
    );
    assert_eq!(
        Provider::recognise(None, r#"{"error":{"message":"x"}}"#),
        None
    );
    // A string value is not a key.
    assert_eq!(Provider::recognise(None, r#"{"note":"choices"}"#), None);
    // Only the document's top-level keys tell: a Gemini function call whose arguments have
    // a `choices` key (or a chunk's text naming OpenAI's object) is Gemini's.
    let call = r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"pick","args":{"choices":["a","b"],"object":"chat.completion.chunk"}}}]}}]}"#;
    assert_eq!(Provider::recognise(None, call), Some(Provider::Gemini));
    let text = r#"{"candidates":[{"content":{"parts":[{"text":"\"choices\": [] and \"chat.completion.chunk\""}]}}]}"#;
    assert_eq!(Provider::recognise(None, text), Some(Provider::Gemini));
    let nested = r#"{"candidates":[],"usage":{"choices":1}}"#;
    assert_eq!(Provider::recognise(None, nested), Some(Provider::Gemini));
}

#[test]
fn nothing_readable_panics_or_counts_as_output() {
    for data in [
        "",
        "{",
        "[",
        "null",
        "\"choices\"",
        "{\"choices\":",
        "[DONE",
        "{}}",
    ] {
        for provider in [
            None,
            Some(Provider::OpenAiChat),
            Some(Provider::Anthropic),
            Some(Provider::OpenAiResponses),
            Some(Provider::Gemini),
        ] {
            let r = read(provider, None, data);
            assert!(!r.content, "{provider:?} {data:?}");
        }
    }
    let deep = "[".repeat(100_000);
    assert!(!chat(&deep).content);
}

/// The answer's text of an event, recognised from its name and data.
fn answer_of(name: Option<&str>, data: &str) -> Option<String> {
    answer(None, name, data).map(Cow::into_owned)
}

#[test]
fn the_answer_is_the_text_alone() {
    // OpenAI Chat: the content, in the fixed shape and read in full, escapes decoded.
    let hello = r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}]}"#;
    assert!(matches!(
        answer(None, None, hello),
        Some(Cow::Borrowed("Hello"))
    ));
    let escaped = r#"{"choices":[{"index":0,"delta":{"content":"a \"b\"\n"}}]}"#;
    assert_eq!(answer_of(None, escaped).as_deref(), Some("a \"b\"\n"));
    for none in [
        r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#,
        r#"{"choices":[{"index":0,"delta":{"role":"assistant"}}]}"#,
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
        r#"{"choices":[],"usage":{"prompt_tokens":9}}"#,
        r#"{"choices":[{"index":0,"delta":{"refusal":"I can't help with that."}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"reasoning_content":"Let me think"}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}}]}"#,
        r#"{"error":{"message":"boom","type":"server_error"}}"#,
        r#"{"error":{"code":502},"choices":[{"index":0,"delta":{"content":"late"}}]}"#,
        "[DONE]",
    ] {
        assert_eq!(answer_of(None, none), None, "{none}");
    }
    // A chunk with reasoning and content: the content alone.
    let both = r#"{"choices":[{"index":0,"delta":{"reasoning_content":"hmm","content":"Yes"}}]}"#;
    assert_eq!(answer_of(None, both).as_deref(), Some("Yes"));

    // Anthropic: `text_delta`, with or without `event:`; not thinking, tool input or a ping.
    let delta = r#"{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}}"#;
    assert_eq!(
        answer_of(Some("content_block_delta"), delta).as_deref(),
        Some("Hi")
    );
    assert_eq!(answer_of(None, delta).as_deref(), Some("Hi"));
    for (name, none) in [
        (
            "content_block_delta",
            r#"{"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Let me"}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQB"}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"loc"}}"#,
        ),
        (
            "content_block_start",
            r#"{"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "x"}}"#,
        ),
        ("ping", r#"{"type": "ping"}"#),
        ("message_stop", r#"{"type": "message_stop"}"#),
        (
            "error",
            r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#,
        ),
    ] {
        assert_eq!(answer_of(Some(name), none), None, "{none}");
    }

    // The Responses API: `response.output_text.delta`'s `delta` alone.
    let delta = r#"{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi","sequence_number":4}"#;
    assert_eq!(
        answer_of(Some("response.output_text.delta"), delta).as_deref(),
        Some("Hi")
    );
    assert_eq!(answer_of(None, delta).as_deref(), Some("Hi"));
    for (name, none) in [
        (
            "response.refusal.delta",
            r#"{"type":"response.refusal.delta","delta":"I can't"}"#,
        ),
        (
            "response.reasoning_summary_text.delta",
            r#"{"type":"response.reasoning_summary_text.delta","delta":"**Thinking**"}"#,
        ),
        (
            "response.function_call_arguments.delta",
            r#"{"type":"response.function_call_arguments.delta","delta":"{\"a\""}"#,
        ),
        (
            "response.output_text.done",
            r#"{"type":"response.output_text.done","text":"Hi there"}"#,
        ),
        (
            "error",
            r#"{"type":"error","code":"rate_limit_exceeded","message":"slow down"}"#,
        ),
    ] {
        assert_eq!(answer_of(Some(name), none), None, "{none}");
    }

    // Gemini: every part's text, but a thought's.
    let parts = r#"{"candidates":[{"content":{"parts":[{"text":"Let me see","thought":true},{"text":"The sky"},{"text":" is blue."}],"role":"model"},"index":0}]}"#;
    assert_eq!(answer_of(None, parts).as_deref(), Some("The sky is blue."));
    let thought_first =
        r#"{"candidates":[{"content":{"parts":[{"thought":true,"text":"Hmm"}],"role":"model"}}]}"#;
    assert_eq!(answer_of(None, thought_first), None);
    let call = r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{}}}],"role":"model"}}]}"#;
    assert_eq!(answer_of(None, call), None);
    // The watch still counts the thought as delivered output.
    assert_eq!(
        read(Some(Provider::Gemini), None, thought_first)
            .text
            .as_deref(),
        Some("Hmm")
    );

    // Not JSON, or no provider tells.
    for none in ["", "hello", "{", "{\"text\":\"x\"}", "null"] {
        assert_eq!(answer_of(None, none), None, "{none}");
    }
}

#[test]
fn the_answer_read_as_a_named_provider() {
    let chunk = r#"{"candidates":[{"content":{"parts":[{"text":"Hi"}]}}]}"#;
    assert_eq!(
        answer(Some(Provider::Gemini), None, chunk).as_deref(),
        Some("Hi")
    );
    assert_eq!(answer(Some(Provider::OpenAiChat), None, chunk), None);
    assert_eq!(answer(Some(Provider::Anthropic), None, chunk), None);
}

/// A text delta's text, as a JSON string's content: plain, or with escapes.
fn delta_text() -> impl Strategy<Value = String> {
    "(\\PC|[\"\\\\\n\t]){0,24}"
}

fn json_string(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c < ' ' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Where a plain string that closes at the end of `bytes` begins, a byte at a time: what
/// the search eight bytes at a time finds.
fn plain_string_start_bytewise(bytes: &[u8]) -> Option<usize> {
    let quote = bytes.iter().rposition(|&byte| byte == b'"')?;
    let text = &bytes[quote + 1..];
    text.iter()
        .all(|&byte| byte != b'\\' && byte >= 0x20)
        .then_some(quote + 1)
}

/// Bytes near the ones the search looks for, and their neighbours in value (a carry or a
/// borrow between bytes would show there).
fn near_bytes() -> impl Strategy<Value = Vec<u8>> {
    let bytes = vec![
        b'"', b'#', b'!', b'\\', b']', b'[', 0x00, 0x01, 0x1F, 0x20, 0x21, b'a', 0x7F, 0x80, 0xA2,
        0xDC, 0xFF,
    ];
    prop::collection::vec(prop::sample::select(bytes), 0..40)
}

#[test]
fn a_plain_string_is_found_from_its_end() {
    assert_eq!(plain_string_start(b"0123456789\"te\"xt"), Some(14));
    assert_eq!(plain_string_start(b"0123456789\"text"), Some(11));
    assert_eq!(plain_string_start(b"0123456789\""), Some(11));
    assert_eq!(
        plain_string_start(b"0123456789\"a long text past a word"),
        Some(11)
    );
    assert_eq!(
        plain_string_start(b"0123456789\"a long\\text past a word"),
        None
    );
    assert_eq!(
        plain_string_start(b"0123456789\"a long text past a word\t"),
        None
    );
    assert_eq!(plain_string_start(b"0123456789\"caf\xC3\xA9"), Some(11));
    assert_eq!(plain_string_start(b"no quote at all, none"), None);
}

proptest! {
    /// The fast shape of a Chat text delta reads as the full reading reads it.
    #[test]
    fn the_chat_fast_shape_reads_as_the_full_reading(text in delta_text(), tail in 0usize..3, finish in prop::option::of("[a-z_]{1,8}")) {
        let finish = finish.map_or("null".to_owned(), |f| format!("\"{f}\""));
        let tails = [
            format!(",\"logprobs\":null,\"finish_reason\":{finish}}}]}}"),
            format!(",\"finish_reason\":{finish}}}]}}"),
            format!(",\"finish_reason\":{finish},\"logprobs\":null}}]}}"),
        ];
        let data = format!(
            "{{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{}\"}}{}",
            json_string(&text),
            tails[tail],
        );
        let fast = chat(&data);
        prop_assert_eq!(fast.text.as_deref().unwrap_or(""), text.as_str());
        prop_assert_eq!(fast, chat_in_full(&data));
    }

    /// The fast shape of an Anthropic text delta reads as the full reading reads it.
    #[test]
    fn the_anthropic_fast_shape_reads_as_the_full_reading(text in delta_text()) {
        let data = format!(
            "{{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"{}\"}}}}",
            json_string(&text),
        );
        let fast = anthropic(Some("content_block_delta"), &data);
        let mut full = Reading::default();
        let _ = member(&data, "delta", |reader| anthropic_delta(reader, &mut full));
        prop_assert_eq!(fast, full);
    }

    /// The search eight bytes at a time finds what a search a byte at a time finds, but
    /// for a quote among the first eight bytes, which it may leave.
    #[test]
    fn the_plain_string_search_agrees_with_a_bytewise_one(bytes in near_bytes()) {
        let bytewise = plain_string_start_bytewise(&bytes);
        match plain_string_start(&bytes) {
            Some(start) => prop_assert_eq!(Some(start), bytewise),
            None => prop_assert!(bytewise.is_none_or(|start| start <= 8), "{:?}", bytewise),
        }
    }

    /// Any data, under any provider, reads without a panic.
    #[test]
    fn any_data_reads_without_a_panic(data in "\\PC{0,96}", name in prop::option::of("[a-z_.]{0,24}")) {
        for provider in [None, Some(Provider::OpenAiChat), Some(Provider::Anthropic), Some(Provider::OpenAiResponses), Some(Provider::Gemini)] {
            let _ = read(provider, name.as_deref(), &data);
            let _ = answer(provider, name.as_deref(), &data);
        }
        let _ = Provider::recognise(name.as_deref(), &data);
    }

    /// An event's answer, whatever the text, is its text as decoded: each provider's delta,
    /// in its fixed shape and beside thinking, reads back the text it carries; JSON-shaped
    /// noise around the provider's keys never panics.
    #[test]
    fn the_answer_reads_back_each_providers_text(text in delta_text(), noise in "[\\[\\]{}\",:a-z0-9 ]{0,32}") {
        let t = json_string(&text);
        let expected = (!text.is_empty()).then(|| text.clone());
        let shapes = [
            (None, format!("{{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{t}\"}},\"logprobs\":null,\"finish_reason\":null}}]}}")),
            (None, format!("{{\"choices\":[{{\"index\":0,\"delta\":{{\"reasoning_content\":\"x\",\"content\":\"{t}\"}}}}]}}")),
            (Some("content_block_delta"), format!("{{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"{t}\"}}}}")),
            (Some("response.output_text.delta"), format!("{{\"type\":\"response.output_text.delta\",\"delta\":\"{t}\"}}")),
            (None, format!("{{\"candidates\":[{{\"content\":{{\"parts\":[{{\"text\":\"x\",\"thought\":true}},{{\"text\":\"{t}\"}}]}}}}]}}")),
        ];
        for (name, data) in &shapes {
            let read = answer(None, *name, data).map(Cow::into_owned);
            prop_assert_eq!(&read, &expected, "{}", data);
            let provider = Provider::recognise(*name, data);
            prop_assert_eq!(answer(provider, *name, data).map(Cow::into_owned), read);
            let _ = answer(None, *name, &format!("{data}{noise}"));
            let _ = answer(None, *name, &format!("{noise}{data}"));
            let _ = answer(None, *name, data.get(..data.len() / 2).unwrap_or_default());
        }
    }
}
