//! `axum::ApiError` in a real axum server on 127.0.0.1, called with a real reqwest client
//! (SPEC §6, §8): exact status, headers and problem+json body; `#[redact]` fields and the
//! text of foreign causes never reach the wire.
#![cfg(feature = "axum")]

use std::time::Duration;

use agent_error::AgentError;
use agent_error::axum::ApiError;
use agent_error::http::StatusError;
use axum::Router;
use axum::routing::get;

const CANARY: &str = "canary-4242@example.com";
const SECRET: &str = "/srv/db/secret.sqlite";

#[derive(Debug, AgentError)]
#[agent(op = "orders.get")]
enum OrderError {
    #[agent(code = "rate_limit", rate_limited, hint = "lower the request rate")]
    #[error("too many lookups")]
    Throttled {
        #[retry_after]
        after: Duration,
    },
    #[agent(code = "not_found")]
    #[error("no order {id} for {customer}")]
    Missing {
        id: u64,
        #[redact]
        customer: String,
    },
    #[agent(code = "tool_failed", status = 502)]
    #[error("the warehouse did not answer")]
    Upstream {
        #[source]
        source: std::io::Error,
    },
}

async fn throttled() -> Result<String, ApiError> {
    Err(OrderError::Throttled {
        after: Duration::from_millis(1500),
    })?
}

async fn missing() -> Result<String, ApiError> {
    let lookup: Result<String, OrderError> = Err(OrderError::Missing {
        id: 7,
        customer: CANARY.into(),
    });
    Ok(lookup?)
}

async fn upstream() -> Result<String, ApiError> {
    Err(OrderError::Upstream {
        source: std::io::Error::other(SECRET),
    })?
}

async fn overloaded() -> Result<String, ApiError> {
    Err(StatusError::new(503).with_retry_after(Duration::from_millis(250)))?
}

async fn foreign_timeout() -> Result<String, ApiError> {
    let io = std::io::Error::new(std::io::ErrorKind::TimedOut, SECRET);
    Err(ApiError::from_error(&io))
}

async fn foreign_unclassified() -> Result<String, ApiError> {
    Err(ApiError::from_error(&std::io::Error::other(SECRET)))
}

/// A report relayed from another service, which says `status`.
fn relayed(status: u16) -> Result<String, ApiError> {
    let json = format!(
        r#"{{"op":"orders.get","code":"tool_failed","message":"upstream said so","status":{status}}}"#
    );
    let report: agent_error::Report = serde_json::from_str(&json).unwrap();
    Err(report)?
}

async fn relayed_200() -> Result<String, ApiError> {
    relayed(200)
}

async fn relayed_101() -> Result<String, ApiError> {
    relayed(101)
}

async fn relayed_304() -> Result<String, ApiError> {
    relayed(304)
}

/// A 429 whose `Retry-After` saturated to `Duration::MAX` when it was read.
async fn forever() -> Result<String, ApiError> {
    Err(StatusError::new(429).with_retry_after(Duration::MAX))?
}

async fn ok() -> Result<String, ApiError> {
    Ok("fine".into())
}

#[derive(Debug, PartialEq)]
struct Answer {
    status: u16,
    content_type: Option<String>,
    retry_after: Option<String>,
    body: String,
}

/// Serves the handlers on 127.0.0.1 and GETs `path` from them.
async fn call(path: &str) -> Answer {
    let app = Router::new()
        .route("/throttled", get(throttled))
        .route("/missing", get(missing))
        .route("/upstream", get(upstream))
        .route("/overloaded", get(overloaded))
        .route("/foreign/timeout", get(foreign_timeout))
        .route("/foreign/unclassified", get(foreign_unclassified))
        .route("/relayed/200", get(relayed_200))
        .route("/relayed/101", get(relayed_101))
        .route("/relayed/304", get(relayed_304))
        .route("/forever", get(forever))
        .route("/ok", get(ok));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let response = tokio::time::timeout(
        Duration::from_secs(10),
        client.get(format!("{base}{path}")).send(),
    )
    .await
    .expect("answered within 10 s")
    .unwrap();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    };
    Answer {
        status: response.status().as_u16(),
        content_type: header("content-type"),
        retry_after: header("retry-after"),
        body: response.text().await.unwrap(),
    }
}

const PROBLEM: Option<&str> = Some("application/problem+json");

/// A problem+json answer: `status`, its `Retry-After` header and its body.
fn problem(status: u16, retry_after: Option<&str>, body: &str) -> Answer {
    Answer {
        status,
        content_type: PROBLEM.map(String::from),
        retry_after: retry_after.map(String::from),
        body: body.to_string(),
    }
}

#[tokio::test]
async fn a_rate_limit_answers_429_with_retry_after_rounded_up() {
    assert_eq!(
        call("/throttled").await,
        problem(
            429,
            Some("2"),
            r#"{"type":"about:blank","title":"rate_limit","status":429,"detail":"too many lookups","code":"rate_limit","op":"orders.get","retryable":true,"rate_limited":true,"retry_after_ms":1500,"recovery":"retry","hints":["lower the request rate"]}"#
        )
    );
}

#[tokio::test]
async fn a_redacted_field_never_reaches_the_body() {
    let a = call("/missing").await;
    assert_eq!(
        a,
        problem(
            404,
            None,
            r#"{"type":"about:blank","title":"not_found","status":404,"detail":"no order 7 for [redacted]","code":"not_found","op":"orders.get","retryable":false,"rate_limited":false,"recovery":"abort"}"#
        )
    );
    assert!(!a.body.contains(CANARY));
}

#[tokio::test]
async fn the_error_s_own_status_wins_and_a_foreign_cause_s_text_is_left_out() {
    let a = call("/upstream").await;
    assert_eq!(
        a,
        problem(
            502,
            None,
            r#"{"type":"about:blank","title":"tool_failed","status":502,"detail":"the warehouse did not answer","code":"tool_failed","op":"orders.get","retryable":false,"rate_limited":false,"recovery":"abort"}"#
        )
    );
    assert!(!a.body.contains(SECRET));
}

#[tokio::test]
async fn a_status_error_keeps_its_status_and_delay() {
    assert_eq!(
        call("/overloaded").await,
        problem(
            503,
            Some("1"),
            r#"{"type":"about:blank","title":"provider_unavailable","status":503,"detail":"HTTP 503 Service Unavailable","code":"provider_unavailable","op":"http","retryable":true,"rate_limited":false,"retry_after_ms":250,"recovery":"retry"}"#
        )
    );
}

#[tokio::test]
async fn a_foreign_error_is_classified_and_its_text_left_out() {
    let a = call("/foreign/timeout").await;
    assert_eq!(a.status, 504);
    assert_eq!(a.content_type.as_deref(), PROBLEM);
    assert!(a.body.starts_with(
        r#"{"type":"about:blank","title":"timeout","status":504,"detail":"the operation timed out","code":"timeout""#
    ), "{}", a.body);
    assert!(!a.body.contains(SECRET));
}

#[tokio::test]
async fn an_unclassified_error_answers_500_internal_error() {
    assert_eq!(
        call("/foreign/unclassified").await,
        problem(
            500,
            None,
            r#"{"type":"about:blank","title":"unclassified","status":500,"detail":"internal error","code":"unclassified","retryable":false,"rate_limited":false,"recovery":"abort"}"#
        )
    );
}

#[tokio::test]
async fn a_success_is_untouched() {
    let a = call("/ok").await;
    assert_eq!(a.status, 200);
    assert_eq!(a.body, "fine");
}

#[tokio::test]
async fn a_relayed_report_that_says_success_answers_as_an_error() {
    for path in ["/relayed/200", "/relayed/101", "/relayed/304"] {
        let answer = call(path).await;
        assert_eq!(answer.status, 500, "{path}");
        assert_eq!(answer.content_type.as_deref(), PROBLEM);
        let body: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
        assert_eq!(body["status"], 500, "{path}");
        assert_eq!(body["code"], "tool_failed");
    }
}

#[tokio::test]
async fn an_endless_retry_after_is_clamped_on_the_wire() {
    let answer = call("/forever").await;
    assert_eq!(answer.status, 429);
    assert_eq!(
        answer.retry_after,
        Some(agent_error::axum::MAX_RETRY_AFTER_SECS.to_string())
    );
    assert_eq!(agent_error::axum::MAX_RETRY_AFTER_SECS, 86_400);
}
