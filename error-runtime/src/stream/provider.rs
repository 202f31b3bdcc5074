//! The providers whose streams a watch reads, and recognising one from its first events.

use std::fmt;

/// The API a stream comes from: it decides which event ends the stream, where the text is,
/// and how stops and errors are written.
///
/// Name it with [`Watch::provider`](super::Watch::provider), or let the watch recognise it
/// from the first event that tells (comments, Azure's empty-`choices` opener and OpenRouter's
/// `: OPENROUTER PROCESSING` lines tell nothing; an error event is read whoever sent it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Provider {
    /// OpenAI Chat Completions (`data: {"choices":[…]}` … `data: [DONE]`), and the servers
    /// that speak it: Azure OpenAI, vLLM, Ollama's `/v1`, Text Generation Inference's
    /// Messages API, OpenRouter, Groq, and the like.
    OpenAiChat,
    /// The OpenAI Responses API (`response.output_text.delta` … `response.completed`).
    OpenAiResponses,
    /// Anthropic Messages (`message_start` … `message_stop`).
    Anthropic,
    /// Google Gemini with `alt=sse` (`streamGenerateContent`), and Vertex AI's.
    Gemini,
}

impl Provider {
    /// A short lowercase name: `openai-chat`, `openai-responses`, `anthropic`, `gemini`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Provider::OpenAiChat => "openai-chat",
            Provider::OpenAiResponses => "openai-responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
        }
    }

    /// The provider an event comes from, when the event tells: its type (Anthropic's and
    /// the Responses API's events are named), else its data's shape.
    pub(super) fn recognise(name: Option<&str>, data: &str) -> Option<Provider> {
        if let Some(name) = name {
            if name.starts_with("response.") {
                return Some(Provider::OpenAiResponses);
            }
            if matches!(
                name,
                "message_start"
                    | "message_delta"
                    | "message_stop"
                    | "content_block_start"
                    | "content_block_delta"
                    | "content_block_stop"
                    | "ping"
            ) {
                return Some(Provider::Anthropic);
            }
        }
        let data = data.trim_start();
        if data.starts_with("[DONE]") {
            return Some(Provider::OpenAiChat);
        }
        if !data.starts_with('{') {
            return None;
        }
        // The document's top-level shape only: its own `"type"` (Anthropic's and the
        // Responses API's events carry it too), then its keys.
        let shape = super::read::top_shape(data);
        if let Some(kind) = &shape.kind {
            if kind.starts_with("response.") {
                return Some(Provider::OpenAiResponses);
            }
            if kind.starts_with("message_") || kind.starts_with("content_block_") {
                return Some(Provider::Anthropic);
            }
        }
        if shape.chat {
            Some(Provider::OpenAiChat)
        } else if shape.gemini {
            Some(Provider::Gemini)
        } else {
            None
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}
