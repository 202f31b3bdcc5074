//! What `explain` prints of a classified response: aligned `key  value` lines, from the
//! error's accessors only. The body is never printed (it may hold secrets).

use std::fmt::Write as _;
use std::time::{Duration, SystemTime};

use agent_error::AgentError;
use agent_error::http::{RetryAfterSource, StatusError, server_delay};
use http::HeaderMap;

/// The width of the key column: the longest key, `request id`, and two spaces.
const KEY_WIDTH: usize = 12;

/// Where the status came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusFrom {
    /// The response's head or `--status`.
    Given,
    /// The body (`--body`), when it names one.
    Body,
}

/// The lines printed for `e`, read from a response with these `headers`.
pub fn render(e: &StatusError, headers: &HeaderMap, from: StatusFrom) -> String {
    let status = match (e.status(), from) {
        (0, _) => "none".to_owned(),
        (status, StatusFrom::Given) => status.to_string(),
        (status, StatusFrom::Body) => format!("{status}, named by the body"),
    };
    let retried = match (e.is_retryable(), e.is_rate_limited()) {
        (false, _) => "no",
        (true, true) => "yes, rate-limited",
        (true, false) => "yes",
    };
    let wait = match (e.retry_after(), e.retry_after_source()) {
        (Some(delay), Some(source)) => {
            format!("{}, from {}", seconds(delay), origin(source, headers))
        }
        (Some(delay), None) => seconds(delay),
        (None, _) if e.is_retryable() => "none given: the retry policy's backoff".to_owned(),
        (None, _) => "none".to_owned(),
    };
    let lines = [
        ("status", status),
        ("code", e.code().to_owned()),
        ("retried", retried.to_owned()),
        ("recovery", e.recovery().to_string()),
        ("wait", wait),
        ("evidence", e.evidence().to_string()),
        ("request id", e.request_id().unwrap_or("none").to_owned()),
    ];
    let mut out = String::new();
    for (key, value) in lines {
        line(&mut out, key, &value);
    }
    out
}

/// What is printed of a body with no status that says nothing this library reads.
pub fn render_nothing() -> String {
    let mut out = String::new();
    line(&mut out, "code", "(nothing this library reads)");
    out
}

fn line(out: &mut String, key: &str, value: &str) {
    let _ = writeln!(out, "{key:KEY_WIDTH$}{value}");
}

/// Where a wait came from, in words.
fn origin(source: RetryAfterSource, headers: &HeaderMap) -> &'static str {
    match source {
        RetryAfterSource::Header => {
            // `retry-after-ms` wins over `Retry-After` when it reads.
            let mut ms = HeaderMap::new();
            if let Some(value) = headers.get("retry-after-ms") {
                ms.insert("retry-after-ms", value.clone());
            }
            match server_delay(&ms, SystemTime::now()) {
                Some(_) => "the retry-after-ms header",
                None => "the Retry-After header",
            }
        }
        RetryAfterSource::BodyField => "a field of the body",
        RetryAfterSource::Message => "the message's text",
        RetryAfterSource::RateLimitReset => "the rate-limit reset header",
        _ => "the response",
    }
}

/// `20s`, `1.5s`, `250ms`.
fn seconds(delay: Duration) -> String {
    if delay < Duration::from_secs(1) {
        return format!("{}ms", delay.as_millis());
    }
    let millis = delay.subsec_millis();
    if millis == 0 {
        return format!("{}s", delay.as_secs());
    }
    let fraction = format!("{millis:03}");
    format!("{}.{}s", delay.as_secs(), fraction.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_durations_short() {
        assert_eq!(seconds(Duration::from_millis(250)), "250ms");
        assert_eq!(seconds(Duration::from_secs(20)), "20s");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5s");
        assert_eq!(seconds(Duration::from_millis(11_054)), "11.054s");
        assert_eq!(seconds(Duration::ZERO), "0ms");
    }

    #[test]
    fn aligns_the_values() {
        let e = StatusError::new(503);
        assert_eq!(
            render(&e, &HeaderMap::new(), StatusFrom::Given),
            "status      503\n\
             code        provider_unavailable\n\
             retried     yes\n\
             recovery    retry\n\
             wait        none given: the retry policy's backoff\n\
             evidence    status 503\n\
             request id  none\n"
        );
    }
}
