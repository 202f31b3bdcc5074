//! The quickstart of agent-error lives in this package's example, `quickstart.rs`, so that
//! `cargo run --example quickstart` builds the library with its default features and
//! nothing else. This library is empty.
