//! The reader against `serde_json`: the same documents are JSON, and the fields it keeps are
//! the ones `serde_json::Value` holds at those places, for written examples and for
//! generated documents (provider-shaped, keys repeated, strings escaped every way).

use std::borrow::Cow;

use proptest::prelude::*;
use serde_json::Value;

use super::documents::{doc, provider};
use super::{Details, ErrorBody, ErrorField, Metadata, RETRY_INFO, read};

/// The fields that `serde_json`'s reading of `value` holds, as the reader should keep them.
fn expected(value: &Value) -> ErrorBody<'static> {
    let doc = match value.as_array().map(Vec::as_slice) {
        Some([only]) => only,
        _ => value,
    };
    let owned = |text: &str| Cow::Owned(text.to_owned());
    let text = |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(owned);
    ErrorBody {
        text: doc.as_str().map(owned),
        kind: text(doc, "type"),
        message: text(doc, "message"),
        detail: text(doc, "detail"),
        errors: error_field(
            doc.get("errors")
                .and_then(Value::as_array)
                .and_then(|e| e.first())
                .unwrap_or(&Value::Null),
        ),
        code: text(doc, "code"),
        code_number: doc.get("code").and_then(small),
        error_type: text(doc, "error_type"),
        http_status_code: ["http_status_code", "status_code", "statusCode", "http_code"]
            .into_iter()
            .find_map(|key| doc.get(key))
            .and_then(small)
            .or_else(|| {
                let response = doc.get("response")?;
                ["http_code", "status_code", "statusCode", "http_status_code"]
                    .into_iter()
                    .find_map(|key| response.get(key))
                    .and_then(small)
            }),
        status_number: doc.get("status").and_then(small),
        amzn_type: text(doc, "__type"),
        output_type: doc.get("Output").and_then(|o| text(o, "__type")),
        estimated_time: doc.get("estimated_time").and_then(Value::as_f64),
        other_message: [
            text(doc, "msg"),
            text(doc, "error_msg"),
            text(doc, "errmsg"),
            text(doc, "errorMessage"),
            text(doc, "error_message"),
            doc.get("base_resp").and_then(|b| text(b, "status_msg")),
            doc.get("detail")
                .and_then(Value::as_array)
                .and_then(|d| d.first())
                .and_then(|d| text(d, "msg")),
            doc.get("detail")
                .filter(|d| d.is_object())
                .and_then(|d| text(d, "msg").or_else(|| text(d, "message"))),
            text(doc, "status"),
            text(doc, "text"),
        ]
        .into_iter()
        .flatten()
        .next(),
        error_code: text(doc, "error_code"),
        metadata: metadata(doc.get("metadata")),
        response_error: error_field(
            doc.get("response")
                .and_then(|r| r.get("error"))
                .unwrap_or(&Value::Null),
        ),
        error: error_field(
            doc.get("error")
                .or(doc.get("Error"))
                .unwrap_or(&Value::Null),
        ),
        other_error: match (doc.get("Response"), doc.get("header")) {
            (_, Some(header)) => error_field(header),
            (Some(response), None) => error_field(response.get("Error").unwrap_or(&Value::Null)),
            (None, None) => error_field(&Value::Null),
        },
        retry_after: retry_after(doc),
        wrapped: wrapped(doc),
        relayed: [
            "response",
            "body",
            "raw",
            "response_body",
            "upstream_response",
        ]
        .into_iter()
        .find_map(|key| text(doc, key))
        .or_else(|| {
            let response = doc.get("response")?;
            text(response, "response").or_else(|| text(response, "body"))
        }),
    }
}

/// The `error` of the first member the reader does not know that holds one.
fn wrapped(doc: &Value) -> ErrorField<'static> {
    const KNOWN: &[&str] = &[
        "type",
        "message",
        "detail",
        "status",
        "text",
        "errors",
        "msg",
        "error_msg",
        "errmsg",
        "errorMessage",
        "error_message",
        "base_resp",
        "code",
        "error_code",
        "error_type",
        "http_status_code",
        "status_code",
        "statusCode",
        "__type",
        "Output",
        "estimated_time",
        "metadata",
        "response",
        "Response",
        "Error",
        "header",
        "retryAfter",
        "retry_after",
        "retry_after_seconds",
        "reset_seconds",
        "resets_in_seconds",
        "error",
    ];
    doc.as_object()
        .into_iter()
        .flatten()
        .filter(|(key, _)| !KNOWN.contains(&key.as_str()))
        .filter_map(|(_, value)| value.get("error").filter(|_| value.is_object()))
        .map(error_field)
        .find(|error| *error != ErrorField::default())
        .unwrap_or_default()
}

/// OpenRouter's `metadata`, as the reader should keep it.
fn metadata(value: Option<&Value>) -> Metadata<'static> {
    let owned = |text: &str| Cow::Owned(text.to_owned());
    Metadata {
        raw: value
            .and_then(|m| m.get("raw"))
            .and_then(Value::as_str)
            .map(owned),
        flagged: value
            .and_then(Value::as_object)
            .is_some_and(|m| m.contains_key("flagged_input")),
    }
}

/// The seconds to wait a document or an `error` gives, as the reader should keep them.
fn retry_after(value: &Value) -> Option<f64> {
    [
        "retryAfter",
        "retry_after",
        "retry_after_seconds",
        "reset_seconds",
        "resets_in_seconds",
    ]
    .into_iter()
    .find_map(|key| value.get(key))
    .and_then(Value::as_f64)
}

/// An `error` member, as the reader should keep it.
fn error_field(error: &Value) -> ErrorField<'static> {
    if let Some(first) = error.as_array() {
        return first.first().map_or_else(ErrorField::default, error_field);
    }
    let owned = |text: &str| Cow::Owned(text.to_owned());
    let text = |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(owned);
    let details = error.get("details").and_then(Value::as_array);
    let message = error
        .get("message")
        .and_then(|m| match m {
            Value::Object(_) => text(m, "error"),
            _ => m.as_str().map(owned),
        })
        .or_else(|| text(error, "msg").filter(|_| error.get("message").is_none()));
    ErrorField {
        text: error.as_str().map(owned),
        kind: text(error, "type").or_else(|| text(error, "Type")),
        status: text(error, "status"),
        code: text(error, "code").or_else(|| text(error, "Code")),
        code_number: error.get("code").or(error.get("Code")).and_then(small),
        status_code: ["status_code", "statusCode", "http_status_code", "http_code"]
            .into_iter()
            .find_map(|key| error.get(key))
            .and_then(small),
        message,
        details: Details {
            retry_delays: details
                .into_iter()
                .flatten()
                .filter(|d| text(d, "@type").is_some_and(|t| t.ends_with(RETRY_INFO)))
                .filter_map(|d| text(d, "retryDelay"))
                .collect(),
            reasons: details
                .into_iter()
                .flatten()
                .filter_map(|d| text(d, "reason"))
                .collect(),
            quota_ids: details
                .into_iter()
                .flatten()
                .filter_map(|d| d.get("violations").and_then(Value::as_array))
                .flatten()
                .filter_map(|v| text(v, "quotaId"))
                .collect(),
            zero_limit: details.into_iter().flatten().any(|d| {
                d.get("metadata")
                    .and_then(|m| m.get("quota_limit_value"))
                    .and_then(Value::as_str)
                    == Some("0")
            }),
        },
        inner_code: error
            .get("innererror")
            .and_then(|inner| text(inner, "code")),
        metadata: metadata(error.get("metadata")),
        retry_after: retry_after(error),
    }
}

/// A number that is a whole number from 0 to 65535, as the reader keeps a status.
fn small(value: &Value) -> Option<u16> {
    value.as_u64().and_then(|n| u16::try_from(n).ok())
}

/// Asserts that the reader and `serde_json` agree on `bytes`.
fn assert_agrees(bytes: &[u8]) {
    let reference = serde_json::from_slice::<Value>(bytes).ok();
    assert_eq!(
        read(bytes),
        reference.as_ref().map(expected),
        "{:?}",
        String::from_utf8_lossy(bytes)
    );
}

#[test]
fn keeps_the_fields_of_the_providers_shapes() {
    let google = br#"[{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[
        {"@type":"type.googleapis.com/google.rpc.QuotaFailure","retryDelay":"1s"},
        {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"30s"}]}}]"#;
    let body = read(google).unwrap();
    assert_eq!(body.error.status.as_deref(), Some("RESOURCE_EXHAUSTED"));
    assert_eq!(body.error.code, None);
    assert_eq!(body.error.details.retry_delays, ["30s"]);
    let anthropic =
        br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let body = read(anthropic).unwrap();
    assert_eq!(body.kind.as_deref(), Some("error"));
    assert_eq!(body.error.kind.as_deref(), Some("overloaded_error"));
    assert_eq!(body.error.message.as_deref(), Some("Overloaded"));
    assert_eq!(
        read(br#""just text""#).unwrap().text.as_deref(),
        Some("just text")
    );
    assert_eq!(
        read(br#"{"error":"model not found"}"#)
            .unwrap()
            .error
            .text
            .as_deref(),
        Some("model not found")
    );
}

#[test]
fn the_last_of_a_repeated_key_wins() {
    let body = read(br#"{"error":{"code":"a"},"type":"x","error":{"type":"b"},"type":1}"#).unwrap();
    assert_eq!(body.error.code, None);
    assert_eq!(body.error.kind.as_deref(), Some("b"));
    assert_eq!(body.kind, None);
}

#[test]
fn escapes_are_decoded_in_keys_and_values() {
    let body = read(br#"{"\u0074ype":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00"}"#).unwrap();
    assert_eq!(body.kind.as_deref(), Some("a\"b\\c/d\u{8}\u{c}\n\r\té😀"));
    for bad in [
        r#""\ud83d""#,
        r#""\ude00""#,
        r#""\ud83d\u0041""#,
        r#""\ud83dx""#,
        r#""\x""#,
        r#""\u12""#,
    ] {
        assert_eq!(read(bad.as_bytes()), None, "{bad}");
        assert_agrees(bad.as_bytes());
    }
}

#[test]
fn refuses_what_serde_json_refuses() {
    let cases: &[&[u8]] = &[
        b"",
        b" ",
        b"{",
        b"}",
        b"[1,]",
        b"{\"a\":1,}",
        b"{\"a\" 1}",
        b"{1:2}",
        b"01",
        b"1.",
        b".5",
        b"1e",
        b"1e+",
        b"-",
        b"+1",
        b"1e400",
        b"-1e400",
        b"1e-400",
        b"0e999999999999",
        b"tru",
        b"nul",
        b"null x",
        b"\"a\nb\"",
        b"\"\xff\"",
        b"\xef\xbb\xbf{}",
        b"[\"a\"  ,  2 ] ",
        b"NaN",
        b"\"abc",
        b"{\"a\":1}{}",
        b"\t\r\n true \n",
    ];
    for case in cases {
        assert_agrees(case);
    }
}

#[test]
fn nesting_is_bounded_where_serde_json_bounds_it() {
    for depth in [126, 127, 128, 129] {
        assert_agrees(format!("{}{}", "[".repeat(depth), "]".repeat(depth)).as_bytes());
        let objects = format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth));
        assert_agrees(objects.as_bytes());
    }
    assert!(read(&vec![b'['; 1_000_000]).is_none());
}

#[test]
fn reads_ten_megabytes_in_one_pass() {
    let mut big = b"{\"error\":{\"details\":[".to_vec();
    let detail = br#"{"@type":"x","retryDelay":"1s","n":[1.5e3,true,null,"\u00e9"]},"#;
    while big.len() < 10_000_000 {
        big.extend_from_slice(detail);
    }
    big.extend_from_slice(b"{}]},\"message\":\"");
    big.extend(std::iter::repeat_n(b'a', 1_000_000));
    big.extend_from_slice(b"\"}");
    let body = read(&big).unwrap();
    assert_eq!(body.message.map(|m| m.len()), Some(1_000_000));
    assert!(body.error.details.retry_delays.is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn any_bytes_are_json_exactly_when_serde_json_says_so(
        bytes in prop::collection::vec(any::<u8>(), 0..64),
        text in "[\\[\\]{}\",:0-9a-z\\\\ .eE+-]{0,32}",
    ) {
        assert_agrees(&bytes);
        assert_agrees(text.as_bytes());
    }

    #[test]
    fn documents_read_as_serde_json_reads_them(doc in doc(), seed in any::<u64>()) {
        assert_agrees(doc.write(seed).as_bytes());
    }

    #[test]
    fn provider_bodies_read_as_serde_json_reads_them(doc in provider(), seed in any::<u64>()) {
        assert_agrees(doc.write(seed).as_bytes());
    }

    #[test]
    fn damaged_documents_read_as_serde_json_reads_them(
        doc in provider(),
        seed in any::<u64>(),
        at in any::<prop::sample::Index>(),
        byte in prop::sample::select(b"[]{}\",:\\ 0e.-u\xc3\xff".to_vec()),
        cut in any::<bool>(),
    ) {
        let mut bytes = doc.write(seed).into_bytes();
        let at = at.index(bytes.len() + 1);
        if cut {
            bytes.truncate(at);
        } else {
            bytes.insert(at, byte);
        }
        assert_agrees(&bytes);
    }
}
