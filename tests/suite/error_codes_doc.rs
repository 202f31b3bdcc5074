//! `docs/ERROR_CODES.md` is what `examples/error_docs.rs` generates from the library's own
//! types, checked with the catalog's golden check. After a change on purpose, rewrite it
//! with `cargo run --example error_docs` or
//! `AGENT_ERROR_BLESS=1 cargo test --features http --test suite error_codes_doc`.

#[path = "../../examples/error_docs.rs"]
#[allow(dead_code)]
mod error_docs;

#[test]
fn the_error_codes_document_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/ERROR_CODES.md");
    agent_error::catalog::check_file(path, &error_docs::document()).unwrap();
}

#[test]
fn the_library_codes_match_their_golden_file() {
    let entries = agent_error::catalog![
        agent_error::codes::Vocabulary,
        agent_error::http::StatusError,
        agent_error::tool::ToolError
    ];
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/error_codes.golden");
    agent_error::catalog::check_golden(path, &entries).unwrap();
}
