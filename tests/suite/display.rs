//! Display of derived errors: `{op} [{code}]: {message}`, then `: {cause}` when there is a cause.

// Without `registry`, the tests that need a derived type known in a chain are left out, and
// what only they use goes unused.
#![cfg_attr(not(feature = "registry"), allow(dead_code, unused_imports))]

use std::error::Error as _;
use std::io;

use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum LlmError {
    #[agent(code = "timeout", retryable)]
    #[error("deadline exceeded after {tokens} tokens")]
    Timeout {
        tokens: u32,
        #[source]
        source: io::Error,
    },

    #[agent(code = "provider_unavailable")]
    #[error("provider {name} is down")]
    Down {
        name: String,
        source: Box<dyn std::error::Error + Send + Sync>,
    },

    #[agent(code = "bad_response")]
    #[error("unreadable response")]
    BadResponse {
        #[source]
        cause: Option<io::Error>,
    },

    #[agent(code = "maybe_boxed")]
    #[error("maybe boxed")]
    MaybeBoxed {
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },

    #[agent(code = "from_anyhow")]
    #[error("via anyhow")]
    FromAnyhow {
        #[source]
        cause: anyhow::Error,
    },

    #[agent(code = "cancelled")]
    #[error("cancelled by the caller")]
    Cancelled,
}

#[test]
fn without_a_cause_is_op_code_and_message() {
    assert_eq!(
        LlmError::Cancelled.to_string(),
        "llm.generate [cancelled]: cancelled by the caller"
    );
}

#[test]
fn an_io_error_cause_follows_the_message() {
    let e = LlmError::Timeout {
        tokens: 12,
        source: io::Error::other("connection reset"),
    };
    assert_eq!(
        e.to_string(),
        "llm.generate [timeout]: deadline exceeded after 12 tokens: connection reset"
    );
    assert_eq!(e.source().unwrap().to_string(), "connection reset");
}

#[test]
fn a_boxed_cause_follows_the_message() {
    let e = LlmError::Down {
        name: "openai".into(),
        source: "503 from upstream".into(),
    };
    assert_eq!(
        e.to_string(),
        "llm.generate [provider_unavailable]: provider openai is down: 503 from upstream"
    );
    assert_eq!(e.source().unwrap().to_string(), "503 from upstream");
}

#[test]
fn an_optional_cause_that_is_present_follows_the_message() {
    let e = LlmError::BadResponse {
        cause: Some(io::Error::other("truncated body")),
    };
    assert_eq!(
        e.to_string(),
        "llm.generate [bad_response]: unreadable response: truncated body"
    );
    assert_eq!(e.source().unwrap().to_string(), "truncated body");
}

#[test]
fn an_optional_cause_that_is_absent_adds_nothing() {
    let e = LlmError::BadResponse { cause: None };
    assert_eq!(
        e.to_string(),
        "llm.generate [bad_response]: unreadable response"
    );
    assert!(e.source().is_none());
}

#[test]
fn an_optional_boxed_cause() {
    let some = LlmError::MaybeBoxed {
        source: Some("inner".into()),
    };
    assert_eq!(
        some.to_string(),
        "llm.generate [maybe_boxed]: maybe boxed: inner"
    );
    assert_eq!(some.source().unwrap().to_string(), "inner");
    let none = LlmError::MaybeBoxed { source: None };
    assert_eq!(none.to_string(), "llm.generate [maybe_boxed]: maybe boxed");
    assert!(none.source().is_none());
}

#[test]
fn an_anyhow_cause() {
    let e = LlmError::FromAnyhow {
        cause: anyhow::anyhow!("upstream said no"),
    };
    assert_eq!(
        e.to_string(),
        "llm.generate [from_anyhow]: via anyhow: upstream said no"
    );
    assert_eq!(e.source().unwrap().to_string(), "upstream said no");
}

#[test]
fn a_variant_without_a_cause_has_no_source() {
    assert!(LlmError::Cancelled.source().is_none());
}

#[derive(Debug, AgentError)]
#[agent(op = "agent.step")]
enum StepError {
    #[agent(code = "tool_failed")]
    #[error("step {step} failed")]
    Tool {
        step: u32,
        #[source]
        source: LlmError,
    },
}

/// One head a line: the cause, itself an `AgentError`, follows the message without its own
/// `op [code]: ` head (its own Display, and the chain printers, still show it).
// Derived types are known in a chain through their registration (feature `registry`).
#[cfg(feature = "registry")]
#[test]
fn a_nested_agent_error_displays_without_its_head_after_the_message() {
    let e = StepError::Tool {
        step: 3,
        source: LlmError::Timeout {
            tokens: 7,
            source: io::Error::other("connection reset"),
        },
    };
    assert_eq!(
        e.to_string(),
        "agent.step [tool_failed]: step 3 failed: deadline exceeded after 7 tokens: connection reset"
    );
    assert_eq!(e.message(), "step 3 failed");
    assert_eq!(
        agent_error::display::chain(&e).to_string(),
        "agent.step [tool_failed]: step 3 failed: llm.generate [timeout]: deadline exceeded after 7 tokens: connection reset"
    );
    let inner = e.source().unwrap();
    assert_eq!(
        inner.to_string(),
        "llm.generate [timeout]: deadline exceeded after 7 tokens: connection reset"
    );
    assert_eq!(inner.source().unwrap().to_string(), "connection reset");
}

#[derive(Debug, AgentError)]
enum ToolError {
    #[agent(code = "tool_failed")]
    #[error("exit status {status}")]
    Owned {
        #[op]
        tool: String,
        status: i32,
    },

    #[agent(code = "tool_disabled")]
    #[error("disabled")]
    Static {
        #[op]
        op: &'static str,
    },
}

#[test]
fn the_op_comes_from_an_op_field_of_type_string() {
    let e = ToolError::Owned {
        tool: "tool.shell".to_string(),
        status: 2,
    };
    assert_eq!(e.op(), "tool.shell");
    assert_eq!(e.to_string(), "tool.shell [tool_failed]: exit status 2");
}

#[test]
fn the_op_comes_from_an_op_field_of_type_static_str() {
    let e = ToolError::Static { op: "tool.browser" };
    assert_eq!(e.op(), "tool.browser");
    assert_eq!(e.to_string(), "tool.browser [tool_disabled]: disabled");
}

#[derive(Debug, AgentError)]
#[agent(op = "search.query", code = "not_found")]
#[error("no results for {query:?}")]
struct NoResults {
    query: String,
}

#[derive(Debug, AgentError)]
#[agent(op = "fs.read", code = "io_error")]
#[error("cannot read {path}")]
struct ReadError {
    path: String,
    source: io::Error,
}

#[test]
fn a_struct_error_displays_like_a_variant() {
    let e = NoResults {
        query: "rust".into(),
    };
    assert_eq!(
        e.to_string(),
        "search.query [not_found]: no results for \"rust\""
    );
    assert_eq!(e.code(), "not_found");
    assert_eq!(e.op(), "search.query");
}

#[test]
fn a_struct_error_with_a_source_field_shows_its_cause() {
    let e = ReadError {
        path: "/etc/x".into(),
        source: io::Error::other("permission denied"),
    };
    assert_eq!(
        e.to_string(),
        "fs.read [io_error]: cannot read /etc/x: permission denied"
    );
    assert_eq!(e.source().unwrap().to_string(), "permission denied");
}

#[derive(Debug, AgentError)]
#[agent(op = "fs.stat", code = "bad_mode")]
#[error("mode {0:o} on {1}")]
struct BadMode(u32, &'static str);

#[derive(Debug, AgentError)]
#[agent(op = "fs.stat", code = "gone")]
#[error("gone")]
struct Gone;

#[test]
fn tuple_and_unit_structs_display() {
    assert_eq!(
        BadMode(0o644, "/x").to_string(),
        "fs.stat [bad_mode]: mode 644 on /x"
    );
    assert_eq!(Gone.to_string(), "fs.stat [gone]: gone");
}

/// An enum without variants has no values, but the derive still implements everything.
#[derive(Debug, AgentError)]
#[agent(op = "never.happens")]
enum Never {}

#[test]
fn an_enum_without_variants_implements_agent_error() {
    fn is_agent_error<T: AgentError + PartialEq + Eq>() {}
    is_agent_error::<Never>();
}

#[derive(Debug, AgentError)]
#[agent(op = "shapes.check")]
enum Shapes {
    #[error("unit")]
    Unit,
    #[error("tuple {0} and {1}")]
    Tuple(u8, &'static str),
    #[error("named {a} and {b}")]
    Named { a: u8, b: &'static str },
}

#[test]
fn unit_tuple_and_named_variants_display() {
    assert_eq!(Shapes::Unit.to_string(), "shapes.check [unit]: unit");
    assert_eq!(
        Shapes::Tuple(1, "x").to_string(),
        "shapes.check [tuple]: tuple 1 and x"
    );
    assert_eq!(
        Shapes::Named { a: 2, b: "y" }.to_string(),
        "shapes.check [named]: named 2 and y"
    );
}

#[test]
fn display_ignores_width_fill_and_alignment() {
    let e = LlmError::Cancelled;
    assert_eq!(
        format!("{e:>80}"),
        "llm.generate [cancelled]: cancelled by the caller"
    );
    assert_eq!(
        format!("{e:*<80}"),
        "llm.generate [cancelled]: cancelled by the caller"
    );
}

#[test]
fn display_of_the_cause_ignores_width_and_precision() {
    let e = LlmError::Timeout {
        tokens: 12,
        source: io::Error::other("connection reset"),
    };
    let plain = "llm.generate [timeout]: deadline exceeded after 12 tokens: connection reset";
    assert_eq!(format!("{e:>100}"), plain);
    assert_eq!(format!("{e:.3}"), plain);
    assert_eq!(format!("{e:#}"), plain);
}

#[test]
fn display_of_a_boxed_string_cause_ignores_width() {
    let e = LlmError::Down {
        name: "openai".into(),
        source: "503".into(),
    };
    assert_eq!(
        format!("{e:<60}"),
        "llm.generate [provider_unavailable]: provider openai is down: 503"
    );
}

#[test]
fn display_of_the_dynamic_error_with_a_cause_ignores_width() {
    let e = agent_error::Error::new("db.query", "timeout", "took too long")
        .with_source(io::Error::other("reset"));
    assert_eq!(
        format!("{e:>60}"),
        "db.query [timeout]: took too long: reset"
    );
}

/// Fields named like the generated code's own names do not collide with them.
#[derive(Debug, AgentError)]
#[agent(op = "x.y")]
enum Clash {
    #[error("{__agent_f} {__agent_op} {__agent_cause}")]
    Named {
        __agent_f: u8,
        __agent_op: u8,
        __agent_cause: u8,
        source: std::io::Error,
    },
    #[error("{__agent_op_} ran")]
    ByField {
        #[op]
        __agent_op: String,
        __agent_op_: u8,
    },
}

#[test]
fn fields_named_like_generated_bindings_do_not_collide() {
    let e = Clash::Named {
        __agent_f: 1,
        __agent_op: 2,
        __agent_cause: 3,
        source: std::io::Error::other("inner"),
    };
    assert_eq!(e.to_string(), "x.y [named]: 1 2 3: inner");
    let e = Clash::ByField {
        __agent_op: "tool.run".into(),
        __agent_op_: 7,
    };
    assert_eq!(e.to_string(), "tool.run [by_field]: 7 ran");
}

/// A path field shows through `.display()`, with a format spec too (thiserror accepts
/// only a bare `{path}`), in the public rendering as well; `{path:?}` stays `Debug`.
#[derive(Debug, AgentError)]
#[agent(op = "fs.read")]
#[error("cannot read [{path:>8}] ({path:?}) under {root}")]
struct OpenFailed {
    path: std::path::PathBuf,
    root: &'static std::path::Path,
}

#[test]
fn path_fields_display_through_display() {
    let e = OpenFailed {
        path: "a.txt".into(),
        root: std::path::Path::new("/srv"),
    };
    assert_eq!(
        e.to_string(),
        r#"fs.read [open_failed]: cannot read [   a.txt] ("a.txt") under /srv"#
    );
    assert_eq!(
        agent_error::display::public(&e).to_string(),
        r#"cannot read [   a.txt] ("a.txt") under /srv"#
    );
}

/// A struct whose last field is unsized derives like any other; it cannot be downcast to,
/// so it is not registered with the chain walk (thiserror's `tail: str` case).
#[derive(Debug, AgentError)]
#[agent(op = "text.read", code = "bad_text")]
#[error("bad text: {tail}")]
#[repr(transparent)]
struct BadText {
    tail: str,
}

#[test]
fn a_struct_with_an_unsized_tail_derives() {
    let boxed: Box<BadText> = {
        let s: Box<str> = "oops".into();
        // SAFETY: `BadText` is `repr(transparent)` over `str`: the same layout and metadata.
        unsafe { Box::from_raw(Box::into_raw(s) as *mut BadText) }
    };
    assert_eq!(boxed.to_string(), "text.read [bad_text]: bad text: oops");
    assert_eq!(AgentError::code(&*boxed), "bad_text");
}

/// A message written by a function, which is given every field (the cause too) and the
/// formatter, as with thiserror.
fn pair(
    k: &i32,
    v: &i32,
    _cause: &std::io::Error,
    f: &mut std::fmt::Formatter<'_>,
) -> std::fmt::Result {
    write!(f, "pair={k}:{v}")
}

#[derive(Debug, AgentError)]
#[agent(op = "kv.put")]
enum Store {
    /// A message written by `pair`, with a cause after it as after any message.
    #[error(fmt = pair)]
    Rejected {
        k: i32,
        v: i32,
        #[source]
        cause: std::io::Error,
    },
    /// `{self:?}`: the value's Debug form, which public renderings do not show.
    #[error("unexpected {self:?}")]
    Unexpected,
}

#[test]
fn a_message_written_by_a_function_is_followed_by_the_cause() {
    let e = Store::Rejected {
        k: 1,
        v: 2,
        cause: std::io::Error::other("disk full"),
    };
    assert_eq!(e.message(), "pair=1:2");
    assert_eq!(e.to_string(), "kv.put [rejected]: pair=1:2: disk full");
    assert_eq!(agent_error::display::public(&e).to_string(), "pair=1:2");
}

#[test]
fn self_in_debug_form_is_redacted_in_public_renderings() {
    assert_eq!(
        Store::Unexpected.to_string(),
        "kv.put [unexpected]: unexpected Unexpected"
    );
    assert_eq!(
        agent_error::display::public(&Store::Unexpected).to_string(),
        "unexpected [redacted]"
    );
}

mod nested {
    use std::io;

    use agent_error::AgentError;

    #[derive(Debug, AgentError)]
    #[agent(op = "rig")]
    pub enum Http {
        #[agent(status = 503)]
        #[error("invalid status code {0}")]
        InvalidStatus(u16),
        #[error("reading the body failed")]
        Body(#[source] io::Error),
        #[agent(code = "secret")]
        #[error("key {key} refused")]
        Secret {
            #[redact]
            key: String,
        },
    }

    #[derive(Debug, AgentError)]
    #[agent(op = "rig")]
    pub enum Completion {
        #[error("completion failed: {0}")]
        Http(#[from] Http),
        #[error("completion failed [{0:>30}]")]
        Padded(#[source] Http),
        #[error("completion failed: {0:?}")]
        Debugged(#[source] Http),
        #[error("completion failed: {0}")]
        Io(#[from] io::Error),
    }

    #[derive(Debug, AgentError)]
    #[agent(op = "agent")]
    pub enum Agent {
        #[error("step failed: {0}")]
        Step(#[from] Completion),
    }
}

#[test]
fn a_derived_cause_in_the_message_shows_without_its_head() {
    use nested::{Completion, Http};
    let e = Completion::Http(Http::InvalidStatus(503));
    assert_eq!(
        e.to_string(),
        "rig [http]: completion failed: invalid status code 503"
    );
    assert_eq!(e.message(), "completion failed: invalid status code 503");
}

#[test]
fn nested_derived_errors_show_one_head_at_any_depth() {
    use nested::{Agent, Completion, Http};
    let e = Agent::Step(Completion::Http(Http::InvalidStatus(503)));
    assert_eq!(
        e.to_string(),
        "agent [step]: step failed: completion failed: invalid status code 503"
    );
}

#[test]
fn a_derived_cause_in_the_message_keeps_its_own_cause() {
    use nested::{Completion, Http};
    let reset = io::Error::from(io::ErrorKind::ConnectionReset);
    let e = Completion::Http(Http::Body(io::Error::from(io::ErrorKind::ConnectionReset)));
    assert_eq!(
        e.to_string(),
        format!("rig [http]: completion failed: reading the body failed: {reset}")
    );
}

#[test]
fn a_padded_derived_cause_is_padded_without_its_head() {
    use nested::{Completion, Http};
    let e = Completion::Padded(Http::InvalidStatus(503));
    assert_eq!(
        e.message(),
        "completion failed [       invalid status code 503]"
    );
}

#[test]
fn a_derived_cause_in_debug_form_and_foreign_causes_print_as_before() {
    use nested::{Completion, Http};
    let e = Completion::Debugged(Http::InvalidStatus(503));
    assert_eq!(e.message(), "completion failed: InvalidStatus(503)");
    let refused = io::Error::from(io::ErrorKind::ConnectionRefused);
    let e = Completion::Io(io::Error::from(io::ErrorKind::ConnectionRefused));
    assert_eq!(e.message(), format!("completion failed: {refused}"));
}

// Derived types are known in a chain through their registration (feature `registry`).
#[cfg(feature = "registry")]
#[test]
fn public_renderings_show_a_derived_cause_without_its_head() {
    use nested::{Completion, Http};
    let e = Completion::Http(Http::Secret {
        key: "sk-123".into(),
    });
    // A cause written into a message is written as its Display, which redacts; the
    // value is read only on purpose, through the unredacted chain.
    assert_eq!(e.message(), "completion failed: key [redacted] refused");
    assert!(
        agent_error::display::unredacted(&e)
            .to_string()
            .ends_with(": key sk-123 refused"),
        "{}",
        agent_error::display::unredacted(&e)
    );
    assert_eq!(
        agent_error::tool::render(&e),
        "[error:http] completion failed: key [redacted] refused"
    );
}

#[test]
fn a_cause_without_an_op_in_the_message_shows_without_its_head() {
    #[derive(Debug, AgentError)]
    #[agent(op = "tool.call")]
    enum Tool {
        #[error("the tool failed: {0}")]
        Failed(#[source] agent_error::Error),
    }
    let with_op = Tool::Failed(agent_error::Error::new("db", "timeout", "took too long"));
    assert_eq!(with_op.message(), "the tool failed: took too long");
    let without_op = Tool::Failed(agent_error::Error::new("", "timeout", "took too long"));
    assert_eq!(without_op.message(), "the tool failed: took too long");
}
