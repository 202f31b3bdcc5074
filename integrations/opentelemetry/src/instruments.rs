//! The tracer and the instruments agent-error writes with, made once from a meter: their
//! names, units, descriptions and buckets.

use opentelemetry::global::BoxedTracer;
use opentelemetry::metrics::{Counter, Histogram, Meter};

use crate::names;

/// The bucket boundaries the GenAI conventions advise for `gen_ai.client.operation.duration`,
/// in seconds.
const DURATION_BOUNDARIES: [f64; 14] = [
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/// Buckets for a pacer's waits, in seconds: from a few milliseconds to its minute.
const WAIT_BOUNDARIES: [f64; 12] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 60.0,
];

/// The tracer and the instruments, shared by a `Telemetry`'s clones and its operations.
pub(crate) struct Instruments {
    pub(crate) tracer: BoxedTracer,
    pub(crate) duration: Histogram<f64>,
    pub(crate) failures: Counter<u64>,
    pub(crate) retries: Counter<u64>,
    pub(crate) pauses: Counter<u64>,
    pub(crate) transitions: Counter<u64>,
    pub(crate) pace_wait: Histogram<f64>,
}

impl Instruments {
    pub(crate) fn new(tracer: BoxedTracer, meter: &Meter) -> Instruments {
        Instruments {
            tracer,
            duration: meter
                .f64_histogram(names::OPERATION_DURATION)
                .with_unit("s")
                .with_description("GenAI operation duration.")
                .with_boundaries(DURATION_BOUNDARIES.to_vec())
                .build(),
            failures: meter
                .u64_counter(names::FAILURES)
                .with_unit("{failure}")
                .with_description("Failed attempts, by error type and provider.")
                .build(),
            retries: meter
                .u64_counter(names::RETRIES)
                .with_unit("{retry}")
                .with_description("Retries, by error type, provider and what set the wait.")
                .build(),
            pauses: meter
                .u64_counter(names::PAUSES)
                .with_unit("{pause}")
                .with_description(
                    "Waits a server asked for, and runs a shared pause or a pacer ended.",
                )
                .build(),
            transitions: meter
                .u64_counter(names::CIRCUIT_TRANSITIONS)
                .with_unit("{transition}")
                .with_description("Circuit breaker transitions, by key and the state moved to.")
                .build(),
            pace_wait: meter
                .f64_histogram(names::PACE_WAIT)
                .with_unit("s")
                .with_description("Waits a pacer asked calls to make before they went.")
                .with_boundaries(WAIT_BOUNDARIES.to_vec())
                .build(),
        }
    }
}
