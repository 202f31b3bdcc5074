//! What the derive costs at run time: `code()`, `op()`, `is_retryable()`, `retry_policy()`,
//! `Display` and `fmt_message` of a 20-variant derived enum, side by side with the same enum
//! written by hand and, for `Display`, with thiserror. Run with `cargo bench --bench derived`.
//!
//! Each measurement walks 1,000 errors: the 20 variants shuffled at run time, so that no
//! call site knows which variant it gets, or (for `Display` of one kind of message) 1,000
//! of one variant chosen at run time. With the environment variable
//! `AGENT_ERROR_BENCH_ONCE` set (see `main`), it runs each kernel a given number of times
//! without criterion, for counting instructions under callgrind (`scripts/instructions.py`).

use std::fmt::{self, Write as _};
use std::hint::black_box;
use std::time::Duration;
use std::{error::Error as StdError, io};

use agent_error::{AgentError, Recovery, RetryPolicy};
use criterion::{Criterion, Throughput};

const BATCH: usize = 1_000;

/// A retry tuning as a constant, as the hand-written enum would spell it.
const fn tuned(rate_limited: bool, attempts: u32, base_ms: u64, max_ms: u64) -> RetryPolicy {
    let built = RetryPolicy::builder()
        .rate_limited(rate_limited)
        .max_attempts(attempts)
        .base_delay(Duration::from_millis(base_ms))
        .max_delay(Duration::from_millis(max_ms))
        .build();
    match built {
        Ok(policy) => policy,
        Err(_) => panic!("a valid tuning"),
    }
}

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
pub enum Derived {
    #[agent(code = "rate_limit", rate_limited)]
    #[error("provider returned 429")]
    RateLimited {
        #[retry_after]
        retry_after: Option<Duration>,
    },
    #[agent(
        code = "timeout",
        retryable,
        retry(attempts = 4, base = "100ms", max = "5s")
    )]
    #[error("deadline exceeded after {tokens} tokens")]
    Timeout {
        tokens: u32,
        #[source]
        source: io::Error,
    },
    #[agent(code = "auth_error")]
    #[error("invalid api key for {console}")]
    Auth { console: &'static str },
    #[agent(code = "context_overflow", recovery = "compact")]
    #[error("prompt has {tokens} tokens, the model takes {limit}")]
    ContextOverflow { tokens: u32, limit: u32 },
    #[agent(retryable)]
    #[error("provider unavailable")]
    ProviderUnavailable,
    #[agent(code = "invalid_input")]
    #[error("invalid request: {0}")]
    InvalidInput(&'static str),
    #[error("model {model} not found")]
    ModelNotFound { model: &'static str },
    #[agent(op = "llm.stream", retryable)]
    #[error("stream interrupted at chunk {0}")]
    StreamInterrupted(u32),
    #[agent(op = "llm.stream")]
    #[error("malformed chunk")]
    MalformedChunk,
    #[agent(op = "tool.call", recovery = "replan")]
    #[error("tool {name} failed")]
    ToolFailed { name: &'static str },
    #[agent(op = "tool.call")]
    #[error("tool {0} is disabled")]
    ToolDisabled(&'static str),
    #[agent(code = "guard_blocked", recovery = "escalate")]
    #[error("blocked by guard {guard}")]
    GuardBlocked { guard: &'static str },
    #[agent(code = "budget_exhausted")]
    #[error("spent {spent} of {budget} tokens")]
    BudgetExhausted { spent: u64, budget: u64 },
    #[agent(retryable, retry(attempts = 5))]
    #[error("overloaded")]
    Overloaded,
    #[error("content filtered")]
    ContentFiltered,
    #[error("refused: {reason}")]
    Refused { reason: &'static str },
    #[agent(op = "llm.embed")]
    #[error("embedding dimension {got} is not {expected}")]
    DimensionMismatch { got: u32, expected: u32 },
    #[agent(op = "net.connect", retryable)]
    #[error("connection failed")]
    Connect {
        #[source]
        source: io::Error,
    },
    #[error("unsupported parameter {0}")]
    Unsupported(&'static str),
    #[agent(code = "INTERNAL")]
    #[error("internal error")]
    Internal,
}

/// The same enum with every impl written by hand, as carefully as a person would.
#[derive(Debug)]
pub enum Hand {
    RateLimited { retry_after: Option<Duration> },
    Timeout { tokens: u32, source: io::Error },
    Auth { console: &'static str },
    ContextOverflow { tokens: u32, limit: u32 },
    ProviderUnavailable,
    InvalidInput(&'static str),
    ModelNotFound { model: &'static str },
    StreamInterrupted(u32),
    MalformedChunk,
    ToolFailed { name: &'static str },
    ToolDisabled(&'static str),
    GuardBlocked { guard: &'static str },
    BudgetExhausted { spent: u64, budget: u64 },
    Overloaded,
    ContentFiltered,
    Refused { reason: &'static str },
    DimensionMismatch { got: u32, expected: u32 },
    Connect { source: io::Error },
    Unsupported(&'static str),
    Internal,
}

impl fmt::Display for Hand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Hand::RateLimited { .. } => {
                write!(f, "llm.generate [rate_limit]: provider returned 429")
            }
            Hand::Timeout { tokens, source } => write!(
                f,
                "llm.generate [timeout]: deadline exceeded after {tokens} tokens: {source}"
            ),
            Hand::Auth { console } => {
                write!(
                    f,
                    "llm.generate [auth_error]: invalid api key for {console}"
                )
            }
            Hand::ContextOverflow { tokens, limit } => write!(
                f,
                "llm.generate [context_overflow]: prompt has {tokens} tokens, the model takes {limit}"
            ),
            Hand::ProviderUnavailable => {
                write!(
                    f,
                    "llm.generate [provider_unavailable]: provider unavailable"
                )
            }
            Hand::InvalidInput(what) => {
                write!(f, "llm.generate [invalid_input]: invalid request: {what}")
            }
            Hand::ModelNotFound { model } => {
                write!(f, "llm.generate [model_not_found]: model {model} not found")
            }
            Hand::StreamInterrupted(chunk) => write!(
                f,
                "llm.stream [stream_interrupted]: stream interrupted at chunk {chunk}"
            ),
            Hand::MalformedChunk => write!(f, "llm.stream [malformed_chunk]: malformed chunk"),
            Hand::ToolFailed { name } => write!(f, "tool.call [tool_failed]: tool {name} failed"),
            Hand::ToolDisabled(name) => {
                write!(f, "tool.call [tool_disabled]: tool {name} is disabled")
            }
            Hand::GuardBlocked { guard } => {
                write!(f, "llm.generate [guard_blocked]: blocked by guard {guard}")
            }
            Hand::BudgetExhausted { spent, budget } => write!(
                f,
                "llm.generate [budget_exhausted]: spent {spent} of {budget} tokens"
            ),
            Hand::Overloaded => write!(f, "llm.generate [overloaded]: overloaded"),
            Hand::ContentFiltered => write!(f, "llm.generate [content_filtered]: content filtered"),
            Hand::Refused { reason } => write!(f, "llm.generate [refused]: refused: {reason}"),
            Hand::DimensionMismatch { got, expected } => write!(
                f,
                "llm.embed [dimension_mismatch]: embedding dimension {got} is not {expected}"
            ),
            Hand::Connect { source } => {
                write!(f, "net.connect [connect]: connection failed: {source}")
            }
            Hand::Unsupported(what) => {
                write!(
                    f,
                    "llm.generate [unsupported]: unsupported parameter {what}"
                )
            }
            Hand::Internal => write!(f, "llm.generate [INTERNAL]: internal error"),
        }
    }
}

impl StdError for Hand {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            Hand::Timeout { source, .. } | Hand::Connect { source } => Some(source),
            _ => None,
        }
    }
}

impl AgentError for Hand {
    fn code(&self) -> &str {
        match self {
            Hand::RateLimited { .. } => "rate_limit",
            Hand::Timeout { .. } => "timeout",
            Hand::Auth { .. } => "auth_error",
            Hand::ContextOverflow { .. } => "context_overflow",
            Hand::ProviderUnavailable => "provider_unavailable",
            Hand::InvalidInput(_) => "invalid_input",
            Hand::ModelNotFound { .. } => "model_not_found",
            Hand::StreamInterrupted(_) => "stream_interrupted",
            Hand::MalformedChunk => "malformed_chunk",
            Hand::ToolFailed { .. } => "tool_failed",
            Hand::ToolDisabled(_) => "tool_disabled",
            Hand::GuardBlocked { .. } => "guard_blocked",
            Hand::BudgetExhausted { .. } => "budget_exhausted",
            Hand::Overloaded => "overloaded",
            Hand::ContentFiltered => "content_filtered",
            Hand::Refused { .. } => "refused",
            Hand::DimensionMismatch { .. } => "dimension_mismatch",
            Hand::Connect { .. } => "connect",
            Hand::Unsupported(_) => "unsupported",
            Hand::Internal => "INTERNAL",
        }
    }

    fn op(&self) -> &str {
        match self {
            Hand::StreamInterrupted(_) | Hand::MalformedChunk => "llm.stream",
            Hand::ToolFailed { .. } | Hand::ToolDisabled(_) => "tool.call",
            Hand::DimensionMismatch { .. } => "llm.embed",
            Hand::Connect { .. } => "net.connect",
            _ => "llm.generate",
        }
    }

    fn fmt_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Hand::RateLimited { .. } => write!(f, "provider returned 429"),
            Hand::Timeout { tokens, .. } => write!(f, "deadline exceeded after {tokens} tokens"),
            Hand::Auth { console } => write!(f, "invalid api key for {console}"),
            Hand::ContextOverflow { tokens, limit } => {
                write!(f, "prompt has {tokens} tokens, the model takes {limit}")
            }
            Hand::ProviderUnavailable => write!(f, "provider unavailable"),
            Hand::InvalidInput(what) => write!(f, "invalid request: {what}"),
            Hand::ModelNotFound { model } => write!(f, "model {model} not found"),
            Hand::StreamInterrupted(chunk) => write!(f, "stream interrupted at chunk {chunk}"),
            Hand::MalformedChunk => write!(f, "malformed chunk"),
            Hand::ToolFailed { name } => write!(f, "tool {name} failed"),
            Hand::ToolDisabled(name) => write!(f, "tool {name} is disabled"),
            Hand::GuardBlocked { guard } => write!(f, "blocked by guard {guard}"),
            Hand::BudgetExhausted { spent, budget } => {
                write!(f, "spent {spent} of {budget} tokens")
            }
            Hand::Overloaded => write!(f, "overloaded"),
            Hand::ContentFiltered => write!(f, "content filtered"),
            Hand::Refused { reason } => write!(f, "refused: {reason}"),
            Hand::DimensionMismatch { got, expected } => {
                write!(f, "embedding dimension {got} is not {expected}")
            }
            Hand::Connect { .. } => write!(f, "connection failed"),
            Hand::Unsupported(what) => write!(f, "unsupported parameter {what}"),
            Hand::Internal => write!(f, "internal error"),
        }
    }

    fn fmt_public_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_message(f)
    }

    fn retry_policy(&self) -> RetryPolicy {
        const RATE_LIMITED: RetryPolicy = tuned(true, 3, 200, 30_000);
        const TIMEOUT: RetryPolicy = tuned(false, 4, 100, 5_000);
        const DEFAULT: RetryPolicy = tuned(false, 3, 200, 30_000);
        const OVERLOADED: RetryPolicy = tuned(false, 5, 200, 30_000);
        match self {
            Hand::RateLimited { retry_after } => RATE_LIMITED.with_retry_after(*retry_after),
            Hand::Timeout { .. } => TIMEOUT,
            Hand::ProviderUnavailable | Hand::StreamInterrupted(_) | Hand::Connect { .. } => {
                DEFAULT
            }
            Hand::Overloaded => OVERLOADED,
            _ => RetryPolicy::NEVER,
        }
    }

    fn hints(&self) -> Vec<std::borrow::Cow<'static, str>> {
        Vec::new()
    }

    fn recovery(&self) -> Recovery {
        match self {
            Hand::ContextOverflow { .. } => Recovery::Compact,
            Hand::ToolFailed { .. } => Recovery::Replan,
            Hand::GuardBlocked { .. } => Recovery::Escalate,
            e if e.is_retryable() => Recovery::Retry,
            _ => Recovery::Abort,
        }
    }

    fn is_retryable(&self) -> bool {
        matches!(
            self,
            Hand::RateLimited { .. }
                | Hand::Timeout { .. }
                | Hand::ProviderUnavailable
                | Hand::StreamInterrupted(_)
                | Hand::Overloaded
                | Hand::Connect { .. }
        )
    }

    fn is_rate_limited(&self) -> bool {
        matches!(self, Hand::RateLimited { .. })
    }

    fn retry_after(&self) -> Option<Duration> {
        match self {
            Hand::RateLimited { retry_after } => *retry_after,
            _ => None,
        }
    }
}

/// The same enum with thiserror, the prefix written into each format string.
#[derive(Debug, thiserror::Error)]
pub enum WithThiserror {
    #[error("llm.generate [rate_limit]: provider returned 429")]
    RateLimited { retry_after: Option<Duration> },
    #[error("llm.generate [timeout]: deadline exceeded after {tokens} tokens: {source}")]
    Timeout { tokens: u32, source: io::Error },
    #[error("llm.generate [auth_error]: invalid api key for {console}")]
    Auth { console: &'static str },
    #[error("llm.generate [context_overflow]: prompt has {tokens} tokens, the model takes {limit}")]
    ContextOverflow { tokens: u32, limit: u32 },
    #[error("llm.generate [provider_unavailable]: provider unavailable")]
    ProviderUnavailable,
    #[error("llm.generate [invalid_input]: invalid request: {0}")]
    InvalidInput(&'static str),
    #[error("llm.generate [model_not_found]: model {model} not found")]
    ModelNotFound { model: &'static str },
    #[error("llm.stream [stream_interrupted]: stream interrupted at chunk {0}")]
    StreamInterrupted(u32),
    #[error("llm.stream [malformed_chunk]: malformed chunk")]
    MalformedChunk,
    #[error("tool.call [tool_failed]: tool {name} failed")]
    ToolFailed { name: &'static str },
    #[error("tool.call [tool_disabled]: tool {0} is disabled")]
    ToolDisabled(&'static str),
    #[error("llm.generate [guard_blocked]: blocked by guard {guard}")]
    GuardBlocked { guard: &'static str },
    #[error("llm.generate [budget_exhausted]: spent {spent} of {budget} tokens")]
    BudgetExhausted { spent: u64, budget: u64 },
    #[error("llm.generate [overloaded]: overloaded")]
    Overloaded,
    #[error("llm.generate [content_filtered]: content filtered")]
    ContentFiltered,
    #[error("llm.generate [refused]: refused: {reason}")]
    Refused { reason: &'static str },
    #[error("llm.embed [dimension_mismatch]: embedding dimension {got} is not {expected}")]
    DimensionMismatch { got: u32, expected: u32 },
    #[error("net.connect [connect]: connection failed: {source}")]
    Connect { source: io::Error },
    #[error("llm.generate [unsupported]: unsupported parameter {0}")]
    Unsupported(&'static str),
    #[error("llm.generate [INTERNAL]: internal error")]
    Internal,
}

/// Builds variant `i` (0 to 19) of each enum with the same field values.
macro_rules! variant {
    ($ty:ident, $i:expr) => {
        match $i {
            0 => $ty::RateLimited {
                retry_after: Some(Duration::from_secs(2)),
            },
            1 => $ty::Timeout {
                tokens: 12,
                source: io::ErrorKind::ConnectionReset.into(),
            },
            2 => $ty::Auth {
                console: "platform.example.com",
            },
            3 => $ty::ContextOverflow {
                tokens: 210_345,
                limit: 200_000,
            },
            4 => $ty::ProviderUnavailable,
            5 => $ty::InvalidInput("temperature"),
            6 => $ty::ModelNotFound { model: "gpt-9" },
            7 => $ty::StreamInterrupted(17),
            8 => $ty::MalformedChunk,
            9 => $ty::ToolFailed { name: "search" },
            10 => $ty::ToolDisabled("shell"),
            11 => $ty::GuardBlocked { guard: "pii" },
            12 => $ty::BudgetExhausted {
                spent: 1_000_512,
                budget: 1_000_000,
            },
            13 => $ty::Overloaded,
            14 => $ty::ContentFiltered,
            15 => $ty::Refused { reason: "policy" },
            16 => $ty::DimensionMismatch {
                got: 768,
                expected: 1536,
            },
            17 => $ty::Connect {
                source: io::ErrorKind::ConnectionRefused.into(),
            },
            18 => $ty::Unsupported("logprobs"),
            _ => $ty::Internal,
        }
    };
}

/// `BATCH` variant numbers in a shuffled order (a fixed-seed xorshift), each variant equally often.
fn shuffled() -> Vec<usize> {
    let mut order: Vec<usize> = (0..BATCH).map(|i| i % 20).collect();
    let mut state = black_box(0x9E37_79B9_7F4A_7C15u64);
    for i in (1..order.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        order.swap(i, (state % (i as u64 + 1)) as usize);
    }
    order
}

/// The three enums, each holding the same variants in the same run-time order.
struct Errors {
    derived: Vec<Derived>,
    hand: Vec<Hand>,
    thiserror: Vec<WithThiserror>,
}

impl Errors {
    fn from_order(order: &[usize]) -> Self {
        Errors {
            derived: order.iter().map(|&i| variant!(Derived, i)).collect(),
            hand: order.iter().map(|&i| variant!(Hand, i)).collect(),
            thiserror: order.iter().map(|&i| variant!(WithThiserror, i)).collect(),
        }
    }

    /// The batch, shuffled.
    fn mixed() -> Self {
        Self::from_order(&shuffled())
    }

    /// The batch, all of variant `i`.
    fn only(i: usize) -> Self {
        Self::from_order(&vec![black_box(i); BATCH])
    }
}

#[inline(always)]
fn kernel_code<E: AgentError>(errors: &[E]) -> usize {
    errors.iter().map(|e| black_box(e.code()).len()).sum()
}

#[inline(always)]
fn kernel_op<E: AgentError>(errors: &[E]) -> usize {
    errors.iter().map(|e| black_box(e.op()).len()).sum()
}

#[inline(always)]
fn kernel_is_retryable<E: AgentError>(errors: &[E]) -> usize {
    errors
        .iter()
        .map(|e| usize::from(black_box(e.is_retryable())))
        .sum()
}

#[inline(always)]
fn kernel_retry_policy<E: AgentError>(errors: &[E]) -> usize {
    errors
        .iter()
        .map(|e| black_box(e.retry_policy()).max_attempts() as usize)
        .sum()
}

/// Display into a `String` sized once, as a logger reusing its buffer does.
#[inline(always)]
fn kernel_display<E: fmt::Display>(errors: &[E]) -> usize {
    let mut out = String::with_capacity(256);
    let mut total = 0;
    for e in errors {
        out.clear();
        write!(out, "{e}").expect("a String accepts every write");
        total += black_box(out.len());
    }
    total
}

/// The message alone (`fmt_message`) into a `String` sized once, as the renderings for
/// tools and people write it.
#[inline(always)]
fn kernel_message<E: AgentError>(errors: &[E]) -> usize {
    struct Message<'a, E>(&'a E);
    impl<E: AgentError> fmt::Display for Message<'_, E> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.0.fmt_message(f)
        }
    }
    let mut out = String::with_capacity(256);
    let mut total = 0;
    for e in errors {
        out.clear();
        write!(out, "{}", Message(e)).expect("a String accepts every write");
        total += black_box(out.len());
    }
    total
}

/// One named, never inlined function per kernel and enum, for criterion, and a way to run
/// one of them alone by its name, for callgrind (`scripts/instructions.py`).
macro_rules! measured {
    ($($name:ident = $kernel:ident::<$ty:ty>;)*) => {
        $(
            #[inline(never)]
            fn $name(errors: &[$ty]) -> usize {
                $kernel(errors)
            }
        )*

        /// Runs the kernel called `name` `times` times; `None` for an unknown name.
        fn run_named(name: &str, errors: &Errors, times: usize) -> Option<usize> {
            match name {
                $(stringify!($name) => Some(run_kernel($name, errors.of::<$ty>(), times)),)*
                _ => None,
            }
        }
    };
}

/// The only code callgrind counts (`--toggle-collect=*run_kernel*`).
#[inline(never)]
fn run_kernel<E>(kernel: fn(&[E]) -> usize, errors: &[E], times: usize) -> usize {
    (0..times).map(|_| kernel(black_box(errors))).sum()
}

measured! {
    code_derived = kernel_code::<Derived>;
    code_hand = kernel_code::<Hand>;
    op_derived = kernel_op::<Derived>;
    op_hand = kernel_op::<Hand>;
    is_retryable_derived = kernel_is_retryable::<Derived>;
    is_retryable_hand = kernel_is_retryable::<Hand>;
    retry_policy_derived = kernel_retry_policy::<Derived>;
    retry_policy_hand = kernel_retry_policy::<Hand>;
    display_derived = kernel_display::<Derived>;
    display_hand = kernel_display::<Hand>;
    display_thiserror = kernel_display::<WithThiserror>;
    message_derived = kernel_message::<Derived>;
    message_hand = kernel_message::<Hand>;
}

/// The batch of one of the three enums.
trait Batch: Sized {
    fn of(errors: &Errors) -> &[Self];
}

impl Batch for Derived {
    fn of(errors: &Errors) -> &[Self] {
        &errors.derived
    }
}

impl Batch for Hand {
    fn of(errors: &Errors) -> &[Self] {
        &errors.hand
    }
}

impl Batch for WithThiserror {
    fn of(errors: &Errors) -> &[Self] {
        &errors.thiserror
    }
}

impl Errors {
    fn of<T: Batch>(&self) -> &[T] {
        T::of(self)
    }
}

type Kernel<E> = fn(&[E]) -> usize;

fn accessors(c: &mut Criterion, errors: &Errors) {
    let kernels: [(&str, Kernel<Derived>, Kernel<Hand>); 4] = [
        ("code()", code_derived, code_hand),
        ("op()", op_derived, op_hand),
        ("is_retryable()", is_retryable_derived, is_retryable_hand),
        ("retry_policy()", retry_policy_derived, retry_policy_hand),
    ];
    for (name, derived, hand) in kernels {
        assert_eq!(derived(&errors.derived), hand(&errors.hand), "{name}");
        let mut group = c.benchmark_group(format!("{name} x{BATCH}, 20 variants mixed"));
        group.throughput(Throughput::Elements(BATCH as u64));
        group.bench_function("derived", |b| {
            b.iter(|| derived(black_box(&errors.derived)))
        });
        group.bench_function("hand-written match", |b| {
            b.iter(|| hand(black_box(&errors.hand)))
        });
        group.finish();
    }
}

fn display(c: &mut Criterion, name: &str, errors: &Errors) {
    let text = |e: &dyn fmt::Display| e.to_string();
    for ((d, h), t) in errors
        .derived
        .iter()
        .zip(&errors.hand)
        .zip(&errors.thiserror)
    {
        assert_eq!(text(d), text(h));
        assert_eq!(text(d), text(t));
    }
    let mut group = c.benchmark_group(format!("Display x{BATCH}, {name}"));
    group.throughput(Throughput::Elements(BATCH as u64));
    group.bench_function("derived", |b| {
        b.iter(|| display_derived(black_box(&errors.derived)))
    });
    group.bench_function("hand-written write!", |b| {
        b.iter(|| display_hand(black_box(&errors.hand)))
    });
    group.bench_function("thiserror", |b| {
        b.iter(|| display_thiserror(black_box(&errors.thiserror)))
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    let mixed = Errors::mixed();
    accessors(c, &mixed);
    display(c, "20 variants mixed", &mixed);
    display(c, "plain message", &Errors::only(4));
    display(c, "two fields", &Errors::only(3));
    display(c, "field and cause", &Errors::only(1));
}

fn main() {
    // `AGENT_ERROR_BENCH_ONCE=KERNEL,N[,VARIANT]`: the kernel named KERNEL (`code_derived`,
    // `display_hand`, ...) N times over the mixed batch, or over a batch of one variant
    // (0 to 19), without criterion.
    if let Some(arg) = std::env::var_os("AGENT_ERROR_BENCH_ONCE") {
        let arg = arg.to_string_lossy();
        let mut parts = arg.split(',');
        let name = parts.next().unwrap_or_default();
        let times = parts.next().and_then(|t| t.parse().ok()).unwrap_or(1);
        let errors = match parts.next().and_then(|v| v.parse().ok()) {
            Some(i) => Errors::only(i),
            None => Errors::mixed(),
        };
        match run_named(name, &errors, times) {
            Some(sum) => println!("{sum}"),
            None => {
                eprintln!("no kernel named {name:?}");
                std::process::exit(2);
            }
        }
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
    c.final_summary();
}
