//! One model call as the GenAI conventions draw it: an operation span with a child span an
//! attempt, and the metrics of the run written when it ends.

use std::borrow::Cow;
use std::error::Error as StdError;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use agent_error_runtime::chain::ErrorChain;
use agent_error_runtime::display;
use agent_error_runtime::retry::{AttemptRecord, Outcome, Stop, WaitSource};
use opentelemetry::context::FutureExt;
use opentelemetry::trace::{SpanKind, TraceContextExt, Tracer};
use opentelemetry::{Array, Context, KeyValue, StringValue, Value};

use crate::error::{record, type_of};
use crate::instruments::Instruments;
use crate::known::Known;
use crate::known::OTHER;
use crate::names;

/// What a run tells the operation's end, unary or streamed.
struct Run<'r> {
    attempts: u32,
    stop: Stop,
    record: &'r AttemptRecord,
    summary: &'r dyn std::fmt::Display,
}

/// The most finish reasons written on a span; a response lists one a choice.
const MAX_FINISH_REASONS: usize = 16;
/// The most bytes of one finish reason: they come from the provider.
const MAX_FINISH_REASON_BYTES: usize = 64;

/// What the caller knows of a model call before it is made: the GenAI conventions'
/// `gen_ai.operation.name` (`chat`, `embeddings`, `execute_tool`, …), and
/// `gen_ai.provider.name` and `gen_ai.request.model` where given. They name the operation's
/// span (`chat gpt-4o`) and are attributes of its span and of every metric of the run.
///
/// ```
/// use agent_error::opentelemetry::GenAiCall;
///
/// let call = GenAiCall::new("chat").provider("anthropic").model("claude-sonnet-4");
/// assert_eq!(call.span_name(), "chat claude-sonnet-4");
/// ```
#[derive(Clone, Debug)]
pub struct GenAiCall {
    operation: Cow<'static, str>,
    provider: Option<Cow<'static, str>>,
    model: Option<Cow<'static, str>>,
}

impl GenAiCall {
    /// A call of the operation `operation` (`chat`, `generate_content`, `embeddings`,
    /// `execute_tool`, …).
    pub fn new(operation: impl Into<Cow<'static, str>>) -> GenAiCall {
        GenAiCall {
            operation: operation.into(),
            provider: None,
            model: None,
        }
    }

    /// The provider: `openai`, `anthropic`, `gcp.gemini`, `aws.bedrock`, … (the
    /// conventions' names).
    #[must_use]
    pub fn provider(mut self, provider: impl Into<Cow<'static, str>>) -> GenAiCall {
        self.provider = Some(provider.into());
        self
    }

    /// The model asked for.
    #[must_use]
    pub fn model(mut self, model: impl Into<Cow<'static, str>>) -> GenAiCall {
        self.model = Some(model.into());
        self
    }

    /// The operation span's name: `{gen_ai.operation.name} {gen_ai.request.model}`, or the
    /// operation's name alone without a model.
    pub fn span_name(&self) -> String {
        match &self.model {
            Some(model) => format!("{} {model}", self.operation),
            None => self.operation.to_string(),
        }
    }

    /// The attributes every span of the call and its duration carry: those of
    /// [`metric_attributes`](Self::metric_attributes), and the model.
    fn attributes(&self) -> Vec<KeyValue> {
        let mut attributes = self.metric_attributes();
        if let Some(model) = &self.model {
            attributes.push(KeyValue::new(names::GEN_AI_REQUEST_MODEL, model.clone()));
        }
        attributes
    }

    /// The attributes a metric by code and provider carries: the operation and the
    /// provider (the model would multiply the series).
    fn metric_attributes(&self) -> Vec<KeyValue> {
        let mut attributes = vec![KeyValue::new(
            names::GEN_AI_OPERATION_NAME,
            self.operation.clone(),
        )];
        if let Some(provider) = &self.provider {
            attributes.push(KeyValue::new(names::GEN_AI_PROVIDER_NAME, provider.clone()));
        }
        attributes
    }
}

/// A model call under way, from [`Telemetry::start`](crate::Telemetry::start): its span (a `Client` span named by
/// [`GenAiCall::span_name`]) and its clock. Wrap each attempt's future in
/// [`attempt`](Self::attempt), then end it with [`end`](Self::end) and the retrier's
/// [`Outcome`], or with [`end_with`](Self::end_with) when no retrier ran. An operation
/// dropped without either ends its span and writes no metric.
///
/// ```
/// use agent_error::opentelemetry::{GenAiCall, Telemetry};
/// use agent_error::retry::{tokio_sleep, Retrier};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let telemetry = Telemetry::global();
/// let operation = telemetry.start(&GenAiCall::new("chat").provider("openai").model("gpt-4o"));
/// let outcome = Retrier::new()
///     .run_async_detailed(
///         |attempt| operation.attempt(attempt, async { Ok::<_, agent_error::Error>("hello") }),
///         tokio_sleep,
///     )
///     .await;
/// operation.finish_reasons(["stop"]);
/// operation.end(&outcome);
/// # }
/// ```
pub struct Operation {
    instruments: Arc<Instruments>,
    known: Arc<Known>,
    call: GenAiCall,
    cx: Context,
    started: Instant,
    finish_reasons: Mutex<Vec<StringValue>>,
}

impl std::fmt::Debug for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Operation")
            .field("call", &self.call)
            .finish_non_exhaustive()
    }
}

impl Operation {
    pub(crate) fn start(
        instruments: Arc<Instruments>,
        known: Arc<Known>,
        call: &GenAiCall,
    ) -> Operation {
        let parent = Context::current();
        let span = instruments
            .tracer
            .span_builder(call.span_name())
            .with_kind(SpanKind::Client)
            .with_attributes(call.attributes())
            .start_with_context(&instruments.tracer, &parent);
        Operation {
            cx: parent.with_span(span),
            instruments,
            known,
            call: call.clone(),
            started: Instant::now(),
            finish_reasons: Mutex::new(Vec::new()),
        }
    }

    /// The context whose active span is the operation's: to start spans of your own
    /// under it, or to make it current (`cx.attach()`).
    pub fn context(&self) -> &Context {
        &self.cx
    }

    /// Runs one attempt's future in a child span of the operation, current while it runs
    /// (so spans an HTTP client starts nest under it), named `{operation} attempt`, with
    /// `http.request.resend_count` from the second attempt on and, when it fails, the
    /// error recorded ([`record_error`](crate::record_error)). `attempt` is its number, 1
    /// for the first, as the retrier gives it.
    pub async fn attempt<T, E, M>(
        &self,
        attempt: u32,
        future: impl Future<Output = Result<T, E>>,
    ) -> Result<T, E>
    where
        E: ErrorChain<M>,
    {
        let tracer = &self.instruments.tracer;
        let mut attributes = self.call.attributes();
        if attempt > 1 {
            attributes.push(KeyValue::new(
                names::HTTP_REQUEST_RESEND_COUNT,
                i64::from(attempt - 1),
            ));
        }
        let span = tracer
            .span_builder(format!("{} attempt", self.call.operation))
            .with_kind(SpanKind::Internal)
            .with_attributes(attributes)
            .start_with_context(tracer, &self.cx);
        let cx = self.cx.with_span(span);
        let result = future.with_context(cx.clone()).await;
        let span = cx.span();
        if let Err(e) = &result {
            record(&span, e.error_chain(), &self.known);
        }
        span.end();
        result
    }

    /// Sets `gen_ai.response.finish_reasons` on the operation's span: why the model
    /// stopped, one a choice (`stop`, `length`, `tool_calls`, …). They come from the
    /// provider: each is folded to one line and capped at 64 bytes, and at most 16 are kept.
    pub fn finish_reasons<I>(&self, reasons: I)
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let folded = reasons
            .into_iter()
            .take(MAX_FINISH_REASONS)
            .map(|reason| {
                StringValue::from(display::one_line(reason.as_ref(), MAX_FINISH_REASON_BYTES))
            })
            .collect();
        *self
            .finish_reasons
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = folded;
    }

    /// Ends the operation after a retrier's run: on its span, `agent_error.retry.attempts`,
    /// `agent_error.retry.stop`, `agent_error.retry.record` (the attempts' codes and waits,
    /// codes only) and the last error when the run failed; then the metrics: the
    /// operation's duration, each failed attempt in `agent_error.failures`, each retry in
    /// `agent_error.retries` by where its wait came from, each wait a server asked for and a
    /// run a gate's pause ended in `agent_error.pauses`.
    pub fn end<T, E, M>(self, outcome: &Outcome<T, E>)
    where
        E: ErrorChain<M>,
    {
        let error = outcome.result.as_ref().err().map(ErrorChain::error_chain);
        let run = Run {
            attempts: outcome.attempts,
            stop: outcome.stop,
            record: &outcome.record,
            summary: &outcome.summary(),
        };
        self.end_run(&run, error, |_| None);
    }

    /// Ends the operation after a streamed run
    /// ([`Retrier::run_stream`](agent_error_runtime::retry::Retrier::run_stream),
    /// [`Fallback::run_stream`](agent_error_runtime::recover::Fallback::run_stream)), as
    /// [`end`](Self::end) ends a unary one: `outcome` is what the stream told once it ended
    /// ([`RunStream::outcome`](agent_error_runtime::retry::RunStream::outcome)), `error` the
    /// error it ended in, if any. The span gets the same attributes, the metrics the same
    /// counts; under a fallback chain, each failed attempt is counted with the candidate
    /// that made it as `gen_ai.provider.name` (so do not also count the chain's failures
    /// with [`Telemetry::instrument_fallback`](crate::Telemetry::instrument_fallback)).
    #[cfg(feature = "stream")]
    pub fn end_stream(
        self,
        outcome: &agent_error_runtime::retry::StreamOutcome,
        error: Option<&agent_error_runtime::stream::StreamError>,
    ) {
        let run = Run {
            attempts: outcome.attempts,
            stop: outcome.stop,
            record: &outcome.record,
            summary: &outcome.summary(),
        };
        let error = error.map(|e| e as &(dyn StdError + 'static));
        self.end_run(&run, error, |attempt| outcome.candidate_of(attempt));
    }

    /// What [`end`](Self::end) and [`end_stream`](Self::end_stream) write: `provider_of`
    /// names the candidate that made an attempt, under a fallback chain.
    fn end_run<'o>(
        self,
        run: &Run<'_>,
        error: Option<&(dyn StdError + 'static)>,
        provider_of: impl Fn(u32) -> Option<&'o str>,
    ) {
        let span = self.cx.span();
        span.set_attribute(KeyValue::new(
            names::RETRY_ATTEMPTS,
            i64::from(run.attempts),
        ));
        span.set_attribute(KeyValue::new(names::RETRY_STOP, run.stop.as_str()));
        if !run.record.is_empty() {
            span.set_attribute(KeyValue::new(names::RETRY_RECORD, run.summary.to_string()));
        }
        let inner = &self.instruments;
        let base = self.call.metric_attributes();
        let with = |provider: Option<&str>, extra: &[KeyValue]| -> Vec<KeyValue> {
            let mut all: Vec<KeyValue> = match provider {
                Some(name) => base
                    .iter()
                    .filter(|kv| kv.key.as_str() != names::GEN_AI_PROVIDER_NAME)
                    .cloned()
                    .chain([KeyValue::new(names::GEN_AI_PROVIDER_NAME, name.to_string())])
                    .collect(),
                None => base.clone(),
            };
            all.extend(extra.iter().cloned());
            all
        };
        for attempt in run.record.iter() {
            let provider = provider_of(attempt.number());
            let code = KeyValue::new(
                names::ERROR_TYPE,
                self.known.error_type(attempt.code()).to_string(),
            );
            inner
                .failures
                .add(1, &with(provider, std::slice::from_ref(&code)));
            let Some((_, source)) = attempt.wait() else {
                continue;
            };
            let source_kv = KeyValue::new(names::WAIT_SOURCE, source.as_str());
            inner
                .retries
                .add(1, &with(provider, &[code.clone(), source_kv.clone()]));
            if matches!(
                source,
                WaitSource::Header | WaitSource::Body | WaitSource::Message | WaitSource::Reset
            ) {
                inner.pauses.add(1, &with(provider, &[code, source_kv]));
            }
        }
        let omitted = u64::from(run.record.omitted());
        if omitted > 0 {
            // Attempts the capped record left out: failed, each followed by a retry.
            inner.failures.add(omitted, &base);
            inner.retries.add(omitted, &base);
        }
        if run.stop == Stop::Paused {
            let code = error.map_or_else(|| OTHER.to_string(), |e| type_of(e, &self.known));
            inner.pauses.add(
                1,
                &with(
                    None,
                    &[
                        KeyValue::new(names::ERROR_TYPE, code),
                        KeyValue::new(names::WAIT_SOURCE, "gate"),
                    ],
                ),
            );
        }
        self.end_with(error);
    }

    /// Ends the operation with its result's error, if any, when no retrier's outcome is at
    /// hand: the error on its span, and `gen_ai.client.operation.duration` with
    /// `error.type` when it failed.
    pub fn end_with(self, error: Option<&(dyn StdError + 'static)>) {
        let span = self.cx.span();
        let reasons = std::mem::take(
            &mut *self
                .finish_reasons
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        );
        if !reasons.is_empty() {
            span.set_attribute(KeyValue::new(
                names::GEN_AI_RESPONSE_FINISH_REASONS,
                Value::Array(Array::String(reasons)),
            ));
        }
        let mut attributes = self.call.attributes();
        if let Some(err) = error {
            record(&span, err, &self.known);
            attributes.push(KeyValue::new(names::ERROR_TYPE, type_of(err, &self.known)));
        }
        self.instruments
            .duration
            .record(self.started.elapsed().as_secs_f64(), &attributes);
        span.end();
    }
}
