//! The instruments and the tracer, made once from the application's providers, and the
//! hooks that feed circuit breakers' and pacers' events into them.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use agent_error_runtime::chain::ErrorChain;
use agent_error_runtime::recover::{CircuitBreaker, CircuitState, Fallback, Pacer};
use agent_error_runtime::retry::{Outcome, Retrier};
use opentelemetry::global::BoxedTracer;
use opentelemetry::metrics::{Meter, MeterProvider};
use opentelemetry::trace::{Span, Tracer, TracerProvider};
use opentelemetry::{InstrumentationScope, KeyValue};

use crate::instruments::Instruments;
use crate::known::Known;
use crate::names;
use crate::operation::{GenAiCall, Operation};

/// The tracer and the instruments agent-error writes with, from the application's
/// providers (or the global ones). Cheap to clone: clones share them.
///
/// | instrument | kind | unit | attributes |
/// |---|---|---|---|
/// | `gen_ai.client.operation.duration` | histogram | `s` | `gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.request.model`, `error.type` when it failed |
/// | `agent_error.failures` | counter | `{failure}` | `error.type`, `gen_ai.operation.name`, `gen_ai.provider.name` (a fallback chain's: `error.type` and the candidate as `gen_ai.provider.name`) |
/// | `agent_error.retries` | counter | `{retry}` | the same, and `agent_error.wait.source` |
/// | `agent_error.pauses` | counter | `{pause}` | the same |
/// | `agent_error.circuit.transitions` | counter | `{transition}` | `agent_error.circuit.key`, `agent_error.circuit.state` |
/// | `agent_error.pace.wait` | histogram | `s` | `agent_error.pace.key` |
///
/// `error.type` is a code this process knows (see [`error_type`](crate::error_type)), or
/// `_OTHER`: a peer's own codes never make series of their own. Keys (a breaker's, a
/// pacer's) are attributes: keep them to tools and providers, not users or requests, so
/// that the metrics' series stay few.
#[derive(Clone)]
pub struct Telemetry {
    inner: Arc<Instruments>,
    /// The codes known besides the registered ones.
    known: Arc<Known>,
}

impl fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Telemetry").finish_non_exhaustive()
    }
}

/// The instrumentation scope: this library, at its version.
fn scope() -> InstrumentationScope {
    InstrumentationScope::builder("agent-error")
        .with_version(env!("CARGO_PKG_VERSION"))
        .build()
}

impl Telemetry {
    /// The tracer and instruments of the given providers (an SDK's `SdkTracerProvider`
    /// and `SdkMeterProvider`, say), under the instrumentation scope `agent-error`.
    pub fn new<P, T, S>(tracers: &P, meters: &impl MeterProvider) -> Telemetry
    where
        P: TracerProvider<Tracer = T>,
        T: Tracer<Span = S> + Send + Sync + 'static,
        S: Span + Send + Sync + 'static,
    {
        let tracer = BoxedTracer::new(Box::new(tracers.tracer_with_scope(scope())));
        Telemetry::with(tracer, &meters.meter_with_scope(scope()))
    }

    /// The tracer and instruments of the global providers
    /// (`opentelemetry::global::set_tracer_provider`, `set_meter_provider`), as they are
    /// when this is called: call it after installing them.
    pub fn global() -> Telemetry {
        Telemetry::with(
            opentelemetry::global::tracer_with_scope(scope()),
            &opentelemetry::global::meter_with_scope(scope()),
        )
    }

    fn with(tracer: BoxedTracer, meter: &Meter) -> Telemetry {
        Telemetry {
            inner: Arc::new(Instruments::new(tracer, meter)),
            known: Arc::default(),
        }
    }

    /// Knows `codes` as well as the registered ones, so that they are `error.type` values
    /// of their own and not `_OTHER`: the codes of types that are not registered (a
    /// generic type, every type on a target where link-time registration does not run),
    /// codes your own [`Error::new`](agent_error_runtime::Error::new) calls build, or a
    /// peer's codes you choose to count apart. Pass
    /// [`error_types`](crate::error_types) of a [`catalog!`](agent_error_runtime::catalog!),
    /// or the codes themselves; one that breaks the grammar of codes is left out. Each
    /// added code may become a series of every metric: add a list you wrote, never codes
    /// read from a peer at run time.
    ///
    /// ```
    /// use agent_error::opentelemetry::{error_types, Telemetry};
    /// use agent_error::recover::CircuitOpen;
    ///
    /// let telemetry = Telemetry::global()
    ///     .with_error_types(error_types(&agent_error::catalog![CircuitOpen]))
    ///     .with_error_types(["search.quota_spent"]);
    /// # let _ = telemetry;
    /// ```
    #[must_use]
    pub fn with_error_types<I>(mut self, codes: I) -> Telemetry
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        Arc::make_mut(&mut self.known).add(codes);
        self
    }

    /// Starts an [`Operation`]: its span, as a child of the current context's, and its
    /// clock. End it with [`Operation::end`] (after a retrier's run) or
    /// [`Operation::end_with`].
    pub fn start(&self, call: &GenAiCall) -> Operation {
        Operation::start(self.inner.clone(), self.known.clone(), call)
    }

    /// Runs `op` under `retrier` as one operation: a span for the operation, a child span
    /// each attempt (`http.request.resend_count` on each resend, `error.type` on each
    /// failure), and the metrics of the run when it ends. `op` gets the attempt's number
    /// (1 for the first), as [`Retrier::run_async`] gives it.
    pub async fn run<T, E, M, F, Fut, Sl, SFut>(
        &self,
        retrier: &Retrier,
        call: &GenAiCall,
        mut op: F,
        sleep: Sl,
    ) -> Outcome<T, E>
    where
        E: ErrorChain<M>,
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<T, E>>,
        Sl: FnMut(Duration) -> SFut,
        SFut: Future<Output = ()>,
    {
        let operation = self.start(call);
        let outcome = retrier
            .run_async_detailed(|attempt| operation.attempt(attempt, op(attempt)), sleep)
            .await;
        operation.end(&outcome);
        outcome
    }

    /// `breaker`, counting each move of its circuits in `agent_error.circuit.transitions`
    /// (see [`CircuitBreaker::on_transition`], which this sets).
    pub fn instrument_breaker(&self, breaker: CircuitBreaker) -> CircuitBreaker {
        let telemetry = self.clone();
        breaker.on_transition(move |key, state| {
            let state = match state {
                CircuitState::Open { .. } => "open",
                CircuitState::HalfOpen => "half_open",
                CircuitState::Closed { .. } => "closed",
            };
            telemetry.inner.transitions.add(
                1,
                &[
                    KeyValue::new(names::CIRCUIT_KEY, key.to_string()),
                    KeyValue::new(names::CIRCUIT_STATE, state),
                ],
            );
        })
    }

    /// `fallback`, counting each candidate that failed in `agent_error.failures` with
    /// `error.type` and the candidate's name as `gen_ai.provider.name` (see
    /// [`Fallback::on_fallback`], which this sets). A unary fallback call gives no
    /// retrier's [`Outcome`] to [`Operation::end`]: this is how its failures reach the
    /// metrics. (A streamed call's outcome does, through `Operation::end_stream`, which
    /// counts each failed attempt itself: a chain whose streams end so is not instrumented
    /// here, or its failures count twice.) Name the candidates by provider (`openai`,
    /// `anthropic`), not by request, so that the series stay few.
    ///
    /// ```
    /// use agent_error::opentelemetry::Telemetry;
    /// use agent_error::recover::Fallback;
    ///
    /// let models = Telemetry::global().instrument_fallback(Fallback::new(["openai", "anthropic"]));
    /// # let _ = models;
    /// ```
    pub fn instrument_fallback<C>(&self, fallback: Fallback<C>) -> Fallback<C> {
        let telemetry = self.clone();
        fallback.on_fallback(move |e, candidate| {
            telemetry.inner.failures.add(
                1,
                &[
                    KeyValue::new(
                        names::ERROR_TYPE,
                        telemetry.known.error_type(e.code()).to_string(),
                    ),
                    KeyValue::new(names::GEN_AI_PROVIDER_NAME, candidate.to_string()),
                ],
            );
        })
    }

    /// `pacer`, recording each wait it asks a call to make in `agent_error.pace.wait`
    /// (see [`Pacer::on_wait`], which this sets).
    pub fn instrument_pacer(&self, pacer: Pacer) -> Pacer {
        let telemetry = self.clone();
        pacer.on_wait(move |key, wait| {
            telemetry.inner.pace_wait.record(
                wait.as_secs_f64(),
                &[KeyValue::new(names::PACE_KEY, key.to_string())],
            );
        })
    }
}
