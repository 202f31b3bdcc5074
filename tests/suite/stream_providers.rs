//! Each provider's stream as its public documentation shows it, served byte for byte over
//! loopback HTTP and read by the real reqwest client through `agent_error::reqwest::watch`
//!: the whole stream is yielded and ends cleanly; an error event is classified as
//! the same body after a status would be; a stop that is a failure for an agent is one.
#![cfg(all(feature = "stream", feature = "reqwest", feature = "tokio"))]

use std::time::Duration;

use agent_error::stream::{Event, Provider};
use agent_error::{AgentError, Recovery};

use crate::support::sse;

use crate::support::providers;

use providers::*;
use sse::events;

#[tokio::test]
async fn a_complete_stream_of_each_provider_yields_every_event_and_ends_cleanly() {
    use Provider::*;
    let cases: [(&str, Vec<String>, Seen); 6] = [
        (
            "chat",
            own(events(CHAT)),
            seen(OpenAiChat, true, "stop", "Hello world", [6, 2, 11]),
        ),
        (
            "azure",
            own(events(AZURE)),
            seen(OpenAiChat, true, "stop", "Hi", [5, 1, 2]),
        ),
        (
            "responses",
            own(events(RESPONSES)),
            seen(OpenAiResponses, true, "", "Hi there", [7, 2, 8]),
        ),
        (
            "anthropic",
            own(events(ANTHROPIC)),
            seen(Anthropic, true, "end_turn", "Hello!", [8, 2, 6]),
        ),
        (
            "gemini",
            crlf(GEMINI),
            seen(Gemini, false, "STOP", "The sky is blue.", [2, 2, 16]),
        ),
        (
            "openrouter",
            own(events(OPENROUTER)),
            seen(OpenAiChat, true, "stop", "Hey", [4, 1, 3]),
        ),
    ];
    for (name, pieces, expected) in cases {
        let (ended, seen) = watch_chunked(&pieces).await;
        assert!(ended.error.is_none(), "{name}: {:?}", ended.error);
        assert_eq!(ended.events.len() as u64, expected.events, "{name}");
        assert_eq!(seen, expected, "{name}");
    }
}

#[tokio::test]
async fn each_providers_events_give_the_answers_text() {
    use Provider::*;
    let cases = [
        ("chat", own(events(CHAT)), OpenAiChat, "Hello world"),
        ("azure", own(events(AZURE)), OpenAiChat, "Hi"),
        (
            "responses",
            own(events(RESPONSES)),
            OpenAiResponses,
            "Hi there",
        ),
        ("anthropic", own(events(ANTHROPIC)), Anthropic, "Hello!"),
        ("gemini", crlf(GEMINI), Gemini, "The sky is blue."),
        ("openrouter", own(events(OPENROUTER)), OpenAiChat, "Hey"),
        ("tgi", own(vec![TGI_HELLO, DONE]), OpenAiChat, "Hello"),
    ];
    for (name, pieces, provider, answer) in cases {
        let (ended, seen) = watch_chunked(&pieces).await;
        let text: String = ended.events.iter().filter_map(Event::text).collect();
        assert_eq!(text, answer, "{name}");
        let text_as: String = ended
            .events
            .iter()
            .filter_map(|e| e.text_as(provider))
            .collect();
        assert_eq!(text_as, answer, "{name}");
        // The same text the watch kept, from the same events.
        assert_eq!(seen.text.as_deref(), Some(answer), "{name}");
        let with_text = ended.events.iter().filter(|e| e.text().is_some()).count();
        assert_eq!(with_text as u64, seen.content, "{name}");
    }
}

#[tokio::test]
async fn thinking_tool_input_and_refusal_are_no_answer_text() {
    let cases = [
        (
            "chat",
            vec![C_TOOL_ARGS, C_REFUSAL, C_HELLO, DONE],
            "{\"city\":I'm sorry, I can't help with that.Hello",
            "Hello",
        ),
        (
            "anthropic",
            vec![A_OPEN, A_THINKING, A_TOOL_JSON, A_HELLO],
            "Let me{\"locHello",
            "Hello",
        ),
        (
            "responses",
            vec![R_CREATED, R_TOOL_ARGS, R_HI],
            "{\"city\":Hi",
            "Hi",
        ),
        (
            "gemini",
            vec![G_THOUGHT],
            "**Weighing the sky**Blue",
            "Blue",
        ),
    ];
    for (name, pieces, delivered, answer) in cases {
        let pieces: Vec<&str> = pieces.into_iter().flat_map(events).collect();
        let (ended, seen) = watch_chunked(&pieces).await;
        // The watch counts every output as delivered (a refusal ends the stream: the text is
        // the error's); the answer is its text alone.
        let kept = ended
            .error
            .as_ref()
            .map_or(seen.text.as_deref(), |e| e.partial_text());
        assert_eq!(kept, Some(delivered), "{name}");
        let texts: Vec<_> = ended.events.iter().filter_map(Event::text).collect();
        assert_eq!(texts, [answer], "{name}");
    }
}

#[tokio::test]
async fn an_error_event_before_any_output_is_retried_as_its_code_says() {
    use Provider::*;
    let overloaded = case(
        "anthropic overloaded",
        &[A_OPEN, A_OVERLOADED],
        "provider_unavailable",
        true,
    )
    .yielded(2, "", Anthropic)
    .check()
    .await;
    assert_eq!(overloaded.peer_message(), Some("Overloaded"));

    let limited = case(
        "responses rate limit",
        &[R_CREATED, R_RATE_LIMITED],
        "rate_limit",
        true,
    )
    .yielded(1, "", OpenAiResponses)
    .check()
    .await;
    assert!(limited.is_rate_limited());
    assert_eq!(limited.retry_after(), Some(Duration::from_millis(11_054)));

    case(
        "responses failed",
        &[R_CREATED, R_FAILED],
        "provider_unavailable",
        true,
    )
    .yielded(1, "", OpenAiResponses)
    .check()
    .await;
    // A role chunk delivers nothing; the error wins over the `[DONE]` after it.
    let role = events(CHAT)[0];
    case(
        "chat error object",
        &[role, C_ERROR, DONE],
        "provider_unavailable",
        true,
    )
    .yielded(1, "", OpenAiChat)
    .check()
    .await;
    // An error as the very first event is read whoever sent it.
    let first = case(
        "ollama first",
        &[OLLAMA_ERROR],
        "provider_unavailable",
        true,
    )
    .check()
    .await;
    assert_eq!(first.delivered().events(), 0);
}

#[tokio::test]
async fn an_error_event_after_output_is_continued_not_retried() {
    use Provider::*;
    let cases = [
        case(
            "anthropic",
            &[A_OPEN, A_HELLO, A_OVERLOADED],
            "provider_unavailable",
            false,
        )
        .yielded(3, "Hello", Anthropic),
        case(
            "responses",
            &[R_CREATED, R_HI, R_FAILED],
            "provider_unavailable",
            false,
        )
        .yielded(2, "Hi", OpenAiResponses),
        case(
            "chat",
            &[C_HELLO, C_ERROR, DONE],
            "provider_unavailable",
            false,
        )
        .yielded(1, "Hello", OpenAiChat),
        case(
            "vllm",
            &[C_HELLO, VLLM_ERROR, DONE],
            "provider_unavailable",
            false,
        )
        .yielded(1, "Hello", OpenAiChat),
        case(
            "tgi",
            &[TGI_HELLO, TGI_ERROR, DONE],
            "provider_unavailable",
            false,
        )
        .yielded(1, "Hello", OpenAiChat),
        case(
            "openrouter named",
            &[OR_PROCESSING, C_HELLO, OPENROUTER_ERROR_NAMED, DONE],
            "provider_unavailable",
            false,
        )
        .yielded(1, "Hello", OpenAiChat),
        case(
            "openrouter numbered",
            &[C_HELLO, OPENROUTER_ERROR_NUMBERED, DONE],
            "provider_unavailable",
            false,
        )
        .yielded(1, "Hello", OpenAiChat),
        case(
            "ollama",
            &[C_HELLO, OLLAMA_ERROR],
            "provider_unavailable",
            false,
        )
        .yielded(1, "Hello", OpenAiChat),
        case(
            "gemini",
            &[G_TEXT, G_UNAVAILABLE],
            "provider_unavailable",
            false,
        )
        .yielded(1, "Once", Gemini),
    ];
    for case in cases {
        let e = case.check().await;
        assert!(e.retry_after().is_none());
    }
}

#[tokio::test]
async fn a_stop_at_the_token_limit_is_output_truncated_and_continued() {
    use Provider::*;
    let truncated = |name, pieces: &[&str]| {
        case(name, pieces, "output_truncated", false).recovery(Recovery::Continue)
    };
    let chat_length = c_finish("length");
    let anthropic = a_stop("max_tokens");
    let gemini = g_finish("MAX_TOKENS");
    // The failing stop wins over the provider's last event, which is still yielded.
    let cases = [
        (
            truncated("chat", &[C_HELLO, &chat_length, DONE]).yielded(3, "Hello", OpenAiChat),
            "length",
        ),
        (
            truncated("anthropic", &[A_OPEN, A_HELLO, &anthropic]).yielded(5, "Hello", Anthropic),
            "max_tokens",
        ),
        (
            truncated("gemini", &[G_TEXT, &gemini]).yielded(2, "Once", Gemini),
            "MAX_TOKENS",
        ),
        (
            truncated("responses", &[R_CREATED, R_HI, R_INCOMPLETE]).yielded(
                3,
                "Hi",
                OpenAiResponses,
            ),
            "max_output_tokens",
        ),
    ];
    for (case, stop) in cases {
        let e = case.check().await;
        assert_eq!(e.stop_reason(), Some(stop));
    }
}

#[tokio::test]
async fn a_refusal_or_a_filter_is_content_filtered_and_replanned() {
    use Provider::*;
    let filtered = |name, pieces: &[&str]| {
        case(name, pieces, "content_filtered", false).recovery(Recovery::Replan)
    };
    let azure = c_finish("content_filter");
    let refusal = a_stop("refusal");
    let safety = g_finish("SAFETY");
    let stop = c_finish("stop");
    let refusal_text = "I'm sorry, I can't help with that.";
    let cases = [
        (
            filtered("azure", &[events(AZURE)[0], C_HELLO, &azure, DONE])
                .yielded(4, "Hello", OpenAiChat),
            "content_filter",
        ),
        (
            filtered("anthropic", &[A_OPEN, &refusal]).yielded(4, "", Anthropic),
            "refusal",
        ),
        (
            filtered("gemini", &[G_TEXT, &safety]).yielded(2, "Once", Gemini),
            "SAFETY",
        ),
        (
            filtered("gemini blocked", &[G_BLOCKED]).yielded(1, "", Gemini),
            "OTHER",
        ),
        (
            filtered("chat refusal", &[C_REFUSAL, &stop, DONE]).yielded(
                3,
                refusal_text,
                OpenAiChat,
            ),
            "stop",
        ),
    ];
    for (case, stop) in cases {
        let e = case.check().await;
        assert_eq!(e.stop_reason(), Some(stop));
    }
}

#[tokio::test]
async fn anthropic_model_context_window_exceeded_is_context_overflow() {
    let full = a_stop("model_context_window_exceeded");
    let e = case(
        "anthropic",
        &[A_OPEN, A_HELLO, &full],
        "context_overflow",
        false,
    )
    .recovery(Recovery::Compact)
    .yielded(5, "Hello", Provider::Anthropic)
    .check()
    .await;
    assert_eq!(e.stop_reason(), Some("model_context_window_exceeded"));
}

#[tokio::test]
async fn an_unknown_stop_and_pause_turn_are_no_error_but_are_exposed() {
    let unknown = c_finish("a_reason_from_next_year");
    let pause = a_stop("pause_turn");
    let cases = [
        (
            "chat",
            vec![C_HELLO, &unknown, DONE],
            "a_reason_from_next_year",
            3,
        ),
        ("anthropic", vec![A_OPEN, A_HELLO, &pause], "pause_turn", 5),
    ];
    for (name, pieces, stop, count) in cases {
        let pieces: Vec<&str> = pieces.iter().flat_map(|p| events(p)).collect();
        let (ended, seen) = watch_chunked(&pieces).await;
        assert!(ended.error.is_none(), "{name}: {:?}", ended.error);
        assert_eq!(ended.events.len(), count, "{name}");
        assert_eq!(seen.stop.as_deref(), Some(stop), "{name}");
        assert!(seen.complete, "{name}");
    }
}

#[tokio::test]
async fn the_responses_error_event_is_read_flat_and_nested() {
    let e = case(
        "nested",
        &[R_CREATED, R_RATE_LIMITED_NESTED],
        "rate_limit",
        true,
    )
    .yielded(1, "", Provider::OpenAiResponses)
    .check()
    .await;
    assert_eq!(e.retry_after(), Some(Duration::from_millis(11_054)));
}

#[tokio::test]
async fn a_gemini_stream_that_ends_without_a_finish_reason_is_interrupted() {
    // Gemini has no last event: a clean end without any `finishReason` is a cut.
    case("gemini", &[G_TEXT], "stream_interrupted", false)
        .yielded(1, "Once", Provider::Gemini)
        .check()
        .await;
}

#[tokio::test]
async fn a_name_that_says_server_fault_wins_over_a_generic_4xx_number() {
    case(
        "tgi 422",
        &[TGI_HELLO, TGI_ERROR_422, DONE],
        "provider_unavailable",
        false,
    )
    .yielded(1, "Hello", Provider::OpenAiChat)
    .check()
    .await;
}

#[tokio::test]
async fn thinking_and_tool_call_arguments_are_delivered_output() {
    use Provider::*;
    let cases = [
        case(
            "chat tool args",
            &[C_TOOL_ARGS, C_ERROR, DONE],
            "provider_unavailable",
            false,
        )
        .yielded(1, "{\"city\":", OpenAiChat),
        case(
            "anthropic thinking",
            &[A_OPEN, A_THINKING, A_OVERLOADED],
            "provider_unavailable",
            false,
        )
        .yielded(3, "Let me", Anthropic),
        case(
            "anthropic tool json",
            &[A_OPEN, A_TOOL_JSON, A_OVERLOADED],
            "provider_unavailable",
            false,
        )
        .yielded(3, "{\"loc", Anthropic),
    ];
    for case in cases {
        assert_eq!(case.check().await.delivered().content_events(), 1);
    }
}

#[tokio::test]
async fn every_gemini_filter_reason_is_content_filtered_and_a_malformed_call_invalid_output() {
    for reason in [
        "RECITATION",
        "PROHIBITED_CONTENT",
        "BLOCKLIST",
        "SPII",
        "IMAGE_SAFETY",
    ] {
        let last = g_finish(reason);
        let e = case(reason, &[G_TEXT, &last], "content_filtered", false)
            .recovery(Recovery::Replan)
            .yielded(2, "Once", Provider::Gemini)
            .check()
            .await;
        assert_eq!(e.stop_reason(), Some(reason));
    }
    // Nothing delivered: `invalid_output` is retried (once, by its policy).
    let malformed = g_finish("MALFORMED_FUNCTION_CALL");
    let e = case("malformed", &[&malformed], "invalid_output", true)
        .yielded(1, "", Provider::Gemini)
        .check()
        .await;
    assert_eq!(e.retry_policy().max_attempts(), 2); // the first, and one retry
}

#[tokio::test]
async fn an_openrouter_error_stop_is_interrupted_and_counts_only_what_was_yielded() {
    case(
        "openrouter error stop",
        &[C_HELLO, OR_ERROR_STOP, DONE],
        "stream_interrupted",
        false,
    )
    .yielded(1, "Hello", Provider::OpenAiChat)
    .check()
    .await;
}
