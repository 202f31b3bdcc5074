//! The names written on spans and metrics: the semantic conventions' where they name the
//! thing, `agent_error.*` for what is this library's own.

/// `error.type`: the error's code ([`OTHER`](crate::OTHER) when nothing classifies it, or
/// when this process does not know its code; see [`error_type`](crate::error_type)).
pub const ERROR_TYPE: &str = "error.type";
/// `gen_ai.operation.name`: `chat`, `embeddings`, `execute_tool`, …
pub const GEN_AI_OPERATION_NAME: &str = "gen_ai.operation.name";
/// `gen_ai.provider.name`: `openai`, `anthropic`, `gcp.gemini`, …
pub const GEN_AI_PROVIDER_NAME: &str = "gen_ai.provider.name";
/// `gen_ai.request.model`: the model asked for.
pub const GEN_AI_REQUEST_MODEL: &str = "gen_ai.request.model";
/// `gen_ai.response.finish_reasons`: why the model stopped, one a choice.
pub const GEN_AI_RESPONSE_FINISH_REASONS: &str = "gen_ai.response.finish_reasons";
/// `http.request.resend_count`: on an attempt's span, the attempts before it (absent on the
/// first).
pub const HTTP_REQUEST_RESEND_COUNT: &str = "http.request.resend_count";
/// `code.file.path`: where the `?` converted the error (`#[location]`).
pub const CODE_FILE_PATH: &str = "code.file.path";
/// `code.line.number`: its line.
pub const CODE_LINE_NUMBER: &str = "code.line.number";
/// `code.column.number`: its column.
pub const CODE_COLUMN_NUMBER: &str = "code.column.number";

/// `agent_error.peer_code`: on a span, a code this process does not know (most often read
/// from a peer: its report, an MCP tool result, a gRPC status), which `error.type` writes as
/// [`OTHER`](crate::OTHER); folded to one line and capped at 64 bytes. Never on a metric.
pub const PEER_CODE: &str = "agent_error.peer_code";
/// `agent_error.op`: the operation the error names (`llm.generate`).
pub const OP: &str = "agent_error.op";
/// `agent_error.retryable`: whether the error may be retried.
pub const RETRYABLE: &str = "agent_error.retryable";
/// `agent_error.recovery`: what an agent loop should do (`retry`, `replan`, …).
pub const RECOVERY: &str = "agent_error.recovery";
/// `agent_error.retry.attempts`: on an operation's span, the attempts made.
pub const RETRY_ATTEMPTS: &str = "agent_error.retry.attempts";
/// `agent_error.retry.stop`: on an operation's span, how the run ended (`succeeded`,
/// `attempts_exhausted`, …).
pub const RETRY_STOP: &str = "agent_error.retry.stop";
/// `agent_error.retry.record`: on an operation's span, each failed attempt with its wait
/// and where that came from (`3 attempts: rate_limit (waited 2.0s, header), …`).
pub const RETRY_RECORD: &str = "agent_error.retry.record";
/// `agent_error.wait.source`: what set a wait: `header`, `body`, `message`, `reset` (the
/// server), `error`, `backoff` (the policy), or `gate` (a pause or a pacer's turn).
pub const WAIT_SOURCE: &str = "agent_error.wait.source";
/// `agent_error.circuit.key`: the key a circuit breaker guards.
pub const CIRCUIT_KEY: &str = "agent_error.circuit.key";
/// `agent_error.circuit.state`: the state a circuit moved to: `open`, `half_open`, `closed`.
pub const CIRCUIT_STATE: &str = "agent_error.circuit.state";
/// `agent_error.pace.key`: the key a pacer paces.
pub const PACE_KEY: &str = "agent_error.pace.key";

/// The GenAI conventions' histogram of an operation's duration, in seconds, with
/// `error.type` when it failed.
pub const OPERATION_DURATION: &str = "gen_ai.client.operation.duration";
/// Failed attempts (`{failure}`), by `error.type` and provider.
pub const FAILURES: &str = "agent_error.failures";
/// Retries (`{retry}`), by `error.type`, provider and `agent_error.wait.source`.
pub const RETRIES: &str = "agent_error.retries";
/// Pauses (`{pause}`): a wait a server asked for (`Retry-After` and its kin: the wait's
/// source `header`, `body`, `message` or `reset`), and a run a gate's pause ended
/// (source `gate`), by `error.type` and provider.
pub const PAUSES: &str = "agent_error.pauses";
/// Circuit breaker transitions (`{transition}`), by key and the state moved to.
pub const CIRCUIT_TRANSITIONS: &str = "agent_error.circuit.transitions";
/// The waits a pacer asks calls to make, in seconds, by key.
pub const PACE_WAIT: &str = "agent_error.pace.wait";
