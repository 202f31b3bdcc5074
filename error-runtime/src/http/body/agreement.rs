//! Bodies are read as they were when `serde_json` read them: `serde_json_read` is that
//! reading, kept here as the reference, and generated bodies must get the same hints from
//! both (provider-shaped JSON, damaged JSON, and any text).

use std::time::Duration;

use proptest::prelude::*;
use serde_json::Value;

use super::super::json::documents::provider;
use super::super::providers::{ANTHROPIC, GOOGLE, OPENAI, TGI};
use super::{BodyHints, duration, lookup, phrases, read};

/// The reading of a body through `serde_json::Value`, as it was before `json.rs`.
fn serde_json_read(body: &str) -> BodyHints {
    match serde_json::from_str::<Value>(body) {
        Ok(json) => read_value(&json),
        Err(_) => BodyHints {
            kind: phrases(body),
            retry_delay: None,
        },
    }
}

/// A JSON body's hints, read from its `Value`.
fn read_value(json: &Value) -> BodyHints {
    let json = match json.as_array().map(Vec::as_slice) {
        Some([only]) => only,
        _ => json,
    };
    let error = json.get("error");
    let of_error = |field| error.and_then(|e| text(e, field));
    let anthropic = text(json, "type") == Some("error");
    let named = [
        (of_error("code"), OPENAI),
        (of_error("type").filter(|_| anthropic), ANTHROPIC),
        (of_error("type"), OPENAI),
        (text(json, "code"), OPENAI),
        (of_error("status"), GOOGLE),
        (text(json, "error_type"), TGI),
    ]
    .into_iter()
    .find_map(|(id, table)| lookup(table, id?));
    let message = json.as_str().or_else(|| {
        error
            .and_then(|e| e.as_str().or_else(|| text(e, "message")))
            .or_else(|| text(json, "message"))
            .or_else(|| text(json, "detail"))
    });
    BodyHints {
        kind: super::kind(named, message),
        retry_delay: error.and_then(retry_info),
    }
}

/// `json[field]` when it is a string.
fn text<'a>(json: &'a Value, field: &str) -> Option<&'a str> {
    json.get(field).and_then(Value::as_str)
}

/// The first `RetryInfo` detail's delay that reads as a duration.
fn retry_info(error: &Value) -> Option<Duration> {
    error
        .get("details")?
        .as_array()?
        .iter()
        .filter(|detail| text(detail, "@type").is_some_and(|t| t.ends_with("google.rpc.RetryInfo")))
        .find_map(|detail| text(detail, "retryDelay").and_then(duration::protobuf))
}

#[test]
fn the_providers_bodies_read_as_before() {
    let bodies = [
        r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens"}}"#,
        r#"[{"error":{"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"30s"}]}}]"#,
        r#"{"error":"prompt is too long"}"#,
        r#"{"detail":"maximum context length is 8192 tokens"}"#,
        r#"{"error":{"message":"prompt is too long""#,
        r#""input token count exceeds""#,
        "credit balance is too low",
        "",
    ];
    for body in bodies {
        assert_eq!(read(body), serde_json_read(body), "{body}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn provider_bodies_read_as_before(doc in provider(), seed in any::<u64>(), cut in any::<prop::sample::Index>()) {
        let body = doc.write(seed);
        prop_assert_eq!(read(&body), serde_json_read(&body));
        let cut = body.floor_char_boundary(cut.index(body.len() + 1));
        prop_assert_eq!(read(&body[..cut]), serde_json_read(&body[..cut]));
    }

    #[test]
    fn any_text_reads_as_before(text in "\\PC*") {
        prop_assert_eq!(read(&text), serde_json_read(&text));
    }
}
