//! What `recover` adds to a call that succeeds: the circuit breaker's per-call overhead when
//! closed, and the fallback's over a direct call. Run with `cargo bench --bench recover`.

use std::hint::black_box;
use std::time::Duration;

use agent_error::Error;
use agent_error::recover::{CircuitBreaker, Fallback};
use agent_error::retry::Retrier;
use criterion::{Criterion, criterion_group, criterion_main};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

fn tool(x: u64) -> Result<u64, BoxError> {
    Ok(black_box(x).wrapping_mul(3))
}

fn model(name: &&str, _attempt: u32) -> Result<usize, Error> {
    Ok(black_box(name.len()))
}

fn breaker(c: &mut Criterion) {
    let mut group = c.benchmark_group("breaker: a closed call");
    group.bench_function("direct call", |b| b.iter(|| tool(black_box(7))));
    let breaker = CircuitBreaker::new();
    group.bench_function("CircuitBreaker::call, key never failed", |b| {
        b.iter(|| breaker.call(black_box("read_file"), || tool(black_box(7))))
    });
    // A key with an entry: it failed once, then recovered, among 100 tracked keys.
    let tracked = CircuitBreaker::new();
    for i in 0..100 {
        let key = format!("tool_{i}");
        let _ = tracked.call(&key, || Err::<(), BoxError>("failed".into()));
        let _ = tracked.call(&key, || Ok::<(), BoxError>(()));
    }
    group.bench_function("CircuitBreaker::call, tracked key, 100 keys", |b| {
        b.iter(|| tracked.call(black_box("tool_42"), || tool(black_box(7))))
    });
    group.finish();
}

fn fallback(c: &mut Criterion) {
    let mut group = c.benchmark_group("fallback: the first candidate answers");
    group.bench_function("direct call", |b| b.iter(|| model(&black_box("gpt-4o"), 1)));
    let retrier = Retrier::new();
    group.bench_function("Retrier::run_detailed_with_sleep alone", |b| {
        b.iter(|| {
            retrier
                .run_detailed_with_sleep(
                    |attempt| model(&"gpt-4o", attempt),
                    |d: Duration| {
                        black_box(d);
                    },
                )
                .result
        })
    });
    let fallback = Fallback::new(["gpt-4o", "claude-sonnet"]);
    group.bench_function("Fallback::run_with_sleep", |b| {
        b.iter(|| {
            fallback.run_with_sleep(model, |d: Duration| {
                black_box(d);
            })
        })
    });
    group.finish();
}

criterion_group!(benches, breaker, fallback);
criterion_main!(benches);
