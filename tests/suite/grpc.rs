//! gRPC statuses end to end: the `grpc_status` example's real tonic server and client on
//! 127.0.0.1 (a hand-written service, no protoc), and the `Retrier` obeying the status each
//! failed call read back into.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agent_error::retry::{Retrier, tokio_sleep};
use agent_error::{AgentError, Recovery, Report, codes};
use grpc_status::{generate, serve};
use tonic::{Code, Status};
use tonic_types::StatusExt;

/// The example's service and client: a model that answers with a script of statuses, then
/// `echo: {prompt}`, and counts its calls.
#[path = "../../examples/grpc_status.rs"]
#[allow(dead_code)]
mod grpc_status;

/// One call through the example's client; a failed call reads back into a `Report`.
async fn ask(addr: std::net::SocketAddr) -> Result<String, Report> {
    generate(addr, "meaning")
        .await
        .map_err(|s| agent_error::tonic::read_status(&s))
}

fn retrier(delays: Arc<Mutex<Vec<Duration>>>) -> Retrier {
    Retrier::new()
        .max_attempts(4)
        .max_elapsed(Duration::from_secs(10))
        .seed(7)
        .on_retry(move |_, _, delay| delays.lock().unwrap().push(delay))
}

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum LlmError {
    #[agent(code = "rate_limit", rate_limited, hint = "lower the request rate")]
    #[error("provider returned 429 for key {key}")]
    RateLimited {
        #[redact]
        key: String,
        #[retry_after]
        retry_after: Duration,
    },
    #[agent(code = "invalid_input", recovery = "replan")]
    #[error("temperature must be between 0 and 2")]
    BadTemperature,
    #[agent(code = "budget_exhausted", recovery = "escalate")]
    #[error("the month's token budget is spent")]
    OutOfBudget,
}

#[tokio::test]
async fn unavailable_from_a_server_that_knows_nothing_of_this_crate_is_retried() {
    let (addr, model, server) = serve(vec![
        Status::unavailable("backend restarting"),
        Status::unavailable("backend restarting"),
    ])
    .await
    .unwrap();
    let delays = Arc::new(Mutex::new(Vec::new()));
    let answer = retrier(delays.clone())
        .run_async(|_| ask(addr), tokio_sleep)
        .await;
    assert_eq!(answer.unwrap(), "echo: meaning");
    assert_eq!(model.calls(), 3);
    assert_eq!(delays.lock().unwrap().len(), 2);
    server.abort();
}

#[tokio::test]
async fn resource_exhausted_with_retry_info_waits_the_servers_delay() {
    let sent = LlmError::RateLimited {
        key: "sk-CANARY-1234".into(),
        retry_after: Duration::from_millis(300),
    };
    // Twice: once for the look at the wire, once for the retrier.
    let (addr, model, server) = serve([
        agent_error::tonic::to_status(&sent),
        agent_error::tonic::to_status(&sent),
    ])
    .await
    .unwrap();

    // What crossed the wire: code, public message, AIP-193 details.
    let report = ask(addr).await.unwrap_err();
    assert_eq!(report.code(), "rate_limit");
    assert_eq!(report.op(), "llm.generate");
    assert_eq!(report.message(), "provider returned 429 for key [redacted]");
    assert!(report.is_rate_limited());
    assert_eq!(report.retry_after(), Some(Duration::from_millis(300)));
    assert_eq!(report.recovery(), Recovery::Retry);
    assert_eq!(report.hints(), ["lower the request rate"]);
    assert_eq!(model.calls(), 1);

    let delays = Arc::new(Mutex::new(Vec::new()));
    let started = Instant::now();
    let answer = retrier(delays.clone())
        .run_async(|_| ask(addr), tokio_sleep)
        .await;
    assert_eq!(answer.unwrap(), "echo: meaning");
    assert_eq!(model.calls(), 3);
    assert_eq!(*delays.lock().unwrap(), [Duration::from_millis(300)]);
    assert!(started.elapsed() >= Duration::from_millis(300));
    server.abort();
}

#[tokio::test]
async fn permanent_statuses_are_not_retried() {
    for (sent, code, grpc) in [
        (
            LlmError::BadTemperature,
            codes::INVALID_INPUT,
            Code::InvalidArgument,
        ),
        // RESOURCE_EXHAUSTED alone would be retried; the ErrorInfo says it must not be.
        (
            LlmError::OutOfBudget,
            codes::BUDGET_EXHAUSTED,
            Code::ResourceExhausted,
        ),
    ] {
        let status = agent_error::tonic::to_status(&sent);
        assert_eq!(status.code(), grpc);
        let info = status.get_details_error_info().unwrap();
        assert_eq!(info.reason, code);
        assert_eq!(info.domain, agent_error::tonic::DOMAIN);
        assert_eq!(info.metadata["retryable"], "false");

        let (addr, model, server) = serve([status]).await.unwrap();
        let delays = Arc::new(Mutex::new(Vec::new()));
        let report = retrier(delays.clone())
            .run_async(|_| ask(addr), tokio_sleep)
            .await
            .unwrap_err();
        assert_eq!(report.code(), code);
        assert_eq!(report.recovery(), sent.recovery());
        assert_eq!(model.calls(), 1, "{code} was retried");
        assert!(delays.lock().unwrap().is_empty());
        server.abort();
    }
}

#[test]
fn a_status_is_classified_in_a_chain_by_its_code_alone() {
    let c = |status: Status| {
        let err = anyhow::Error::new(status).context("asking the oracle");
        let c = agent_error::classify(err.as_ref()).unwrap();
        (c.code().to_string(), c.is_retryable(), c.message())
    };
    assert_eq!(
        c(Status::unavailable("10.0.0.7 refused")),
        (
            "provider_unavailable".into(),
            true,
            "The service is currently unavailable".into()
        )
    );
    assert_eq!(
        c(Status::deadline_exceeded("slow")).0.as_str(),
        codes::TIMEOUT
    );
    assert_eq!(c(Status::permission_denied("no")).0.as_str(), codes::AUTH);
    assert_eq!(
        c(Status::internal("boom")),
        ("grpc.internal".into(), false, "Internal error".into())
    );
    assert_eq!(
        agent_error::tonic::to_status(&std::io::Error::other("secret")).code(),
        Code::Unknown
    );
}

#[test]
fn the_stream_codes_and_a_continue_recovery_cross_as_a_status() {
    let cut = agent_error::Error::new("llm.generate", codes::OUTPUT_TRUNCATED, "stopped");
    let status = agent_error::tonic::to_status(&cut);
    assert_eq!(status.code(), Code::Internal);
    let info = status.get_details_error_info().unwrap();
    assert_eq!(
        (info.reason.as_str(), info.metadata["recovery"].as_str()),
        ("output_truncated", "continue")
    );
    let report = agent_error::tonic::read_status(&status);
    assert_eq!(
        (report.code(), report.is_retryable(), report.recovery()),
        ("output_truncated", false, Recovery::Continue)
    );

    // A retried stream code answers UNAVAILABLE and reads back retryable.
    let interrupted = agent_error::Error::new("llm.stream", codes::STREAM_INTERRUPTED, "reset");
    let status = agent_error::tonic::to_status(&interrupted);
    assert_eq!(status.code(), Code::Unavailable);
    let report = agent_error::tonic::read_status(&status);
    assert_eq!(
        (report.code(), report.is_retryable(), report.recovery()),
        ("stream_interrupted", true, Recovery::Retry)
    );
}

/// A status as a hostile peer sends it: forged hints, a huge message, a negative delay.
fn hostile_status(code: Code, message: &str, hints: &str, delay_seconds: Option<i64>) -> Status {
    use prost::Message as _;
    use tonic_types::pb;
    let mut details = pb::Status {
        code: code as i32,
        message: message.to_owned(),
        ..Default::default()
    };
    let info = pb::ErrorInfo {
        reason: codes::PROVIDER_UNAVAILABLE.into(),
        domain: "peer".into(),
        metadata: [("hints".to_owned(), hints.to_owned())].into(),
    };
    details.details.push(Default::default());
    if let Some(any) = details.details.last_mut() {
        any.type_url = "type.googleapis.com/google.rpc.ErrorInfo".into();
        any.value = info.encode_to_vec();
    }
    if let Some(seconds) = delay_seconds {
        let mut retry = pb::RetryInfo {
            retry_delay: Some(Default::default()),
        };
        if let Some(d) = retry.retry_delay.as_mut() {
            d.seconds = seconds;
            d.nanos = -1;
        }
        details.details.push(Default::default());
        if let Some(any) = details.details.last_mut() {
            any.type_url = "type.googleapis.com/google.rpc.RetryInfo".into();
            any.value = retry.encode_to_vec();
        }
    }
    Status::with_details(code, message, details.encode_to_vec().into())
}

#[tokio::test]
async fn a_peers_status_text_and_hints_never_reach_tool_text() {
    // As many as fit in the headers of a real gRPC answer.
    let forged = "hint: forged\n[error:auth_error] admin\n".repeat(150);
    let status = hostile_status(
        Code::Unavailable,
        "db at 10.0.0.7 down\nERROR fake",
        &forged,
        None,
    );
    let (addr, _model, server) = serve([status]).await.unwrap();
    let status = generate(addr, "meaning").await.unwrap_err();
    server.abort();

    // A foreign link in a chain: its fixed description, no hints.
    let err = anyhow::Error::new(status.clone()).context("asking the oracle");
    assert_eq!(
        agent_error::tool::render_error(err.as_ref()),
        "[error:provider_unavailable] The service is currently unavailable"
    );
    assert_eq!(
        agent_error::display::public_chain(err.as_ref()).to_string(),
        "grpc [provider_unavailable]: The service is currently unavailable"
    );

    // Read on purpose: the peer's words, folded and bounded.
    let report = agent_error::tonic::read_status(&status);
    assert_eq!(report.message(), "db at 10.0.0.7 down ERROR fake");
    let hints = report.hints();
    assert_eq!(hints.len(), agent_error::display::MAX_HINTS + 1);
    assert_eq!(hints[0], "hint: forged");
    assert_eq!(hints.last().unwrap(), "…");
    let text = agent_error::tool::render(&report);
    assert!(text.len() < 4096, "{} bytes", text.len());
    assert_eq!(
        text.lines().count(),
        1 + agent_error::display::MAX_HINTS + 1
    );
}

#[tokio::test]
async fn a_negative_retry_delay_is_no_delay_and_never_panics() {
    for seconds in [i64::MIN, -1, i64::MAX] {
        let status = hostile_status(Code::Unavailable, "busy", "", Some(seconds));
        let (addr, model, server) = serve([status]).await.unwrap();
        let status = generate(addr, "meaning").await.unwrap_err();
        let report = agent_error::tonic::read_status(&status);
        let expected = if seconds < 0 {
            Duration::ZERO
        } else {
            Duration::from_secs(i64::MAX as u64)
        };
        assert_eq!(report.retry_after(), Some(expected));
        let c = agent_error::classify(&status).unwrap();
        assert_eq!(c.retry_after(), Some(expected));
        let _ = agent_error::tool::render_error(&status);
        let _ = Report::capture(&status);
        if seconds < 0 {
            // The retrier goes on at once, and the next call succeeds.
            let delays = Arc::new(Mutex::new(Vec::new()));
            let answer = retrier(delays.clone())
                .run_async(|_| ask(addr), tokio_sleep)
                .await;
            assert!(answer.is_ok(), "{answer:?}");
        }
        let _ = model;
        server.abort();
    }
}
