//! End to end with the OpenTelemetry SDK: a reqwest client calls a provider served by axum
//! on loopback (a 429 with `retry-after-ms`, then a 503, then an answer), under the
//! library's retrier, and the SDK's in-memory exporters collect what was written: the
//! operation's span with a child span an attempt, the GenAI duration histogram, and the
//! metrics of failures, retries, pauses, breaker transitions and pacing waits.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use agent_error::opentelemetry::{GenAiCall, Telemetry};
use agent_error::recover::{CircuitBreaker, Cost, Limit, Pacer};
use agent_error::retry::{Retrier, Stop, tokio_sleep};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use opentelemetry::trace::{SpanKind, Status};
use opentelemetry::{KeyValue, Value};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Text in the provider's error body that must never reach a span or a metric.
const SECRET: &str = "org-7f3a9 /srv/keys/prod.key";

/// The SDK's providers with in-memory exporters, and the telemetry made from them.
struct Collector {
    spans: InMemorySpanExporter,
    metrics: InMemoryMetricExporter,
    tracers: SdkTracerProvider,
    meters: SdkMeterProvider,
    telemetry: Telemetry,
}

impl Collector {
    fn new() -> Collector {
        let spans = InMemorySpanExporter::default();
        let metrics = InMemoryMetricExporter::default();
        let tracers = SdkTracerProvider::builder()
            .with_simple_exporter(spans.clone())
            .build();
        let meters = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(metrics.clone()).build())
            .build();
        let telemetry = Telemetry::new(&tracers, &meters);
        Collector {
            spans,
            metrics,
            tracers,
            meters,
            telemetry,
        }
    }

    fn spans(&self) -> Vec<SpanData> {
        self.tracers.force_flush().unwrap();
        self.spans.get_finished_spans().unwrap()
    }

    /// Each data point of the metric `name` as (attributes, value: a sum's value or a
    /// histogram's count).
    fn points(&self, name: &str) -> Vec<(Vec<KeyValue>, f64)> {
        self.meters.force_flush().unwrap();
        let exported = self.metrics.get_finished_metrics().unwrap();
        // Cumulative: the last export holds every point so far.
        let Some(last) = exported.last() else {
            return Vec::new();
        };
        let mut points = Vec::new();
        for scope in last.scope_metrics() {
            assert_eq!(scope.scope().name(), "agent-error");
            for metric in scope.metrics().filter(|m| m.name() == name) {
                match metric.data() {
                    AggregatedMetrics::U64(MetricData::Sum(sum)) => {
                        for p in sum.data_points() {
                            points.push((sorted(p.attributes()), p.value() as f64));
                        }
                    }
                    AggregatedMetrics::F64(MetricData::Histogram(h)) => {
                        for p in h.data_points() {
                            points.push((sorted(p.attributes()), p.count() as f64));
                        }
                    }
                    other => panic!("unexpected data for {name}: {other:?}"),
                }
            }
        }
        points
    }
}

fn sorted<'a>(attributes: impl Iterator<Item = &'a KeyValue>) -> Vec<KeyValue> {
    let mut attributes: Vec<KeyValue> = attributes.cloned().collect();
    attributes.sort_by(|a, b| a.key.as_str().cmp(b.key.as_str()));
    attributes
}

fn attribute<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a Value> {
    attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| &kv.value)
}

fn has(attributes: &[KeyValue], key: &str, value: &str) -> bool {
    attribute(attributes, key).is_some_and(|v| v.as_str() == value)
}

/// A provider on loopback: each request to `/v1/chat` answers the next status of its
/// script (the last one again when it runs out). Stops when dropped.
struct Provider {
    url: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Provider {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn provider(script: &'static [u16]) -> Provider {
    serve(script, answer).await
}

/// [`provider`], whose answer is a stream of server-sent events.
async fn streaming_provider(script: &'static [u16]) -> Provider {
    serve(script, |status| match status {
        200 => (
            StatusCode::OK,
            [("content-type", "text/event-stream")],
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
        )
            .into_response(),
        status => answer(status),
    })
    .await
}

async fn serve(script: &'static [u16], answer: fn(u16) -> axum::response::Response) -> Provider {
    let calls = Arc::new(AtomicU32::new(0));
    let app = axum::Router::new().route(
        "/v1/chat",
        axum::routing::post(move || {
            let calls = calls.clone();
            async move {
                let n = calls.fetch_add(1, Ordering::SeqCst) as usize;
                let status = script[n.min(script.len() - 1)];
                answer(status)
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1/chat", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Provider { url, task }
}

fn answer(status: u16) -> axum::response::Response {
    let status = StatusCode::from_u16(status).unwrap();
    let json = [("content-type", "application/json")];
    match status.as_u16() {
        200 => (
            status,
            json,
            r#"{"choices":[{"finish_reason":"stop","message":{"content":"hi"}}]}"#,
        )
            .into_response(),
        429 => (
            status,
            [("content-type", "application/json"), ("retry-after-ms", "40")],
            format!(r#"{{"error":{{"message":"Rate limit reached for {SECRET}","type":"requests","code":"rate_limit_exceeded"}}}}"#),
        )
            .into_response(),
        401 => (
            status,
            json,
            format!(r#"{{"error":{{"message":"Incorrect API key provided for {SECRET}","type":"invalid_request_error","code":"invalid_api_key"}}}}"#),
        )
            .into_response(),
        _ => (
            status,
            json,
            format!(r#"{{"error":{{"message":"failed for {SECRET}","type":"server_error"}}}}"#),
        )
            .into_response(),
    }
}

/// One chat call: the response's finish reasons, or the classified error.
async fn chat(client: &reqwest::Client, url: &str) -> Result<Vec<String>, BoxError> {
    let response = client.post(url).body("{}").send().await?;
    let response = agent_error::reqwest::check(response).await?;
    let text = response.text().await.unwrap_or_default();
    let mut reasons = Vec::new();
    if text.contains(r#""finish_reason":"stop""#) {
        reasons.push("stop".to_string());
    }
    Ok(reasons)
}

/// The failures counted with `code` and `provider`, if any were.
fn counted(failures: &[(Vec<KeyValue>, f64)], code: &str, provider: &str) -> Option<f64> {
    failures
        .iter()
        .find(|(a, _)| has(a, "error.type", code) && has(a, "gen_ai.provider.name", provider))
        .map(|(_, v)| *v)
}

/// The provider's body text reached no span: neither a name, an attribute, a status nor an
/// event.
fn assert_secret_kept_out(spans: &[SpanData]) {
    let text = every_text(spans);
    assert!(
        !text.contains("org-7f3a9") && !text.contains("/srv/keys"),
        "{text}"
    );
}

fn every_text(spans: &[SpanData]) -> String {
    let mut all = String::new();
    for span in spans {
        all.push_str(&span.name);
        for kv in &span.attributes {
            all.push_str(&format!("{}={} ", kv.key, kv.value));
        }
        if let Status::Error { description } = &span.status {
            all.push_str(description);
        }
        for event in span.events.iter() {
            all.push_str(&event.name);
            for kv in &event.attributes {
                all.push_str(&format!("{}={} ", kv.key, kv.value));
            }
        }
    }
    all
}

#[tokio::test]
async fn a_retried_call_is_one_operation_span_with_a_span_each_attempt_and_its_metrics() {
    let collector = Collector::new();
    let provider = provider(&[429, 503, 200]).await;
    let client = reqwest::Client::new();
    let call = GenAiCall::new("chat").provider("openai").model("gpt-test");

    let operation = collector.telemetry.start(&call);
    let outcome = Retrier::new()
        .run_async_detailed(
            |attempt| operation.attempt(attempt, chat(&client, &provider.url)),
            tokio_sleep,
        )
        .await;
    let reasons = outcome.result.as_ref().unwrap().clone();
    operation.finish_reasons(&reasons);
    operation.end(&outcome);
    assert_eq!(outcome.stop, Stop::Succeeded);
    assert_eq!(outcome.attempts, 3);

    let spans = collector.spans();
    // What the exporter received, for a person reading the test's output (`--nocapture`).
    for span in &spans {
        let attributes: Vec<String> = span
            .attributes
            .iter()
            .map(|kv| format!("{}={}", kv.key, kv.value))
            .collect();
        println!(
            "span {:?} {:?} {:?} [{}]",
            span.name,
            span.span_kind,
            span.status,
            attributes.join(", ")
        );
    }
    let op = spans.iter().find(|s| s.name == "chat gpt-test").unwrap();
    assert_eq!(op.span_kind, SpanKind::Client);
    assert_eq!(op.status, Status::Unset);
    assert!(has(&op.attributes, "gen_ai.operation.name", "chat"));
    assert!(has(&op.attributes, "gen_ai.provider.name", "openai"));
    assert!(has(&op.attributes, "gen_ai.request.model", "gpt-test"));
    assert!(has(&op.attributes, "agent_error.retry.stop", "succeeded"));
    assert_eq!(
        attribute(&op.attributes, "agent_error.retry.attempts"),
        Some(&Value::I64(3))
    );
    let reasons = attribute(&op.attributes, "gen_ai.response.finish_reasons").unwrap();
    assert_eq!(reasons.to_string(), "[\"stop\"]");
    let record = attribute(&op.attributes, "agent_error.retry.record")
        .unwrap()
        .as_str();
    assert!(
        record.starts_with("3 attempts: rate_limit (waited "),
        "{record}"
    );
    assert!(
        record.contains("header), provider_unavailable (waited "),
        "{record}"
    );
    assert!(record.ends_with("backoff); succeeded"), "{record}");

    let mut attempts: Vec<&SpanData> = spans.iter().filter(|s| s.name == "chat attempt").collect();
    attempts.sort_by_key(|s| s.start_time);
    assert_eq!(attempts.len(), 3);
    for (i, attempt) in attempts.iter().enumerate() {
        assert_eq!(attempt.parent_span_id, op.span_context.span_id());
        assert_eq!(attempt.span_context.trace_id(), op.span_context.trace_id());
        let resend = attribute(&attempt.attributes, "http.request.resend_count");
        assert_eq!(resend, (i > 0).then_some(&Value::I64(i as i64)));
    }
    assert!(has(&attempts[0].attributes, "error.type", "rate_limit"));
    assert!(has(
        &attempts[1].attributes,
        "error.type",
        "provider_unavailable"
    ));
    assert!(attribute(&attempts[2].attributes, "error.type").is_none());
    assert!(
        matches!(&attempts[0].status, Status::Error { description } if description.contains("[rate_limit]"))
    );
    assert_eq!(attempts[2].status, Status::Unset);
    assert_secret_kept_out(&spans);

    let duration = collector.points("gen_ai.client.operation.duration");
    assert_eq!(duration.len(), 1);
    let (attributes, count) = &duration[0];
    assert_eq!(*count, 1.0);
    assert!(has(attributes, "gen_ai.request.model", "gpt-test"));
    assert!(attribute(attributes, "error.type").is_none());

    let failures = collector.points("agent_error.failures");
    assert_eq!(counted(&failures, "rate_limit", "openai"), Some(1.0));
    assert_eq!(
        counted(&failures, "provider_unavailable", "openai"),
        Some(1.0)
    );
    assert_eq!(failures.len(), 2);

    let retries = collector.points("agent_error.retries");
    assert!(retries.iter().any(|(a, v)| *v == 1.0
        && has(a, "error.type", "rate_limit")
        && has(a, "agent_error.wait.source", "header")));
    assert!(retries.iter().any(|(a, v)| *v == 1.0
        && has(a, "error.type", "provider_unavailable")
        && has(a, "agent_error.wait.source", "backoff")));
    for name in [
        "gen_ai.client.operation.duration",
        "agent_error.failures",
        "agent_error.retries",
        "agent_error.pauses",
    ] {
        for (attributes, value) in collector.points(name) {
            let attributes: Vec<String> = attributes
                .iter()
                .map(|kv| format!("{}={}", kv.key, kv.value))
                .collect();
            println!("metric {name} {value} [{}]", attributes.join(", "));
        }
    }
    let pauses = collector.points("agent_error.pauses");
    assert_eq!(pauses.len(), 1, "{pauses:?}");
    assert!(has(&pauses[0].0, "error.type", "rate_limit"));
}

#[tokio::test]
async fn a_failed_run_carries_its_error_type_on_the_span_and_the_duration() {
    let collector = Collector::new();
    let provider = provider(&[401]).await;
    let client = reqwest::Client::new();
    let call = GenAiCall::new("chat")
        .provider("anthropic")
        .model("claude-test");
    let outcome = collector
        .telemetry
        .run(
            &Retrier::new(),
            &call,
            |_| chat(&client, &provider.url),
            tokio_sleep,
        )
        .await;
    assert_eq!(outcome.stop, Stop::Permanent);

    let spans = collector.spans();
    let op = spans.iter().find(|s| s.name == "chat claude-test").unwrap();
    assert!(has(&op.attributes, "error.type", "auth_error"));
    assert!(has(&op.attributes, "agent_error.retry.stop", "permanent"));
    assert!(
        matches!(&op.status, Status::Error { description } if description.contains("[auth_error]"))
    );
    assert_secret_kept_out(&spans);

    let duration = collector.points("gen_ai.client.operation.duration");
    assert_eq!(duration.len(), 1);
    assert!(has(&duration[0].0, "error.type", "auth_error"));
    assert!(collector.points("agent_error.retries").is_empty());
    let failures = collector.points("agent_error.failures");
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(has(&failures[0].0, "error.type", "auth_error"));
    assert_eq!(failures[0].1, 1.0);
}

#[tokio::test]
async fn breaker_transitions_and_pacing_waits_are_counted_by_key() {
    let collector = Collector::new();
    let breaker = collector.telemetry.instrument_breaker(
        CircuitBreaker::new()
            .threshold(1)
            .cooldown(Duration::from_millis(1)),
    );
    let down = || {
        Err::<(), BoxError>(agent_error::Error::new("search", "provider_unavailable", "503").into())
    };
    let _ = breaker.call("search", down);
    tokio::time::sleep(Duration::from_millis(5)).await;
    breaker.call("search", || Ok::<_, BoxError>(())).unwrap();
    let transitions = collector.points("agent_error.circuit.transitions");
    for state in ["open", "half_open", "closed"] {
        assert!(
            transitions.iter().any(|(a, v)| *v == 1.0
                && has(a, "agent_error.circuit.key", "search")
                && has(a, "agent_error.circuit.state", state)),
            "{state}: {transitions:?}"
        );
    }

    let pacer = collector
        .telemetry
        .instrument_pacer(Pacer::new().limit("openai", Limit::requests(1, Duration::from_secs(1))));
    let first = pacer
        .reserve("openai", Cost::request(), Duration::from_secs(5))
        .await
        .unwrap();
    let second = pacer
        .reserve("openai", Cost::request(), Duration::from_secs(5))
        .await
        .unwrap();
    assert!(first.is_zero() && !second.is_zero());
    let waits = collector.points("agent_error.pace.wait");
    assert_eq!(waits.len(), 1);
    assert!(has(&waits[0].0, "agent_error.pace.key", "openai"));
    assert_eq!(waits[0].1, 1.0);
}

#[test]
fn finish_reasons_from_a_peer_are_folded_and_capped() {
    let collector = Collector::new();
    let operation = collector.telemetry.start(&GenAiCall::new("chat"));
    let long = "x".repeat(10_000);
    let mut reasons = vec!["stop\r\nerror.type=injected".to_string(), long];
    reasons.extend((0..100).map(|i| format!("r{i}")));
    operation.finish_reasons(&reasons);
    operation.end_with(None);
    let spans = collector.spans();
    let op = spans.iter().find(|s| s.name == "chat").unwrap();
    let Some(Value::Array(opentelemetry::Array::String(written))) =
        attribute(&op.attributes, "gen_ai.response.finish_reasons")
    else {
        panic!("no finish reasons: {:?}", op.attributes);
    };
    assert_eq!(written.len(), 16);
    assert!(written.iter().all(|r| r.as_str().len() <= 64 + 3));
    assert!(!written[0].as_str().contains('\n') && !written[0].as_str().contains('\r'));
    assert!(attribute(&op.attributes, "error.type").is_none());
}

#[tokio::test]
async fn a_run_a_pacer_holds_past_its_wait_is_a_gate_pause() {
    let collector = Collector::new();
    let pacer = collector.telemetry.instrument_pacer(
        Pacer::new().limit("openai", Limit::requests(1, Duration::from_secs(60))),
    );
    let retrier = Retrier::new()
        .max_wait(Duration::from_secs(1))
        .gate(pacer.on("openai", Cost::request()));
    let call = GenAiCall::new("chat").provider("openai").model("gpt-test");
    let ok = |_| async { Ok::<_, agent_error::Error>(()) };
    let first = collector
        .telemetry
        .run(&retrier, &call, ok, tokio_sleep)
        .await;
    assert_eq!(first.stop, Stop::Succeeded);
    let second = collector
        .telemetry
        .run(&retrier, &call, ok, tokio_sleep)
        .await;
    assert_eq!(second.stop, Stop::Paused);
    assert_eq!(
        second.attempts, 0,
        "no attempt is made past the pacer's turn"
    );

    let pauses = collector.points("agent_error.pauses");
    assert_eq!(pauses.len(), 1, "{pauses:?}");
    assert!(has(&pauses[0].0, "agent_error.wait.source", "gate"));
    assert!(has(&pauses[0].0, "error.type", "rate_limit"));
    let durations = collector.points("gen_ai.client.operation.duration");
    assert!(
        durations
            .iter()
            .any(|(a, n)| *n == 1.0 && has(a, "error.type", "rate_limit")),
        "{durations:?}"
    );
    // A wait past the cap is not one the pacer asked a call to make.
    assert!(collector.points("agent_error.pace.wait").is_empty());
    let spans = collector.spans();
    assert_eq!(spans.iter().filter(|s| s.name == "chat attempt").count(), 1);
}

/// A type of this binary's: its codes are registered at link time, so known.
#[derive(Debug, agent_error::AgentError)]
#[agent(op = "billing")]
enum BillingError {
    #[agent(code = "billing.card_declined")]
    #[error("the card was declined")]
    CardDeclined,
}

/// An error as a peer's report carries it: the peer's code, rate-limited, with the wait
/// its response's `Retry-After` asked for.
fn from_peer(code: impl Into<std::borrow::Cow<'static, str>>) -> agent_error::Error {
    let wait = Duration::from_millis(1);
    agent_error::Error::new("peer.call", code, "the peer failed")
        .with_policy(agent_error::codes::default_policy(
            agent_error::codes::RATE_LIMIT,
        ))
        .with_retry_after(wait)
        .with_source(agent_error::http::StatusError::new(429).with_retry_after(wait))
}

#[tokio::test]
async fn codes_this_process_does_not_know_are_one_other_series_on_every_metric() {
    let collector = Collector::new();
    let call = GenAiCall::new("chat").provider("peer");
    let retrier = Retrier::new().max_attempts(2);
    let no_sleep = |_| async {};
    for i in 0..500 {
        let outcome = collector
            .telemetry
            .run(
                &retrier,
                &call,
                |_| async move { Err::<(), _>(from_peer(format!("peer.code_{i}"))) },
                no_sleep,
            )
            .await;
        assert_eq!(outcome.attempts, 2);
    }
    for _ in 0..3 {
        let _ = collector
            .telemetry
            .run(
                &retrier,
                &call,
                |_| async { Err::<(), _>(from_peer(agent_error::codes::RATE_LIMIT)) },
                no_sleep,
            )
            .await;
        let _ = collector
            .telemetry
            .run(
                &retrier,
                &call,
                |_| async { Err::<(), _>(BillingError::CardDeclined) },
                no_sleep,
            )
            .await;
    }

    let series = |name: &str| -> Vec<(String, f64)> {
        let mut series: Vec<(String, f64)> = collector
            .points(name)
            .into_iter()
            .map(|(attributes, value)| {
                let code = attribute(&attributes, "error.type").map(|v| v.to_string());
                (code.unwrap_or_default(), value)
            })
            .collect();
        series.sort_by(|a, b| a.0.cmp(&b.0));
        series
    };
    let each = |pairs: &[(&str, f64)]| -> Vec<(String, f64)> {
        pairs.iter().map(|(c, v)| (c.to_string(), *v)).collect()
    };
    // One series of the 500 peer codes, one for each known code.
    assert_eq!(
        series("gen_ai.client.operation.duration"),
        each(&[
            ("_OTHER", 500.0),
            ("billing.card_declined", 3.0),
            ("rate_limit", 3.0)
        ])
    );
    assert_eq!(
        series("agent_error.failures"),
        each(&[
            ("_OTHER", 1000.0),
            ("billing.card_declined", 3.0),
            ("rate_limit", 6.0)
        ])
    );
    for name in ["agent_error.retries", "agent_error.pauses"] {
        assert_eq!(
            series(name),
            each(&[("_OTHER", 500.0), ("rate_limit", 3.0)]),
            "{name}"
        );
    }

    // A span keeps the peer's code, in an attribute of its own.
    let spans = collector.spans();
    let attempt = spans
        .iter()
        .find(|s| has(&s.attributes, "agent_error.peer_code", "peer.code_7"))
        .expect("a span with the peer's code");
    assert!(has(&attempt.attributes, "error.type", "_OTHER"));
    let known = spans
        .iter()
        .find(|s| has(&s.attributes, "error.type", "billing.card_declined"))
        .unwrap();
    assert!(attribute(&known.attributes, "agent_error.peer_code").is_none());
}

#[test]
fn a_hostile_peer_code_is_folded_and_capped_on_the_span() {
    let collector = Collector::new();
    let operation = collector.telemetry.start(&GenAiCall::new("chat"));
    let code = format!(
        "peer.code\r\nerror.type=forged\u{2028}{}",
        "x".repeat(10_000)
    );
    operation.end_with(Some(&agent_error::Error::new("peer.call", code, "failed")));
    let spans = collector.spans();
    let op = spans.iter().find(|s| s.name == "chat").unwrap();
    let written = attribute(&op.attributes, "agent_error.peer_code")
        .expect("the peer's code")
        .as_str();
    assert!(written.starts_with("peer.code"), "{written}");
    assert!(written.len() <= 64 + "…".len(), "{}", written.len());
    assert!(!written.contains(['\r', '\n', '\u{2028}']), "{written}");
    // Breaking the grammar of codes, it is `unclassified` where it is `error.type`.
    assert!(has(&op.attributes, "error.type", "unclassified"));
    let duration = collector.points("gen_ai.client.operation.duration");
    assert_eq!(duration.len(), 1);
    assert!(has(&duration[0].0, "error.type", "unclassified"));
}

#[test]
fn codes_a_telemetry_is_told_of_keep_their_own_series() {
    let mut collector = Collector::new();
    collector.telemetry = collector
        .telemetry
        .clone()
        .with_error_types(["search.quota_spent", "not a code\n"]);
    for code in ["search.quota_spent", "search.other"] {
        let operation = collector.telemetry.start(&GenAiCall::new("execute_tool"));
        operation.end_with(Some(&agent_error::Error::new("search", code, "failed")));
    }
    let mut types: Vec<String> = collector
        .points("gen_ai.client.operation.duration")
        .iter()
        .filter_map(|(a, _)| attribute(a, "error.type").map(|v| v.to_string()))
        .collect();
    types.sort();
    assert_eq!(types, ["_OTHER", "search.quota_spent"]);
    // The free functions know the registered codes only.
    let e = agent_error::Error::new("search", "search.quota_spent", "failed");
    assert_eq!(agent_error::opentelemetry::error_type(&e), "_OTHER");
}

/// A streamed fallback call's failures reach the metrics as a unary call's do: the
/// candidate that refused counts in `agent_error.failures` by its code and name, and the
/// operation's span and duration carry the outcome.
#[tokio::test]
async fn a_streamed_fallback_calls_failures_are_counted_by_candidate() {
    use agent_error::http::StatusError;
    use agent_error::recover::Fallback;
    use agent_error::stream::Watch;
    use futures_util::StreamExt;

    let collector = Collector::new();
    let models = collector
        .telemetry
        .instrument_fallback(Fallback::new(["openai", "anthropic"]));
    let operation = collector
        .telemetry
        .start(&GenAiCall::new("chat").provider("openai").model("gpt-test"));
    let events: Vec<_> = models
        .run_stream(
            async |model: &&str, _resume: Option<&str>, _attempt| match *model {
                "openai" => Err(StatusError::new(429)),
                _ => {
                    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n";
                    let chunks = futures_util::stream::iter([Ok::<_, std::io::Error>(body)]);
                    Ok(Watch::new(chunks))
                }
            },
            |_| async {},
        )
        .collect()
        .await;
    assert!(events.iter().all(Result::is_ok));
    assert_eq!(events[0].as_ref().unwrap().candidate(), Some("anthropic"));
    operation.end_with(None);

    let failures = collector.points("agent_error.failures");
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(has(&failures[0].0, "error.type", "rate_limit"));
    assert!(has(&failures[0].0, "gen_ai.provider.name", "openai"));
    assert_eq!(failures[0].1, 1.0);
    let duration = collector.points("gen_ai.client.operation.duration");
    assert_eq!(duration.len(), 1);
}

/// Opens a streamed chat on `url`: its response's head checked, its events watched.
async fn open_stream(
    client: &reqwest::Client,
    url: &str,
) -> Result<
    agent_error::stream::Watch<
        impl futures_util::Stream<Item = reqwest::Result<bytes::Bytes>> + use<>,
    >,
    BoxError,
> {
    let response = client.post(url).body("{}").send().await?;
    Ok(agent_error::reqwest::watch_as(response, "llm.stream").await?)
}

/// A streamed call gives what a unary one gives: one operation span with the run's
/// attempts, stop and record, a child span each opening, the failures, retries and pauses
/// by code, and the duration.
#[tokio::test]
async fn a_streamed_call_is_one_operation_as_a_unary_call_is() {
    use futures_util::StreamExt;

    let collector = Collector::new();
    let provider = streaming_provider(&[429, 503, 200]).await;
    let client = reqwest::Client::new();
    let call = GenAiCall::new("chat").provider("openai").model("gpt-test");

    let operation = collector.telemetry.start(&call);
    let retrier = Retrier::new();
    let mut stream = retrier.run_stream(
        |attempt| operation.attempt(attempt, open_stream(&client, &provider.url)),
        tokio_sleep,
    );
    let mut text = String::new();
    let mut failed = None;
    while let Some(item) = stream.next().await {
        match item {
            Ok(event) => text.push_str(&event.text().unwrap_or_default()),
            Err(e) => failed = Some(e),
        }
    }
    assert!(failed.is_none(), "{failed:?}");
    assert_eq!(text, "hi");
    let outcome = stream.take_outcome().unwrap();
    // The stream's opener borrows the operation: the stream goes before the operation ends.
    drop(stream);
    assert_eq!((outcome.attempts, outcome.stop), (3, Stop::Succeeded));
    operation.finish_reasons(["stop"]);
    operation.end_stream(&outcome, failed.as_ref());

    let spans = collector.spans();
    let op = spans.iter().find(|s| s.name == "chat gpt-test").unwrap();
    assert!(has(&op.attributes, "agent_error.retry.stop", "succeeded"));
    assert_eq!(
        attribute(&op.attributes, "agent_error.retry.attempts"),
        Some(&Value::I64(3))
    );
    let record = attribute(&op.attributes, "agent_error.retry.record")
        .unwrap()
        .as_str();
    assert!(
        record.starts_with(
            "3 attempts: rate_limit (waited 40ms, header), provider_unavailable (waited "
        ),
        "{record}"
    );
    assert!(record.ends_with("backoff); succeeded"), "{record}");
    let mut attempts: Vec<&SpanData> = spans.iter().filter(|s| s.name == "chat attempt").collect();
    attempts.sort_by_key(|s| s.start_time);
    assert_eq!(attempts.len(), 3);
    assert!(
        attempts
            .iter()
            .all(|a| a.parent_span_id == op.span_context.span_id())
    );
    assert!(has(&attempts[0].attributes, "error.type", "rate_limit"));
    assert!(has(
        &attempts[1].attributes,
        "error.type",
        "provider_unavailable"
    ));
    assert!(attribute(&attempts[2].attributes, "error.type").is_none());
    assert_secret_kept_out(&spans);

    let failures = collector.points("agent_error.failures");
    assert_eq!(counted(&failures, "rate_limit", "openai"), Some(1.0));
    assert_eq!(
        counted(&failures, "provider_unavailable", "openai"),
        Some(1.0)
    );
    assert_eq!(failures.len(), 2);
    let retries = collector.points("agent_error.retries");
    assert_eq!(retries.len(), 2, "{retries:?}");
    let pauses = collector.points("agent_error.pauses");
    assert_eq!(pauses.len(), 1, "{pauses:?}");
    assert!(has(&pauses[0].0, "error.type", "rate_limit"));
    let duration = collector.points("gen_ai.client.operation.duration");
    assert_eq!(duration.len(), 1);
    assert!(attribute(&duration[0].0, "error.type").is_none());
}

/// Under a fallback chain, a streamed call's failed attempts are counted by the candidate
/// that made them, and a chain that ran out of candidates ends its operation with the
/// deciding error's type.
#[tokio::test]
async fn a_streamed_fallback_call_counts_each_failure_by_its_candidate() {
    use agent_error::recover::Fallback;
    use futures_util::StreamExt;

    let collector = Collector::new();
    let openai = streaming_provider(&[429]).await;
    let anthropic = streaming_provider(&[401]).await;
    let client = reqwest::Client::new();
    let models = Fallback::named([("openai", &openai.url), ("anthropic", &anthropic.url)]);
    let operation = collector
        .telemetry
        .start(&GenAiCall::new("chat").model("gpt-test"));
    let mut stream = models.run_stream(
        async |url: &&String, _resume: Option<&str>, attempt| {
            operation.attempt(attempt, open_stream(&client, url)).await
        },
        tokio_sleep,
    );
    let mut failed = None;
    while let Some(item) = stream.next().await {
        if let Err(e) = item {
            failed = Some(e);
        }
    }
    let failed = failed.expect("the chain ran out of candidates");
    let outcome = stream.take_outcome().unwrap();
    drop(stream);
    assert_eq!(outcome.attempts, 2);
    assert_eq!(outcome.candidate(), Some("anthropic"));
    operation.end_stream(&outcome, Some(&failed));

    let failures = collector.points("agent_error.failures");
    assert_eq!(failures.len(), 2, "{failures:?}");
    assert_eq!(counted(&failures, "rate_limit", "openai"), Some(1.0));
    assert_eq!(counted(&failures, "auth_error", "anthropic"), Some(1.0));
    let duration = collector.points("gen_ai.client.operation.duration");
    assert_eq!(duration.len(), 1);
    assert!(has(&duration[0].0, "error.type", "auth_error"));
    assert_secret_kept_out(&collector.spans());
}
