//! `#[location]`: the generated `From` records where the `?` was, shown in `Debug`, the
//! wire form and traces, never in Display, tool text or text for people.

use std::panic::Location;

use agent_error::{AgentError, Report, display, tool};

#[derive(Debug, AgentError)]
#[agent(op = "tool.read_file")]
enum ToolError {
    #[error("cannot read the file")]
    #[agent(code = "io", retryable)]
    Io {
        #[from]
        source: std::io::Error,
        #[location]
        location: &'static Location<'static>,
    },
    #[error("no such tool")]
    #[agent(code = "unknown_tool")]
    Unknown,
}

fn read() -> Result<(), std::io::Error> {
    Err(std::io::Error::other("/etc/secret: permission denied"))
}

fn run() -> Result<(), ToolError> {
    read()?; // The line `?` records.
    Ok(())
}

#[test]
fn question_mark_records_its_own_line() {
    let err = run().unwrap_err();
    let location = err.location().expect("a location");
    assert_eq!(location.file(), file!());
    let expected = include_str!("location.rs")
        .lines()
        .position(|l| l.contains("read()?; // The line"))
        .unwrap() as u32
        + 1;
    assert_eq!(location.line(), expected);
    assert_eq!(location.column(), 5);
    assert_eq!(ToolError::Unknown.location(), None);
}

#[test]
fn debug_and_the_wire_show_it_display_and_text_for_people_do_not() {
    let err = run().unwrap_err();
    let location = err.location().unwrap().to_string();
    assert!(format!("{err:?}").contains("location.rs"), "{err:?}");
    for text in [
        err.to_string(),
        display::public(&err).to_string(),
        display::public_chain(&err).to_string(),
        tool::render(&err),
    ] {
        assert!(!text.contains("location.rs"), "{text}");
    }
    let report = Report::capture(&err);
    assert_eq!(report.location_text(), Some(location.as_str()));
    let json = serde_json::to_string(&report).unwrap();
    assert!(
        json.contains(&format!(r#""location":"{location}""#)),
        "{json}"
    );
    let back: Report = serde_json::from_str(&json).unwrap();
    assert_eq!(back.location_text(), Some(location.as_str()));
}

#[test]
fn a_location_from_the_wire_is_one_line_and_bounded() {
    let long = "x".repeat(10_000);
    for (sent, read) in [
        (
            "src/a.rs:1:2\nforged: line",
            Some("src/a.rs:1:2 forged: line"),
        ),
        ("\u{202e}src/a.rs:1:2", Some("src/a.rs:1:2")),
        ("  \n ", None),
    ] {
        let json = serde_json::json!({"code": "io", "message": "m", "location": sent});
        let report: Report = serde_json::from_value(json).unwrap();
        assert_eq!(report.location_text(), read, "{sent:?}");
    }
    let json = serde_json::json!({"code": "io", "message": "m", "location": long});
    let report: Report = serde_json::from_value(json).unwrap();
    assert_eq!(report.location_text().map(str::len), Some(512));
    // Another type is ignored, as any member of the wrong type.
    let json = serde_json::json!({"code": "io", "message": "m", "location": 12});
    let report: Report = serde_json::from_value(json).unwrap();
    assert_eq!(report.location_text(), None);
}

/// A location beside a cause that is not `#[from]`: the caller fills it.
#[derive(Debug, AgentError)]
#[agent(op = "llm.generate", code = "timeout")]
#[error("deadline exceeded")]
struct Timeout {
    #[location]
    at: &'static Location<'static>,
}

#[test]
fn a_location_without_from_is_the_callers_to_fill() {
    let here = Location::caller();
    let err = Timeout { at: here };
    assert_eq!(err.location(), Some(here));
    assert_eq!(err.to_string(), "llm.generate [timeout]: deadline exceeded");
}
