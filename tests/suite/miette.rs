//! `#[agent(miette)]`: a derived type is a `miette::Diagnostic` from the same attributes,
//! rendered here through miette's own handlers.

use std::fmt;

use agent_error::AgentError;
use miette::{Diagnostic, NarratableReportHandler, Severity};

#[derive(Debug, AgentError)]
#[agent(
    op = "tool.read_file",
    namespace = "files",
    docs_url = "https://example.com/errors/{code}",
    miette
)]
enum ToolError {
    #[error("cannot read {path}")]
    #[agent(
        code = "io",
        retryable,
        hint = "check that {path} exists",
        hint = "try again in a moment"
    )]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the key {key} was refused")]
    #[agent(code = "auth", hint = "renew the key {key}")]
    Auth {
        #[redact]
        key: String,
    },
    #[error("the step failed")]
    #[agent(code = "step")]
    Step {
        #[from]
        source: Inner,
    },
}

/// A cause that is a diagnostic too.
#[derive(Debug, AgentError)]
#[agent(op = "tool.parse", code = "bad_json", miette)]
#[error("the file is not JSON")]
struct Inner;

/// A diagnostic rendered by miette's plain-text handler, as a `Display`.
struct Narrated<'a>(&'a dyn Diagnostic);

impl fmt::Display for Narrated<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        NarratableReportHandler::new().render_report(f, self.0)
    }
}

#[test]
fn each_method_reads_the_attributes() {
    let e = ToolError::Io {
        path: "/etc/app.toml".into(),
        source: std::io::Error::other("denied"),
    };
    // Both traits have a `code`: name the one meant.
    assert_eq!(
        Diagnostic::code(&e).map(|c| c.to_string()).as_deref(),
        Some(AgentError::code(&e))
    );
    assert_eq!(AgentError::code(&e), "files.io");
    assert_eq!(
        e.help().map(|h| h.to_string()).as_deref(),
        Some("check that /etc/app.toml exists\ntry again in a moment")
    );
    assert_eq!(
        e.url().map(|u| u.to_string()).as_deref(),
        Some("https://example.com/errors/files.io")
    );
    assert_eq!(e.severity(), Some(Severity::Warning));
    // The cause is an io::Error, not a diagnostic.
    assert!(e.diagnostic_source().is_none());
}

#[test]
fn the_help_is_for_people_redacted_fields_stay_out() {
    let e = ToolError::Auth {
        key: "sk-live-1".into(),
    };
    assert_eq!(e.severity(), Some(Severity::Error));
    let help = e.help().unwrap().to_string();
    assert_eq!(help, "renew the key [redacted]");
    let text = Narrated(&e).to_string();
    assert!(!text.contains("sk-live-1"), "{text}");
}

#[test]
fn a_cause_that_is_a_diagnostic_is_the_diagnostic_source() {
    let e = ToolError::from(Inner);
    let source = e.diagnostic_source().expect("the cause is a diagnostic");
    assert_eq!(source.code().unwrap().to_string(), "bad_json");
    assert_eq!(
        source.to_string(),
        "tool.parse [bad_json]: the file is not JSON"
    );
}

#[test]
fn miettes_handler_shows_code_help_and_url() {
    let e = ToolError::Io {
        path: "/etc/app.toml".into(),
        source: std::io::Error::other("denied"),
    };
    let text = Narrated(&e).to_string();
    assert!(text.contains("files.io"), "{text}");
    assert!(text.contains("check that /etc/app.toml exists"), "{text}");
    assert!(
        text.contains("https://example.com/errors/files.io"),
        "{text}"
    );
    assert!(
        text.contains("tool.read_file [files.io]: cannot read /etc/app.toml"),
        "{text}"
    );
    // A `miette::Report` takes it with `?`.
    fn run() -> miette::Result<()> {
        Err(ToolError::from(Inner))?;
        Ok(())
    }
    let report = run().unwrap_err();
    assert_eq!(report.code().unwrap().to_string(), "files.step");
    let shown = format!("{report:?}");
    assert!(shown.contains("files.step"), "{shown}");
    println!("{text}\n{shown}");
}
