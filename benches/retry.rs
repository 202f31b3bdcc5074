//! The retrier's own cost per attempt, with a zero delay, against a bare loop and against
//! `backon`'s blocking retry doing the same attempts. Run with `cargo bench --bench retry`.

use std::hint::black_box;
use std::time::Duration;

use agent_error::retry::Retrier;
use agent_error::{AgentError, RetryPolicy};
use backon::{BlockingRetryable, ConstantBuilder};
use criterion::{Criterion, criterion_group, criterion_main};

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
        b.iter(|| {
            retrier
                .run_detailed_with_sleep(operation, |d: Duration| {
                    black_box(d);
                })
                .result
        })
    });
    // The same 11 attempts with backon: a constant zero delay, 10 retries, retried while the
    // error says so, sleeping nothing.
    group.bench_function("backon blocking retry", |b| {
        b.iter(|| {
            let mut attempt = 0;
            (|| {
                attempt += 1;
                operation(attempt)
            })
            .retry(
                ConstantBuilder::default()
                    .with_delay(Duration::ZERO)
                    .with_max_times(10),
            )
            .sleep(|d: Duration| {
                black_box(d);
            })
            .when(|e: &Flaky| e.is_retryable())
            .call()
        })
    });
    group.finish();
    black_box(RetryPolicy::NEVER);
}

criterion_group!(benches, bench);
criterion_main!(benches);
