//! Real enums classify as their authors meant, on shapes taken from real agent projects:
//! a cause-less variant with a code of the shared vocabulary is retried as that code is
//! (codex's `Timeout`s), a variant holding an HTTP status is retried as the status calls
//! for (rig's `InvalidStatusCode(StatusCode)`, codex-api's `Api { status }`), and a cause
//! written into a message through a `Box`, `Arc`, `Rc` or reference shows one head
//! (async-openai's `StreamError(Box<StreamError>)`).

use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use agent_error::catalog::Catalog;
use agent_error::{AgentError, Recovery};

/// codex's shapes: cause-less `Timeout` variants, which its own `is_retryable()` retries.
#[derive(Debug, AgentError)]
#[agent(op = "codex")]
enum CodexErr {
    #[error("timeout waiting for child process to exit")]
    Timeout,
    #[error("stream disconnected before completion: {0}")]
    Stream(String),
    #[error("rate limited")]
    RateLimit,
    #[error("usage limit reached")]
    #[agent(code = "budget_exhausted")]
    UsageLimitReached,
    #[error("server overloaded")]
    #[agent(code = "provider_unavailable")]
    ServerOverloaded,
}

/// codex's `SandboxErr::Timeout`, pinned: a `timeout` that must not be retried.
#[derive(Debug, AgentError)]
#[agent(op = "codex.sandbox")]
enum SandboxErr {
    #[agent(retryable = false)]
    #[error("sandbox timed out")]
    Timeout,
}

#[test]
fn a_vocabulary_code_brings_its_default_classification() {
    assert_eq!(CodexErr::Timeout.code(), "timeout");
    assert!(CodexErr::Timeout.is_retryable());
    assert_eq!(CodexErr::Timeout.recovery(), Recovery::Retry);
    assert_eq!(
        CodexErr::Timeout.retry_policy(),
        agent_error::codes::default_policy("timeout")
    );
    assert!(CodexErr::RateLimit.is_rate_limited());
    assert_eq!(
        CodexErr::RateLimit.retry_policy(),
        agent_error::RetryPolicy::RATE_LIMITED
    );
    assert!(CodexErr::ServerOverloaded.is_retryable());
    // Codes outside the vocabulary, or that it does not retry, are not retried.
    assert!(!CodexErr::Stream("reset".into()).is_retryable());
    assert!(!CodexErr::UsageLimitReached.is_retryable());
    // `retryable = false` pins a vocabulary code as never retried.
    assert_eq!(SandboxErr::Timeout.code(), "timeout");
    assert!(!SandboxErr::Timeout.is_retryable());
    // One code, one answer: the derived `timeout` is retried as a dynamic one is.
    let dynamic = agent_error::Error::new("codex", "timeout", "timed out");
    assert_eq!(CodexErr::Timeout.is_retryable(), dynamic.is_retryable());
}

/// One variant a code of the vocabulary, each saying nothing about retrying or recovering.
#[derive(Debug, AgentError)]
#[agent(op = "llm")]
enum EveryCode {
    #[error("x")]
    RateLimit,
    #[agent(code = "auth_error")]
    #[error("x")]
    Auth,
    #[error("x")]
    Timeout,
    #[error("x")]
    InvalidInput,
    #[error("x")]
    ToolFailed,
    #[error("x")]
    ProviderUnavailable,
    #[error("x")]
    GuardBlocked,
    #[error("x")]
    BudgetExhausted,
    #[error("x")]
    NotFound,
    #[error("x")]
    ContextOverflow,
    #[error("x")]
    StreamInterrupted,
    #[error("x")]
    OutputTruncated,
    #[error("x")]
    ContentFiltered,
    #[error("x")]
    InvalidOutput,
    #[error("x")]
    RequestTooLarge,
}

/// The derive and the runtime read one table: every code of the vocabulary is retried by a
/// derived variant as by a dynamic `Error` and `codes::default_policy`.
#[test]
fn every_vocabulary_code_is_retried_as_the_runtime_retries_it() {
    use EveryCode::*;
    let derived = [
        RateLimit,
        Auth,
        Timeout,
        InvalidInput,
        ToolFailed,
        ProviderUnavailable,
        GuardBlocked,
        BudgetExhausted,
        NotFound,
        ContextOverflow,
        StreamInterrupted,
        OutputTruncated,
        ContentFiltered,
        InvalidOutput,
        RequestTooLarge,
    ];
    let codes: Vec<&str> = derived.iter().map(|e| e.code()).collect();
    assert_eq!(codes, agent_error::codes::ALL);
    for e in &derived {
        let dynamic = agent_error::Error::new("llm", e.code().to_owned(), "x");
        assert_eq!(
            e.retry_policy(),
            agent_error::codes::default_policy(e.code()),
            "{}",
            e.code()
        );
        assert_eq!(e.retry_policy(), dynamic.retry_policy(), "{}", e.code());
    }
    assert_eq!(InvalidOutput.retry_policy().max_attempts(), 2);
}

/// The enum's `retry(...)` tunes what a vocabulary code retries, as it tunes `retryable`.
#[derive(Debug, AgentError)]
#[agent(op = "llm", retry(attempts = 5, base = "50ms"))]
enum Tuned {
    #[error("timed out")]
    Timeout,
    #[agent(code = "invalid_output")]
    #[error("malformed tool call")]
    MalformedCall,
    #[error("not found")]
    NotFound,
}

#[test]
fn the_enums_retry_tuning_applies_to_a_vocabulary_code() {
    let policy = Tuned::Timeout.retry_policy();
    assert_eq!(
        (policy.max_attempts(), policy.base_delay()),
        (5, Duration::from_millis(50))
    );
    // The enum's attempts win over the code's own (once, for `invalid_output`).
    assert_eq!(Tuned::MalformedCall.retry_policy().max_attempts(), 5);
    assert_eq!(
        CodexErr::Stream("x".into()).retry_policy(),
        agent_error::RetryPolicy::NEVER
    );
    // A vocabulary code that is not retried keeps the default recovery.
    assert_eq!(Tuned::NotFound.code(), "not_found");
    assert!(!Tuned::NotFound.is_retryable());
    assert_eq!(Tuned::NotFound.recovery(), Recovery::Abort);
}

/// A namespaced code is the namespace's own: `codex.timeout` is not the vocabulary's.
#[derive(Debug, AgentError)]
#[agent(op = "codex", namespace = "codex")]
enum Namespaced {
    #[error("timed out")]
    Timeout,
}

#[test]
fn a_namespaced_code_is_not_the_vocabularys() {
    assert_eq!(Namespaced::Timeout.code(), "codex.timeout");
    assert!(!Namespaced::Timeout.is_retryable());
}

/// rig's, codex-api's and async-openai's shapes: variants that hold a status.
#[derive(Debug, AgentError)]
#[agent(op = "http")]
enum HttpError {
    #[error("invalid status code: {0}")]
    InvalidStatusCode(http::StatusCode),
    #[error("api error {status}: {message}")]
    Api {
        #[status]
        status: u16,
        message: String,
        #[retry_after]
        retry_after: Option<Duration>,
    },
    /// A status with a cause: the cause decides.
    #[error("request failed with {status}")]
    Failed {
        status: http::StatusCode,
        #[source]
        source: std::io::Error,
    },
    /// Said outright: the status is only reported.
    #[agent(retryable = false, status = 502)]
    #[error("bad gateway {0}")]
    Gateway(http::StatusCode),
}

#[test]
fn a_held_status_classifies_as_that_status_would() {
    let status = |s| HttpError::InvalidStatusCode(http::StatusCode::from_u16(s).unwrap());
    assert!(status(503).is_retryable());
    assert!(!status(503).is_rate_limited());
    assert_eq!(status(503).recovery(), Recovery::Retry);
    assert!(status(429).is_rate_limited());
    assert!(status(408).is_retryable());
    assert!(!status(404).is_retryable());
    assert_eq!(status(404).recovery(), Recovery::Abort);
    assert_eq!(status(503).status(), Some(503));

    let api = |status, retry_after| HttpError::Api {
        status,
        message: "slow down".into(),
        retry_after,
    };
    let throttled = api(429, Some(Duration::from_secs(7)));
    assert!(throttled.is_rate_limited());
    assert_eq!(throttled.retry_after(), Some(Duration::from_secs(7)));
    assert_eq!(
        throttled.retry_policy().retry_after(),
        Some(Duration::from_secs(7))
    );
    assert!(!api(400, None).is_retryable());
    assert_eq!(api(400, None).status(), Some(400));

    // A cause wins over the status: a refused connection is retried, whatever the 404.
    let failed = HttpError::Failed {
        status: http::StatusCode::NOT_FOUND,
        source: std::io::Error::from(std::io::ErrorKind::ConnectionRefused),
    };
    assert!(failed.is_retryable());
    // Its status is still the one it holds.
    assert_eq!(failed.status(), Some(404));
    let failed = HttpError::Failed {
        status: http::StatusCode::SERVICE_UNAVAILABLE,
        source: std::io::Error::other("unclassified"),
    };
    assert!(!failed.is_retryable());

    let gateway = HttpError::Gateway(http::StatusCode::SERVICE_UNAVAILABLE);
    assert!(!gateway.is_retryable());
    assert_eq!(gateway.status(), Some(502));
}

/// A status that may be absent, as a client keeps `reqwest::Error::status()`: an
/// `Option<StatusCode>`, or an `Option<u16>` marked `#[status]`.
#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum MaybeStatus {
    #[error("request failed")]
    Request { status: Option<http::StatusCode> },
    #[error("api error")]
    Api {
        #[status]
        code: Option<u16>,
        #[retry_after]
        retry_after: Option<Duration>,
    },
    /// No status held: a code of the vocabulary classifies it, as without the field.
    #[error("deadline exceeded")]
    Timeout(Option<http::StatusCode>),
}

#[test]
fn a_status_that_may_be_absent_classifies_when_present() {
    let request = |s: Option<u16>| MaybeStatus::Request {
        status: s.map(|s| http::StatusCode::from_u16(s).unwrap()),
    };
    assert!(request(Some(503)).is_retryable());
    assert_eq!(request(Some(503)).recovery(), Recovery::Retry);
    assert!(request(Some(429)).is_rate_limited());
    assert!(!request(Some(404)).is_retryable());
    assert_eq!(request(Some(404)).status(), Some(404));
    // Absent, and the code (`request`) is not the vocabulary's: never retried.
    assert!(!request(None).is_retryable());
    assert!(!request(None).retry_policy().is_retryable());
    assert_eq!(request(None).recovery(), Recovery::Abort);
    assert_eq!(request(None).status(), None);

    let api = |code, retry_after| MaybeStatus::Api { code, retry_after };
    let throttled = api(Some(429), Some(Duration::from_secs(3)));
    assert!(throttled.is_rate_limited());
    assert_eq!(
        throttled.retry_policy().retry_after(),
        Some(Duration::from_secs(3))
    );
    assert_eq!(throttled.status(), Some(429));
    assert!(!api(None, None).is_retryable());
    assert_eq!(api(None, None).status(), None);

    let timeout =
        |s: Option<u16>| MaybeStatus::Timeout(s.map(|s| http::StatusCode::from_u16(s).unwrap()));
    // The status decides when there is one: a 404 is not retried, even for `timeout`.
    assert!(!timeout(Some(404)).is_retryable());
    assert!(timeout(Some(504)).is_retryable());
    // Without one, the vocabulary's `timeout` is.
    assert!(timeout(None).is_retryable());
    assert!(timeout(None).retry_policy().is_retryable());
    assert!(!timeout(None).is_rate_limited());
    assert_eq!(timeout(None).recovery(), Recovery::Retry);
    assert_eq!(timeout(None).status(), None);

    let entry = |code: &str| MaybeStatus::CODES.iter().find(|d| d.code == code).unwrap();
    assert!(entry("request").retry_from_status);
    assert!(entry("timeout").retry_from_status);
    assert!(!entry("timeout").retry_from_code);
}

#[test]
fn the_catalog_says_which_rule_decides() {
    let entry = |code: &str| {
        HttpError::CODES
            .iter()
            .chain(CodexErr::CODES)
            .find(|d| d.code == code)
            .unwrap()
    };
    let status = entry("invalid_status_code");
    assert!(status.retry_from_status && !status.retry_from_code);
    assert_eq!(status.status, None);
    assert!(entry("api").retry_from_status);
    assert!(!entry("gateway").retry_from_status);
    assert!(!entry("failed").retry_from_status);
    assert_eq!(
        status.retry_in_words(),
        "as its status: rate-limited on 429, retried on 408, 498 and 5xx with the default policy, not retried on any other"
    );
    let timeout = entry("timeout");
    assert!(timeout.retry_from_code && timeout.retryable);
    assert_eq!(timeout.recovery, Recovery::Retry);
    assert_eq!(
        timeout.retry_in_words(),
        "as its code: retried up to 3 attempts, 200ms doubling to 30s, full jitter; honours Retry-After up to 60s"
    );
    assert!(!entry("budget_exhausted").retry_from_code);

    let markdown = agent_error::catalog::markdown(&[status, timeout]);
    assert!(
        markdown.contains("- **Recovery:** as its status (retry when it is retried, else abort)"),
        "{markdown}"
    );
    let prompt = agent_error::catalog::prompt(&[status, timeout]);
    assert!(
        prompt.contains(
            "- invalid_status_code (retry as its status says: 429 later, 408, 498 and 5xx again): "
        ),
        "{prompt}"
    );
    assert!(
        prompt.contains("- timeout (retry; recovery: retry): "),
        "{prompt}"
    );
}

/// async-openai's shape: a derived cause boxed inside the message of another.
#[derive(Debug, AgentError)]
#[agent(op = "async-openai")]
enum StreamError {
    #[error("EventStream error: {0}")]
    EventStream(String),
}

#[derive(Debug, AgentError)]
#[agent(op = "async-openai")]
enum OpenAIError {
    #[error("stream failed: {0}")]
    Boxed(Box<StreamError>),
    #[error("stream failed: {0}")]
    Shared(Arc<StreamError>),
    #[error("stream failed: {0}")]
    Counted(Rc<StreamError>),
    #[error("stream failed: {0}")]
    Borrowed(&'static StreamError),
}

#[test]
fn a_cause_written_through_a_pointer_shows_one_head() {
    let inner = || StreamError::EventStream("connection reset".into());
    let borrowed: &'static StreamError = Box::leak(Box::new(inner()));
    for e in [
        OpenAIError::Boxed(Box::new(inner())),
        OpenAIError::Shared(Arc::new(inner())),
        OpenAIError::Counted(Rc::new(inner())),
        OpenAIError::Borrowed(borrowed),
    ] {
        let code = e.code().to_owned();
        assert_eq!(
            e.to_string(),
            format!("async-openai [{code}]: stream failed: EventStream error: connection reset")
        );
        assert_eq!(
            e.message(),
            "stream failed: EventStream error: connection reset"
        );
    }
}
