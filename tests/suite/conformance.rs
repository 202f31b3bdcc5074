//! Conformance with thiserror: the same `#[error("...")]` strings on a `thiserror::Error`
//! enum and on an `AgentError` enum give the same text, our `message()` against their
//! `to_string()`.

use agent_error::AgentError;

// The two enums are written out in full, variant for variant with the same strings.
// (Declaring them through one `macro_rules!` would be shorter, but deriving inside a
// declarative macro is a behaviour of its own, tested in `declarative_macro.rs`.)

/// A tuple field's own tuple field, for `.0.0`.
#[derive(Debug)]
pub struct Inner(pub u32);

/// A trait with an associated type, for a cast whose type has a comma inside `<...>`.
pub trait Shown<T>: std::fmt::Display {
    type A;
}

impl<T> Shown<T> for i32 {
    type A = i32;
}

/// A message written by a function: `#[error(fmt = octal)]`.
pub fn octal<T: std::fmt::Octal>(value: &T, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    write!(f, "0o{value:o}")
}

/// A message written by a function from two fields.
pub fn pair(k: &i32, v: &i32, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    write!(f, "pair={k}:{v}")
}

mod theirs {
    const MSG: &str = "a constant in scope";
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

        #[error("{}", match .0 { Some(_) => "some", None => "none" })]
        MemberAfterKeyword(Option<u8>),

        #[error("nested {}", .0.0)]
        NestedTupleField(super::Inner),

        #[error("{MSG}: {id}")]
        ConstantInScope { id: u32 },

        #[error("keyword argument {type}", type = 7)]
        KeywordArgument,

        #[error("debug of self {self:?}")]
        SelfDebug,

        #[error("cast {b} {0}", b = &3 as &dyn super::Shown<i32, A = i32>)]
        CastToGenericTrait(u8),

        #[error("{source} to {destination}")]
        RawSourceIsNoCause { r#source: char, destination: char },

        #[error(fmt = super::octal)]
        FmtFunction(i16),

        #[error(fmt = super::pair)]
        FmtFunctionNamed { k: i32, v: i32 },

        #[error("no placeholders at all")]
        Plain,
    }
}

mod ours {
    const MSG: &str = "a constant in scope";
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

        #[error("{}", match .0 { Some(_) => "some", None => "none" })]
        MemberAfterKeyword(Option<u8>),

        #[error("nested {}", .0.0)]
        NestedTupleField(super::Inner),

        #[error("{MSG}: {id}")]
        ConstantInScope { id: u32 },

        #[error("keyword argument {type}", type = 7)]
        KeywordArgument,

        #[error("debug of self {self:?}")]
        SelfDebug,

        #[error("cast {b} {0}", b = &3 as &dyn super::Shown<i32, A = i32>)]
        CastToGenericTrait(u8),

        #[error("{source} to {destination}")]
        RawSourceIsNoCause { r#source: char, destination: char },

        #[error(fmt = super::octal)]
        FmtFunction(i16),

        #[error(fmt = super::pair)]
        FmtFunctionNamed { k: i32, v: i32 },

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

#[test]
fn a_member_after_a_keyword_is_the_field() {
    assert_eq!(conforms!(E::MemberAfterKeyword(Some(1))), "some");
    assert_eq!(conforms!(E::MemberAfterKeyword(None)), "none");
}

#[test]
fn a_tuple_field_of_a_tuple_field() {
    assert_eq!(conforms!(E::NestedTupleField(Inner(4))), "nested 4");
}

#[test]
fn uppercase_names_are_constants_in_scope() {
    assert_eq!(
        conforms!(E::ConstantInScope { id: 3 }),
        "a constant in scope: 3"
    );
}

#[test]
fn keyword_named_arguments() {
    assert_eq!(conforms!(E::KeywordArgument), "keyword argument 7");
}

#[test]
fn self_in_debug_form() {
    assert_eq!(conforms!(E::SelfDebug), "debug of self SelfDebug");
}

#[test]
fn a_cast_to_a_type_with_commas_in_its_generics() {
    assert_eq!(conforms!(E::CastToGenericTrait(5)), "cast 3 5");
}

#[test]
fn a_raw_source_field_is_not_the_cause() {
    use std::error::Error as _;
    let made = conforms!(E::RawSourceIsNoCause {
        source: 'S',
        destination: 'D'
    });
    assert_eq!(made, "S to D");
    let ours = ours::E::RawSourceIsNoCause {
        source: 'S',
        destination: 'D',
    };
    let theirs = theirs::E::RawSourceIsNoCause {
        source: 'S',
        destination: 'D',
    };
    assert!(ours.source().is_none() && theirs.source().is_none());
}

#[test]
fn messages_written_by_a_function() {
    assert_eq!(conforms!(E::FmtFunction(0o777)), "0o777");
    assert_eq!(conforms!(E::FmtFunctionNamed { k: 10, v: 0 }), "pair=10:0");
}

#[test]
fn a_pointer_spec_shows_the_pointer_held() {
    #[derive(Debug, thiserror::Error)]
    #[error("{field:p}")]
    struct Theirs {
        field: Box<i32>,
    }

    #[derive(Debug, agent_error::AgentError)]
    #[agent(op = "conformance.check")]
    #[error("{field:p}")]
    struct Ours {
        field: Box<i32>,
    }

    let theirs = Theirs {
        field: Box::new(-1),
    };
    let ours = Ours {
        field: Box::new(-1),
    };
    assert_eq!(theirs.to_string(), format!("{:p}", theirs.field));
    assert_eq!(ours.message(), format!("{:p}", ours.field));
}

/// An enum's `#[error(fmt = ...)]` writes the variants without their own message.
mod enum_function {
    #[derive(Debug, thiserror::Error)]
    #[error(fmt = super::octal)]
    pub enum Theirs {
        Small(i16),
        #[error("other {0}")]
        Other(bool),
    }

    #[derive(Debug, agent_error::AgentError)]
    #[agent(op = "conformance.check")]
    #[error(fmt = super::octal)]
    pub enum Ours {
        Small(i16),
        #[error("other {0}")]
        Other(bool),
    }
}

#[test]
fn an_enum_function_writes_the_variants_without_a_message() {
    use enum_function::{Ours, Theirs};
    assert_eq!(Ours::Small(8).message(), Theirs::Small(8).to_string());
    assert_eq!(Ours::Small(8).message(), "0o10");
    assert_eq!(Ours::Other(true).message(), Theirs::Other(true).to_string());
    assert_eq!(
        Ours::Small(8).to_string(),
        "conformance.check [small]: 0o10"
    );
}
