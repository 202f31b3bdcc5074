//! The chains and kernels of the `find` benches, shared by the binary with 50 registered
//! types (`find.rs`) and the one with 500 (`find_500.rs`): the number of registered types is
//! a property of the binary, so each count needs its own.

use std::error::Error as StdError;
use std::fmt;
use std::hint::black_box;
use std::io;

use agent_error::AgentError;
use criterion::{Criterion, Throughput};

/// The direct downcast for one type, as a caller who knows the type writes it.
pub type Direct =
    for<'a> fn(&'a (dyn StdError + 'static)) -> Option<&'a (dyn AgentError + 'static)>;

/// What a caller who knows the type writes: `downcast_ref` down the `source()` chain.
pub fn direct<'a, T: AgentError + 'static>(
    err: &'a (dyn StdError + 'static),
) -> Option<&'a (dyn AgentError + 'static)> {
    std::iter::successors(Some(err), |&e| e.source())
        .find_map(|e| e.downcast_ref::<T>())
        .map(|e| e as &(dyn AgentError + 'static))
}

/// The same for a foreign link: a caller who knows the chain ends in an `io::Error` and
/// matches its kind.
fn direct_io(err: &(dyn StdError + 'static)) -> Option<&'static str> {
    std::iter::successors(Some(err), |&e| e.source())
        .find_map(|e| e.downcast_ref::<io::Error>())
        .and_then(|e| (e.kind() == io::ErrorKind::TimedOut).then_some("timeout"))
}

/// An unclassified link, as an application's context wrapper is.
#[derive(Debug)]
struct Context {
    source: Box<dyn StdError + Send + Sync>,
}

impl fmt::Display for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("while handling the request")
    }
}

impl StdError for Context {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        Some(&*self.source)
    }
}

/// An unclassified error at the end of a chain that holds no `AgentError`.
#[derive(Debug)]
struct Unclassified;

impl fmt::Display for Unclassified {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unclassified")
    }
}

impl StdError for Unclassified {}

/// `bottom` under `depth - 1` context links.
fn chain(bottom: Box<dyn StdError + Send + Sync>, depth: usize) -> Box<dyn StdError + Send + Sync> {
    (1..depth).fold(bottom, |source, _| Box::new(Context { source }))
}

pub type Chains = Vec<(Box<dyn StdError + Send + Sync>, Direct)>;

/// Chains measured at once: 50, spread evenly over the registered types.
const CHAINS: usize = 50;

#[inline(never)]
fn kernel_find(chains: &Chains) -> usize {
    chains
        .iter()
        .filter_map(|(err, _)| black_box(agent_error::find(&**err)))
        .count()
}

#[inline(never)]
fn kernel_direct(chains: &Chains) -> usize {
    chains
        .iter()
        .filter_map(|(err, direct)| black_box(direct(&**err)))
        .count()
}

#[inline(never)]
fn kernel_classify(chains: &Chains) -> usize {
    chains
        .iter()
        .filter_map(|(err, _)| black_box(agent_error::classify(&**err)).map(|c| c.code().len()))
        .count()
}

#[inline(never)]
fn kernel_direct_io(chains: &Chains) -> usize {
    chains
        .iter()
        .filter_map(|(err, _)| black_box(direct_io(&**err)))
        .count()
}

/// `find` and `classify` against the direct walk, at depths 1 and 8, on chains ending in a
/// typed error (50 of `bottoms`, evenly spaced), in a foreign `io::Error` of kind `TimedOut`,
/// and in nothing classified. `bottoms` gives one error of each derived type of the binary.
pub fn bench(c: &mut Criterion, bottoms: fn() -> Chains) {
    let types = bottoms().len();
    let step = types / CHAINS;
    for depth in [1, 8] {
        let typed: Chains = bottoms()
            .into_iter()
            .step_by(step)
            .take(CHAINS)
            .map(|(bottom, direct)| (chain(bottom, depth), direct))
            .collect();
        let any = typed[0].1;
        let foreign: Chains = (0..CHAINS)
            .map(|_| {
                let bottom = Box::new(io::Error::from(io::ErrorKind::TimedOut));
                (chain(bottom, depth), any)
            })
            .collect();
        let miss: Chains = (0..CHAINS)
            .map(|_| (chain(Box::new(Unclassified), depth), any))
            .collect();
        assert_eq!(kernel_find(&typed), CHAINS);
        assert_eq!(kernel_direct(&typed), CHAINS);
        assert_eq!(kernel_classify(&typed), CHAINS);
        assert_eq!(kernel_classify(&foreign), CHAINS);
        assert_eq!(kernel_direct_io(&foreign), CHAINS);
        assert_eq!(kernel_find(&miss), 0);
        let mut group =
            c.benchmark_group(format!("x{CHAINS}, {types} derived types, depth {depth}"));
        group.throughput(Throughput::Elements(CHAINS as u64));
        group.bench_function("typed: find", |b| b.iter(|| kernel_find(black_box(&typed))));
        group.bench_function("typed: classify", |b| {
            b.iter(|| kernel_classify(black_box(&typed)))
        });
        group.bench_function("typed: direct downcast_ref walk", |b| {
            b.iter(|| kernel_direct(black_box(&typed)))
        });
        group.bench_function("foreign io::Error: classify", |b| {
            b.iter(|| kernel_classify(black_box(&foreign)))
        });
        group.bench_function("foreign io::Error: direct downcast_ref walk", |b| {
            b.iter(|| kernel_direct_io(black_box(&foreign)))
        });
        group.bench_function("no classified link: find", |b| {
            b.iter(|| kernel_find(black_box(&miss)))
        });
        group.bench_function("no classified link: classify", |b| {
            b.iter(|| kernel_classify(black_box(&miss)))
        });
        group.bench_function("no classified link: direct downcast_ref walk", |b| {
            b.iter(|| kernel_direct(black_box(&miss)))
        });
        group.finish();
    }
}
