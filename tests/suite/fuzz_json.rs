//! Property tests of provider error bodies through `StatusError` (SPEC §7 "Responses"): any
//! bytes are read without a panic, however deep or large; a provider's error JSON is
//! classified the same however it is written (compact, pretty, every character escaped,
//! other members around); and a body that is not JSON is read as text.
#![cfg(feature = "http")]

use std::time::Duration;

use agent_error::AgentError;
use agent_error::http::{StatusError, is_context_overflow};
use http::HeaderMap;
use proptest::prelude::*;
use serde_json::{Value, json};

/// What a body makes of a 400: its code and its delay.
fn reading(body: &str) -> (String, Option<Duration>) {
    let e = StatusError::new(400).with_body(body);
    (e.code().to_owned(), e.retry_after())
}

/// `value` as JSON with every character of every string written as `\uXXXX` escapes.
fn escaped(value: &Value) -> String {
    match value {
        Value::String(text) => {
            text.encode_utf16()
                .map(|unit| format!("\\u{unit:04x}"))
                .fold("\"".to_owned(), |out, unit| out + &unit)
                + "\""
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(escaped).collect();
            format!("[ {} ]", items.join(" , "))
        }
        Value::Object(members) => {
            let members: Vec<String> = members
                .iter()
                .map(|(key, value)| format!("{} : {}", escaped(&json!(key)), escaped(value)))
                .collect();
            format!("{{ {} }}", members.join(" , "))
        }
        other => other.to_string(),
    }
}

/// A provider's error body naming `name` where that provider puts it, with the code that
/// SPEC §7 gives a 400 for it, and the delay of Google's `RetryInfo` where the code is retried.
fn provider_body() -> impl Strategy<Value = (Value, &'static str, Option<Duration>)> {
    let openai = prop::sample::select(vec![
        ("insufficient_quota", "budget_exhausted"),
        ("context_length_exceeded", "context_overflow"),
        ("invalid_api_key", "auth_error"),
        ("rate_limit_exceeded", "rate_limit"),
    ]);
    let anthropic = prop::sample::select(vec![
        // A 400 stays a client's error whatever generic server-fault type it carries.
        ("overloaded_error", "invalid_input"),
        ("rate_limit_error", "rate_limit"),
        ("request_too_large", "request_too_large"),
        ("not_found_error", "not_found"),
    ]);
    // With whether the code is retried: only then is the delay the policy's.
    let google = prop::sample::select(vec![
        ("RESOURCE_EXHAUSTED", "rate_limit", true),
        ("UNAVAILABLE", "invalid_input", false),
        ("DEADLINE_EXCEEDED", "timeout", true),
        ("PERMISSION_DENIED", "auth_error", false),
    ]);
    let other = "[a-z ]{0,12}";
    prop_oneof![
        (openai, other).prop_map(|((name, code), message)| {
            let body = json!({"error": {"message": message, "type": "x", "code": name, "param": null}});
            (body, code, None)
        }),
        (anthropic, other).prop_map(|((name, code), message)| {
            let body = json!({"type": "error", "error": {"type": name, "message": message}});
            (body, code, None)
        }),
        (google, 0u64..100_000, any::<bool>()).prop_map(|((name, code, retried), secs, wrapped)| {
            let info = json!({"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": format!("{secs}s")});
            let error = json!({"code": 429, "status": name, "details": [{"@type": "x"}, info]});
            let body = json!({"error": error, "nested": [[{"deep": [1.5e300, -0, true]}]]});
            let body = if wrapped { json!([body]) } else { body };
            (body, code, retried.then(|| Duration::from_secs(secs)))
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_bytes_never_panic(
        bytes in prop::collection::vec(any::<u8>(), 0..256),
        jsonish in "[\\[\\]{}\",:0-9a-z\\\\ .eE+-]{0,64}",
        text in "\\PC*",
    ) {
        for status in [400u16, 429, 503] {
            let _ = StatusError::from_parts(status, &HeaderMap::new(), &bytes).code();
        }
        let _ = reading(&jsonish);
        let _ = reading(&text);
        let _ = is_context_overflow(&std::io::Error::other(text));
    }

    #[test]
    fn provider_bodies_are_read_however_written((body, code, delay) in provider_body(), message in "\\PC{0,12}") {
        for written in [body.to_string(), serde_json::to_string_pretty(&body).unwrap(), escaped(&body)] {
            prop_assert_eq!(reading(&written), (code.to_owned(), delay), "{}", written);
        }
        // The same body with a string member that needs escapes, before and after.
        if let Value::Object(mut members) = body {
            members.insert("a\"\\\u{1}😀".into(), json!(message));
            prop_assert_eq!(reading(&Value::Object(members).to_string()), (code.to_owned(), delay));
        }
    }
}

#[test]
fn a_body_that_is_not_json_is_read_as_text() {
    let valid = r#"{"error":{"code":"rate_limit_exceeded"}}"#;
    assert_eq!(reading(valid).0, "rate_limit");
    // Cut, out of f64's range, a lone surrogate, a trailing comma: not JSON, so read as
    // text, its quotes and all (they are its syntax, not a caller's words): the name's
    // words still count.
    for invalid in [
        r#"{"error":{"code":"rate_limit_exceeded"}"#,
        r#"{"error":{"code":"rate_limit_exceeded"},"n":1e400}"#,
        r#"{"error":{"code":"rate_limit_exceeded","x":"\ud800"}}"#,
        r#"{"error":{"code":"rate_limit_exceeded",}}"#,
    ] {
        assert_eq!(reading(invalid).0, "rate_limit", "{invalid}");
    }
    assert_eq!(reading(r#"{"error":{"code":"x"}"#).0, "invalid_input");
    // Read as text, the phrases still count.
    let cut = r#"{"error":{"code":"x","message":"prompt is too long: 210000 tokens"}"#;
    assert_eq!(reading(cut).0, "context_overflow");
}

#[test]
fn nesting_beyond_serde_jsons_limit_is_text() {
    let nested = |depth: usize| {
        let quota = r#"{"error":{"code":"insufficient_quota"}}"#;
        format!("[{}{quota}{}]", r#"{"a":"#.repeat(depth), "}".repeat(depth))
    };
    // Wrapped in a one-element array, the error object is read...
    assert_eq!(reading(&nested(0)).0, "budget_exhausted");
    // ...and a million brackets are refused without a stack overflow.
    let deep = "[".repeat(1_000_000);
    assert_eq!(reading(&deep).0, "invalid_input");
    assert!(!is_context_overflow(&std::io::Error::other(deep)));
    // 127 containers deep is JSON whose top names nothing; 128 is not JSON (as serde_json
    // says), so its text is read and the quota phrase counts.
    assert_eq!(reading(&nested(124)).0, "invalid_input");
    assert_eq!(reading(&nested(125)).0, "budget_exhausted");
}

#[test]
fn ten_megabytes_are_cut_to_the_limit_and_read() {
    // Cut mid-string: the words before the cut are read (a word runs on to the cut).
    let mut body = br#"{"error":{"message":"prompt is too long, "#.to_vec();
    body.resize(10 * 1024 * 1024, b'a');
    let e = StatusError::from_parts(400u16, &HeaderMap::new(), &body);
    assert_eq!(e.body().len(), StatusError::MAX_BODY);
    assert_eq!(e.code(), "context_overflow");
}
