//! The plumbing every strategy shares: the request a provider expects, and the text of one
//! of its stream's events. What a strategy does about failures is its own.

use std::time::Duration;

use agent_error_farm::Kind;
use serde_json::{Value, json};

/// The model every call names.
pub const MODEL: &str = "farm-model";

/// How long every strategy waits for the next bytes of a response: reqwest's read timeout
/// of every client, and the idle timeout of the library's watch.
pub const READ_TIMEOUT: Duration = Duration::from_secs(2);

/// The HTTP client every strategy builds on: straight to the farm on loopback, no proxy,
/// and a silence of [`READ_TIMEOUT`] taken as a failure.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .read_timeout(READ_TIMEOUT)
        .build()
        .expect("a client")
}

/// Whether `kind` continues an answer from the assistant's text so far: Anthropic takes a
/// trailing assistant message as a prefill; the OpenAI-compatible server (vLLM) does when
/// asked (`continue_final_message`, which [`parts`] sends); OpenAI's Chat Completions API
/// has no way to, and writes a new answer.
pub fn continues(kind: Kind) -> bool {
    kind != Kind::OpenAi
}

/// The request for one streamed call to `kind` at `base` (its base URL, `…/v1`), with the
/// prompt and, to continue an answer that broke, the assistant's text so far.
pub fn request(
    client: &reqwest::Client,
    base: &str,
    kind: Kind,
    key: &str,
    prompt: &str,
    resume: Option<&str>,
) -> reqwest::RequestBuilder {
    let (url, body, headers) = parts(base, kind, key, prompt, resume);
    let mut request = client.post(url).body(body);
    for (name, value) in headers {
        request = request.header(name, value);
    }
    request
}

/// The URL, body and headers of a call, for a client of any kind.
pub fn parts(
    base: &str,
    kind: Kind,
    key: &str,
    prompt: &str,
    resume: Option<&str>,
) -> (String, Vec<u8>, Vec<(&'static str, String)>) {
    let mut messages = vec![json!({"role": "user", "content": prompt})];
    if let Some(said) = resume.filter(|s| !s.is_empty()) {
        messages.push(json!({"role": "assistant", "content": said}));
    }
    let mut body =
        json!({"model": MODEL, "max_tokens": 1024, "stream": true, "messages": messages});
    // vLLM continues the last message only when asked, and with the generation prompt off.
    if kind == Kind::Compatible
        && resume.is_some_and(|s| !s.is_empty())
        && let Some(fields) = body.as_object_mut()
    {
        fields.insert("continue_final_message".into(), true.into());
        fields.insert("add_generation_prompt".into(), false.into());
    }
    let url = format!("{base}{}", &kind.path()[3..]);
    let mut headers = vec![("content-type", "application/json".to_string())];
    match kind {
        Kind::Anthropic => {
            headers.push(("x-api-key", key.to_string()));
            headers.push(("anthropic-version", "2023-06-01".to_string()));
        }
        Kind::OpenAi | Kind::Compatible => headers.push(("authorization", format!("Bearer {key}"))),
    }
    (url, body.to_string().into_bytes(), headers)
}

/// What one server-sent event of `kind`'s stream says.
#[derive(Debug, PartialEq, Eq)]
pub enum Said {
    /// Output text.
    Text(String),
    /// The provider's last event.
    Done,
    /// An error event, with its data.
    Error(String),
    /// Anything else (metadata, pings, usage).
    Other,
}

/// Reads one event: its name (empty for none) and its data.
pub fn read_event(name: &str, data: &str) -> Said {
    if data == "[DONE]" || name == "message_stop" {
        return Said::Done;
    }
    if name == "error" {
        return Said::Error(data.to_string());
    }
    let Ok(value) = serde_json::from_str::<Value>(data) else {
        return Said::Other;
    };
    if value.get("error").is_some() {
        return Said::Error(data.to_string());
    }
    // OpenAI Chat Completions, and compatible servers.
    if let Some(text) = value
        .pointer("/choices/0/delta/content")
        .and_then(Value::as_str)
    {
        return if text.is_empty() {
            Said::Other
        } else {
            Said::Text(text.to_string())
        };
    }
    // Anthropic Messages.
    if value.get("type").and_then(Value::as_str) == Some("content_block_delta")
        && let Some(text) = value.pointer("/delta/text").and_then(Value::as_str)
    {
        return Said::Text(text.to_string());
    }
    Said::Other
}

/// A hand-written server-sent events reader, as most agents write one: split the bytes on
/// blank lines, keep each event's `event:` and `data:` fields.
#[derive(Default)]
pub struct Lines {
    buffer: Vec<u8>,
}

impl Lines {
    /// Feeds a chunk of bytes; returns the events it completed, as `(name, data)`.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<(String, String)> {
        self.buffer.extend_from_slice(chunk);
        let mut events = Vec::new();
        while let Some(end) = find(&self.buffer, b"\n\n") {
            let block: Vec<u8> = self.buffer.drain(..end + 2).collect();
            let text = String::from_utf8_lossy(&block);
            let (mut name, mut data) = (String::new(), Vec::new());
            for line in text.lines() {
                if let Some(v) = line.strip_prefix("event:") {
                    name = v.trim().to_string();
                } else if let Some(v) = line.strip_prefix("data:") {
                    data.push(v.strip_prefix(' ').unwrap_or(v).to_string());
                }
            }
            if !data.is_empty() {
                events.push((name, data.join("\n")));
            }
        }
        events
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_each_providers_events() {
        let openai = r#"{"choices":[{"index":0,"delta":{"content":"Hel"}}]}"#;
        assert_eq!(read_event("", openai), Said::Text("Hel".into()));
        let anthropic =
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo"}}"#;
        assert_eq!(
            read_event("content_block_delta", anthropic),
            Said::Text("lo".into())
        );
        assert_eq!(read_event("", "[DONE]"), Said::Done);
        assert_eq!(read_event("message_stop", "{}"), Said::Done);
        assert!(matches!(read_event("error", "{}"), Said::Error(_)));
        assert!(matches!(
            read_event("", r#"{"error":{"type":"server_error"}}"#),
            Said::Error(_)
        ));
        let mut lines = Lines::default();
        assert!(lines.feed(b"event: ping\ndata: {}\n").is_empty());
        assert_eq!(lines.feed(b"\ndata: [DONE]\n\n").len(), 2);
    }
}
