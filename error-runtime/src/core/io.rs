//! The built-in classifier of `std::io::Error`: its kind, read from one table, into the
//! shared vocabulary. Registered like a user's classifier.

use crate::core::classify::{Classification, FixedClassification};
use crate::core::registry::{ClassifierRegistration, Origin};
use std::io::{self, ErrorKind};

use crate::core::codes::{AUTH, NOT_FOUND, PROVIDER_UNAVAILABLE, TIMEOUT};

/// Each classified kind and its fixed answer: code and public message. Other kinds are
/// left unclassified: `Other`, `InvalidData` or `WouldBlock` say nothing about retrying.
static KINDS: [(ErrorKind, FixedClassification); 12] = [
    (
        ErrorKind::TimedOut,
        kind(TIMEOUT, "the operation timed out"),
    ),
    (
        ErrorKind::ConnectionRefused,
        kind(PROVIDER_UNAVAILABLE, "connection refused"),
    ),
    (
        ErrorKind::ConnectionReset,
        kind(PROVIDER_UNAVAILABLE, "connection reset"),
    ),
    (
        ErrorKind::ConnectionAborted,
        kind(PROVIDER_UNAVAILABLE, "connection aborted"),
    ),
    (
        ErrorKind::NotConnected,
        kind(PROVIDER_UNAVAILABLE, "not connected"),
    ),
    (
        ErrorKind::BrokenPipe,
        kind(PROVIDER_UNAVAILABLE, "broken pipe"),
    ),
    (
        ErrorKind::UnexpectedEof,
        kind(PROVIDER_UNAVAILABLE, "unexpected end of stream"),
    ),
    (
        ErrorKind::HostUnreachable,
        kind(PROVIDER_UNAVAILABLE, "host unreachable"),
    ),
    (
        ErrorKind::NetworkUnreachable,
        kind(PROVIDER_UNAVAILABLE, "network unreachable"),
    ),
    (
        ErrorKind::NetworkDown,
        kind(PROVIDER_UNAVAILABLE, "network down"),
    ),
    (ErrorKind::NotFound, kind(NOT_FOUND, "not found")),
    (ErrorKind::PermissionDenied, kind(AUTH, "permission denied")),
];

/// The op of every `io::Error` classification.
const OP: &str = "io";

/// The fixed answer for an `io::Error` of one kind.
const fn kind(code: &'static str, message: &'static str) -> FixedClassification {
    FixedClassification::new(OP, code, message)
}

/// The classification of an `io::Error` by its kind; `None` for the kinds the table leaves out.
fn classify(e: &io::Error) -> Option<Classification> {
    let kind = e.kind();
    let (_, fixed) = KINDS.iter().find(|(k, _)| *k == kind)?;
    Some(Classification::Fixed(fixed))
}

/// [`classify`] for a link of any type, registered as every classifier is.
fn classify_link(link: &(dyn std::error::Error + 'static)) -> Option<Classification> {
    link.downcast_ref::<io::Error>().and_then(classify)
}

inventory::submit! {
    ClassifierRegistration::of::<io::Error>(classify_link, Origin::Builtin)
}
