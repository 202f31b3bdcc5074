//! The providers' streams as their public documentation shows them, whole and in pieces,
//! each fixture named after the document its shape comes from; and the reading of one
//! served over loopback, with the exact ending a test expects of it ([`Case`]).

use agent_error::stream::{Provider, StreamError};
use agent_error::{AgentError, Recovery};

use super::sse::{Ended, Framing, Script, drain, events, open, serve};

// OpenAI Chat Completions: the chunk object of the API reference ("The chat completion chunk
// object"), a role chunk, content chunks, the `finish_reason` chunk, the usage chunk that
// `stream_options.include_usage` adds (empty `choices`), then `data: [DONE]`.
pub const CHAT: &str = r#"data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"delta":{"content":" world"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}

data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","system_fingerprint":"fp_44709d6fcb","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}

data: [DONE]

"#;

// Azure OpenAI: the content-filtering guide's stream, whose first chunk has empty `choices`
// and the `prompt_filter_results`; each choice carries `content_filter_results`.
pub const AZURE: &str = r#"data: {"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{"hate":{"filtered":false,"severity":"safe"},"self_harm":{"filtered":false,"severity":"safe"},"sexual":{"filtered":false,"severity":"safe"},"violence":{"filtered":false,"severity":"safe"}}}]}

data: {"choices":[{"content_filter_results":{},"delta":{"content":"","role":"assistant"},"finish_reason":null,"index":0,"logprobs":null}],"created":1727196342,"id":"chatcmpl-1","model":"gpt-4o-2024-08-06","object":"chat.completion.chunk","system_fingerprint":"fp_1"}

data: {"choices":[{"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}},"delta":{"content":"Hi"},"finish_reason":null,"index":0,"logprobs":null}],"created":1727196342,"id":"chatcmpl-1","model":"gpt-4o-2024-08-06","object":"chat.completion.chunk","system_fingerprint":"fp_1"}

data: {"choices":[{"content_filter_results":{},"delta":{},"finish_reason":"stop","index":0,"logprobs":null}],"created":1727196342,"id":"chatcmpl-1","model":"gpt-4o-2024-08-06","object":"chat.completion.chunk","system_fingerprint":"fp_1"}

data: [DONE]

"#;

// The Responses API: the streaming guide's events (`response.created` …
// `response.output_text.delta` … `response.completed`), as the API reference writes them.
pub const RESPONSES: &str = r#"event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_123","object":"response","created_at":1741290958,"status":"in_progress","error":null,"incomplete_details":null,"model":"gpt-4.1-2025-04-14","output":[],"usage":null}}

event: response.in_progress
data: {"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_123","object":"response","status":"in_progress","error":null,"output":[]}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"id":"msg_123","type":"message","status":"in_progress","role":"assistant","content":[]}}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":3,"item_id":"msg_123","output_index":0,"content_index":0,"delta":"Hi"}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_123","output_index":0,"content_index":0,"delta":" there"}

event: response.output_text.done
data: {"type":"response.output_text.done","sequence_number":5,"item_id":"msg_123","output_index":0,"content_index":0,"text":"Hi there"}

event: response.completed
data: {"type":"response.completed","sequence_number":6,"response":{"id":"resp_123","object":"response","status":"completed","error":null,"incomplete_details":null,"output":[{"id":"msg_123","type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi there","annotations":[]}]}],"usage":{"input_tokens":12,"output_tokens":2,"total_tokens":14}}}

"#;

// Anthropic Messages: the "Streaming Messages" guide's basic stream, spaces and all.
pub const ANTHROPIC: &str = r#"event: message_start
data: {"type": "message_start", "message": {"id": "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY", "type": "message", "role": "assistant", "content": [], "model": "claude-opus-4-1-20250805", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 25, "output_tokens": 1}}}

event: content_block_start
data: {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello"}}

event: content_block_delta
data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "!"}}

event: content_block_stop
data: {"type": "content_block_stop", "index": 0}

event: message_delta
data: {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence":null}, "usage": {"output_tokens": 15}}

event: message_stop
data: {"type": "message_stop"}

"#;

// Gemini `streamGenerateContent?alt=sse`: the API reference's `GenerateContentResponse`
// chunks, the last with `finishReason` and the full `usageMetadata`. Served with CRLF line
// ends, as generativelanguage.googleapis.com sends them.
pub const GEMINI: &str = r#"data: {"candidates": [{"content": {"parts": [{"text": "The sky"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 8,"totalTokenCount": 8},"modelVersion": "gemini-2.0-flash"}

data: {"candidates": [{"content": {"parts": [{"text": " is blue."}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 8,"candidatesTokenCount": 5,"totalTokenCount": 13},"modelVersion": "gemini-2.0-flash"}

"#;

// OpenRouter: the streaming guide's `: OPENROUTER PROCESSING` comments, then Chat chunks.
pub const OPENROUTER: &str = r#": OPENROUTER PROCESSING

: OPENROUTER PROCESSING

data: {"id":"gen-1","provider":"OpenAI","model":"openai/gpt-4o","object":"chat.completion.chunk","created":1741290958,"choices":[{"index":0,"delta":{"role":"assistant","content":"Hey"},"finish_reason":null,"native_finish_reason":null,"logprobs":null}]}

data: {"id":"gen-1","provider":"OpenAI","model":"openai/gpt-4o","object":"chat.completion.chunk","created":1741290958,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"stop","native_finish_reason":"stop","logprobs":null}]}

data: {"id":"gen-1","provider":"OpenAI","model":"openai/gpt-4o","object":"chat.completion.chunk","created":1741290958,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null,"native_finish_reason":null,"logprobs":null}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}

data: [DONE]

"#;

/// The chunks of a Gemini fixture with CRLF line ends.
pub fn crlf(fixture: &str) -> Vec<String> {
    events(fixture)
        .into_iter()
        .map(|event| event.replace('\n', "\r\n"))
        .collect()
}

/// Serves `pieces`, one chunk each, and reads them through a watch that keeps 1 KiB of text.
pub async fn watch_chunked<B: AsRef<[u8]>>(pieces: impl IntoIterator<Item = B>) -> (Ended, Seen) {
    let server = serve(Script::ok(Framing::Chunked).send_all(pieces)).await;
    let mut watch = open(&server).await.keep_text(1024);
    let ended = drain(&mut watch).await;
    let seen = Seen {
        provider: watch.recognised(),
        complete: watch.is_complete(),
        stop: watch.stop_reason().map(str::to_owned),
        text: watch.partial_text().map(str::to_owned),
        events: watch.delivered().events(),
        content: watch.delivered().content_events(),
        bytes: watch.delivered().text_bytes(),
    };
    (ended, seen)
}

/// What the watch said at its end.
#[derive(Debug, PartialEq, Eq)]
pub struct Seen {
    pub provider: Option<Provider>,
    pub complete: bool,
    pub stop: Option<String>,
    pub text: Option<String>,
    pub events: u64,
    pub content: u64,
    pub bytes: u64,
}

pub fn seen(provider: Provider, complete: bool, stop: &str, text: &str, counts: [u64; 3]) -> Seen {
    Seen {
        provider: Some(provider),
        complete,
        stop: (!stop.is_empty()).then(|| stop.to_owned()),
        text: Some(text.to_owned()),
        events: counts[0],
        content: counts[1],
        bytes: counts[2],
    }
}

pub fn own(pieces: Vec<&str>) -> Vec<String> {
    pieces.into_iter().map(str::to_owned).collect()
}

// Pieces of streams, each from the same documents as the whole streams above.

// Anthropic: the opening events of the guide's stream (no content), one text delta, and its
// closing events with a stop reason; the guide's `event: error` with `overloaded_error`.
pub const A_OPEN: &str = r#"event: message_start
data: {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "claude-opus-4-1-20250805", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 25, "output_tokens": 1}}}

event: ping
data: {"type": "ping"}

"#;
pub const A_HELLO: &str = r#"event: content_block_delta
data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello"}}

"#;
pub const A_OVERLOADED: &str = r#"event: error
data: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}

"#;

/// Anthropic's closing events with `stop_reason` (the guide's `message_delta`, then
/// `message_stop`; the reasons are the API reference's `stop_reason` values).
pub fn a_stop(reason: &str) -> String {
    format!(
        "event: message_delta\ndata: {{\"type\": \"message_delta\", \"delta\": {{\"stop_reason\": \"{reason}\", \"stop_sequence\":null}}, \"usage\": {{\"output_tokens\": 15}}}}\n\n\
         event: message_stop\ndata: {{\"type\": \"message_stop\"}}\n\n"
    )
}

// Chat Completions: a text chunk and a finish chunk of the chunk object; the error object
// OpenAI writes mid-stream (`{"error": {…}}`, then `[DONE]`), as its SDKs read it.
pub const C_HELLO: &str = r#"data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}]}

"#;
pub const C_ERROR: &str = r#"data: {"error": {"message": "The server had an error while processing your request. Sorry about that!", "type": "server_error", "param": null, "code": null}}

"#;
pub const DONE: &str = "data: [DONE]\n\n";

/// OpenAI's 429 body (its error codes guide: `rate_limit_exceeded`).
pub const RATE_LIMITED_BODY: &str = r#"{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}"#;

/// A Chat finish chunk with `finish_reason`.
pub fn c_finish(reason: &str) -> String {
    format!(
        "data: {{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o-mini\",\"choices\":[{{\"index\":0,\"delta\":{{}},\"logprobs\":null,\"finish_reason\":\"{reason}\"}}]}}\n\n"
    )
}

// A Chat chunk whose `delta.refusal` carries text (structured outputs' refusals).
pub const C_REFUSAL: &str = r#"data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"refusal":"I'm sorry, I can't help with that."},"logprobs":null,"finish_reason":null}]}

"#;

// Responses API: `response.created`; the `error` event as the API reference documents it
// (flat `code` and `message`), with OpenAI's rate-limit message; `response.failed` with
// `response.error`; `response.incomplete` with `incomplete_details.reason`.
pub const R_CREATED: &str = r#"event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","error":null,"output":[]}}

"#;
pub const R_HI: &str = r#"event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi"}

"#;
pub const R_RATE_LIMITED: &str = r#"event: error
data: {"type":"error","code":"rate_limit_exceeded","message":"Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 29000, Requested 1500. Please try again in 11.054s. Visit https://platform.openai.com/account/rate-limits to learn more.","param":null,"sequence_number":2}

"#;
pub const R_FAILED: &str = r#"event: response.failed
data: {"type":"response.failed","sequence_number":2,"response":{"id":"resp_1","object":"response","status":"failed","error":{"code":"server_error","message":"The model failed to generate a response."},"incomplete_details":null,"output":[]}}

"#;
pub const R_INCOMPLETE: &str = r#"event: response.incomplete
data: {"type":"response.incomplete","sequence_number":2,"response":{"id":"resp_1","object":"response","status":"incomplete","error":null,"incomplete_details":{"reason":"max_output_tokens"},"output":[]}}

"#;

// Gemini: a text chunk; a last chunk with `finishReason` (the `FinishReason` enum); a blocked
// prompt (`promptFeedback.blockReason`, no candidates); and the error document Google writes
// pretty-printed, unframed, after a chunk (`google.rpc.Status` in `error`).
pub const G_TEXT: &str = r#"data: {"candidates": [{"content": {"parts": [{"text": "Once"}],"role": "model"},"index": 0}],"modelVersion": "gemini-2.0-flash"}

"#;
pub const G_BLOCKED: &str = r#"data: {"promptFeedback": {"blockReason": "OTHER"},"usageMetadata": {"promptTokenCount": 8,"totalTokenCount": 8},"modelVersion": "gemini-2.0-flash"}

"#;
pub const G_UNAVAILABLE: &str = r#"{
  "error": {
    "code": 503,
    "message": "The model is overloaded. Please try again later.",
    "status": "UNAVAILABLE"
  }
}
"#;

/// A Gemini last chunk with `finishReason`.
pub fn g_finish(reason: &str) -> String {
    format!(
        "data: {{\"candidates\": [{{\"content\": {{\"parts\": [{{\"text\": \"\"}}],\"role\": \"model\"}},\"finishReason\": \"{reason}\",\"index\": 0}}],\"usageMetadata\": {{\"promptTokenCount\": 8,\"totalTokenCount\": 9}},\"modelVersion\": \"gemini-2.0-flash\"}}\n\n"
    )
}

// vLLM's mid-stream error (`create_streaming_error_response`: the `ErrorResponse` under
// `error`, `json.dumps` spacing), then `[DONE]`.
pub const VLLM_ERROR: &str = r#"data: {"error": {"object": "error", "message": "The engine died unexpectedly.", "type": "InternalServerError", "param": null, "code": 500}}

"#;
// TGI's Messages API: `data:` with no space (axum's `Event::json_data`), an `ErrorEvent`.
pub const TGI_HELLO: &str = r#"data:{"object":"chat.completion.chunk","id":"","created":1725000000,"model":"tgi","system_fingerprint":"2.2.0-native","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"},"logprobs":null,"finish_reason":null}]}

"#;
pub const TGI_ERROR: &str = r#"data:{"error":"Request failed during generation: Server error: CUDA out of memory. Tried to allocate 2.00 GiB","error_type":"generation"}

"#;
// OpenRouter's mid-stream error chunk: its errors guide shows `"code": "server_error"` in
// the chunk; its `ErrorResponse` type has a numeric `code` (as the brief's `502`). Both.
pub const OR_PROCESSING: &str = ": OPENROUTER PROCESSING\n\n";
pub const OPENROUTER_ERROR_NAMED: &str = r#"data: {"id":"cmpl-abc123","object":"chat.completion.chunk","created":1234567890,"model":"gpt-3.5-turbo","provider":"openai","error":{"code":"server_error","message":"Provider disconnected unexpectedly"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}

"#;
pub const OPENROUTER_ERROR_NUMBERED: &str = r#"data: {"id":"cmpl-abc123","object":"chat.completion.chunk","created":1234567890,"model":"gpt-3.5-turbo","provider":"openai","error":{"code":502,"message":"Provider disconnected"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}

"#;
// Ollama's `/v1` (its OpenAI middleware writes the `ErrorResponse` as a chunk).
pub const OLLAMA_ERROR: &str = r#"data: {"error":{"message":"model runner has unexpectedly stopped","type":"api_error","param":null,"code":null}}

"#;

/// One failing stream: what it is made of, and exactly how it must end.
pub struct Case {
    pub name: &'static str,
    pub pieces: Vec<String>,
    pub code: &'static str,
    pub retryable: bool,
    pub recovery: Recovery,
    /// Events yielded before the error.
    pub events: usize,
    pub text: &'static str,
    pub provider: Option<Provider>,
}

pub fn case(name: &'static str, pieces: &[&str], code: &'static str, retryable: bool) -> Case {
    Case {
        name,
        pieces: pieces
            .iter()
            .flat_map(|p| events(p))
            .map(str::to_owned)
            .collect(),
        code,
        retryable,
        recovery: if retryable {
            Recovery::Retry
        } else {
            Recovery::Continue
        },
        events: 0,
        text: "",
        provider: None,
    }
}

impl Case {
    pub fn yielded(mut self, events: usize, text: &'static str, provider: Provider) -> Case {
        (self.events, self.text, self.provider) = (events, text, Some(provider));
        self
    }

    pub fn recovery(mut self, recovery: Recovery) -> Case {
        self.recovery = recovery;
        self
    }

    pub async fn check(self) -> StreamError {
        let name = self.name;
        let (mut ended, seen) = watch_chunked(&self.pieces).await;
        assert_eq!(
            ended.events.len(),
            self.events,
            "{name}: {:?}",
            ended.events
        );
        let e = ended
            .error
            .take()
            .unwrap_or_else(|| panic!("{name}: no error"));
        assert_eq!(
            (e.code(), e.is_retryable(), e.recovery()),
            (self.code, self.retryable, self.recovery),
            "{name}: {e}"
        );
        assert_eq!(e.provider(), self.provider, "{name}");
        assert_eq!(e.delivered().events(), self.events as u64, "{name}");
        assert_eq!(e.delivered().is_empty(), self.text.is_empty(), "{name}");
        assert_eq!(e.delivered().text_bytes(), self.text.len() as u64, "{name}");
        assert_eq!(e.partial_text(), Some(self.text), "{name}");
        assert_eq!(seen.provider, self.provider, "{name}");
        e
    }
}

// More shapes, from the same documents.

// The Responses `error` event as sent (nested under `error`, which is read too).
pub const R_RATE_LIMITED_NESTED: &str = r#"event: error
data: {"type":"error","sequence_number":2,"error":{"type":"tokens","code":"rate_limit_exceeded","message":"Rate limit reached for gpt-4o. Please try again in 11.054s.","param":null}}

"#;
// OpenRouter's chunk with `finish_reason: "error"` and no error object.
pub const OR_ERROR_STOP: &str = r#"data: {"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"openai/gpt-4o","choices":[{"index":0,"delta":{"content":""},"finish_reason":"error","native_finish_reason":"error"}]}

"#;
// TGI's error event with the status it would have answered (`http_status_code`, 422 for a
// failed generation): the name that says server fault wins over the generic 4xx.
pub const TGI_ERROR_422: &str = r#"data:{"error":"Request failed during generation: Server error: CUDA out of memory","error_type":"generation","http_status_code":422}

"#;
// A Chat tool call's argument delta (the chunk object's `delta.tool_calls`).
pub const C_TOOL_ARGS: &str = r#"data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]},"logprobs":null,"finish_reason":null}]}

"#;
// Anthropic's extended-thinking delta and a tool use's `input_json_delta` (streaming guide).
pub const A_THINKING: &str = r#"event: content_block_delta
data: {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Let me"}}

"#;
pub const A_TOOL_JSON: &str = r#"event: content_block_delta
data: {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"loc"}}

"#;
// Gemini's thought summary (`thinkingConfig.includeThoughts`: a part marked `"thought": true`)
// before the answer's part, in one chunk.
pub const G_THOUGHT: &str = r#"data: {"candidates": [{"content": {"parts": [{"text": "**Weighing the sky**", "thought": true},{"text": "Blue"}],"role": "model"},"index": 0}],"modelVersion": "gemini-2.5-flash"}

"#;
// The Responses API's function call argument delta (`response.function_call_arguments.delta`).
pub const R_TOOL_ARGS: &str = r#"event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","sequence_number":2,"item_id":"fc_1","output_index":0,"delta":"{\"city\":"}

"#;
