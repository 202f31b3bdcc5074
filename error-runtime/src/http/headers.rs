//! Server hints: what a response's headers say about retrying it and when (`Retry-After`,
//! `retry-after-ms`, `x-should-retry`, OpenAI's `x-ratelimit-*`), the failure's name (AWS's
//! `x-amzn-ErrorType`) and the provider's request id. Values that are not text are ignored.

use super::providers::RATE_LIMITS;
use crate::core::summary::fold_id;
use std::time::{Duration, SystemTime};

use super::duration;

/// Reads a `Retry-After` value: delay-seconds (`"120"`, and the decimal seconds some servers
/// send, `"1.5"`) or an HTTP-date in any of the three forms of RFC 9110 (`"Sun, 06 Nov 1994
/// 08:49:37 GMT"`, `"Sunday, 06-Nov-94 08:49:37 GMT"`, `"Sun Nov  6 08:49:37 1994"`), as the
/// delay from `now`. The retrier and the pacer read `Retry-After` with this one parser.
///
/// `None` for anything invalid, negative, or a date in the past. Delay-seconds beyond what a
/// `Duration` holds saturate at `Duration::MAX`, so that an absurd delay ends the retries
/// (the retrier's `max_wait`) instead of vanishing into an immediate retry. Never panics.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use agent_error::http::parse_retry_after;
///
/// let now = SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_717); // 1994-11-06 08:48:37 UTC
/// assert_eq!(parse_retry_after("120", now), Some(Duration::from_secs(120)));
/// assert_eq!(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now), Some(Duration::from_secs(60)));
/// assert_eq!(parse_retry_after("1.5", now), Some(Duration::from_millis(1_500)));
/// assert_eq!(parse_retry_after("-1", now), None);
/// assert_eq!(parse_retry_after("soon", now), None);
/// ```
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    match retry_after_of(value.trim())? {
        RetryAfter::Delay(delay) => Some(delay),
        RetryAfter::Date(at) => at.duration_since(now).ok(),
    }
}

/// What a `Retry-After` value says, before a date is measured from the clock.
pub(super) enum RetryAfter {
    /// Delay-seconds, whole or decimal (saturating).
    Delay(Duration),
    /// An HTTP-date.
    Date(SystemTime),
}

/// [`parse_retry_after`]'s reading of a trimmed value, for the readers that treat a date in
/// the past otherwise (the pacer reads it as no wait left).
pub(super) fn retry_after_of(value: &str) -> Option<RetryAfter> {
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        let seconds = value.parse::<u64>();
        return Some(RetryAfter::Delay(
            seconds.map_or(Duration::MAX, Duration::from_secs),
        ));
    }
    if let Some(seconds) = duration::decimal(value, duration::SECOND) {
        return Some(RetryAfter::Delay(seconds));
    }
    httpdate::parse_http_date(value).ok().map(RetryAfter::Date)
}

/// Reads an OpenAI `x-ratelimit-reset-requests` / `x-ratelimit-reset-tokens` value: a Go
/// duration, decimal numbers each with a unit (`h`, `m`, `s`, `ms`, `us` or `µs`, `ns`),
/// such as `"6m0s"`, `"1s"`, `"20ms"`, `"1h2m3.5s"`, or a bare `"0"`.
///
/// `None` for anything else: a sign, a missing or unknown unit, a value too large for a
/// [`Duration`]. Never panics.
///
/// ```
/// use std::time::Duration;
/// use agent_error::http::parse_rate_limit_reset;
///
/// assert_eq!(parse_rate_limit_reset("6m0s"), Some(Duration::from_secs(360)));
/// assert_eq!(parse_rate_limit_reset("20ms"), Some(Duration::from_millis(20)));
/// assert_eq!(parse_rate_limit_reset("1h2m3.5s"), Some(Duration::from_millis(3_723_500)));
/// assert_eq!(parse_rate_limit_reset("250us"), Some(Duration::from_micros(250)));
/// assert_eq!(parse_rate_limit_reset("-1s"), None);
/// assert_eq!(parse_rate_limit_reset("5"), None);
/// ```
pub fn parse_rate_limit_reset(value: &str) -> Option<Duration> {
    duration::go(value)
}

/// The delay a response's headers ask for, whatever its status: `retry-after-ms`
/// (milliseconds, integer or decimal), else `Retry-After` (delay-seconds or an HTTP-date,
/// against `now`; see [`parse_retry_after`]). A streaming response's delay is read so, for
/// the failures after its `200 OK`.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use agent_error::http::server_delay;
/// use http::{HeaderMap, HeaderValue};
///
/// let mut headers = HeaderMap::new();
/// headers.insert("retry-after", HeaderValue::from_static("3"));
/// assert_eq!(server_delay(&headers, SystemTime::now()), Some(Duration::from_secs(3)));
/// headers.insert("retry-after-ms", HeaderValue::from_static("1500"));
/// assert_eq!(server_delay(&headers, SystemTime::now()), Some(Duration::from_millis(1500)));
/// ```
pub fn server_delay(headers: &::http::HeaderMap, now: SystemTime) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    text("retry-after-ms")
        .and_then(|value| duration::decimal(value.trim(), duration::MILLISECOND))
        .or_else(|| text("retry-after").and_then(|value| parse_retry_after(value, now)))
}

/// What the headers of one response say.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct ServerHints {
    /// The delay `retry-after-ms` or `Retry-After` asks for.
    pub(super) retry_after: Option<Duration>,
    /// On a 429 the server did not give a verdict on, the reset of OpenAI's spent limit.
    pub(super) reset: Option<Duration>,
    /// `x-should-retry`: the server's own verdict, over the status's.
    pub(super) should_retry: Option<bool>,
    /// The failure's name in `x-amzn-ErrorType` (AWS), before its `:`.
    pub(super) error_name: Option<Box<str>>,
    /// The provider's request id, folded and cut (`core::summary::fold_id`).
    pub(super) request_id: Option<Box<str>>,
}

/// The headers that carry the provider's request id, most specific first: `cf-ray` (which
/// names the CDN's hop, not the provider's request) only when none of the others is there.
const REQUEST_ID_HEADERS: [&str; 4] = ["x-request-id", "request-id", "x-amzn-requestid", "cf-ray"];

impl ServerHints {
    /// Reads the hints of a response with this status; `now` dates `Retry-After`.
    ///
    /// `retry-after-ms` wins over `Retry-After` (it is more precise). On a 429 that has no
    /// `x-should-retry`, OpenAI's reset headers give a delay, used when nothing else does.
    pub(super) fn read(headers: &::http::HeaderMap, status: u16, now: SystemTime) -> Self {
        let text = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
        let should_retry = text("x-should-retry").and_then(parse_bool);
        let reset = (status == 429 && should_retry.is_none())
            .then(|| rate_limit_reset(text))
            .flatten();
        ServerHints {
            retry_after: server_delay(headers, now),
            reset,
            should_retry,
            error_name: text("x-amzn-errortype")
                .and_then(|name| name.split(':').next())
                .and_then(fold_id)
                .map(Into::into),
            request_id: REQUEST_ID_HEADERS
                .iter()
                .find_map(|name| text(name).and_then(fold_id))
                .map(Into::into),
        }
    }
}

fn parse_bool(value: &str) -> Option<bool> {
    let value = value.trim();
    if value.eq_ignore_ascii_case("true") {
        Some(true)
    } else if value.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

/// The wait until a request can succeed: the reset of the limit that is spent (the later
/// one when both are), or the sooner reset when the headers do not say which is spent.
fn rate_limit_reset<'h>(text: impl Fn(&str) -> Option<&'h str>) -> Option<Duration> {
    let limits = RATE_LIMITS.map(|(remaining, reset)| {
        let spent = text(remaining).is_some_and(|left| left.trim().parse::<u64>() == Ok(0));
        (spent, text(reset).and_then(parse_rate_limit_reset))
    });
    let spent = limits
        .iter()
        .filter(|(spent, _)| *spent)
        .filter_map(|(_, reset)| *reset)
        .max();
    spent.or_else(|| limits.iter().filter_map(|(_, reset)| *reset).min())
}
