//! `Recovery`, what an agent loop should do: its names, parsing and display.

use agent_error::{Recovery, UnknownRecovery};

#[test]
fn every_recovery_in_declaration_order() {
    assert_eq!(
        Recovery::ALL,
        [
            Recovery::Retry,
            Recovery::Continue,
            Recovery::Replan,
            Recovery::Fallback,
            Recovery::Compact,
            Recovery::Abort,
            Recovery::Escalate,
        ]
    );
}

#[test]
fn names_are_the_attribute_values() {
    let names: Vec<&str> = Recovery::ALL.iter().map(|r| r.as_str()).collect();
    assert_eq!(
        names,
        [
            "retry", "continue", "replan", "fallback", "compact", "abort", "escalate"
        ]
    );
}

#[test]
fn display_is_the_name_and_honours_padding() {
    assert_eq!(Recovery::Compact.to_string(), "compact");
    assert_eq!(Recovery::Continue.to_string(), "continue");
    assert_eq!(format!("[{:>8}]", Recovery::Abort), "[   abort]");
}

#[test]
fn parsing_round_trips() {
    for r in Recovery::ALL {
        assert_eq!(r.as_str().parse::<Recovery>(), Ok(r));
    }
    assert_eq!("continue".parse::<Recovery>(), Ok(Recovery::Continue));
}

#[test]
fn parsing_an_unknown_name_fails() {
    assert_eq!("Retry".parse::<Recovery>(), Err(UnknownRecovery));
    assert_eq!("".parse::<Recovery>(), Err(UnknownRecovery));
    assert_eq!("Continue".parse::<Recovery>(), Err(UnknownRecovery));
    assert_eq!(
        UnknownRecovery.to_string(),
        "unknown recovery; expected one of retry, continue, replan, fallback, compact, abort, escalate"
    );
}
