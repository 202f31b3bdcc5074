//! The derive used inside a `macro_rules!` expansion: the field tokens come from the
//! macro's caller, the derive's own bindings from the expansion; both must meet.

use agent_error::AgentError;

macro_rules! agent_enum {
    ($name:ident { $($body:tt)* }) => {
        #[derive(Debug, AgentError)]
        #[agent(op = "macro.check")]
        enum $name { $($body)* }
    };
}

agent_enum!(Generated {
    #[error("named {name} and {}", .name.len())]
    Named { name: String },

    #[error("tuple {0} and {1:?}")]
    Tuple(u32, &'static str),

    #[agent(hint = "retry with {0}")]
    #[error("tuple member {}", .0 + 1)]
    TupleMember(u32),

    #[error("{:?}", .1)]
    SecondTupleMember(u8, &'static str),

    #[error("kind {}", .r#type)]
    RawIdentifier { r#type: &'static str },
});

#[test]
fn named_fields_in_strings_and_arguments() {
    let e = Generated::Named { name: "abc".into() };
    assert_eq!(e.message(), "named abc and 3");
    assert_eq!(e.to_string(), "macro.check [named]: named abc and 3");
}

#[test]
fn tuple_fields_in_strings() {
    assert_eq!(Generated::Tuple(1, "x").message(), "tuple 1 and \"x\"");
}

#[test]
fn a_tuple_member_in_an_extra_argument() {
    let e = Generated::TupleMember(41);
    assert_eq!(e.message(), "tuple member 42");
    assert_eq!(e.hints(), ["retry with 41"]);
}

#[test]
fn a_second_tuple_member_in_an_extra_argument() {
    assert_eq!(Generated::SecondTupleMember(0, "y").message(), "\"y\"");
}

#[test]
fn a_raw_identifier_field_in_an_extra_argument() {
    let e = Generated::RawIdentifier { r#type: "tool" };
    assert_eq!(e.message(), "kind tool");
}
