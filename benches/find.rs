//! What `agent_error::find` costs: the first `AgentError` in chains of depth 1, 4 and 8,
//! with 50 derived types registered, against a direct `downcast_ref` walk by a caller
//! who knows the type to look for. Run with `cargo bench --bench find`.
//!
//! Each measurement walks 50 chains, one ending in each of the 50 types, so the figure is
//! the average over the types' places in the registry.

use std::error::Error as StdError;
use std::fmt;
use std::hint::black_box;

use agent_error::AgentError;
use criterion::{Criterion, Throughput};

macro_rules! derived_types {
    ($($name:ident)*) => {
        $(
            #[derive(Debug, AgentError)]
            #[agent(op = "bench.find", code = "found")]
            #[error("found")]
            struct $name;
        )*

        /// One chain bottom per type, with the reference's direct downcast for it.
        fn bottoms() -> Vec<(Box<dyn StdError + Send + Sync>, Direct)> {
            vec![$((Box::new($name), direct::<$name> as Direct)),*]
        }
    };
}

derived_types! {
    E00 E01 E02 E03 E04 E05 E06 E07 E08 E09 E10 E11 E12 E13 E14 E15 E16 E17 E18 E19
    E20 E21 E22 E23 E24 E25 E26 E27 E28 E29 E30 E31 E32 E33 E34 E35 E36 E37 E38 E39
    E40 E41 E42 E43 E44 E45 E46 E47 E48 E49
}

type Direct = for<'a> fn(&'a (dyn StdError + 'static)) -> Option<&'a (dyn AgentError + 'static)>;

/// What a caller who knows the type writes: `downcast_ref` down the `source()` chain.
fn direct<'a, T: AgentError + 'static>(
    err: &'a (dyn StdError + 'static),
) -> Option<&'a (dyn AgentError + 'static)> {
    std::iter::successors(Some(err), |&e| e.source())
        .find_map(|e| e.downcast_ref::<T>())
        .map(|e| e as &(dyn AgentError + 'static))
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

type Chains = Vec<(Box<dyn StdError + Send + Sync>, Direct)>;

fn chains(depth: usize) -> Chains {
    bottoms()
        .into_iter()
        .map(|(bottom, direct)| (chain(bottom, depth), direct))
        .collect()
}

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

fn bench(c: &mut Criterion) {
    for depth in [1, 4, 8] {
        let chains = chains(black_box(depth));
        assert_eq!(kernel_find(&chains), 50);
        assert_eq!(kernel_direct(&chains), 50);
        let mut group = c.benchmark_group(format!(
            "find x50, depth {depth}, each of 50 registered types"
        ));
        group.throughput(Throughput::Elements(50));
        group.bench_function("agent_error::find", |b| {
            b.iter(|| kernel_find(black_box(&chains)))
        });
        group.bench_function("direct downcast_ref walk", |b| {
            b.iter(|| kernel_direct(black_box(&chains)))
        });
        group.finish();
    }
    // The worst case: no link is classified, so every link is tried against every type.
    let miss: Chains = (0..50)
        .map(|_| (chain(Box::new(Unclassified), 8), direct::<E00> as Direct))
        .collect();
    assert_eq!(kernel_find(&miss), 0);
    let mut group = c.benchmark_group("find x50, depth 8, no classified link");
    group.throughput(Throughput::Elements(50));
    group.bench_function("agent_error::find", |b| {
        b.iter(|| kernel_find(black_box(&miss)))
    });
    group.bench_function("direct downcast_ref walk", |b| {
        b.iter(|| kernel_direct(black_box(&miss)))
    });
    group.finish();
}

#[inline(never)]
fn kernel_classify(chains: &Chains) -> usize {
    chains
        .iter()
        .filter_map(|(err, _)| black_box(agent_error::classify(&**err)).map(|c| c.code().len()))
        .count()
}

/// `classify` beside `find` at depth 8: a chain with a typed link at its bottom (the typed
/// pass decides), and one whose bottom is a foreign `io::Error` of kind `TimedOut` (the typed
/// pass finds nothing, then the foreign classifiers run link by link).
fn bench_classify(c: &mut Criterion) {
    let typed = chains(8);
    assert_eq!(kernel_classify(&typed), 50);
    let foreign: Chains = (0..50)
        .map(|_| {
            let bottom = Box::new(std::io::Error::from(std::io::ErrorKind::TimedOut));
            (chain(bottom, 8), direct::<E00> as Direct)
        })
        .collect();
    assert_eq!(kernel_classify(&foreign), 50);
    assert_eq!(kernel_find(&foreign), 0);
    let mut group = c.benchmark_group("classify x50, depth 8");
    group.throughput(Throughput::Elements(50));
    group.bench_function("typed link: agent_error::classify", |b| {
        b.iter(|| kernel_classify(black_box(&typed)))
    });
    group.bench_function("typed link: agent_error::find", |b| {
        b.iter(|| kernel_find(black_box(&typed)))
    });
    group.bench_function("foreign io::Error: agent_error::classify", |b| {
        b.iter(|| kernel_classify(black_box(&foreign)))
    });
    group.bench_function("foreign io::Error: agent_error::find", |b| {
        b.iter(|| kernel_find(black_box(&foreign)))
    });
    group.bench_function("direct downcast_ref walk", |b| {
        b.iter(|| kernel_direct(black_box(&typed)))
    });
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    bench_classify(&mut c);
    c.final_summary();
}
