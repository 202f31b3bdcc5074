//! Observability: errors recorded as `tracing` events with OpenTelemetry-style fields, and
//! the retrier's hook. A small subscriber captures what is emitted.
#![cfg(feature = "tracing")]

use std::time::Duration;

use agent_error::retry::Retrier;
use agent_error::{AgentError, Error, trace};

use crate::support::capture;
use capture::{Capture, Fields};

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum LlmError {
    #[agent(code = "auth_error", recovery = "escalate")]
    #[error("key {key} rejected")]
    Auth {
        #[redact]
        key: String,
    },
}

fn fields(pairs: &[(&str, &str)]) -> Fields {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn record_emits_an_error_event_with_otel_fields() {
    let capture = Capture::default();
    tracing::subscriber::with_default(capture.clone(), || {
        let e = std::io::Error::other(LlmError::Auth { key: "sk-1".into() });
        trace::record(&e);
        trace::record(&std::io::Error::other("plain"));
        trace::record_unredacted(&std::io::Error::other("plain"));
        trace::record(&std::io::Error::new(
            std::io::ErrorKind::ConnectionRefused,
            "10.0.0.7:443",
        ));
    });
    let events = capture.events.lock().unwrap();
    assert_eq!(
        events[0],
        (
            "ERROR".to_string(),
            fields(&[
                ("error.message", "key [redacted] rejected"),
                ("error.op", "llm.generate"),
                ("error.rate_limited", "false"),
                ("error.recovery", "escalate"),
                ("error.retryable", "false"),
                ("error.type", "auth_error"),
                // The message leaves the process too: redacted like every field.
                (
                    "message",
                    "llm.generate [auth_error]: key [redacted] rejected"
                ),
            ])
        )
    );
    assert_eq!(
        events[1],
        (
            "ERROR".to_string(),
            fields(&[("error.type", "_OTHER"), ("message", "unclassified error")])
        )
    );
    // The operator's full text only when asked for.
    assert_eq!(
        events[2],
        (
            "ERROR".to_string(),
            fields(&[("error.type", "_OTHER"), ("message", "plain")])
        )
    );
    // A classified foreign error: its classification, never its text.
    assert_eq!(
        events[3],
        (
            "ERROR".to_string(),
            fields(&[
                ("error.message", "connection refused"),
                ("error.op", "io"),
                ("error.rate_limited", "false"),
                ("error.recovery", "retry"),
                ("error.retryable", "true"),
                ("error.type", "provider_unavailable"),
                ("message", "io [provider_unavailable]: connection refused"),
            ])
        )
    );
}

#[test]
fn record_on_span_fills_the_declared_fields() {
    let capture = Capture::default();
    tracing::subscriber::with_default(capture.clone(), || {
        let span = tracing::info_span!(
            "call",
            error.type = tracing::field::Empty,
            error.retryable = tracing::field::Empty,
            error.recovery = tracing::field::Empty
        );
        trace::record_on_span(&span, &Error::new("llm.generate", "timeout", "slow"));
    });
    assert_eq!(
        *capture.spans.lock().unwrap(),
        fields(&[
            ("error.recovery", "retry"),
            ("error.retryable", "true"),
            ("error.type", "timeout")
        ])
    );
}

#[test]
fn the_retriers_hook_logs_each_retry() {
    let capture = Capture::default();
    tracing::subscriber::with_default(capture.clone(), || {
        let retrier = Retrier::new().seed(3).on_retry(trace::on_retry);
        let outcome = retrier.run_detailed_with_sleep(
            |attempt| {
                if attempt < 2 {
                    Err(Error::new("llm.generate", "rate_limit", "slow down")
                        .with_retry_after(Duration::from_millis(1200)))
                } else {
                    Ok(())
                }
            },
            |_| {},
        );
        assert_eq!(outcome.attempts, 2);
    });
    let events = capture.events.lock().unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(
        events[0],
        (
            "WARN".to_string(),
            fields(&[
                ("delay_ms", "1200"),
                ("error.op", "llm.generate"),
                ("error.type", "rate_limit"),
                ("message", "retrying after rate_limit: slow down"),
                ("retry", "1"),
            ])
        )
    );
}

#[derive(Debug, AgentError)]
#[agent(op = "tool.read_file", code = "io")]
#[error("cannot read the file")]
struct ReadFailed {
    #[from]
    source: std::io::Error,
    #[location]
    location: &'static std::panic::Location<'static>,
}

fn read() -> Result<(), ReadFailed> {
    Err(std::io::Error::other("denied"))?;
    Ok(())
}

#[test]
fn an_error_that_records_where_it_was_made_says_so_in_otel_fields() {
    let capture = Capture::default();
    let err = read().unwrap_err();
    let at = err.location().unwrap();
    tracing::subscriber::with_default(capture.clone(), || trace::record(&err));
    let events = capture.events.lock().unwrap();
    let fields = &events[0].1;
    assert_eq!(fields["code.file.path"], file!());
    assert_eq!(fields["code.line.number"], at.line().to_string());
    assert_eq!(fields["code.column.number"], at.column().to_string());
    // Not in the message that leaves the process.
    assert!(!fields["message"].contains(file!()), "{fields:?}");
}

#[test]
fn a_runs_outcome_is_one_event_with_its_attempts_and_their_waits() {
    let capture = Capture::default();
    let outcome = Retrier::new().seed(2).run_detailed_with_sleep(
        |attempt| {
            if attempt < 3 {
                Err(Error::new(
                    "llm.generate",
                    "timeout",
                    "deadline exceeded at sk-1",
                ))
            } else {
                Ok(())
            }
        },
        |_| {},
    );
    tracing::subscriber::with_default(capture.clone(), || trace::record_outcome(&outcome));
    let events = capture.events.lock().unwrap();
    let (level, fields) = &events[0];
    assert_eq!(level, "INFO");
    assert_eq!(fields["retry.attempts"], "3");
    assert_eq!(fields["http.request.resend_count"], "2");
    assert_eq!(fields["retry.stop"], "succeeded");
    assert_eq!(fields["error.type"], "timeout");
    assert!(
        fields["retry.record"].starts_with("timeout (waited "),
        "{fields:?}"
    );
    assert!(
        fields["message"].starts_with("3 attempts: timeout (waited "),
        "{fields:?}"
    );
    // Codes and waits only: no error's text.
    assert!(!fields.values().any(|v| v.contains("sk-1")), "{fields:?}");
}

/// A fallback chain's hook logs each candidate that failed, with the status of the response
/// that said so, and a stream that failed to open is recorded with that status and the
/// stream's protocol.
#[cfg(all(feature = "recover", feature = "stream", feature = "http"))]
#[test]
fn a_fallback_logs_each_failed_candidate_and_a_stream_its_status_and_protocol() {
    use agent_error::http::StatusError;
    use agent_error::recover::Fallback;
    use agent_error::stream::{Provider, StreamError};

    let capture = Capture::default();
    tracing::subscriber::with_default(capture.clone(), || {
        let models = Fallback::new(["openai", "anthropic"])
            .retrier(Retrier::new().seed(3))
            .on_fallback(trace::on_fallback);
        let answer = models
            .run_with_sleep(
                |model: &&str, _| match *model {
                    "openai" => Err(StatusError::from_parts(
                        429,
                        &http::HeaderMap::new(),
                        r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#,
                    )),
                    _ => Ok(()),
                },
                |_| {},
            )
            .unwrap();
        assert_eq!(answer.name(), "anthropic");
        let refused = StatusError::from_parts(529, &http::HeaderMap::new(), "");
        trace::record(&StreamError::opening(refused).with_provider(Provider::Anthropic));
    });
    let events = capture.events.lock().unwrap();
    assert_eq!(
        events[0],
        (
            "WARN".to_string(),
            fields(&[
                ("error.op", "http"),
                ("error.type", "rate_limit"),
                ("fallback.candidate", "openai"),
                ("http.response.status_code", "429"),
                (
                    "message",
                    "candidate openai failed with rate_limit: HTTP 429 Too Many Requests"
                ),
            ])
        )
    );
    assert_eq!(events[1].1["http.response.status_code"], "529");
    assert_eq!(events[1].1["stream.provider"], "anthropic");
    assert_eq!(events[1].1["error.type"], "provider_unavailable");
}

/// A streamed run's outcome is one event as a unary run's is, with the candidate that ran
/// last under a fallback chain.
#[cfg(all(feature = "recover", feature = "stream", feature = "http"))]
#[test]
fn a_streamed_runs_outcome_is_one_event_as_a_unary_runs_is() {
    use agent_error::http::StatusError;
    use agent_error::recover::Fallback;
    use agent_error::stream::Watch;
    use futures_util::StreamExt;

    let models = Fallback::new(["openai", "anthropic"]).retrier(Retrier::new().seed(3));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let outcome = runtime.block_on(async {
        let mut stream = models.run_stream(
            async |model: &&str, _resume: Option<&str>, _attempt| match *model {
                "openai" => Err(StatusError::from_parts(
                    429,
                    &http::HeaderMap::new(),
                    b"{\"error\":{\"message\":\"Rate limit reached for org-sk-1\",\"code\":\"rate_limit_exceeded\"}}",
                )),
                _ => Ok(Watch::new(futures_util::stream::iter([Ok::<_, std::io::Error>(
                    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n",
                )]))),
            },
            |_| async {},
        );
        while let Some(event) = stream.next().await {
            event.unwrap();
        }
        stream.take_outcome().unwrap()
    });
    let capture = Capture::default();
    tracing::subscriber::with_default(capture.clone(), || {
        trace::record_stream_outcome(&outcome);
    });
    let events = capture.events.lock().unwrap();
    let (level, fields) = &events[0];
    assert_eq!(level, "INFO");
    assert_eq!(fields["retry.attempts"], "2");
    assert_eq!(fields["retry.stop"], "succeeded");
    assert_eq!(fields["error.type"], "rate_limit");
    assert_eq!(fields["retry.record"], "rate_limit");
    assert_eq!(fields["fallback.candidate"], "anthropic");
    assert_eq!(fields["message"], "2 attempts: rate_limit; succeeded");
    assert!(!fields.values().any(|v| v.contains("sk-1")), "{fields:?}");
}
