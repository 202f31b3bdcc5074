//! The built-in classifier of `std::io::Error`: its kind, read from one table, into the
//! shared vocabulary. Registered like a user's classifier.

use crate::core::registry::{ClassifierRegistration, Origin};
use std::io::{self, ErrorKind};

use crate::core::codes::{AUTH, NOT_FOUND, PROVIDER_UNAVAILABLE, TIMEOUT};

/// Each classified kind: its code and the fixed public message. Other kinds are left
/// unclassified: `Other`, `InvalidData` or `WouldBlock` say nothing about retrying.
const KINDS: [(ErrorKind, &str, &str); 12] = [
    (ErrorKind::TimedOut, TIMEOUT, "the operation timed out"),
    (
        ErrorKind::ConnectionRefused,
        PROVIDER_UNAVAILABLE,
        "connection refused",
    ),
    (
        ErrorKind::ConnectionReset,
        PROVIDER_UNAVAILABLE,
        "connection reset",
    ),
    (
        ErrorKind::ConnectionAborted,
        PROVIDER_UNAVAILABLE,
        "connection aborted",
    ),
    (
        ErrorKind::NotConnected,
        PROVIDER_UNAVAILABLE,
        "not connected",
    ),
    (ErrorKind::BrokenPipe, PROVIDER_UNAVAILABLE, "broken pipe"),
    (
        ErrorKind::UnexpectedEof,
        PROVIDER_UNAVAILABLE,
        "unexpected end of stream",
    ),
    (
        ErrorKind::HostUnreachable,
        PROVIDER_UNAVAILABLE,
        "host unreachable",
    ),
    (
        ErrorKind::NetworkUnreachable,
        PROVIDER_UNAVAILABLE,
        "network unreachable",
    ),
    (ErrorKind::NetworkDown, PROVIDER_UNAVAILABLE, "network down"),
    (ErrorKind::NotFound, NOT_FOUND, "not found"),
    (ErrorKind::PermissionDenied, AUTH, "permission denied"),
];

/// The op of every `io::Error` classification.
const OP: &str = "io";

/// The classification of an `io::Error` by its kind; `None` for the kinds the table leaves out.
fn classify(e: &io::Error) -> Option<crate::Error> {
    let kind = e.kind();
    let (_, code, message) = KINDS.iter().find(|(k, _, _)| *k == kind)?;
    Some(crate::Error::new(OP, *code, *message))
}

/// [`classify`] for a link of any type, registered as every classifier is.
fn classify_link(link: &(dyn std::error::Error + 'static)) -> Option<crate::Error> {
    link.downcast_ref::<io::Error>().and_then(classify)
}

inventory::submit! {
    ClassifierRegistration::of::<io::Error>(classify_link, Origin::Builtin)
}
