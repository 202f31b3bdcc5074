//! Rate limits as a response's headers state them: what each limit allows, what remains and
//! when it refills, read from every provider's fields into one [`RateLimits`].
//!
//! The users' documentation is on [`RateLimits`]; the module is private, its types
//! re-exported from `http`.

use std::time::{Duration, SystemTime};

use ::http::HeaderMap;

use super::duration;
use super::providers::LIMIT_FIELDS;
use super::timestamp;

mod ietf;
mod structured;
#[cfg(test)]
mod tests;

/// The furthest reset or `Retry-After` obeyed; a daily limit resets within a day.
const HORIZON: Duration = Duration::from_secs(25 * 60 * 60);

/// The values read of one field, over all its lines.
const MAX_VALUES: usize = 64;

/// A Unix time above this many seconds is a time, not a delay (about 31 years).
const EPOCH_SECONDS: u64 = 1_000_000_000;

/// A Unix time above this is in milliseconds (10¹² seconds is about the year 33,658).
const EPOCH_MILLISECONDS: u64 = 1_000_000_000_000;

use crate::store::Dimension;

/// What the headers say about one limit.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use agent_error::{http::RateLimits, recover::Dimension};
/// use http::{HeaderMap, HeaderValue};
///
/// let mut headers = HeaderMap::new();
/// headers.insert("x-ratelimit-limit-tokens", HeaderValue::from_static("150000"));
/// headers.insert("x-ratelimit-remaining-tokens", HeaderValue::from_static("149984"));
/// headers.insert("x-ratelimit-reset-tokens", HeaderValue::from_static("6ms"));
///
/// let tokens = RateLimits::read(&headers, SystemTime::now()).get(Dimension::Tokens);
/// let tokens = tokens.expect("a reading of tokens");
/// assert_eq!((tokens.limit, tokens.remaining), (Some(150_000), 149_984));
/// assert_eq!(tokens.reset, Some(Duration::from_millis(6)));
/// assert!(!tokens.window); // OpenAI's limits refill continuously
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LimitReading {
    /// The limit's capacity; `None` when the server sends only what remains (Azure).
    pub limit: Option<u64>,
    /// What remains, never above `limit`.
    pub remaining: u64,
    /// From now: for a bucket (`window == false`) the time until the limit is full again;
    /// for a window (`window == true`) the time until the window resets. `None` when the
    /// headers do not say (or say `-1`).
    pub reset: Option<Duration>,
    /// `true` for the IETF fields, the older `RateLimit-*` and the unsuffixed
    /// `X-RateLimit-*` (what remains is all there is until the reset, then the quota is whole
    /// again); `false` for OpenAI's and Anthropic's (a token bucket that refills continuously,
    /// full again after `reset`).
    pub window: bool,
    /// The window's length, when the server says it (the IETF policy's `w`).
    pub period: Option<Duration>,
}

impl LimitReading {
    fn new(
        limit: Option<u64>,
        remaining: u64,
        reset: Option<Duration>,
        window: bool,
        period: Option<Duration>,
    ) -> Self {
        LimitReading {
            limit,
            remaining: limit.map_or(remaining, |limit| remaining.min(limit)),
            reset,
            window,
            period,
        }
    }

    /// Whether this reading leaves less room than `other`: less remaining, or as much and a
    /// later reset.
    fn tighter_than(&self, other: &LimitReading) -> bool {
        self.remaining < other.remaining
            || (self.remaining == other.remaining && self.reset > other.reset)
    }
}

/// What one response's headers say about the provider's limits: a [`LimitReading`] for each
/// [`Dimension`] they mention, and the delay they ask for.
///
/// A response, successful or not, often says how close the client is to a provider's limits.
/// [`RateLimits::read`] reads these header families, each into the [`Dimension`] it counts:
///
/// | family | fields | reset | kind |
/// |---|---|---|---|
/// | OpenAI and the servers that speak its API (Groq, vLLM, …) | `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` | a Go duration (`6m0s`, `20ms`, `59.94s`) or seconds (`12`, `0.5`) | bucket |
/// | Azure OpenAI | `x-ratelimit-remaining-{requests,tokens}` only | none | bucket |
/// | Anthropic | `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}` | an RFC 3339 time (`2024-04-19T18:30:00Z`) | bucket |
/// | IETF `RateLimit` and `RateLimit-Policy` | `RateLimit: "default";r=50;t=30` with `RateLimit-Policy: "default";q=100;w=60` | seconds (`t`) | window |
/// | IETF, older drafts | `RateLimit: limit=100, remaining=50, reset=30`, or `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` | seconds | window |
/// | OpenRouter, GitHub-style APIs | `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` | seconds, or a Unix time in seconds (above 10⁹) or milliseconds (above 10¹²) | window |
///
/// A *bucket* (OpenAI, Anthropic) refills continuously: its reset is the time until it is
/// full again, and requests may succeed well before. A *window* grants its quota anew when
/// it resets: what remains is all there is until then. [`LimitReading::window`] says which.
///
/// Groq sends OpenAI's names with a limit of requests per day. Azure OpenAI sends only what
/// remains, and `-1` where it does not know. An RFC 3339 or Unix time is read against the
/// server's clock, the response's `Date`, when it has one (else against the local clock), so
/// that a skewed local clock does not shift the reset. The IETF fields pair each `RateLimit`
/// item with the `RateLimit-Policy` of the same name, which gives its quota (`q`), its
/// window (`w`, seconds) and its unit (`qu`: `"requests"`, the default, or `"tokens"`; a
/// limit of another unit, such as `"content-bytes"`, is left out). An item whose partition
/// key (`pk`) differs from its policy's is left out; an item without a policy counts
/// requests, its limit unknown. An item whose `t` is malformed (negative, not an integer)
/// is left out whole, since what remains means nothing without its reset; an item with no
/// `t` (or `t=-1`) has no reset.
///
/// The headers come from a remote peer, and are read defensively:
///
/// - A field may come in several lines and list several values: all are read, and of all
///   the readings of one dimension, from one family or several, the most restrictive is
///   kept (the one with less remaining; on a tie, the later reset). Of one family's
///   repeated fields, the smallest limit and remaining and the latest reset are kept.
/// - What remains is never above the limit. `-1` means unknown: that field is absent.
/// - A field that is not obeyed (malformed, negative, a decimal where a count is expected,
///   too large, not text, a reset or a `Retry-After` more than 25 hours ahead) is absent and
///   sets [`ignored`](RateLimits::ignored), so that the caller can warn once.
/// - A limit is read only when what remains is: a capacity alone says nothing about what is
///   left. At most 64 values of each field are read; reading never panics.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use agent_error::{http::RateLimits, recover::Dimension};
/// use http::{HeaderMap, HeaderValue};
///
/// let mut headers = HeaderMap::new();
/// headers.insert("ratelimit-policy", HeaderValue::from_static(r#""minute";q=100;w=60, "day";q=1000;w=86400"#));
/// headers.insert("ratelimit", HeaderValue::from_static(r#""minute";r=50;t=30, "day";r=20;t=3600"#));
///
/// let limits = RateLimits::read(&headers, SystemTime::now());
/// let requests = limits.get(Dimension::Requests).expect("a reading of requests");
/// // The daily limit is the tighter one.
/// assert_eq!((requests.limit, requests.remaining), (Some(1000), 20));
/// assert_eq!(requests.reset, Some(Duration::from_secs(3600)));
/// assert_eq!(requests.period, Some(Duration::from_secs(86_400)));
/// assert!(requests.window);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateLimits {
    /// `retry-after-ms` (milliseconds, integer or decimal) when present and obeyed, else
    /// `Retry-After` (seconds, decimals accepted, or an HTTP-date; a date in the past is
    /// zero).
    pub retry_after: Option<Duration>,
    /// Whether some field was present but not obeyed (malformed, negative, not a number,
    /// not text, too large, a reset more than 25 hours ahead): the caller may warn once.
    pub ignored: bool,
    readings: [Option<LimitReading>; 4],
}

impl RateLimits {
    /// Reads `headers`; `now` is the local clock, used for HTTP-dates in `Retry-After` and,
    /// when the response has no usable `Date` header, for absolute times.
    ///
    /// Never panics, whatever the headers hold.
    ///
    /// ```
    /// use std::time::{Duration, SystemTime};
    /// use agent_error::{http::RateLimits, recover::Dimension};
    /// use http::{HeaderMap, HeaderValue};
    ///
    /// // Anthropic's reset is a time, read against the server's `Date`.
    /// let mut headers = HeaderMap::new();
    /// headers.insert("date", HeaderValue::from_static("Fri, 19 Apr 2024 18:29:00 GMT"));
    /// headers.insert("anthropic-ratelimit-requests-limit", HeaderValue::from_static("50"));
    /// headers.insert("anthropic-ratelimit-requests-remaining", HeaderValue::from_static("0"));
    /// headers.insert("anthropic-ratelimit-requests-reset", HeaderValue::from_static("2024-04-19T18:30:00Z"));
    /// headers.insert("retry-after", HeaderValue::from_static("60"));
    ///
    /// let limits = RateLimits::read(&headers, SystemTime::now());
    /// let requests = limits.get(Dimension::Requests).expect("a reading of requests");
    /// assert_eq!((requests.limit, requests.remaining), (Some(50), 0));
    /// assert_eq!(requests.reset, Some(Duration::from_secs(60)));
    /// assert_eq!(limits.retry_after, Some(Duration::from_secs(60)));
    /// assert!(limits.get(Dimension::Tokens).is_none());
    /// assert!(!limits.ignored);
    ///
    /// // A value that cannot be obeyed is left out, and said so.
    /// headers.insert("anthropic-ratelimit-tokens-remaining", HeaderValue::from_static("lots"));
    /// assert!(RateLimits::read(&headers, SystemTime::now()).ignored);
    /// ```
    pub fn read(headers: &HeaderMap, now: SystemTime) -> RateLimits {
        let mut reader = Reader {
            headers,
            now,
            server: server_clock(headers).unwrap_or(now),
            limits: RateLimits::default(),
        };
        for fields in &LIMIT_FIELDS {
            reader.limit_fields(fields);
        }
        ietf::read(&mut reader);
        reader.retry_after();
        reader.limits
    }

    /// The reading of `dimension`, if the headers gave one.
    ///
    /// ```
    /// use std::time::SystemTime;
    /// use agent_error::{http::RateLimits, recover::Dimension};
    /// use http::{HeaderMap, HeaderValue};
    ///
    /// let mut headers = HeaderMap::new();
    /// headers.insert("x-ratelimit-remaining-requests", HeaderValue::from_static("99"));
    /// let limits = RateLimits::read(&headers, SystemTime::now());
    /// assert_eq!(limits.get(Dimension::Requests).map(|r| (r.limit, r.remaining)), Some((None, 99)));
    /// assert_eq!(limits.get(Dimension::Tokens), None);
    /// ```
    pub fn get(&self, dimension: Dimension) -> Option<LimitReading> {
        self.readings.get(dimension.index()).copied().flatten()
    }

    /// Whether the headers gave no limit and no delay.
    ///
    /// ```
    /// use std::time::SystemTime;
    /// use agent_error::http::RateLimits;
    /// use http::{HeaderMap, HeaderValue};
    ///
    /// let mut headers = HeaderMap::new();
    /// assert!(RateLimits::read(&headers, SystemTime::now()).is_empty());
    /// headers.insert("retry-after", HeaderValue::from_static("2"));
    /// assert!(!RateLimits::read(&headers, SystemTime::now()).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.retry_after.is_none() && self.readings.iter().all(Option::is_none)
    }

    /// Each dimension read, with its reading, in the order of [`Dimension::ALL`].
    ///
    /// ```
    /// use std::time::SystemTime;
    /// use agent_error::{http::RateLimits, recover::Dimension};
    /// use http::{HeaderMap, HeaderValue};
    ///
    /// let mut headers = HeaderMap::new();
    /// headers.insert("anthropic-ratelimit-output-tokens-remaining", HeaderValue::from_static("8000"));
    /// headers.insert("anthropic-ratelimit-requests-remaining", HeaderValue::from_static("49"));
    /// let limits = RateLimits::read(&headers, SystemTime::now());
    /// let read: Vec<(&str, u64)> = limits.iter().map(|(d, r)| (d.as_str(), r.remaining)).collect();
    /// assert_eq!(read, [("requests", 49), ("output_tokens", 8000)]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (Dimension, LimitReading)> + '_ {
        Dimension::ALL
            .into_iter()
            .filter_map(|dimension| Some((dimension, self.get(dimension)?)))
    }
}

/// The fields of one limit that names its dimension: its capacity, what remains and its
/// reset, each a comma-separated list of values.
pub(super) struct LimitFields {
    pub(super) dimension: Dimension,
    pub(super) limit: &'static str,
    pub(super) remaining: &'static str,
    pub(super) reset: &'static str,
    pub(super) reset_form: ResetForm,
    /// Whether the limit is a window ([`LimitReading::window`]).
    pub(super) window: bool,
}

/// How a reset is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ResetForm {
    /// A Go duration (`6m0s`) or decimal seconds (`0.5`).
    GoDuration,
    /// An RFC 3339 time.
    Rfc3339,
    /// Seconds, or above 10⁹ a Unix time in seconds, above 10¹² in milliseconds.
    EpochOrDelta,
}

/// One value as read: obeyed, unknown (`-1`), or not obeyed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value<T> {
    Known(T),
    Unknown,
    Refused,
}

impl<T> Value<T> {
    fn and_then<U>(self, next: impl FnOnce(T) -> Value<U>) -> Value<U> {
        match self {
            Value::Known(value) => next(value),
            Value::Unknown => Value::Unknown,
            Value::Refused => Value::Refused,
        }
    }
}

/// A reading in progress: the headers, the clocks, and what has been read so far.
struct Reader<'h> {
    headers: &'h HeaderMap,
    /// The local clock.
    now: SystemTime,
    /// The server's clock: the response's `Date`, else `now`.
    server: SystemTime,
    limits: RateLimits,
}

impl<'h> Reader<'h> {
    /// Keeps `reading` for `dimension` if it is tighter than the one kept so far.
    fn offer(&mut self, dimension: Dimension, reading: LimitReading) {
        let Some(slot) = self.limits.readings.get_mut(dimension.index()) else {
            return;
        };
        if slot.is_none_or(|kept| reading.tighter_than(&kept)) {
            *slot = Some(reading);
        }
    }

    /// Notes a field that was present but not obeyed.
    fn refuse(&mut self) {
        self.limits.ignored = true;
    }

    /// Reads every value of `name` (each of its lines, and with `list` each comma-separated
    /// element of a line) and folds those obeyed with `keep`.
    fn fold<T>(
        &mut self,
        name: &str,
        list: bool,
        read: impl Fn(&str) -> Value<T>,
        keep: fn(T, T) -> T,
    ) -> Option<T> {
        let mut kept = None;
        let mut count = 0;
        for line in self.headers.get_all(name) {
            let Ok(text) = line.to_str() else {
                self.refuse();
                continue;
            };
            for value in text.split(|c| list && c == ',') {
                if count == MAX_VALUES {
                    self.refuse();
                    return kept;
                }
                count += 1;
                match read(value.trim()) {
                    Value::Known(value) => {
                        kept = Some(match kept {
                            Some(before) => keep(before, value),
                            None => value,
                        });
                    }
                    Value::Unknown => {}
                    Value::Refused => self.refuse(),
                }
            }
        }
        kept
    }

    /// One limit of [`LIMIT_FIELDS`].
    fn limit_fields(&mut self, fields: &LimitFields) {
        let limit = self.fold(fields.limit, true, count, u64::min);
        let remaining = self.fold(fields.remaining, true, count, u64::min);
        let server = self.server;
        let form = fields.reset_form;
        let reset = self.fold(
            fields.reset,
            true,
            |text| reset(form, text, server),
            Duration::max,
        );
        if let Some(remaining) = remaining {
            let reading = LimitReading::new(limit, remaining, reset, fields.window, None);
            self.offer(fields.dimension, reading);
        }
    }

    /// `retry-after-ms`, else `Retry-After`, the longest of their lines.
    fn retry_after(&mut self) {
        let milliseconds = self.fold("retry-after-ms", false, delay_ms, Duration::max);
        let now = self.now;
        self.limits.retry_after = milliseconds.or_else(|| {
            self.fold(
                "retry-after",
                false,
                |text| retry_after(text, now),
                Duration::max,
            )
        });
    }
}

/// The response's `Date`, the server's clock.
fn server_clock(headers: &HeaderMap) -> Option<SystemTime> {
    let date = headers.get(::http::header::DATE)?.to_str().ok()?;
    httpdate::parse_http_date(date).ok()
}

/// A count: digits that fit a `u64`, or `-1` for unknown.
fn count(text: &str) -> Value<u64> {
    if text == "-1" {
        return Value::Unknown;
    }
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Value::Refused;
    }
    text.parse().map_or(Value::Refused, Value::Known)
}

/// A delay obeyed only up to [`HORIZON`].
fn ahead(delay: Option<Duration>) -> Value<Duration> {
    match delay {
        Some(delay) if delay <= HORIZON => Value::Known(delay),
        _ => Value::Refused,
    }
}

/// The time from `clock` until `at`; zero when `at` is past.
fn until(at: Option<SystemTime>, clock: SystemTime) -> Option<Duration> {
    Some(at?.duration_since(clock).unwrap_or(Duration::ZERO))
}

/// A reset written in `form`, read against the server's clock.
fn reset(form: ResetForm, text: &str, server: SystemTime) -> Value<Duration> {
    if text == "-1" {
        return Value::Unknown;
    }
    match form {
        ResetForm::GoDuration => {
            ahead(duration::go(text).or_else(|| duration::decimal(text, duration::SECOND)))
        }
        ResetForm::Rfc3339 => ahead(until(timestamp::rfc3339(text), server)),
        ResetForm::EpochOrDelta => count(text).and_then(|n| {
            let at = if n > EPOCH_MILLISECONDS {
                SystemTime::UNIX_EPOCH.checked_add(Duration::from_millis(n))
            } else if n > EPOCH_SECONDS {
                SystemTime::UNIX_EPOCH.checked_add(Duration::from_secs(n))
            } else {
                return ahead(Some(Duration::from_secs(n)));
            };
            ahead(until(at, server))
        }),
    }
}

/// A window's reset in seconds (the IETF fields).
fn delta_seconds(text: &str) -> Value<Duration> {
    count(text).and_then(|n| ahead(Some(Duration::from_secs(n))))
}

/// `retry-after-ms`: milliseconds, integer or decimal.
fn delay_ms(text: &str) -> Value<Duration> {
    if text == "-1" {
        return Value::Unknown;
    }
    ahead(duration::decimal(text, duration::MILLISECOND))
}

/// `Retry-After`, read by the retrier's parser ([`parse_retry_after`](super::parse_retry_after)):
/// seconds, integer or decimal, or an HTTP-date against the local clock (a date in the past
/// is zero: no wait left).
fn retry_after(text: &str, now: SystemTime) -> Value<Duration> {
    if text == "-1" {
        return Value::Unknown;
    }
    match super::headers::retry_after_of(text) {
        Some(super::headers::RetryAfter::Delay(delay)) => ahead(Some(delay)),
        Some(super::headers::RetryAfter::Date(at)) => ahead(until(Some(at), now)),
        None => Value::Refused,
    }
}
