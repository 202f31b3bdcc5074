//! The retrier's own cost per attempt, with a zero delay, against a bare loop and against
//! `backon`'s blocking retry doing the same attempts; and the retrier against `backon`
//! classifying each failure as the retrier does (`agent_error::is_retryable` in its `when`),
//! for a typed error, `anyhow` over it, and a foreign `io::Error`.
//! Run with `RUST_LIB_BACKTRACE=0 cargo bench --bench retry --features anyhow` (so that
//! anyhow captures no backtrace).
//!
//! With `AGENT_ERROR_KERNEL=<name> <bench binary> <runs>`, the binary runs one kernel of the
//! classified group that many times and exits, for `scripts/retry_instructions.py` to count
//! its instructions under callgrind.

use std::error::Error as StdError;
use std::hint::black_box;
use std::io;
use std::time::Duration;

use agent_error::retry::Retrier;
use agent_error::{AgentError, RetryPolicy};
use backon::{BlockingRetryable, ConstantBuilder};
use criterion::{Criterion, criterion_group};

/// A retryable failure whose policy waits nothing, so only the bookkeeping is measured.
#[derive(Debug, AgentError)]
#[agent(op = "bench.call")]
enum Flaky {
    #[agent(
        retryable,
        retry(attempts = 11, base = "1ns", max = "1ns", jitter = "none")
    )]
    #[error("try again")]
    Again,
}

const FAILURES: u32 = 10;

fn operation(attempt: u32) -> Result<u32, Flaky> {
    if black_box(attempt) <= FAILURES {
        Err(Flaky::Again)
    } else {
        Ok(attempt)
    }
}

/// The 11 attempts with the retrier.
fn flaky_retrier(retrier: &Retrier) -> Result<u32, Flaky> {
    retrier
        .run_detailed_with_sleep(operation, |d: Duration| {
            black_box(d);
        })
        .result
}

/// The same 11 attempts with backon: 10 retries, retried while the error says so.
fn flaky_backon() -> Result<u32, Flaky> {
    with_backon(operation, 10, |e: &Flaky| e.is_retryable())
}

/// `op` run by backon's blocking retry: a constant zero delay, at most `retries` retries,
/// retried while `when` says so, sleeping nothing.
fn with_backon<T, E>(
    mut op: impl FnMut(u32) -> Result<T, E>,
    retries: usize,
    when: impl FnMut(&E) -> bool,
) -> Result<T, E> {
    let mut attempt = 0;
    (|| {
        attempt += 1;
        op(attempt)
    })
    .retry(
        ConstantBuilder::default()
            .with_delay(Duration::ZERO)
            .with_max_times(retries),
    )
    .sleep(|d: Duration| {
        black_box(d);
    })
    .when(when)
    .call()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("retry: 10 failures then success (11 attempts)");
    group.bench_function("bare loop", |b| {
        b.iter(|| {
            let mut attempt = 1;
            loop {
                match operation(attempt) {
                    Ok(v) => break Ok::<u32, Flaky>(v),
                    Err(e) if e.is_retryable() && attempt < 11 => attempt += 1,
                    Err(e) => break Err(e),
                }
            }
        })
    });
    let retrier = Retrier::new().seed(1);
    group.bench_function("Retrier::run_detailed_with_sleep", |b| {
        b.iter(|| flaky_retrier(&retrier))
    });
    group.bench_function("backon blocking retry", |b| b.iter(flaky_backon));
    group.finish();
    black_box(RetryPolicy::NEVER);
}

/// A call that succeeds at once, the path every call takes first: the retrier (made once and
/// kept) against backon's blocking retry around the same closure.
fn at_once(c: &mut Criterion) {
    let mut group = c.benchmark_group("retry: a call that succeeds at once");
    let ok = |attempt: u32| -> Result<u32, Flaky> { Ok(black_box(attempt)) };
    let retrier = Retrier::new().seed(1);
    group.bench_function("Retrier::run", |b| b.iter(|| retrier.run(ok)));
    group.bench_function("backon blocking retry", |b| {
        b.iter(|| with_backon(ok, 2, |e: &Flaky| e.is_retryable()))
    });
    group.finish();
}

/// A timed-out call, typed: the default retry policy (3 attempts).
#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum Call {
    #[agent(code = "timeout", retryable)]
    #[error("deadline exceeded")]
    TimedOut,
}

/// Two failures, then a success: three attempts.
fn twice<E>(fail: impl Fn() -> E) -> impl FnMut(u32) -> Result<u32, E> {
    move |attempt| {
        if black_box(attempt) < 3 {
            Err(fail())
        } else {
            Ok(attempt)
        }
    }
}

/// The retrier and backon on the same three attempts of one error type, each failure
/// classified with `agent_error::classify` (backon: `is_retryable` in `when`), sleeping nothing.
struct Pair<E> {
    fail: fn() -> E,
    chain: fn(&E) -> &(dyn StdError + 'static),
}

impl<E> Pair<E> {
    /// One run of the retrier: two failures, then a success.
    fn retrier<M>(&self, retrier: &Retrier) -> Result<u32, E>
    where
        E: agent_error::chain::ErrorChain<M>,
    {
        retrier
            .run_detailed_with_sleep(twice(self.fail), |d: Duration| {
                black_box(d);
            })
            .result
    }

    /// The same run with backon.
    fn backon(&self) -> Result<u32, E> {
        let chain = self.chain;
        with_backon(twice(self.fail), 2, |e: &E| {
            agent_error::is_retryable(chain(e))
        })
    }
}

const TYPED: Pair<Call> = Pair {
    fail: || Call::TimedOut,
    chain: |e| e,
};

#[cfg(feature = "anyhow")]
const ANYHOW: Pair<anyhow::Error> = Pair {
    fail: || anyhow::Error::new(Call::TimedOut),
    chain: |e| e.as_ref(),
};

const FOREIGN: Pair<io::Error> = Pair {
    fail: || io::Error::from(io::ErrorKind::TimedOut),
    chain: |e| e,
};

fn against_backon<E, M>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    pair: &Pair<E>,
) where
    E: agent_error::chain::ErrorChain<M>,
{
    let retrier = Retrier::new().seed(1);
    group.bench_function(format!("{name}: Retrier"), |b| {
        b.iter(|| pair.retrier(&retrier))
    });
    group.bench_function(format!("{name}: backon + is_retryable"), |b| {
        b.iter(|| pair.backon())
    });
}

fn classified(c: &mut Criterion) {
    let mut group = c.benchmark_group("retry, classified: 2 failures then success (3 attempts)");
    against_backon(&mut group, "typed", &TYPED);
    // The retrier takes an `anyhow::Error` with the feature `anyhow`.
    #[cfg(feature = "anyhow")]
    against_backon(&mut group, "anyhow over typed", &ANYHOW);
    against_backon(&mut group, "foreign io::Error", &FOREIGN);
    group.finish();
}

criterion_group!(at_once_group, at_once);
criterion_group!(benches, bench, classified);

/// Runs the kernel `name` `runs` times: `typed`, `anyhow` or `foreign` of the classified
/// group, or `flaky` (the 11 attempts), each `retrier` or `backon` (`typed/retrier`, …).
/// The retrier is made once, as in the bench.
fn run_kernel(name: &str, runs: u64) -> Result<(), String> {
    /// Runs one side `runs` times: `retrier(&retrier)` with one retrier, or `backon()`.
    fn repeat<A, B>(
        side: &str,
        runs: u64,
        retrier: impl Fn(&Retrier) -> A,
        backon: impl Fn() -> B,
    ) -> Result<(), String> {
        let kept = Retrier::new().seed(1);
        match side {
            "retrier" => (0..runs).for_each(|_| drop(black_box(retrier(&kept)))),
            "backon" => (0..runs).for_each(|_| drop(black_box(backon()))),
            _ => return Err(format!("no side {side}: retrier or backon")),
        }
        Ok(())
    }
    let (error, side) = name.split_once('/').ok_or_else(|| {
        format!("no kernel {name}: <typed|anyhow|foreign|flaky>/<retrier|backon>")
    })?;
    match error {
        "typed" => repeat(side, runs, |r| TYPED.retrier(r), || TYPED.backon()),
        #[cfg(feature = "anyhow")]
        "anyhow" => repeat(side, runs, |r| ANYHOW.retrier(r), || ANYHOW.backon()),
        "foreign" => repeat(side, runs, |r| FOREIGN.retrier(r), || FOREIGN.backon()),
        "flaky" => repeat(side, runs, flaky_retrier, flaky_backon),
        _ => Err(format!(
            "no error {error}: typed, anyhow (feature anyhow), foreign or flaky"
        )),
    }
}

fn main() {
    if let Ok(kernel) = std::env::var("AGENT_ERROR_KERNEL") {
        let runs = std::env::args()
            .skip(1)
            .find_map(|arg| arg.parse().ok())
            .unwrap_or(10_000);
        if let Err(e) = run_kernel(&kernel, runs) {
            eprintln!("{e}");
            std::process::exit(2);
        }
        return;
    }
    benches();
    at_once_group();
    Criterion::default().configure_from_args().final_summary();
}
