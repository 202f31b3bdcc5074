//! `agent-error explain`, run as a user runs it: a capture or a body in, the lines out, and
//! the exit status.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `agent-error` with `args`, `input` on standard input.
fn run(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-error"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().unwrap();
    // The binary may stop reading early (1 MiB), or not read at all (a usage error).
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// Standard output, with the pattern a word family matched (the table's own text, which
/// grows) shown as `(…)`.
fn stdout(output: &Output) -> String {
    let text = std::str::from_utf8(&output.stdout).unwrap();
    text.lines()
        .map(|line| match line.find(" (") {
            Some(at) if line.starts_with("evidence") && line.ends_with(')') => {
                format!("{} (…)\n", &line[..at])
            }
            _ => format!("{line}\n"),
        })
        .collect()
}

fn stderr(output: &Output) -> &str {
    std::str::from_utf8(&output.stderr).unwrap()
}

const OPENAI_QUOTA: &str = "HTTP/2 429 \r\n\
date: Tue, 01 Jul 2025 10:00:00 GMT\r\n\
content-type: application/json; charset=utf-8\r\n\
x-request-id: req_8c2f0e1d9b7a4c3e\r\n\
openai-processing-ms: 12\r\n\
\r\n\
{\n    \"error\": {\n        \"message\": \"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.\",\n        \"type\": \"insufficient_quota\",\n        \"param\": null,\n        \"code\": \"insufficient_quota\"\n    }\n}\n";

#[test]
fn an_openai_spent_quota_from_a_file() {
    let dir = std::env::temp_dir().join(format!("agent-error-explain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("response.txt");
    std::fs::write(&file, OPENAI_QUOTA).unwrap();
    let output = run(&["explain", file.to_str().unwrap()], b"");
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        stdout(&output),
        "status      429\n\
         code        budget_exhausted\n\
         retried     no\n\
         recovery    escalate\n\
         wait        none\n\
         evidence    the name insufficient_quota\n\
         request id  req_8c2f0e1d9b7a4c3e\n"
    );
    assert_eq!(stderr(&output), "");
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn the_last_head_counts_after_100_continue() {
    let capture = "HTTP/1.1 100 Continue\r\n\r\n\
HTTP/2 429\r\n\
retry-after: 20\r\n\
content-type: application/json\r\n\
\r\n\
{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"Number of request tokens has exceeded your per-minute rate limit\"}}";
    let output = run(&["explain"], capture.as_bytes());
    assert_eq!(
        stdout(&output),
        "status      429\n\
         code        rate_limit\n\
         retried     yes, rate-limited\n\
         recovery    retry\n\
         wait        20s, from the Retry-After header\n\
         evidence    the message's words, family short window (…)\n\
         request id  none\n"
    );
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn an_anthropic_credit_balance_with_status() {
    let body = r#"{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."},"request_id":"req_011CbrFTcXhtiMzr3s6EocF7"}"#;
    let output = run(&["explain", "--status", "400"], body.as_bytes());
    assert_eq!(
        stdout(&output),
        "status      400\n\
         code        budget_exhausted\n\
         retried     no\n\
         recovery    escalate\n\
         wait        none\n\
         evidence    the message's words, family money (…)\n\
         request id  none\n"
    );
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn a_stream_error_event_as_a_body() {
    let event = "event: error\n\
data: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    let output = run(&["explain", "--body", "-"], event.as_bytes());
    assert_eq!(
        stdout(&output),
        "status      none\n\
         code        provider_unavailable\n\
         retried     yes\n\
         recovery    retry\n\
         wait        none given: the retry policy's backoff\n\
         evidence    the message's words, family overload (…)\n\
         request id  none\n"
    );
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn a_body_that_says_nothing() {
    let output = run(&["explain", "--body"], b"<html>bad gateway</html>");
    assert_eq!(
        stdout(&output),
        "code        (nothing this library reads)\n"
    );
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn the_body_is_never_printed() {
    let capture = "HTTP/1.1 401 Unauthorized\n\n{\"error\":{\"message\":\"Incorrect API key provided: sk-proj-SECRET123\",\"code\":\"invalid_api_key\"}}";
    let output = run(&["explain"], capture.as_bytes());
    assert!(stdout(&output).contains("code        auth_error\n"));
    assert!(!stdout(&output).contains("SECRET"));
    assert!(!stderr(&output).contains("SECRET"));
}

#[test]
fn garbage_is_an_error_in_one_line() {
    let mut inputs: Vec<Vec<u8>> = [
        &b""[..],
        b"\r\n\r\n",
        b"garbage",
        b"HTTP/1.1",
        b"HTTP/1.1 4x9 Nope\r\n\r\n{}",
        b"HTTP/\xff 429",
        b"\x00\x01\x02HTTP/1.1 429",
        b"{\"error\":{\"type\":\"insufficient_quota\"}}",
    ]
    .iter()
    .map(|input| input.to_vec())
    .collect();
    // Pseudo-random bytes, the same each run.
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    for len in [1, 7, 64, 1000, 70_000] {
        let bytes = (0..len)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed >> 32) as u8
            })
            .collect();
        inputs.push(bytes);
    }
    for input in inputs {
        let output = run(&["explain"], &input);
        let text = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{text}");
        assert_eq!(stdout(&output), "");
        assert!(text.starts_with("agent-error: "), "{text}");
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(!text.contains("panicked"), "{text}");
    }
}

#[test]
fn malformed_header_lines_are_skipped_and_said() {
    let capture =
        b"HTTP/1.1 503 Service Unavailable\nno colon here\nbad\x07name: 1\nretry-after: 3\n\n";
    let output = run(&["explain"], capture);
    assert!(stdout(&output).contains("wait        3s, from the Retry-After header\n"));
    assert_eq!(
        stderr(&output),
        "agent-error: skipped 2 header line(s) that are not `name: value`\n"
    );
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn input_past_one_mebibyte_is_not_read() {
    let mut capture = b"HTTP/1.1 500 Internal Server Error\r\n\r\n".to_vec();
    capture.resize(3 << 20, b'x');
    let output = run(&["explain"], &capture);
    assert!(stdout(&output).starts_with("status      500\ncode        provider_unavailable\n"));
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn usage() {
    let help = run(&["--help"], b"");
    assert!(stdout(&help).contains("agent-error explain --status CODE [FILE]"));
    assert!(stdout(&help).contains("Exit status:"));
    assert_eq!(help.status.code(), Some(0));

    for args in [
        &["explain", "--frob"][..],
        &[],
        &["explain", "--status", "abc"],
    ] {
        let output = run(args, b"");
        assert_eq!(stdout(&output), "");
        assert!(stderr(&output).starts_with("agent-error: "));
        assert!(stderr(&output).contains("Usage:"));
        assert_eq!(output.status.code(), Some(2), "{args:?}");
    }
}
