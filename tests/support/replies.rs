//! What the providers answer, as the framework tests serve it (OpenAI's and Anthropic's
//! documented error bodies and a completion), and what a failure is classified as.

use std::time::Duration;

use agent_error::Recovery;

/// OpenAI's rate limit.
pub const LIMITED: &str = r#"{"error":{"message":"Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 3.","type":"requests","param":null,"code":"rate_limit_exceeded"}}"#;
/// OpenAI's spent quota.
pub const SPENT: &str = r#"{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#;
/// OpenAI's context overflow.
pub const OVERFLOW: &str = r#"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#;
/// OpenAI's bad key (it names the key it was given).
pub const BAD_KEY: &str = r#"{"error":{"message":"Incorrect API key provided: sk-test.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#;
/// OpenAI's server error.
pub const SERVER_ERROR: &str = r#"{"error":{"message":"The server had an error","type":"server_error","param":null,"code":null}}"#;
/// Anthropic's overload.
pub const OVERLOADED: &str = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}"#;
/// Anthropic's spent credit balance, a 400.
pub const CREDIT: &str = r#"{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}"#;
/// An OpenAI chat completion that says "hello".
pub const COMPLETION: &str = r#"{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}"#;

/// What a failure is classified as: code, retried, recovery, wait.
pub fn verdict<E: std::error::Error + 'static>(
    e: &E,
) -> (String, bool, Recovery, Option<Duration>) {
    let c = agent_error::classify(e).unwrap_or_else(|| panic!("unclassified: {e}"));
    (
        c.code().to_string(),
        c.is_retryable(),
        c.recovery(),
        c.retry_after(),
    )
}
