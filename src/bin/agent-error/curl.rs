//! A `curl -i` capture read into the last response's status, headers and body.
//! The heads before it (`100 Continue`, a proxy's `200 Connection established`) are skipped.

use std::fmt;

use http::{HeaderMap, HeaderName, HeaderValue};

/// The most header lines of one head that are kept: a failed response sends a few dozen, and
/// a `HeaderMap` panics past 32,768.
const MAX_HEADERS: usize = 1024;

/// The last response of a capture.
#[derive(Debug)]
pub struct Response<'a> {
    /// Its status.
    pub status: u16,
    /// Its header lines that could be read.
    pub headers: HeaderMap,
    /// Its header lines that could not (no `:`, an invalid name or value, a folded line,
    /// one past [`MAX_HEADERS`]), skipped.
    pub skipped: usize,
    /// What follows its head.
    pub body: &'a [u8],
}

/// Why a capture has no response to read.
#[derive(Debug, PartialEq, Eq)]
pub enum CaptureError {
    /// Nothing but blank lines.
    Empty,
    /// The first line is not a response head.
    NoHead,
    /// The first line is a response head without a status.
    NoStatus,
}

impl fmt::Display for CaptureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CaptureError::Empty => "the input is empty",
            CaptureError::NoHead => {
                "the input does not begin with a response head (`HTTP/1.1 429 Too Many Requests`): \
                 for a body alone, pass --status CODE or --body"
            }
            CaptureError::NoStatus => {
                "the first line has no three-digit status after `HTTP/<version>` (`HTTP/2 429`)"
            }
        })
    }
}

/// Reads a capture: one or more heads (a status line, header lines, a blank line, with CRLF
/// or LF), the body after the last. Any bytes are accepted; it never panics.
pub fn parse(input: &[u8]) -> Result<Response<'_>, CaptureError> {
    let mut rest = skip_blank_lines(input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input));
    if rest.is_empty() {
        return Err(CaptureError::Empty);
    }
    let (first, _) = split_line(rest);
    if !first.starts_with(b"HTTP/") {
        return Err(CaptureError::NoHead);
    }
    loop {
        let (line, after_status) = split_line(rest);
        let status = status_of(line).ok_or(CaptureError::NoStatus)?;
        let (headers, skipped, body) = read_headers(after_status);
        // Another head after this one: this one was interim.
        if status_of(split_line(body).0).is_some() {
            rest = body;
            continue;
        }
        return Ok(Response {
            status,
            headers,
            skipped,
            body,
        });
    }
}

/// The status of a status line, `HTTP/<version> <three digits>[ <reason>]`.
fn status_of(line: &[u8]) -> Option<u16> {
    let after = line.strip_prefix(b"HTTP/")?;
    let (version, after) = after.split_at(after.iter().position(|&b| b == b' ')?);
    if version.is_empty() || !version.iter().all(|b| b.is_ascii_digit() || *b == b'.') {
        return None;
    }
    let after = after.trim_ascii_start();
    let (digits, reason) = after.split_at(after.len().min(3));
    if digits.len() != 3 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if !(reason.is_empty() || reason[0] == b' ') {
        return None;
    }
    let status = digits
        .iter()
        .fold(0, |n, digit| n * 10 + u16::from(digit - b'0'));
    (100..=999).contains(&status).then_some(status)
}

/// The header lines up to the first blank line (or the end), how many were skipped, and
/// what follows.
fn read_headers(mut rest: &[u8]) -> (HeaderMap, usize, &[u8]) {
    let mut headers = HeaderMap::new();
    let mut skipped = 0;
    while !rest.is_empty() {
        let (line, after) = split_line(rest);
        rest = after;
        if line.is_empty() {
            break;
        }
        match header(line) {
            Some((name, value)) if headers.len() < MAX_HEADERS => {
                headers.append(name, value);
            }
            _ => skipped += 1,
        }
    }
    (headers, skipped, rest)
}

/// A header line, `name: value`; `None` for a folded line or an invalid name or value.
fn header(line: &[u8]) -> Option<(HeaderName, HeaderValue)> {
    let colon = line.iter().position(|&b| b == b':')?;
    let (name, value) = (&line[..colon], &line[colon + 1..]);
    let name = HeaderName::from_bytes(name).ok()?;
    let value = HeaderValue::from_bytes(value.trim_ascii()).ok()?;
    Some((name, value))
}

/// The first line, without its CRLF or LF, and what follows it.
fn split_line(input: &[u8]) -> (&[u8], &[u8]) {
    let (line, rest) = match input.iter().position(|&b| b == b'\n') {
        Some(end) => (&input[..end], &input[end + 1..]),
        None => (input, &input[input.len()..]),
    };
    (line.strip_suffix(b"\r").unwrap_or(line), rest)
}

fn skip_blank_lines(mut input: &[u8]) -> &[u8] {
    loop {
        let (line, rest) = split_line(input);
        if input.is_empty() || !line.trim_ascii().is_empty() {
            return input;
        }
        input = rest;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn reads_the_status_headers_and_body() {
        let capture = b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 20\r\nx-request-id:req_1\r\n\r\n{\"a\":1}\r\n";
        let r = parse(capture).unwrap();
        assert_eq!(r.status, 429);
        assert_eq!(r.headers["retry-after"], "20");
        assert_eq!(r.headers["x-request-id"], "req_1");
        assert_eq!((r.skipped, r.body), (0, &b"{\"a\":1}\r\n"[..]));
    }

    #[test]
    fn takes_the_last_head() {
        let capture = "HTTP/1.1 100 Continue\n\nHTTP/1.1 200 Connection established\n\nHTTP/2 503\nretry-after: 1\n\nHTTP/1.1 is in the body\n";
        let r = parse(capture.as_bytes()).unwrap();
        assert_eq!(r.status, 503);
        assert_eq!(r.headers.len(), 1);
        assert_eq!(r.body, b"HTTP/1.1 is in the body\n");
    }

    #[test]
    fn a_head_without_a_blank_line_has_no_body() {
        let r = parse(b"\xEF\xBB\xBF\r\nHTTP/2 404\r\nserver: x").unwrap();
        assert_eq!((r.status, r.headers.len(), r.body), (404, 1, &b""[..]));
    }

    #[test]
    fn skips_header_lines_it_cannot_read() {
        let capture = b"HTTP/1.1 500 Oops\nno colon\nbad name: 1\n folded\n: empty name\nx-ok: \xff\nbell: a\x07b\nx-fine: yes\n\nbody";
        let r = parse(capture).unwrap();
        assert_eq!(r.skipped, 5);
        assert_eq!(r.headers.len(), 2);
        assert_eq!(r.headers["x-fine"], "yes");
        assert_eq!(r.body, b"body");
    }

    #[test]
    fn keeps_at_most_max_headers() {
        let mut capture = b"HTTP/1.1 429\n".to_vec();
        for _ in 0..40_000 {
            capture.extend_from_slice(b"a: 1\n");
        }
        let r = parse(&capture).unwrap();
        assert_eq!(
            (r.headers.len(), r.skipped),
            (MAX_HEADERS, 40_000 - MAX_HEADERS)
        );
    }

    #[test]
    fn says_why_there_is_no_response() {
        assert_eq!(parse(b"").unwrap_err(), CaptureError::Empty);
        assert_eq!(parse(b" \r\n\n\t\n").unwrap_err(), CaptureError::Empty);
        assert_eq!(parse(b"{\"error\":{}}").unwrap_err(), CaptureError::NoHead);
        for line in [
            "HTTP/1.1",
            "HTTP/1.1 ",
            "HTTP/ 429",
            "HTTP/x 429",
            "HTTP/1.1 42",
            "HTTP/1.1 4290",
            "HTTP/1.1 42x",
            "HTTP/1.1 099 Low",
            "HTTP/1.1 429Too",
        ] {
            assert_eq!(
                parse(line.as_bytes()).unwrap_err(),
                CaptureError::NoStatus,
                "{line}"
            );
        }
    }

    #[test]
    fn reads_status_lines() {
        assert_eq!(status_of(b"HTTP/2 429"), Some(429));
        assert_eq!(status_of(b"HTTP/1.0 503 Service Unavailable"), Some(503));
        assert_eq!(status_of(b"HTTP/1.1  999 "), Some(999));
        assert_eq!(status_of(b"http/1.1 429"), None);
    }

    fn header_line() -> impl Strategy<Value = String> {
        ("[a-z][a-z0-9-]{0,20}", "[ -~]{0,40}")
            .prop_map(|(name, value)| format!("{name}: {}", value.trim()))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn any_bytes_are_read_without_panicking(input in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = parse(&input);
            let mut head = b"HTTP/1.1 429\r\n".to_vec();
            head.extend_from_slice(&input);
            prop_assert!(parse(&head).is_ok());
        }

        #[test]
        fn a_capture_reads_back(
            interim in proptest::collection::vec(100u16..200, 0..3),
            status in 100u16..1000,
            headers in proptest::collection::vec(header_line(), 0..8),
            body in "[^H][ -~\n]{0,80}|",
            crlf in any::<bool>(),
        ) {
            let eol = if crlf { "\r\n" } else { "\n" };
            let mut capture = String::new();
            for status in interim {
                capture.push_str(&format!("HTTP/1.1 {status} Interim{eol}{eol}"));
            }
            capture.push_str(&format!("HTTP/2 {status}{eol}"));
            for line in &headers {
                capture.push_str(line);
                capture.push_str(eol);
            }
            capture.push_str(eol);
            capture.push_str(&body);
            let r = parse(capture.as_bytes()).unwrap();
            prop_assert_eq!(r.status, status);
            prop_assert_eq!(r.headers.len(), headers.len());
            prop_assert_eq!(r.skipped, 0);
            prop_assert_eq!(r.body, body.as_bytes());
        }
    }
}
