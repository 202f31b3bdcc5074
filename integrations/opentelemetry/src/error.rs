//! An error on a span: its code as `error.type`, its public chain as the span's status,
//! and the list of `error.type` values a service can write.

use std::error::Error as StdError;

use agent_error_runtime::catalog::CodeDoc;
use agent_error_runtime::{codes, display};
use opentelemetry::KeyValue;
use opentelemetry::trace::{SpanRef, Status};

use crate::known::Known;
use crate::known::OTHER;
use crate::names;

/// The `error.type` of `err`: the code of its classification (see
/// [`classify`](agent_error_runtime::classify)) when this process knows it, else [`OTHER`].
///
/// A known code is one of the shared vocabulary, `unclassified`, or one of a type registered
/// in this process (every derived type with the `registry` feature, those given to
/// `register!`, the runtime's own; see
/// [`catalog::all`](agent_error_runtime::catalog::all)). A code read from a peer (its
/// report, an MCP tool result, a gRPC status) that no catalog here lists is [`OTHER`], so
/// that no peer can grow a metric's series; a code that breaks the grammar of codes is
/// `unclassified`. A [`Telemetry`](crate::Telemetry) can be told of more codes
/// ([`Telemetry::with_error_types`](crate::Telemetry::with_error_types)).
///
/// ```
/// use agent_error::{codes, opentelemetry::error_type, Error};
///
/// assert_eq!(error_type(&Error::new("llm.generate", codes::TIMEOUT, "deadline exceeded")), "timeout");
/// assert_eq!(error_type(&Error::new("peer.call", "peer.own_code", "from a peer")), "_OTHER");
/// assert_eq!(error_type(&std::fmt::Error), "_OTHER");
/// ```
pub fn error_type(err: &(dyn StdError + 'static)) -> String {
    type_of(err, &Known::default()).to_string()
}

/// [`error_type`], knowing the codes of `known` besides the registered ones.
pub(crate) fn type_of(err: &(dyn StdError + 'static), known: &Known) -> String {
    match agent_error_runtime::classify(err) {
        Some(e) => known.error_type(e.code()).to_string(),
        None => OTHER.to_string(),
    }
}

/// The attributes of `err` for a span: `error.type` (as [`error_type`] gives it), and for a
/// classified error `agent_error.op`, `agent_error.retryable`, `agent_error.recovery` and,
/// when it records where the `?` was, `code.file.path`, `code.line.number` and
/// `code.column.number`. A code this process does not know is kept in
/// `agent_error.peer_code`, folded to one line and capped at 64 bytes. For a span of the
/// `Span` trait (`span.set_attributes(error_attributes(&e))`); a `SpanRef` takes
/// [`record_error`], which sets the status too.
///
/// ```
/// use agent_error::{codes, opentelemetry::error_attributes, Error};
///
/// let attributes = error_attributes(&Error::new("llm.generate", codes::RATE_LIMIT, "HTTP 429"));
/// assert!(attributes.iter().any(|kv| kv.key.as_str() == "error.type" && kv.value.as_str() == "rate_limit"));
///
/// let attributes = error_attributes(&Error::new("peer.call", "peer.own_code", "from a peer"));
/// assert!(attributes.iter().any(|kv| kv.key.as_str() == "error.type" && kv.value.as_str() == "_OTHER"));
/// assert!(attributes.iter().any(|kv| kv.key.as_str() == "agent_error.peer_code" && kv.value.as_str() == "peer.own_code"));
/// ```
pub fn error_attributes(err: &(dyn StdError + 'static)) -> Vec<KeyValue> {
    attributes_of(err, &Known::default())
}

/// [`error_attributes`], knowing the codes of `known` besides the registered ones.
pub(crate) fn attributes_of(err: &(dyn StdError + 'static), known: &Known) -> Vec<KeyValue> {
    let Some(e) = agent_error_runtime::classify(err) else {
        return vec![KeyValue::new(names::ERROR_TYPE, OTHER)];
    };
    let mut attributes = vec![KeyValue::new(
        names::ERROR_TYPE,
        known.error_type(e.code()).to_string(),
    )];
    if let Some(code) = known.peer_code(e.code()) {
        attributes.push(KeyValue::new(names::PEER_CODE, code));
    }
    if codes::is_valid_op(e.op()) {
        attributes.push(KeyValue::new(names::OP, e.op().to_string()));
    }
    attributes.push(KeyValue::new(names::RETRYABLE, e.is_retryable()));
    attributes.push(KeyValue::new(names::RECOVERY, e.recovery().as_str()));
    if let Some(location) = e.location() {
        attributes.push(KeyValue::new(names::CODE_FILE_PATH, location.file()));
        attributes.push(KeyValue::new(
            names::CODE_LINE_NUMBER,
            i64::from(location.line()),
        ));
        attributes.push(KeyValue::new(
            names::CODE_COLUMN_NUMBER,
            i64::from(location.column()),
        ));
    }
    attributes
}

/// Records `err` on `span`: the [`error_attributes`], and the status `Error` whose
/// description is the chain as it may leave the process
/// ([`display::public_chain`](agent_error_runtime::display::public_chain): classified
/// links' public messages, no foreign error's text, no `#[redact]` value).
///
/// It does not add the `exception` event that `Span::record_error` adds: that event carries
/// the error's own `Display`, which is the operator's text, not the public one.
///
/// ```
/// use agent_error::{codes, opentelemetry::record_error, Error};
/// use opentelemetry::Context;
/// use opentelemetry::trace::TraceContextExt;
///
/// let e = Error::new("llm.generate", codes::TIMEOUT, "deadline exceeded");
/// record_error(&Context::current().span(), &e);
/// ```
pub fn record_error(span: &SpanRef<'_>, err: &(dyn StdError + 'static)) {
    record(span, err, &Known::default());
}

/// [`record_error`], knowing the codes of `known` besides the registered ones.
pub(crate) fn record(span: &SpanRef<'_>, err: &(dyn StdError + 'static), known: &Known) {
    span.set_attributes(attributes_of(err, known));
    span.set_status(Status::error(display::public_chain(err).to_string()));
}

/// The documented list of `error.type` values the conventions ask an instrumentation to
/// publish: the codes of `entries` (a [`catalog!`](agent_error_runtime::catalog!) of the
/// service's types, or [`catalog::all`](agent_error_runtime::catalog::all)), the shared
/// vocabulary, `unclassified`, and [`OTHER`]; sorted, each once. No other value is
/// written: a code this process does not know is [`OTHER`] (see [`error_type`]).
///
/// ```
/// use agent_error::AgentError;
///
/// #[derive(Debug, AgentError)]
/// #[agent(op = "billing")]
/// enum BillingError {
///     #[agent(code = "billing.card_declined")]
///     #[error("the card was declined")]
///     CardDeclined,
/// }
///
/// let types = agent_error::opentelemetry::error_types(&agent_error::catalog![BillingError]);
/// assert!(types.contains(&"billing.card_declined"));
/// assert!(types.contains(&"rate_limit") && types.contains(&"_OTHER"));
/// ```
pub fn error_types(entries: &[&'static CodeDoc]) -> Vec<&'static str> {
    let mut types = agent_error_runtime::catalog::codes_with_vocabulary(entries);
    types.push(OTHER);
    types.sort_unstable();
    types.dedup();
    types
}
