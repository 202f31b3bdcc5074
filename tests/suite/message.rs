//! The message: thiserror's format syntax in `#[error(...)]`, the doc-comment fallback,
//! `AgentError::message()` and `fmt_message` (the message alone, no op, code or cause).

use std::fmt;
use std::io;

use agent_error::AgentError;

#[derive(Debug, AgentError)]
#[agent(op = "fmt.check")]
enum Formats {
    #[error("named {name}")]
    Named { name: String },

    #[error("positional {0} then {1}")]
    Positional(u32, &'static str),

    #[error("debug {name:?}")]
    Debug { name: String },

    #[error("right [{0:>8}]")]
    RightAligned(u32),

    #[error("width [{x:width$}]")]
    WidthFromField { x: u32, width: usize },

    #[error("precision {x:.prec$}")]
    PrecisionFromField { x: f64, prec: usize },

    #[error("extra positional {} and {}", .a + 1, "literal")]
    ExtraPositional { a: u32 },

    #[error("extra named {total} of {max}", max = 100)]
    ExtraNamed { total: u32 },

    #[error("{} items, first {:?}", .items.len(), .items.first())]
    FieldExpressions { items: Vec<u8> },

    #[error("tuple member {}", .0 * 2)]
    TupleMemberExpression(u32),

    #[error("escaped {{ {x} }} and {{}}")]
    Escaped { x: u32 },

    #[error("plain {{braces}} only")]
    EscapedPlain,

    #[error("kind {type}")]
    RawIdentifier { r#type: &'static str },

    #[error("field f is {f}")]
    FieldNamedF { f: u32 },

    #[error("hex {n:#x}, binary {n:b}, padded {n:05}")]
    NumericSpecs { n: u32 },

    #[error("{0} {0} {0:?}")]
    Repeated(&'static str),
}

#[test]
fn a_named_field() {
    let e = Formats::Named { name: "gpt".into() };
    assert_eq!(e.message(), "named gpt");
}

#[test]
fn positional_fields() {
    assert_eq!(Formats::Positional(4, "x").message(), "positional 4 then x");
}

#[test]
fn a_debug_formatted_field() {
    let e = Formats::Debug {
        name: "a\"b".into(),
    };
    assert_eq!(e.message(), r#"debug "a\"b""#);
}

#[test]
fn a_width_and_alignment_spec() {
    assert_eq!(Formats::RightAligned(42).message(), "right [      42]");
}

#[test]
fn a_width_taken_from_another_field() {
    let e = Formats::WidthFromField { x: 7, width: 4 };
    assert_eq!(e.message(), "width [   7]");
}

#[test]
fn a_precision_taken_from_another_field() {
    let e = Formats::PrecisionFromField {
        x: 1.23456,
        prec: 2,
    };
    assert_eq!(e.message(), "precision 1.23");
}

#[test]
fn extra_positional_arguments() {
    let e = Formats::ExtraPositional { a: 1 };
    assert_eq!(e.message(), "extra positional 2 and literal");
}

#[test]
fn extra_named_arguments() {
    let e = Formats::ExtraNamed { total: 7 };
    assert_eq!(e.message(), "extra named 7 of 100");
}

#[test]
fn field_expressions_in_extra_arguments() {
    let e = Formats::FieldExpressions {
        items: vec![9, 8, 7],
    };
    assert_eq!(e.message(), "3 items, first Some(9)");
    let empty = Formats::FieldExpressions { items: vec![] };
    assert_eq!(empty.message(), "0 items, first None");
}

#[test]
fn a_tuple_member_in_an_extra_argument() {
    assert_eq!(
        Formats::TupleMemberExpression(21).message(),
        "tuple member 42"
    );
}

#[test]
fn escaped_braces_with_a_field() {
    let e = Formats::Escaped { x: 5 };
    assert_eq!(e.message(), "escaped { 5 } and {}");
}

#[test]
fn escaped_braces_in_a_plain_message() {
    assert_eq!(Formats::EscapedPlain.message(), "plain {braces} only");
    assert_eq!(
        Formats::EscapedPlain.to_string(),
        "fmt.check [escaped_plain]: plain {braces} only"
    );
}

#[test]
fn a_raw_identifier_field_is_named_without_r_hash() {
    let e = Formats::RawIdentifier { r#type: "tool" };
    assert_eq!(e.message(), "kind tool");
}

#[test]
fn a_field_named_f() {
    assert_eq!(Formats::FieldNamedF { f: 3 }.message(), "field f is 3");
}

#[test]
fn numeric_format_specs() {
    assert_eq!(
        Formats::NumericSpecs { n: 10 }.message(),
        "hex 0xa, binary 1010, padded 00010"
    );
}

#[test]
fn one_field_used_several_times() {
    assert_eq!(Formats::Repeated("x").message(), "x x \"x\"");
}

#[derive(Debug, AgentError)]
#[agent(op = "docs.check")]
enum Documented {
    /// The provider is throttling this client.
    RateLimited,

    /// Model {model} is not available.
    ///
    /// Further lines are documentation, not the message.
    UnknownModel { model: String },

    /// Tuple field {0} is wrong.
    Tuple(u32),

    /// This doc comment is not the message.
    #[error("the error attribute wins")]
    Both,

    ///
    /// First non-empty line.
    LeadingBlank,
}

#[test]
fn the_first_doc_line_is_the_message() {
    assert_eq!(
        Documented::RateLimited.message(),
        "The provider is throttling this client."
    );
    assert_eq!(
        Documented::RateLimited.to_string(),
        "docs.check [rate_limited]: The provider is throttling this client."
    );
}

#[test]
fn a_doc_message_interpolates_named_fields() {
    let e = Documented::UnknownModel {
        model: "gpt-9".into(),
    };
    assert_eq!(e.message(), "Model gpt-9 is not available.");
}

#[test]
fn a_doc_message_interpolates_tuple_fields() {
    assert_eq!(Documented::Tuple(5).message(), "Tuple field 5 is wrong.");
}

#[test]
fn an_error_attribute_wins_over_the_doc_comment() {
    assert_eq!(Documented::Both.message(), "the error attribute wins");
}

#[test]
fn a_blank_first_doc_line_is_skipped() {
    assert_eq!(Documented::LeadingBlank.message(), "First non-empty line.");
}

#[derive(Debug, AgentError)]
#[agent(op = "net.fetch", code = "fetch_failed")]
#[error("fetch of {url} failed")]
struct FetchError {
    url: String,
    source: io::Error,
}

/// Writes `fmt_message` through Display, to check it without `message()`.
struct Message<'a>(&'a dyn AgentError);

impl fmt::Display for Message<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt_message(f)
    }
}

#[test]
fn message_leaves_out_op_code_and_cause() {
    let e = FetchError {
        url: "https://x".into(),
        source: io::Error::other("dns failure"),
    };
    assert_eq!(e.message(), "fetch of https://x failed");
    assert_eq!(Message(&e).to_string(), "fetch of https://x failed");
    assert_eq!(
        e.to_string(),
        "net.fetch [fetch_failed]: fetch of https://x failed: dns failure"
    );
}

#[test]
fn fmt_message_of_a_plain_message() {
    let e = Documented::RateLimited;
    assert_eq!(
        Message(&e).to_string(),
        "The provider is throttling this client."
    );
}

#[test]
fn message_through_a_trait_object() {
    let e: &dyn AgentError = &Formats::Positional(1, "y");
    assert_eq!(e.message(), "positional 1 then y");
}

#[derive(Debug, AgentError)]
#[agent(op = "fmt.fill")]
enum Filled {
    #[error("[{name:€>width$}]")]
    Wide { name: String, width: usize },
}

#[test]
fn a_multi_byte_fill_before_a_width_argument() {
    let e = Filled::Wide {
        name: "ab".into(),
        width: 5,
    };
    assert_eq!(e.message(), "[€€€ab]");
}
