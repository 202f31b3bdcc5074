//! Generic error types: bounds are added only where the generated code needs them, and
//! `register!` lets the chain walk see a concrete instantiation.

use std::error::Error as _;
use std::fmt;
use std::io;
use std::marker::PhantomData;

use agent_error::AgentError;

/// Implements nothing at all.
struct Opaque;

/// Implements `Debug` and nothing else.
#[derive(Debug)]
struct DebugOnly;

#[derive(Debug, AgentError)]
#[agent(op = "store.get")]
enum StoreError<K> {
    #[error("missing key {0}")]
    NotFound(K),

    #[agent(code = "conflict")]
    #[error("key {key} changed from {old:?}")]
    Conflict { key: K, old: Option<K> },
}

#[test]
fn a_generic_field_in_the_message() {
    let e: StoreError<String> = StoreError::NotFound("a".into());
    assert_eq!(e.to_string(), "store.get [not_found]: missing key a");
    assert_eq!(e.code(), "not_found");
    let n: StoreError<u32> = StoreError::Conflict {
        key: 7,
        old: Some(6),
    };
    assert_eq!(
        n.to_string(),
        "store.get [conflict]: key 7 changed from Some(6)"
    );
}

#[derive(Debug, AgentError)]
#[agent(op = "io.wrap")]
enum Wrapped<S: std::error::Error + 'static> {
    #[error("operation failed")]
    Failed {
        #[source]
        source: S,
    },

    #[error("maybe failed")]
    Maybe { source: Option<S> },
}

#[test]
fn a_generic_source() {
    let e = Wrapped::Failed {
        source: io::Error::other("disk full"),
    };
    assert_eq!(
        e.to_string(),
        "io.wrap [failed]: operation failed: disk full"
    );
    assert_eq!(e.source().unwrap().to_string(), "disk full");
    let none: Wrapped<io::Error> = Wrapped::Maybe { source: None };
    assert_eq!(none.to_string(), "io.wrap [maybe]: maybe failed");
    assert!(none.source().is_none());
}

#[derive(Debug, AgentError)]
#[agent(op = "io.wrap")]
enum UnboundedSource<S> {
    #[error("operation failed")]
    Failed(#[source] S),
}

#[test]
fn a_generic_source_without_declared_bounds() {
    let e = UnboundedSource::Failed(io::Error::other("eof"));
    assert_eq!(e.to_string(), "io.wrap [failed]: operation failed: eof");
    assert_eq!(e.source().unwrap().to_string(), "eof");
}

#[derive(AgentError)]
#[agent(op = "typed.get")]
enum Typed<T> {
    #[error("no value of the requested type")]
    Missing(PhantomData<T>),
}

/// Written by hand so that it asks nothing of `T` (the derived one would ask `T: Debug`).
impl<T> fmt::Debug for Typed<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Typed")
    }
}

#[test]
fn a_phantom_type_parameter_needs_no_bounds() {
    let e = Typed::<Opaque>::Missing(PhantomData);
    assert_eq!(
        e.to_string(),
        "typed.get [missing]: no value of the requested type"
    );
    let dynamic: &dyn AgentError = &e;
    assert_eq!(dynamic.code(), "missing");
    assert_eq!(e, Typed::<Opaque>::Missing(PhantomData));
}

#[derive(Debug, AgentError)]
#[agent(op = "parse.value")]
enum ParseError<T> {
    #[error("unexpected {0:?}")]
    Unexpected(T),
}

#[test]
fn a_parameter_printed_with_debug_needs_only_debug() {
    let e = ParseError::Unexpected(DebugOnly);
    assert_eq!(
        e.to_string(),
        "parse.value [unexpected]: unexpected DebugOnly"
    );
    assert_eq!(e.message(), "unexpected DebugOnly");
}

#[derive(Debug, AgentError)]
#[agent(op = "tool.run")]
enum Hinted<T> {
    #[agent(hint = "try {0} instead")]
    #[error("tool failed")]
    Failed(T),
}

fn display_of<T: fmt::Display>(value: &T) -> String {
    value.to_string()
}

#[test]
fn a_parameter_used_only_in_a_hint_is_not_required_for_display() {
    assert_eq!(
        display_of(&Hinted::Failed(DebugOnly)),
        "tool.run [failed]: tool failed"
    );
    assert_eq!(Hinted::Failed("grep").hints(), ["try grep instead"]);
}

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum Outer<E> {
    #[agent(code = "timeout", retryable)]
    #[error("deadline exceeded")]
    Timeout,

    #[error(transparent)]
    Inner(#[from] E),
}

#[test]
fn a_generic_transparent_variant() {
    let inner = agent_error::Error::new("db.query", "not_found", "no row");
    let e: Outer<agent_error::Error> = inner.into();
    assert_eq!(e.code(), "not_found");
    assert_eq!(e.to_string(), "db.query [not_found]: no row");
    let t: Outer<agent_error::Error> = Outer::Timeout;
    assert!(t.is_retryable());
}

#[derive(Debug, AgentError)]
#[agent(code = "tool_failed")]
#[error("exit {status}")]
struct ToolFailed<O> {
    #[op]
    op: O,
    status: i32,
}

#[test]
fn a_generic_op_field() {
    let owned = ToolFailed {
        op: String::from("tool.shell"),
        status: 1,
    };
    assert_eq!(owned.to_string(), "tool.shell [tool_failed]: exit 1");
    let borrowed = ToolFailed {
        op: "tool.grep",
        status: 2,
    };
    assert_eq!(borrowed.op(), "tool.grep");
}

#[derive(Debug, AgentError)]
#[agent(op = "text.parse")]
enum Borrowed<'a> {
    #[error("unexpected token {0}")]
    Unexpected(&'a str),
}

#[test]
fn a_lifetime_parameter() {
    let input = String::from("}");
    let e = Borrowed::Unexpected(&input);
    assert_eq!(e.to_string(), "text.parse [unexpected]: unexpected token }");
}

#[derive(Debug, AgentError)]
#[agent(op = "buf.write")]
enum Buffer<const N: usize> {
    #[error("buffer of {} bytes is full", N)]
    Full([u8; N]),
}

#[test]
fn a_const_parameter() {
    let e = Buffer::Full([0u8; 4]);
    assert_eq!(e.to_string(), "buf.write [full]: buffer of 4 bytes is full");
}

#[derive(Debug, AgentError)]
#[agent(op = "store.put")]
enum WithWhere<T>
where
    T: Clone,
{
    #[error("cannot store {0}")]
    Rejected(T),
}

#[test]
fn a_where_clause_on_the_type_is_kept() {
    let e = WithWhere::Rejected(5u8);
    assert_eq!(e.to_string(), "store.put [rejected]: cannot store 5");
}

agent_error::register!(StoreError<String>);

#[cfg(feature = "registry")]
#[test]
fn a_registered_instantiation_is_found_in_a_chain() {
    let e = io::Error::other(StoreError::NotFound(String::from("k")));
    let found = agent_error::find(&e).expect("registered instantiation");
    assert_eq!(found.code(), "not_found");
    assert_eq!(found.message(), "missing key k");
    assert!(agent_error::has_code(&e, "not_found"));
}
