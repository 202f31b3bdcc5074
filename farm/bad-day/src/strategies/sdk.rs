//! async-openai with its built-in retry: the SDK retries a 429 (unless `insufficient_quota`),
//! a 5xx and a connection error before the stream opens, up to 3 times, honouring
//! `Retry-After` in whole seconds; a stream that fails after it opened is the caller's.

use std::collections::HashMap;
use std::sync::Mutex;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::types::chat::{ChatCompletionRequestMessage, CreateChatCompletionRequestArgs};
use futures_util::StreamExt;

use super::{Call, CallFuture, Env, Replica, Show, Strategy};
use crate::sse::MODEL;

/// async-openai, as its README sets it up.
pub struct Sdk;

impl Strategy for Sdk {
    fn name(&self) -> &'static str {
        "async-openai built-in retry"
    }

    fn follows(&self) -> &'static str {
        "async-openai's README and chat-stream example (`Client::with_config`, `create_stream`); its default retry layer (3 retries of 429, 5xx and connect errors before the stream opens); no fallback: its client is bound to one base URL and speaks OpenAI's protocol only"
    }

    fn replica(&self, env: &Env) -> Box<dyn Replica> {
        Box::new(OpenAiSdk {
            env: env.clone(),
            http: crate::sse::client(),
            clients: Mutex::new(HashMap::new()),
        })
    }
}

struct OpenAiSdk {
    env: Env,
    http: reqwest::Client,
    /// One SDK client for each provider and key, sharing one connection pool.
    clients: Mutex<HashMap<(String, String), Client<OpenAIConfig>>>,
}

impl OpenAiSdk {
    fn client(&self, base: &str, key: &str) -> Client<OpenAIConfig> {
        let mut clients = self
            .clients
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        clients
            .entry((base.to_string(), key.to_string()))
            .or_insert_with(|| {
                let config = OpenAIConfig::new().with_api_base(base).with_api_key(key);
                Client::build(self.http.clone(), config)
            })
            .clone()
    }
}

impl Replica for OpenAiSdk {
    fn call<'a>(&'a self, call: Call<'a>, show: Show<'a>) -> CallFuture<'a> {
        Box::pin(async move {
            // The SDK speaks OpenAI's API: the loop's provider is OpenAI or a compatible one.
            let client = self.client(self.env.url(call.primary), call.key);
            let request = CreateChatCompletionRequestArgs::default()
                .model(MODEL)
                .max_completion_tokens(1024u32)
                .messages([ChatCompletionRequestMessage::User(call.prompt.into())])
                .build()
                .map_err(|e| e.to_string())?;
            let mut stream = client
                .chat()
                .create_stream(request)
                .await
                .map_err(|e| e.to_string())?;
            while let Some(chunk) = stream.next().await {
                let chunk = chunk.map_err(|e| e.to_string())?;
                for choice in &chunk.choices {
                    if let Some(text) = choice.delta.content.as_deref().filter(|t| !t.is_empty()) {
                        show.show(text);
                    }
                }
            }
            Ok(())
        })
    }
}
