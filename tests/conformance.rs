//! Conformance with thiserror: the same `#[error("...")]` strings on a `thiserror::Error`
//! enum and on an `AgentError` enum give the same text, our `message()` against their
//! `to_string()`.

use agent_error::AgentError;

// The two enums are written out in full, variant for variant with the same strings.
// (Declaring them through one `macro_rules!` would be shorter, but deriving inside a
// declarative macro is a behaviour of its own, tested in `declarative_macro.rs`.)

mod theirs {
    #[derive(Debug, thiserror::Error)]
    pub enum E {
        #[error("named field {name}")]
        Named { name: String },

        #[error("tuple fields {0} and {1}")]
        Tuple(u32, &'static str),

        #[error("debug {name:?}")]
        Debug { name: String },

        #[error("aligned [{0:>8}] [{0:<6}] [{0:*^9}]")]
        Aligned(u32),

        #[error("width from a field [{x:width$}]")]
        WidthFromField { x: u32, width: usize },

        #[error("precision from a field {x:.prec$}")]
        PrecisionFromField { x: f64, prec: usize },

        #[error("extra positional {} and {}", .count + 1, "literal")]
        ExtraPositional { count: u32 },

        #[error("extra named {total} of {max}", max = 100)]
        ExtraNamed { total: u32 },

        #[error("{} items, first {:?}", .items.len(), .items.first())]
        MethodOnField { items: Vec<u8> },

        #[error("escaped {{ {x} }} and {{}}")]
        Escaped { x: u32 },

        #[error("plain {{braces}}")]
        EscapedPlain,

        #[error("kind {type}")]
        RawIdentifier { r#type: &'static str },

        #[error("numbers {n:#x} {n:b} {n:o} {n:05} {n:+} {n:e}")]
        NumericSpecs { n: i32 },

        #[error("float {x:08.3} {x:.0}")]
        FloatSpecs { x: f64 },

        #[error("pretty {0:#?}")]
        PrettyDebug(Vec<u8>),

        #[error("again {0} {0} {0:?}")]
        Repeated(&'static str),

        #[error("tuple member {}", .0 * 2)]
        TupleMemberExpression(u32),

        #[error("unicode ✓ {word} — done")]
        Unicode { word: String },

        #[error("width from an argument [{x:w$}] [{:>1$}]", .x, *.x as usize, w = 6)]
        WidthFromArgument { x: u32 },

        #[error(
            "positional arguments {0} {1} in a variant with named fields",
            "a",
            "b"
        )]
        PositionalArgumentsInNamedVariant { unused: u8 },

        #[error("path {0} and {0:?}")]
        PathBuf(std::path::PathBuf),

        #[error("borrowed path {path}")]
        BorrowedPath { path: &'static std::path::Path },

        #[error("maybe a cause")]
        OptionalFrom {
            #[from]
            source: Option<std::io::Error>,
        },

        #[error("no placeholders at all")]
        Plain,
    }
}

mod ours {
    #[derive(Debug, agent_error::AgentError)]
    #[agent(op = "conformance.check")]
    pub enum E {
        #[error("named field {name}")]
        Named { name: String },

        #[error("tuple fields {0} and {1}")]
        Tuple(u32, &'static str),

        #[error("debug {name:?}")]
        Debug { name: String },

        #[error("aligned [{0:>8}] [{0:<6}] [{0:*^9}]")]
        Aligned(u32),

        #[error("width from a field [{x:width$}]")]
        WidthFromField { x: u32, width: usize },

        #[error("precision from a field {x:.prec$}")]
        PrecisionFromField { x: f64, prec: usize },

        #[error("extra positional {} and {}", .count + 1, "literal")]
        ExtraPositional { count: u32 },

        #[error("extra named {total} of {max}", max = 100)]
        ExtraNamed { total: u32 },

        #[error("{} items, first {:?}", .items.len(), .items.first())]
        MethodOnField { items: Vec<u8> },

        #[error("escaped {{ {x} }} and {{}}")]
        Escaped { x: u32 },

        #[error("plain {{braces}}")]
        EscapedPlain,

        #[error("kind {type}")]
        RawIdentifier { r#type: &'static str },

        #[error("numbers {n:#x} {n:b} {n:o} {n:05} {n:+} {n:e}")]
        NumericSpecs { n: i32 },

        #[error("float {x:08.3} {x:.0}")]
        FloatSpecs { x: f64 },

        #[error("pretty {0:#?}")]
        PrettyDebug(Vec<u8>),

        #[error("again {0} {0} {0:?}")]
        Repeated(&'static str),

        #[error("tuple member {}", .0 * 2)]
        TupleMemberExpression(u32),

        #[error("unicode ✓ {word} — done")]
        Unicode { word: String },

        #[error("width from an argument [{x:w$}] [{:>1$}]", .x, *.x as usize, w = 6)]
        WidthFromArgument { x: u32 },

        #[error(
            "positional arguments {0} {1} in a variant with named fields",
            "a",
            "b"
        )]
        PositionalArgumentsInNamedVariant { unused: u8 },

        #[error("path {0} and {0:?}")]
        PathBuf(std::path::PathBuf),

        #[error("borrowed path {path}")]
        BorrowedPath { path: &'static std::path::Path },

        #[error("maybe a cause")]
        OptionalFrom {
            #[from]
            source: Option<std::io::Error>,
        },

        #[error("no placeholders at all")]
        Plain,
    }
}

/// Builds the same value in both modules and compares the texts.
macro_rules! conforms {
    ($($ctor:tt)*) => {{
        let ours = {
            use ours::E;
            $($ctor)*
        };
        let theirs = {
            use theirs::E;
            $($ctor)*
        };
        let expected = theirs.to_string();
        assert_eq!(ours.message(), expected);
        assert_eq!(
            ours.to_string(),
            format!("conformance.check [{}]: {}", ours.code(), expected)
        );
        expected
    }};
}

#[test]
fn named_field() {
    assert_eq!(
        conforms!(E::Named { name: "gpt".into() }),
        "named field gpt"
    );
}

#[test]
fn tuple_fields() {
    assert_eq!(conforms!(E::Tuple(4, "x")), "tuple fields 4 and x");
}

#[test]
fn debug_spec() {
    assert_eq!(
        conforms!(E::Debug {
            name: "a\"b\n".into()
        }),
        r#"debug "a\"b\n""#
    );
}

#[test]
fn fill_alignment_and_width() {
    assert_eq!(
        conforms!(E::Aligned(42)),
        "aligned [      42] [42    ] [***42****]"
    );
}

#[test]
fn width_from_a_field() {
    assert_eq!(
        conforms!(E::WidthFromField { x: 7, width: 4 }),
        "width from a field [   7]"
    );
}

#[test]
fn precision_from_a_field() {
    assert_eq!(
        conforms!(E::PrecisionFromField {
            x: 1.23456,
            prec: 3
        }),
        "precision from a field 1.235"
    );
}

#[test]
fn extra_positional_arguments() {
    assert_eq!(
        conforms!(E::ExtraPositional { count: 1 }),
        "extra positional 2 and literal"
    );
}

#[test]
fn extra_named_arguments() {
    assert_eq!(
        conforms!(E::ExtraNamed { total: 7 }),
        "extra named 7 of 100"
    );
}

#[test]
fn method_calls_on_fields() {
    assert_eq!(
        conforms!(E::MethodOnField { items: vec![3, 4] }),
        "2 items, first Some(3)"
    );
}

#[test]
fn escaped_braces() {
    assert_eq!(conforms!(E::Escaped { x: 1 }), "escaped { 1 } and {}");
    assert_eq!(conforms!(E::EscapedPlain), "plain {braces}");
}

#[test]
fn raw_identifier_field() {
    assert_eq!(conforms!(E::RawIdentifier { r#type: "tool" }), "kind tool");
}

#[test]
fn numeric_specs() {
    assert_eq!(
        conforms!(E::NumericSpecs { n: 10 }),
        "numbers 0xa 1010 12 00010 +10 1e1"
    );
}

#[test]
fn float_specs() {
    assert_eq!(conforms!(E::FloatSpecs { x: 2.5019 }), "float 0002.502 3");
}

#[test]
fn pretty_debug() {
    assert_eq!(
        conforms!(E::PrettyDebug(vec![1, 2])),
        "pretty [\n    1,\n    2,\n]"
    );
}

#[test]
fn a_field_used_several_times() {
    assert_eq!(conforms!(E::Repeated("x")), "again x x \"x\"");
}

#[test]
fn tuple_member_expression() {
    assert_eq!(conforms!(E::TupleMemberExpression(21)), "tuple member 42");
}

#[test]
fn unicode_text() {
    assert_eq!(
        conforms!(E::Unicode { word: "é".into() }),
        "unicode ✓ é — done"
    );
}

#[test]
fn widths_from_extra_arguments() {
    assert_eq!(
        conforms!(E::WidthFromArgument { x: 3 }),
        "width from an argument [     3] [  3]"
    );
}

#[test]
fn positional_indexes_in_a_named_variant_are_the_extra_arguments() {
    assert_eq!(
        conforms!(E::PositionalArgumentsInNamedVariant { unused: 0 }),
        "positional arguments a b in a variant with named fields"
    );
}

#[test]
fn plain_text() {
    assert_eq!(conforms!(E::Plain), "no placeholders at all");
}

#[test]
fn path_fields_display_through_display() {
    assert_eq!(
        conforms!(E::PathBuf("/tmp/a b".into())),
        r#"path /tmp/a b and "/tmp/a b""#
    );
    assert_eq!(
        conforms!(E::BorrowedPath {
            path: std::path::Path::new("/etc")
        }),
        "borrowed path /etc"
    );
}

#[test]
fn from_on_an_option_converts_from_the_error_inside() {
    use std::error::Error as _;
    let io = || std::io::Error::other("disk full");
    let theirs = theirs::E::from(io());
    let ours = ours::E::from(io());
    assert_eq!(ours.message(), theirs.to_string());
    assert_eq!(ours.message(), "maybe a cause");
    assert_eq!(
        ours.source().map(|s| s.to_string()),
        Some("disk full".into())
    );
    assert_eq!(
        ours.source().map(|s| s.to_string()),
        theirs.source().map(|s| s.to_string())
    );
    assert_eq!(
        ours.to_string(),
        "conformance.check [optional_from]: maybe a cause: disk full"
    );
}

/// An enum's `#[error("...")]` is the message of the variants without their own.
mod enum_message {
    #[derive(Debug, thiserror::Error)]
    #[error("the tool failed with {code}")]
    pub enum Theirs {
        Crashed {
            code: i32,
        },
        #[error("the tool timed out")]
        TimedOut {
            code: i32,
        },
    }

    #[derive(Debug, agent_error::AgentError)]
    #[agent(op = "tool.call")]
    #[error("the tool failed with {code}")]
    pub enum Ours {
        /// An explicit enum message wins over a doc comment.
        Crashed { code: i32 },
        #[error("the tool timed out")]
        TimedOut { code: i32 },
    }
}

#[test]
fn an_enum_message_is_the_default_of_its_variants() {
    use enum_message::{Ours, Theirs};
    let (ours, theirs) = (Ours::Crashed { code: 2 }, Theirs::Crashed { code: 2 });
    assert_eq!(ours.message(), theirs.to_string());
    assert_eq!(
        ours.to_string(),
        "tool.call [crashed]: the tool failed with 2"
    );
    let (ours, theirs) = (Ours::TimedOut { code: 2 }, Theirs::TimedOut { code: 2 });
    assert_eq!(ours.message(), theirs.to_string());
    assert_eq!(ours.message(), "the tool timed out");
}
