//! The command line: `agent-error explain [--status CODE | --body] [FILE]`, `--help`, `--version`.
//! Reading it never fails silently: anything it does not know is a usage error.

use std::ffi::OsString;
use std::path::PathBuf;

/// The usage, printed by `--help` and, on standard error, after a usage error.
pub const USAGE: &str = "\
agent-error explain: what a failed response means to agent-error, and what decided it

Usage:
  agent-error explain [FILE]                a `curl -i` capture: heads, a blank line, the body
  agent-error explain --status CODE [FILE]  a body alone, with the status it came with
  agent-error explain --body [FILE]         a body alone, with no status (a stream's error event)

FILE is read, or standard input when it is absent or `-`; at most 1 MiB of it. Of a
capture, the last head counts (`100 Continue` and a proxy's heads come before it).
Printed: the status, the code, whether it is retried, the recovery, the wait and where it
came from, the evidence that decided the code, and the provider's request id; never the body.

Exit status:
  0  explained
  1  --body, and the body says nothing this library reads
  2  a usage error, or input that cannot be read or is not a response

Options:
  --status CODE  the status of the body (100 to 999)
  --body         read the input as a body with no status
  -h, --help     print this help
  -V, --version  print the version
";

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    /// `--help`.
    Help,
    /// `--version`.
    Version,
    /// `explain`.
    Explain {
        /// How to read the input.
        input: Input,
        /// The file to read; standard input when `None`.
        file: Option<PathBuf>,
    },
}

/// How `explain` reads its input.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum Input {
    /// A `curl -i` capture.
    Capture,
    /// A body that came with this status.
    Status(u16),
    /// A body that came without a status.
    Body,
}

/// Reads the arguments after the program's name; `Err` says what was wrong, in one line.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Command, String> {
    let mut args = args.into_iter();
    match args.next().as_deref().map(|arg| arg.to_str()) {
        None => return Err("a command is missing".into()),
        Some(Some("explain")) => {}
        Some(Some("-h" | "--help" | "help")) => return Ok(Command::Help),
        Some(Some("-V" | "--version")) => return Ok(Command::Version),
        Some(other) => {
            let other = other.unwrap_or("(not UTF-8)");
            return Err(format!("unknown command `{other}`"));
        }
    }
    let mut input = Input::Capture;
    let mut file = None;
    let mut only_files = false;
    while let Some(arg) = args.next() {
        let text = arg.to_str().unwrap_or("");
        if only_files || text == "-" || !text.starts_with('-') {
            if file.is_some() {
                return Err("more than one FILE".into());
            }
            file = Some(PathBuf::from(arg));
            continue;
        }
        let status = match text.split_once('=') {
            Some(("--status", value)) => Some(value.to_owned()),
            _ if text == "--status" => Some(
                args.next()
                    .and_then(|value| value.into_string().ok())
                    .ok_or("--status needs a CODE")?,
            ),
            _ => None,
        };
        let next = match (status, text) {
            (Some(value), _) => Input::Status(status_code(&value)?),
            (None, "--body") => Input::Body,
            (None, "-h" | "--help") => return Ok(Command::Help),
            (None, "--") => {
                only_files = true;
                continue;
            }
            (None, _) => {
                let flag = arg.to_str().unwrap_or("(not UTF-8)");
                return Err(format!("unknown option `{flag}`"));
            }
        };
        if input != Input::Capture && input != next {
            return Err("give one --status or --body, not both nor two".into());
        }
        input = next;
    }
    // `-` is standard input, as when no FILE is given.
    let file = file.filter(|file| file.as_os_str() != "-");
    Ok(Command::Explain { input, file })
}

fn status_code(value: &str) -> Result<u16, String> {
    value
        .parse()
        .ok()
        .filter(|status| (100..=999).contains(status))
        .ok_or_else(|| format!("--status takes a status from 100 to 999, not `{value}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Command, String> {
        super::parse(args.iter().map(OsString::from))
    }

    fn explain(input: Input, file: Option<&str>) -> Result<Command, String> {
        Ok(Command::Explain {
            input,
            file: file.map(PathBuf::from),
        })
    }

    #[test]
    fn reads_each_form() {
        assert_eq!(parse(&["explain"]), explain(Input::Capture, None));
        assert_eq!(parse(&["explain", "-"]), explain(Input::Capture, None));
        assert_eq!(
            parse(&["explain", "r.txt"]),
            explain(Input::Capture, Some("r.txt"))
        );
        assert_eq!(
            parse(&["explain", "--status", "429", "r.txt"]),
            explain(Input::Status(429), Some("r.txt"))
        );
        assert_eq!(
            parse(&["explain", "r.txt", "--status=400"]),
            explain(Input::Status(400), Some("r.txt"))
        );
        assert_eq!(parse(&["explain", "--body"]), explain(Input::Body, None));
        assert_eq!(
            parse(&["explain", "--", "--body"]),
            explain(Input::Capture, Some("--body"))
        );
        assert_eq!(parse(&["--help"]), Ok(Command::Help));
        assert_eq!(parse(&["explain", "-h"]), Ok(Command::Help));
        assert_eq!(parse(&["-V"]), Ok(Command::Version));
    }

    #[test]
    fn says_what_is_wrong() {
        for (args, error) in [
            (&[][..], "a command is missing"),
            (&["explian"], "unknown command `explian`"),
            (&["explain", "--verbose"], "unknown option `--verbose`"),
            (&["explain", "a", "b"], "more than one FILE"),
            (&["explain", "--status"], "--status needs a CODE"),
            (
                &["explain", "--status", "42"],
                "--status takes a status from 100 to 999, not `42`",
            ),
            (
                &["explain", "--status=x"],
                "--status takes a status from 100 to 999, not `x`",
            ),
            (
                &["explain", "--body", "--status", "429"],
                "give one --status or --body, not both nor two",
            ),
        ] {
            assert_eq!(parse(args), Err(error.to_owned()), "{args:?}");
        }
    }
}
