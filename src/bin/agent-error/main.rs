//! `agent-error explain`: reads a failed response (a `curl -i` capture, or a body with
//! `--status` or `--body`) and prints how agent-error classifies it and what decided.

mod args;
mod curl;
mod explain;

use std::fs::File;
use std::io::{self, IsTerminal, Read, Write};
use std::path::Path;
use std::process::ExitCode;

use agent_error::http::{StatusError, classify_body};
use args::{Command, Input, USAGE};
use explain::StatusFrom;
use http::HeaderMap;

/// The most of the input that is read: a provider's failure is a few KiB, and the library
/// keeps 64 KiB of a body.
const MAX_INPUT: u64 = 1 << 20;

/// Input that cannot be read or is not a response, or a usage error.
const EXIT_ERROR: u8 = 2;

fn main() -> ExitCode {
    let command = match args::parse(std::env::args_os().skip(1)) {
        Ok(command) => command,
        Err(error) => {
            eprintln!("agent-error: {error}\n\n{USAGE}");
            return ExitCode::from(EXIT_ERROR);
        }
    };
    let (input, file) = match command {
        Command::Help => return print(USAGE),
        Command::Version => {
            return print(&format!("agent-error {}\n", env!("CARGO_PKG_VERSION")));
        }
        Command::Explain { input, file } => (input, file),
    };
    let bytes = match read(file.as_deref()) {
        Ok(bytes) => bytes,
        Err(error) => {
            let name = file
                .as_deref()
                .map_or("standard input".into(), |file| file.display().to_string());
            eprintln!("agent-error: cannot read {name}: {error}");
            return ExitCode::from(EXIT_ERROR);
        }
    };
    match explain(input, &bytes) {
        Ok((text, code)) => {
            let exit = print(&text);
            if exit == ExitCode::SUCCESS {
                ExitCode::from(code)
            } else {
                exit
            }
        }
        Err(error) => {
            eprintln!("agent-error: {error}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// The lines to print and the exit status, or why the input is not a response.
fn explain(input: Input, bytes: &[u8]) -> Result<(String, u8), curl::CaptureError> {
    let (e, headers, from) = match input {
        Input::Capture => {
            let response = curl::parse(bytes)?;
            if response.skipped > 0 {
                eprintln!(
                    "agent-error: skipped {} header line(s) that are not `name: value`",
                    response.skipped
                );
            }
            let e = StatusError::from_parts(response.status, &response.headers, response.body);
            (e, response.headers, StatusFrom::Given)
        }
        Input::Status(status) => {
            let e = StatusError::from_parts(status, &HeaderMap::new(), bytes);
            (e, HeaderMap::new(), StatusFrom::Given)
        }
        Input::Body => match classify_body(bytes) {
            Some(e) => (e, HeaderMap::new(), StatusFrom::Body),
            None => return Ok((explain::render_nothing(), 1)),
        },
    };
    Ok((explain::render(&e, &headers, from), 0))
}

/// At most [`MAX_INPUT`] bytes of the file, or of standard input.
fn read(file: Option<&Path>) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    match file {
        Some(file) => File::open(file)?.take(MAX_INPUT).read_to_end(&mut bytes)?,
        None => {
            let stdin = io::stdin();
            if stdin.is_terminal() {
                eprintln!(
                    "agent-error: reading a response from standard input (end it with Ctrl-D)"
                );
            }
            stdin.lock().take(MAX_INPUT).read_to_end(&mut bytes)?
        }
    };
    Ok(bytes)
}

/// Prints to standard output; a closed pipe (`| head`) is no failure worth a panic.
fn print(text: &str) -> ExitCode {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("agent-error: cannot write: {error}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}
