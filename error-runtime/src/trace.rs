//! Observability (feature `tracing`): records a classified error as a `tracing` event or on
//! a span with OpenTelemetry-style fields, and a hook for the retrier's `on_retry`.

use std::error::Error as StdError;
use std::time::Duration;

use tracing::field::display;

use crate::AgentError;

/// The `error.type` of an error with no classified link, as OpenTelemetry's conventions
/// name an unknown error type.
pub const OTHER: &str = "_OTHER";

/// Emits an ERROR event for `err` with the fields
/// `error.type` (the code of its classification, see [`classify`](crate::classify), or
/// [`OTHER`]), `error.op`, `error.retryable`, `error.rate_limited`, `error.recovery` and
/// `error.message` (the public message), `http.response.status_code` when the failure has
/// an HTTP status, `stream.provider` when a stream failed whose protocol is known
/// (`openai-chat`, `anthropic`: feature `stream`), where it was made when it records that
/// ([`AgentError::location`]: `code.file.path`, `code.line.number`, `code.column.number`,
/// OpenTelemetry's names), and the chain as it may leave the process
/// ([`display::public_chain`](crate::display::public_chain)) as the event's message.
///
/// Logs leave the process: no field and no message carries a `#[redact]` value or the text
/// of a foreign error (a path, a host, SQL). Where the operator's full text is wanted, ask
/// for it with [`record_unredacted`].
///
/// ```
/// let e = agent_error::Error::new("llm.generate", "timeout", "deadline exceeded");
/// agent_error::trace::record(&e);
/// ```
pub fn record(err: &(dyn StdError + 'static)) {
    emit(err, crate::display::public_chain(err));
}

/// [`record`], with the operator's full chain ([`display::chain`](crate::display::chain):
/// foreign errors' own text included, `#[redact]` fields still redacted) as the message.
/// Only for logs that stay where secrets may be.
pub fn record_unredacted(err: &(dyn StdError + 'static)) {
    emit(err, crate::display::chain(err));
}

fn emit(err: &(dyn StdError + 'static), chain: crate::display::Chain<'_>) {
    match crate::classify(err) {
        Some(e) => {
            let location = e.location();
            tracing::error!(
                error.type = crate::core::codes::public_code(e.code()),
                error.op = crate::core::codes::public_op(e.op()),
                error.retryable = e.is_retryable(),
                error.rate_limited = e.is_rate_limited(),
                error.recovery = e.recovery().as_str(),
                error.message = %crate::display::public(&*e),
                http.response.status_code = e.status(),
                stream.provider = stream_provider(err),
                code.file.path = location.map(|l| l.file()),
                code.line.number = location.map(|l| l.line()),
                code.column.number = location.map(|l| l.column()),
                "{chain}"
            )
        }
        None => tracing::error!(error.type = OTHER, "{chain}"),
    }
}

/// The wire protocol of the stream that failed, when `err`'s chain holds a stream's error
/// whose provider was named or recognised (`openai-chat`, `anthropic`, …).
#[cfg(feature = "stream")]
fn stream_provider(err: &(dyn StdError + 'static)) -> Option<&'static str> {
    crate::chain::links(err)
        .find_map(|link| link.downcast_ref::<crate::stream::StreamError>())
        .and_then(|e| e.provider())
        .map(|p| p.as_str())
}

#[cfg(not(feature = "stream"))]
fn stream_provider(_: &(dyn StdError + 'static)) -> Option<&'static str> {
    None
}

/// Records `err` on `span`, which must declare the fields it wants filled (a `tracing` span
/// cannot gain fields after it is created); where the error was made goes in
/// `code.file.path`, `code.line.number` and `code.column.number` when it records it:
///
/// ```
/// use tracing::field::Empty;
///
/// let span = tracing::info_span!("llm.call", error.type = Empty, error.op = Empty, error.retryable = Empty, error.recovery = Empty, error.message = Empty);
/// let e = agent_error::Error::new("llm.generate", "timeout", "deadline exceeded");
/// agent_error::trace::record_on_span(&span, &e);
/// ```
pub fn record_on_span(span: &tracing::Span, err: &(dyn StdError + 'static)) {
    match crate::classify(err) {
        Some(e) => {
            span.record("error.type", crate::core::codes::public_code(e.code()));
            span.record("error.op", crate::core::codes::public_op(e.op()));
            span.record("error.retryable", e.is_retryable());
            span.record("error.rate_limited", e.is_rate_limited());
            span.record("error.recovery", e.recovery().as_str());
            span.record("error.message", display(crate::display::public(&*e)));
            if let Some(location) = e.location() {
                span.record("code.file.path", location.file());
                span.record("code.line.number", location.line());
                span.record("code.column.number", location.column());
            }
        }
        None => {
            span.record("error.type", OTHER);
        }
    }
}

/// A hook for [`Retrier::on_retry`](crate::retry::Retrier::on_retry): a WARN event per
/// retry with `error.type`, `error.op`, `retry` (1 for the first) and `delay_ms`.
///
/// ```
/// let retrier = agent_error::retry::Retrier::new().on_retry(agent_error::trace::on_retry);
/// ```
pub fn on_retry(e: &dyn AgentError, retry: u32, delay: Duration) {
    tracing::warn!(
        error.type = crate::core::codes::public_code(e.code()),
        error.op = crate::core::codes::public_op(e.op()),
        retry,
        delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
        "retrying after {}: {}",
        crate::core::codes::public_code(e.code()),
        crate::display::public(e)
    );
}

/// A hook for `Fallback::on_fallback` (features `tracing` and `recover`): a WARN event per
/// candidate that failed, with `error.type`, `error.op`, `http.response.status_code` when
/// the failure has one, and `fallback.candidate`, the candidate's name. The message is the
/// public one: no secret.
///
/// ```
/// # #[cfg(feature = "recover")] {
/// let models = agent_error::recover::Fallback::new(["gpt-4o", "claude-sonnet"])
///     .on_fallback(agent_error::trace::on_fallback);
/// # }
/// ```
pub fn on_fallback(e: &dyn AgentError, candidate: &str) {
    tracing::warn!(
        error.type = crate::core::codes::public_code(e.code()),
        error.op = crate::core::codes::public_op(e.op()),
        http.response.status_code = e.status(),
        fallback.candidate = candidate,
        "candidate {candidate} failed with {}: {}",
        crate::core::codes::public_code(e.code()),
        crate::display::public(e)
    );
}

/// Emits an event for a finished [`Retrier`](crate::retry::Retrier) run: INFO when it
/// succeeded, WARN otherwise, with `retry.attempts`, `http.request.resend_count` (the
/// attempts after the first, OpenTelemetry's name), `retry.stop`, `retry.waited_ms`,
/// `error.type` (the last failure's code, if any) and `retry.record`, the failed attempts
/// with their waits and where each came from; the message is
/// [`Outcome::summary`](crate::retry::Outcome::summary). Codes only: no error's text.
///
/// ```
/// use agent_error::{Error, codes, retry::Retrier};
///
/// let outcome = Retrier::new().run_detailed_with_sleep(
///     |attempt| if attempt < 2 { Err(Error::new("llm.generate", codes::TIMEOUT, "deadline exceeded")) } else { Ok(()) },
///     |_| {},
/// );
/// agent_error::trace::record_outcome(&outcome);
/// ```
pub fn record_outcome<T, E>(outcome: &crate::retry::Outcome<T, E>) {
    record_run(
        outcome.attempts,
        outcome.stop,
        outcome.waited,
        &outcome.record,
        &outcome.summary(),
        None,
    );
}

/// [`record_outcome`] for a streamed run (what
/// [`RunStream::outcome`](crate::retry::RunStream::outcome) tells once the stream has
/// ended), with `fallback.candidate`, the candidate that ran last, under a fallback chain.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// use agent_error::{http::StatusError, recover::Fallback, stream::Watch};
/// use futures_util::StreamExt;
///
/// let models = Fallback::new(["openai", "anthropic"]);
/// let mut stream = models.run_stream(
///     async |model: &&str, _resume: Option<&str>, _attempt| match *model {
///         "openai" => Err(StatusError::new(429)),
///         _ => Ok(Watch::new(futures_util::stream::iter([Ok::<_, std::io::Error>("data: [DONE]\n\n")]))),
///     },
///     |_delay| async {},
/// );
/// while stream.next().await.is_some() {}
/// agent_error::trace::record_stream_outcome(stream.outcome().unwrap());
/// # });
/// ```
#[cfg(feature = "stream")]
pub fn record_stream_outcome(outcome: &crate::retry::StreamOutcome) {
    record_run(
        outcome.attempts,
        outcome.stop,
        outcome.waited,
        &outcome.record,
        &outcome.summary(),
        outcome.candidate(),
    );
}

/// What `record_outcome` and `record_stream_outcome` write.
fn record_run(
    attempts: u32,
    stop: crate::retry::Stop,
    waited: std::time::Duration,
    record: &crate::retry::AttemptRecord,
    summary: &dyn std::fmt::Display,
    candidate: Option<&str>,
) {
    let last = record.last().map(|a| a.code());
    let waited_ms = u64::try_from(waited.as_millis()).unwrap_or(u64::MAX);
    let resends = attempts.saturating_sub(1);
    // A `tracing` event's level is part of its call site: one site a level, the same fields.
    macro_rules! event {
        ($level:expr) => {
            tracing::event!(
                $level,
                retry.attempts = attempts,
                http.request.resend_count = resends,
                retry.stop = stop.as_str(),
                retry.waited_ms = waited_ms,
                error.type = last,
                retry.record = %record,
                fallback.candidate = candidate,
                "{}",
                summary
            )
        };
    }
    if stop == crate::retry::Stop::Succeeded {
        event!(tracing::Level::INFO);
    } else {
        event!(tracing::Level::WARN);
    }
}
