//! What the three providers send, in their own shapes: OpenAI's Chat Completions stream and
//! error bodies with `x-ratelimit-*` headers, Anthropic's Messages stream and error bodies
//! with `anthropic-ratelimit-*` headers, and an OpenAI-compatible server that sends no
//! rate-limit headers at all. The error bodies are the providers' own, as quoted in the
//! repository's provider corpus (`tests/corpus/`), with the farm's numbers put in.

use std::fmt::Write as _;
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use serde_json::json;

use crate::bucket::Limits;

/// One of the farm's providers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// OpenAI Chat Completions (`POST /v1/chat/completions`), `x-ratelimit-*` headers.
    OpenAi,
    /// Anthropic Messages (`POST /v1/messages`), `anthropic-ratelimit-*` headers.
    Anthropic,
    /// An OpenAI-compatible server (`POST /v1/chat/completions`) that sends no rate-limit
    /// header, as self-hosted and many hosted servers do.
    Compatible,
}

impl Kind {
    /// Every provider, in a fixed order.
    pub const ALL: [Kind; 3] = [Kind::OpenAi, Kind::Anthropic, Kind::Compatible];

    /// Its name: `openai`, `anthropic`, `compatible`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::OpenAi => "openai",
            Kind::Anthropic => "anthropic",
            Kind::Compatible => "compatible",
        }
    }

    /// The path it answers on.
    pub fn path(self) -> &'static str {
        match self {
            Kind::Anthropic => "/v1/messages",
            Kind::OpenAi | Kind::Compatible => "/v1/chat/completions",
        }
    }

    /// A number for the schedule.
    pub(crate) fn index(self) -> u64 {
        self as u64
    }
}

/// An answer that is not a stream: status, headers and body.
#[derive(Clone, Debug)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// The headers, beside `content-type: application/json`.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: String,
}

impl Reply {
    fn new(status: u16, body: String) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            body,
        }
    }
}

/// Whole seconds, rounded up, at least one: what `Retry-After` says.
fn retry_after(wait: Duration) -> String {
    wait.as_secs_f64().ceil().max(1.0).to_string()
}

/// A duration as OpenAI writes its resets: `20ms`, `1.5s`, `6m0s`.
pub fn go_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1_000 {
        return format!("{ms}ms");
    }
    let minutes = ms / 60_000;
    let seconds = (ms % 60_000) as f64 / 1_000.0;
    let mut out = String::new();
    if minutes > 0 {
        let _ = write!(out, "{minutes}m");
    }
    let _ = write!(out, "{}s", format_seconds(seconds));
    out
}

fn format_seconds(seconds: f64) -> String {
    let text = format!("{seconds:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text.is_empty() {
        "0".into()
    } else {
        text.into()
    }
}

/// An instant as RFC 3339 in UTC, as Anthropic writes its resets: `2026-11-28T08:00:01Z`.
pub fn rfc3339(at: SystemTime) -> String {
    let secs = at
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's days-to-civil algorithm.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3_600,
        rest % 3_600 / 60,
        rest % 60
    )
}

/// The rate-limit headers `kind` sends on every answer (none for `Compatible`).
pub fn limit_headers(kind: Kind, limits: &Limits) -> Vec<(String, String)> {
    let now = SystemTime::now();
    let h = |name: &str, value: String| (name.to_string(), value);
    match kind {
        Kind::OpenAi => vec![
            h(
                "x-ratelimit-limit-requests",
                limits.requests_limit.to_string(),
            ),
            h(
                "x-ratelimit-remaining-requests",
                limits.requests_remaining.to_string(),
            ),
            h(
                "x-ratelimit-reset-requests",
                go_duration(limits.requests_reset),
            ),
            h("x-ratelimit-limit-tokens", limits.tokens_limit.to_string()),
            h(
                "x-ratelimit-remaining-tokens",
                limits.tokens_remaining.to_string(),
            ),
            h("x-ratelimit-reset-tokens", go_duration(limits.tokens_reset)),
        ],
        Kind::Anthropic => vec![
            h(
                "anthropic-ratelimit-requests-limit",
                limits.requests_limit.to_string(),
            ),
            h(
                "anthropic-ratelimit-requests-remaining",
                limits.requests_remaining.to_string(),
            ),
            h(
                "anthropic-ratelimit-requests-reset",
                rfc3339(now + limits.requests_reset),
            ),
            h(
                "anthropic-ratelimit-tokens-limit",
                limits.tokens_limit.to_string(),
            ),
            h(
                "anthropic-ratelimit-tokens-remaining",
                limits.tokens_remaining.to_string(),
            ),
            h(
                "anthropic-ratelimit-tokens-reset",
                rfc3339(now + limits.tokens_reset),
            ),
        ],
        Kind::Compatible => Vec::new(),
    }
}

/// A 429: the bucket (or a throttled window) holds no room for the call for `wait`.
pub fn throttled(kind: Kind, limits: &Limits, wait: Duration, model: &str) -> Reply {
    let mut reply = match kind {
        // The current wording of OpenAI's limit messages (platform.openai.com/docs/guides/error-codes).
        Kind::OpenAi => Reply::new(
            429,
            json!({"error": {
                "message": format!(
                    "Rate limit reached for {model} in organization org-farm on requests per min (RPM): Limit {}, Used {}, Requested 1. Please try again in {}. Visit https://platform.openai.com/account/rate-limits to learn more.",
                    limits.requests_limit, limits.requests_limit, go_duration(wait)
                ),
                "type": "requests", "param": null, "code": "rate_limit_exceeded"
            }})
            .to_string(),
        ),
        // tests/corpus/anthropic.toml, "account rate limit on a subscription".
        Kind::Anthropic => Reply::new(
            429,
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your account's rate limit. Please try again later."}}"#.to_string(),
        ),
        // tests/corpus/fireworks.toml, "429 'exceeded your usage limits', try again later":
        // not even JSON, and no header.
        Kind::Compatible => Reply::new(
            429,
            "{'error': 'Too Many Requests', 'message': 'You have exceeded your usage limits. Please try again later or contact Fireworks to explore dedicated capacity.'}".to_string(),
        ),
    };
    if kind != Kind::Compatible {
        reply.headers = limit_headers(kind, limits);
        reply
            .headers
            .push(("retry-after".into(), retry_after(wait)));
    }
    reply
}

/// The provider overloaded.
pub fn overloaded(kind: Kind) -> Reply {
    match kind {
        // tests/corpus/openai.toml, "500 server_error": OpenAI answers an overload as a 503
        // with the same body.
        Kind::OpenAi => Reply::new(
            503,
            r#"{"error":{"message":"The server is overloaded or not ready yet.","type":"server_error","param":null,"code":null}}"#.to_string(),
        ),
        // tests/corpus/anthropic.toml, "overloaded 529 with the SDK's recorded headers".
        Kind::Anthropic => {
            let mut reply = Reply::new(
                529,
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#.to_string(),
            );
            reply.headers.push(("x-should-retry".into(), "true".into()));
            reply
        }
        // tests/corpus/ollama.toml, "scheduler queue full 503 server busy".
        Kind::Compatible => Reply::new(
            503,
            r#"{"error":"server busy, please try again.  maximum pending requests exceeded"}"#.to_string(),
        ),
    }
}

/// The provider failed on its side (a call that is not streamed meets its fault so).
pub fn server_error(kind: Kind) -> Reply {
    let body = match kind {
        // tests/corpus/anthropic.toml, "internal server error (500 api_error)".
        Kind::Anthropic => {
            r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#
        }
        // tests/corpus/openai.toml, "500 server_error with request id in the message".
        Kind::OpenAi | Kind::Compatible => {
            r#"{"error":{"message":"The server had an error processing your request. Sorry about that! You can retry your request, or contact us through our help center at help.openai.com if you keep seeing this error.","type":"server_error","param":null,"code":null}}"#
        }
    };
    Reply::new(500, body.to_string())
}

/// A prompt of `tokens` over the model's context of `limit`.
pub fn context_overflow(kind: Kind, tokens: u64, limit: u64) -> Reply {
    let body = match kind {
        // tests/corpus/openai.toml, "400 context_length_exceeded, messages only".
        Kind::OpenAi => json!({"error": {
            "message": format!("This model's maximum context length is {limit} tokens. However, your messages resulted in {tokens} tokens. Please reduce the length of the messages."),
            "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"
        }}),
        // tests/corpus/anthropic.toml, "prompt is too long on claude-opus-4-5".
        Kind::Anthropic => json!({"type": "error", "error": {
            "type": "invalid_request_error",
            "message": format!("prompt is too long: {tokens} tokens > {limit} maximum")
        }}),
        // tests/corpus/vllm.toml: vLLM's wording.
        Kind::Compatible => json!({"error": {
            "message": format!("This model's maximum context length is {limit} tokens. However, your request has {tokens} input tokens. Please reduce the length of the input messages. (parameter=input_tokens, value={tokens})"),
            "type": "BadRequestError", "param": "input_tokens", "code": 400
        }}),
    };
    Reply::new(400, body.to_string())
}

/// The account's credit is spent.
pub fn credit_spent(kind: Kind) -> Reply {
    match kind {
        // tests/corpus/anthropic.toml, "credit balance too low, as a 400 invalid_request_error".
        Kind::Anthropic => Reply::new(
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}"#.to_string(),
        ),
        // tests/corpus/openai.toml, "429 insufficient_quota (current body with code)".
        Kind::OpenAi | Kind::Compatible => Reply::new(
            429,
            r#"{"error":{"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#.to_string(),
        ),
    }
}

/// A request the farm cannot read.
pub fn malformed(kind: Kind, what: &str) -> Reply {
    let body = match kind {
        Kind::Anthropic => {
            json!({"type": "error", "error": {"type": "invalid_request_error", "message": what}})
        }
        Kind::OpenAi | Kind::Compatible => {
            json!({"error": {"message": what, "type": "invalid_request_error", "param": null, "code": null}})
        }
    };
    Reply::new(400, body.to_string())
}

/// One server-sent event.
fn event(name: Option<&str>, data: &str) -> Bytes {
    let mut out = String::with_capacity(data.len() + 32);
    if let Some(name) = name {
        let _ = writeln!(out, "event: {name}");
    }
    let _ = write!(out, "data: {data}\n\n");
    Bytes::from(out)
}

/// The events before the first delta.
pub fn stream_start(kind: Kind, id: &str, model: &str, prompt_tokens: u64) -> Vec<Bytes> {
    match kind {
        Kind::OpenAi | Kind::Compatible => vec![event(
            None,
            &json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
                "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": null}]})
            .to_string(),
        )],
        Kind::Anthropic => vec![
            event(
                Some("message_start"),
                &json!({"type": "message_start", "message": {"id": id, "type": "message", "role": "assistant",
                    "model": model, "content": [], "stop_reason": null, "stop_sequence": null,
                    "usage": {"input_tokens": prompt_tokens, "output_tokens": 1}}})
                .to_string(),
            ),
            event(
                Some("content_block_start"),
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            ),
            event(Some("ping"), r#"{"type": "ping"}"#),
        ],
    }
}

/// One delta of text.
pub fn delta(kind: Kind, id: &str, model: &str, text: &str) -> Bytes {
    match kind {
        Kind::OpenAi | Kind::Compatible => event(
            None,
            &json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
                "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]})
            .to_string(),
        ),
        Kind::Anthropic => event(
            Some("content_block_delta"),
            &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}})
                .to_string(),
        ),
    }
}

/// The events after the last delta, the provider's terminal event last.
pub fn stream_end(
    kind: Kind,
    id: &str,
    model: &str,
    prompt_tokens: u64,
    output_tokens: u64,
) -> Vec<Bytes> {
    match kind {
        Kind::OpenAi | Kind::Compatible => vec![
            event(
                None,
                &json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
                    "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
                .to_string(),
            ),
            event(
                None,
                &json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": model, "choices": [],
                    "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": output_tokens,
                        "total_tokens": prompt_tokens + output_tokens}})
                .to_string(),
            ),
            event(None, "[DONE]"),
        ],
        Kind::Anthropic => vec![
            event(Some("content_block_stop"), r#"{"type":"content_block_stop","index":0}"#),
            event(
                Some("message_delta"),
                &json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null},
                    "usage": {"output_tokens": output_tokens}})
                .to_string(),
            ),
            event(Some("message_stop"), r#"{"type":"message_stop"}"#),
        ],
    }
}

/// The error event a stream sends when the provider fails after `200 OK`.
pub fn stream_error(kind: Kind) -> Bytes {
    match kind {
        // tests/corpus/openai.toml, "Chat Completions stream error chunk: server_error".
        Kind::OpenAi | Kind::Compatible => event(
            None,
            r#"{"error": {"message": "The server had an error while processing your request. Sorry about that!", "type": "server_error"}}"#,
        ),
        // tests/corpus/anthropic.toml, "overloaded_error as a stream error event".
        Kind::Anthropic => event(
            Some("error"),
            r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_as_openai_writes_them() {
        assert_eq!(go_duration(Duration::from_millis(20)), "20ms");
        assert_eq!(go_duration(Duration::from_millis(1_500)), "1.5s");
        assert_eq!(go_duration(Duration::from_secs(360)), "6m0s");
        assert_eq!(go_duration(Duration::from_millis(61_250)), "1m1.25s");
    }

    #[test]
    fn instants_as_anthropic_writes_them() {
        let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_795_852_801);
        assert_eq!(rfc3339(at), "2026-11-28T08:00:01Z");
        assert_eq!(rfc3339(SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let leap = SystemTime::UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00Z");
    }
}
