//! The order of evidence of a failed response: server hints, then statuses whose meaning is
//! specific, then the body's specific names, its phrase families, its generic type and last
//! the status class; the provider's request id and where a wait came from, on `StatusError`
//! and in the wire form; a body read without a status (`classify_body`); and what a peer can
//! send to these readers (huge, lying, cut short) answered without a panic or a leak.

#![cfg(feature = "http")]

use std::time::{Duration, SystemTime};

use agent_error::http::{RetryAfterSource, StatusError, classify_body};
use agent_error::{AgentError, Recovery};
use http::{HeaderMap, HeaderValue};
use proptest::prelude::*;

fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in pairs {
        map.append(*name, HeaderValue::from_str(value).unwrap());
    }
    map
}

fn response(status: u16, pairs: &[(&'static str, &str)], body: &str) -> StatusError {
    StatusError::from_parts_at(status, &headers(pairs), body, SystemTime::now())
}

fn code(status: u16, body: &str) -> String {
    response(status, &[], body).code().to_string()
}

#[test]
fn statuses_whose_meaning_is_specific_win_over_a_generic_body() {
    // Ollama answers a missing model with a 404 whose type is the generic `api_error`.
    let missing = r#"{"error":{"message":"model \"llama9\" not found, try pulling it first","type":"api_error","param":null,"code":null}}"#;
    let e = response(404, &[], missing);
    assert_eq!(
        (e.code(), e.is_retryable(), e.recovery()),
        ("not_found", false, Recovery::Abort)
    );
    // 402 is spent money whatever the body says.
    let e = response(
        402,
        &[],
        r#"{"error":{"message":"Insufficient credits","code":402}}"#,
    );
    assert_eq!(
        (e.code(), e.is_retryable(), e.recovery()),
        ("budget_exhausted", false, Recovery::Escalate)
    );
    // Groq's 413 says `rate_limit_exceeded`, but the request alone is over the limit.
    let groq = r#"{"error":{"message":"Request too large for model `llama-3.3-70b-versatile` on tokens per minute (TPM): Limit 6000, Requested 10338, please reduce your message size and try again.","type":"tokens","code":"rate_limit_exceeded"}}"#;
    let e = response(413, &[], groq);
    assert_eq!(
        (e.code(), e.is_retryable(), e.recovery()),
        ("request_too_large", false, Recovery::Compact)
    );
    // ...unless its body says the context overflowed.
    assert_eq!(
        code(413, "prompt is too long: 210000 tokens > 200000 maximum"),
        "context_overflow"
    );
    // Groq's flex tier out of capacity, and Anthropic's overload: come back later.
    for status in [498, 529] {
        let e = response(
            status,
            &[],
            r#"{"error":{"type":"invalid_request_error","message":"x"}}"#,
        );
        assert_eq!(
            (e.code(), e.is_retryable()),
            ("provider_unavailable", true),
            "{status}"
        );
    }
}

#[test]
fn a_specific_name_wins_over_the_phrases_and_the_phrases_over_a_generic_type() {
    // Anthropic's spent credit: a 400 `invalid_request_error` that says so in words.
    let credit = r#"{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}"#;
    assert_eq!(code(400, credit), "budget_exhausted");
    // OpenAI's request too large for the per-minute limit: a 429 whose code is generic.
    let tpm = r#"{"error":{"message":"Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 45000. The input or output tokens must be reduced in order to run successfully.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}"#;
    let e = response(429, &[], tpm);
    assert_eq!(
        (e.code(), e.is_retryable(), e.recovery()),
        ("request_too_large", false, Recovery::Compact)
    );
    // A throttle whose request alone asks for more than the limit (Groq: "Used 0").
    let over = r#"{"error":{"message":"Rate limit reached for model `llama3-70b-8192` in organization `org_x` on tokens per minute (TPM): Limit 7000, Used 0, Requested ~12903. Please try again in 50.597142857s.","type":"tokens","code":"rate_limit_exceeded"}}"#;
    assert_eq!(
        (
            code(429, over).as_str(),
            response(429, &[], over).retry_after()
        ),
        ("request_too_large", None)
    );
    let under = r#"{"error":{"message":"Rate limit reached for gpt-4o-mini on tokens per min (TPM): Limit 100,000, Used 96,749, Requested 19,126. Please try again in 9.5s.","type":"tokens","code":"rate_limit_exceeded"}}"#;
    assert_eq!(code(429, under), "rate_limit");
    // A specific code is not overruled by a phrase in the message.
    let named = r#"{"error":{"message":"Request too large","type":"invalid_request_error","code":"context_length_exceeded"}}"#;
    assert_eq!(code(400, named), "context_overflow");
    // Google: the reason says the key is invalid, the status only "invalid argument".
    let google = r#"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}"#;
    assert_eq!(code(400, google), "auth_error");
    // OpenAI's `content_policy_violation` and a moderation 403 (OpenRouter's flag).
    assert_eq!(
        code(
            400,
            r#"{"error":{"code":"content_policy_violation","message":"x"}}"#
        ),
        "content_filtered"
    );
    let flagged = r#"{"error":{"code":403,"message":"Your chosen model requires moderation and your input was flagged","metadata":{"reasons":["violence"],"flagged_input":"…"}}}"#;
    assert_eq!(code(403, flagged), "content_filtered");
}

#[test]
fn google_quotas_are_a_plans_limit_per_day_or_at_zero_and_a_rate_limit_per_minute() {
    let quota = |id: &str, limit: &str| {
        format!(
            r#"{{"error":{{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: {limit}","status":"RESOURCE_EXHAUSTED","details":[{{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{{"quotaId":"{id}"}}]}},{{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"26s"}}]}}}}"#
        )
    };
    let minute = response(
        429,
        &[],
        &quota("GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "15"),
    );
    assert_eq!(minute.code(), "rate_limit");
    assert_eq!(minute.retry_after(), Some(Duration::from_secs(26)));
    assert_eq!(
        minute.retry_after_source(),
        Some(RetryAfterSource::BodyField)
    );
    let day = response(
        429,
        &[],
        &quota("GenerateRequestsPerDayPerProjectPerModel-FreeTier", "50"),
    );
    assert_eq!((day.code(), day.retry_after()), ("budget_exhausted", None));
    let zero = response(
        429,
        &[],
        &quota("GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "0"),
    );
    assert_eq!(zero.code(), "budget_exhausted");
    // "limit: 0" is not "limit: 05" nor "limit: 0.5".
    assert_eq!(
        code(429, "Quota exceeded for metric: x, limit: 05"),
        "rate_limit"
    );
}

#[test]
fn a_gateway_relays_the_providers_own_body() {
    let relayed = r#"{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"error\":{\"message\":\"This model's maximum context length is 262144 tokens. However, your messages resulted in 262897 tokens.\",\"type\":\"Bad Request\",\"code\":400}}","provider_name":"Nvidia"}}}"#;
    assert_eq!(code(400, relayed), "context_overflow");
    // Three bodies deep at most: a relayed body's relayed body is read, a fourth is not.
    let twice = r#"{"error":{"message":"x","metadata":{"raw":"{\"error\":{\"message\":\"y\",\"metadata\":{\"raw\":\"prompt is too long\"}}}"}}}"#;
    assert_eq!(code(400, twice), "context_overflow");
    let nest = |inner: &str| {
        let escaped = inner.replace('\\', "\\\\").replace('"', "\\\"");
        format!(r#"{{"error":{{"message":"x","metadata":{{"raw":"{escaped}"}}}}}}"#)
    };
    let third = nest(&nest(r#"{"error":{"message":"prompt is too long"}}"#));
    assert_eq!(code(400, &third), "context_overflow");
    assert_eq!(code(400, &nest(&third)), "invalid_input");
}

#[test]
fn aws_names_the_failure_in_a_header() {
    let throttled = response(
        400,
        &[(
            "x-amzn-errortype",
            "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
        )],
        r#"{"message":"Too many tokens, please wait before trying again."}"#,
    );
    assert_eq!(
        (throttled.code(), throttled.is_rate_limited()),
        ("rate_limit", true)
    );
    let validation = response(
        400,
        &[("x-amzn-errortype", "ValidationException")],
        r#"{"message":"Input is too long for requested model."}"#,
    );
    assert_eq!(validation.code(), "context_overflow");
    assert_eq!(
        code(
            429,
            r#"{"__type":"com.amazon.coral.service#ThrottlingException","message":"x"}"#
        ),
        "rate_limit"
    );
}

#[test]
fn every_wait_says_where_it_came_from_and_the_first_found_wins() {
    let message = r#"{"error":{"message":"Rate limit reached for gpt-4o. Please try again in 1.5s.","type":"requests","code":"rate_limit_exceeded"}}"#;
    let reset = [
        ("x-ratelimit-remaining-requests", "0"),
        ("x-ratelimit-reset-requests", "6s"),
    ];
    type Case<'a> = (
        &'a [(&'static str, &'a str)],
        &'a str,
        Option<(u64, RetryAfterSource)>,
    );
    let cases: [Case<'_>; 5] = [
        (
            &[("retry-after", "7")],
            message,
            Some((7_000, RetryAfterSource::Header)),
        ),
        (
            &[("retry-after-ms", "250")],
            message,
            Some((250, RetryAfterSource::Header)),
        ),
        (&reset, message, Some((1_500, RetryAfterSource::Message))),
        (&reset, "", Some((6_000, RetryAfterSource::RateLimitReset))),
        (&[], "", None),
    ];
    for (pairs, body, expected) in cases {
        let e = response(429, pairs, body);
        let got = e
            .retry_after()
            .map(|d| d.as_millis() as u64)
            .zip(e.retry_after_source());
        assert_eq!(got, expected, "{pairs:?} {body}");
    }
    // Hugging Face's loading model says how long in a field of its own.
    let loading = response(
        503,
        &[],
        r#"{"error":"Model x is currently loading","estimated_time":20.0}"#,
    );
    assert_eq!(loading.retry_after(), Some(Duration::from_secs(20)));
    assert_eq!(
        loading.retry_after_source(),
        Some(RetryAfterSource::BodyField)
    );
    // What is not retried waits for nothing, whatever the body says.
    let spent = response(
        429,
        &[("retry-after", "7")],
        r#"{"error":{"code":"insufficient_quota"}}"#,
    );
    assert_eq!(
        (spent.retry_after(), spent.retry_after_source()),
        (None, None)
    );
    // A wait the server puts days away is read as written, so the retrier's `max_wait` ends
    // the run instead of retrying it on backoff.
    let far = response(
        429,
        &[],
        r#"{"error":{"message":"Please try again in 114h18m0s.","code":"rate_limit_exceeded"}}"#,
    );
    assert_eq!(far.retry_after(), Some(Duration::from_secs(411_480)));
}

#[test]
fn the_request_id_is_kept_for_the_provider_and_never_shown() {
    let e = response(
        529,
        &[("request-id", "req_011CZ"), ("cf-ray", "8f1-SJC")],
        "",
    );
    assert_eq!(e.request_id(), Some("req_011CZ"));
    let e = response(500, &[("x-request-id", "abc"), ("request-id", "def")], "");
    assert_eq!(e.request_id(), Some("abc"));
    assert_eq!(
        response(500, &[("x-amzn-requestid", "a-b-c")], "").request_id(),
        Some("a-b-c")
    );
    assert_eq!(
        response(500, &[("cf-ray", "8f1-SJC")], "").request_id(),
        Some("8f1-SJC")
    );
    // Folded to visible ASCII and capped; a value that is only spaces is no id.
    let long = "x".repeat(10_000);
    let e = response(500, &[("x-request-id", &format!(" a b\tc {long}"))], "");
    assert_eq!(e.request_id().map(str::len), Some(128));
    assert!(e.request_id().unwrap().starts_with("abcx"));
    assert_eq!(
        response(500, &[("x-request-id", "   ")], "").request_id(),
        None
    );
    let e = StatusError::new(400).with_request_id("req\u{1b}[2J\u{202e}_1\n2");
    assert_eq!(e.request_id(), Some("req[2J_12"));
    // In Debug, never in what people or the model read.
    let e = response(429, &[("x-request-id", "req_secret_trace")], "");
    assert!(format!("{e:?}").contains("req_secret_trace"));
    for shown in [
        e.to_string(),
        e.message(),
        agent_error::tool::render(&e),
        agent_error::display::for_user(&e),
    ] {
        assert!(!shown.contains("req_secret_trace"), "{shown}");
    }
}

#[cfg(feature = "serde")]
#[test]
fn the_wire_form_carries_the_request_id_and_the_waits_source() {
    use agent_error::Report;
    let e = response(429, &[("x-request-id", "req_42"), ("retry-after", "3")], "");
    let report = Report::capture(&e);
    assert_eq!(
        (report.request_id(), report.retry_after_source()),
        (Some("req_42"), Some("header"))
    );
    let json = serde_json::to_string(&report).unwrap();
    assert!(
        json.contains(r#""request_id":"req_42","retry_after_source":"header""#),
        "{json}"
    );
    let back: Report = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (back.request_id(), back.retry_after_source()),
        (Some("req_42"), Some("header"))
    );
    // What a peer writes is checked: folded, capped, and only a known source.
    let forged = r#"{"code":"rate_limit","message":"m","request_id":"a\nb c","retry_after_source":"trust me"}"#;
    let back: Report = serde_json::from_str(forged).unwrap();
    assert_eq!(
        (back.request_id(), back.retry_after_source()),
        (Some("abc"), None)
    );
    let huge = format!(
        r#"{{"code":"x","message":"m","request_id":"{}"}}"#,
        "y".repeat(100_000)
    );
    let back: Report = serde_json::from_str(&huge).unwrap();
    assert_eq!(back.request_id().map(str::len), Some(128));
    // Text for people leaves it out.
    assert!(!agent_error::tool::render(&back).contains("yyy"));
}

#[test]
fn a_body_without_a_status_is_read_by_the_same_reader() {
    let overloaded = classify_body(
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
    )
    .unwrap();
    assert_eq!(
        (
            overloaded.code(),
            overloaded.status(),
            AgentError::status(&overloaded)
        ),
        ("provider_unavailable", 0, None)
    );
    assert_eq!(
        overloaded.to_string(),
        "http [provider_unavailable]: provider error: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"
    );
    assert_eq!(
        agent_error::display::public(&overloaded).to_string(),
        "provider error"
    );
    // A number in the document stands for the status (vLLM's `code`, TGI's `http_status_code`).
    let vllm = classify_body(r#"{"object":"error","message":"boom","type":"InternalServerError","param":null,"code":500}"#).unwrap();
    assert_eq!((vllm.code(), vllm.status()), ("provider_unavailable", 500));
    let missing = classify_body(r#"{"error":{"code":404,"message":"no such model"}}"#).unwrap();
    assert_eq!(missing.code(), "not_found");
    // A string of three digits is a status too (LiteLLM's proxy writes `"code": "429"`).
    let litellm = classify_body(r#"{"error":{"message":"litellm.RateLimitError: slow down","type":null,"param":null,"code":"429"}}"#).unwrap();
    assert_eq!((litellm.code(), litellm.status()), ("rate_limit", 429));
    // A success number is no status; nothing readable is `None`.
    assert!(classify_body(r#"{"code":200,"message":"ok"}"#).is_none());
    for nothing in [
        "",
        "<html>502 Bad Gateway</html>",
        "{}",
        "[]",
        "null",
        "{\"error\":{}}",
    ] {
        assert!(classify_body(nothing).is_none(), "{nothing}");
    }
    // Plain text is read by its phrases.
    assert_eq!(
        classify_body("Your credit balance is too low")
            .unwrap()
            .code(),
        "budget_exhausted"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Any bytes, of any shape, as a body with no status or after one: never a panic, a code
    /// of the table, a kept body within its limit.
    #[test]
    fn any_body_is_answered(bytes in prop::collection::vec(any::<u8>(), 0..512), status in 0u16..700) {
        if let Some(e) = classify_body(&bytes) {
            prop_assert!(!e.code().is_empty());
            prop_assert!(e.body().len() <= StatusError::MAX_BODY);
        }
        let e = StatusError::from_parts(status, &HeaderMap::new(), &bytes);
        let _ = (e.code(), e.retry_after(), e.retry_after_source(), e.to_string());
    }

    /// Provider-shaped documents cut anywhere, with any message: never a panic, and a wait
    /// never longer than a month whatever the message says.
    #[test]
    fn provider_documents_cut_short_are_answered(
        message in "\\PC{0,40}",
        delay in "[0-9]{1,12}(\\.[0-9]{1,4})?(ms|s|m|h|h[0-9]{1,3}m[0-9]{1,3}s)",
        cut in any::<prop::sample::Index>(),
    ) {
        let message = serde_json::to_string(&format!("{message} Please try again in {delay}.")).unwrap();
        let body = format!(r#"{{"error":{{"message":{message},"type":"requests","code":"rate_limit_exceeded","details":[{{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{{"quotaId":"x"}}]}}]}},"metadata":{{"raw":{message}}}}}"#);
        let at = body.floor_char_boundary(cut.index(body.len() + 1));
        for text in [&body[..], &body[..at]] {
            let e = StatusError::from_parts(429u16, &HeaderMap::new(), text);
            if let Some(wait) = e.retry_after() {
                prop_assert!(wait <= Duration::from_secs(31 * 24 * 3600));
            }
            let _ = classify_body(text);
        }
    }

    /// Any header values: never a panic, a request id of visible ASCII within its cap.
    #[test]
    fn any_headers_are_answered(id in "[ -~]{0,300}", name in "[ -~]{0,40}", after in "[ -~]{0,20}") {
        let map = headers(&[("x-request-id", id.as_str()), ("x-amzn-errortype", name.as_str()), ("retry-after", after.as_str())]);
        let e = StatusError::from_parts(400u16, &map, "");
        if let Some(id) = e.request_id() {
            prop_assert!(!id.is_empty() && id.len() <= 128 && id.bytes().all(|b| b.is_ascii_graphic()));
        }
    }
}
