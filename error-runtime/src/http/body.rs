//! Provider bodies: what an error body says, read as JSON where it is JSON (the names of
//! `providers`, specific and generic, Google's details, a gateway's relayed body) and the
//! phrase families of its message, each piece apart for `evidence` to weigh. Bodies are kept
//! to 64 KiB.

use std::borrow::Cow;
use std::time::Duration;

use super::evidence::Decision;
use super::json::{self, Details, ErrorBody, ErrorField};
use super::kind::Kind;
use super::providers::{
    CANCELLED, DAILY_QUOTA, GOOGLE_API_HOST, NAMES, PLAN_LIMIT, QUOTA_FOR, QUOTA_METRIC,
    SHORT_FAMILY, Weight, ZERO_LIMIT,
};
use super::{delay, duration, vocabulary, words};
use crate::core::summary::floor_char_boundary;

/// The most of a body that is kept and read, in bytes.
pub(super) const MAX_BODY: usize = 64 * 1024;

/// One piece of evidence: what it says, and what said it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hint {
    /// What it means.
    pub(crate) kind: Kind,
    /// The name, the words or the reading that said it.
    pub(crate) why: Decision,
}

/// What a body says, each piece of evidence apart so that `evidence::decide` can weigh them
/// in order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct BodyHints {
    /// What the body's specific names say (`insufficient_quota`, Google's `API_KEY_INVALID`
    /// reason or a daily quota, AWS's `ThrottlingException`, a moderation flag, a name
    /// whose words say a spent quota).
    pub(crate) named: Option<Hint>,
    /// What the words of the message say ("credit balance is too low", …).
    pub(crate) phrase: Option<Hint>,
    /// What the body's generic type says (`invalid_request_error`, `rate_limit_exceeded`,
    /// `api_error`, Google's `RESOURCE_EXHAUSTED`).
    pub(crate) generic: Option<Hint>,
    /// A delay a field of the body gives (Google's `RetryInfo.retryDelay`).
    pub(crate) retry_delay: Option<Duration>,
    /// A delay written only in the message ("Please try again in 11.054s").
    pub(crate) message_delay: Option<Duration>,
    /// The status that a number in the document stands for (`error.code`, `code`,
    /// `http_status_code`, or a string code of three digits), when it is one (100 to 599).
    pub(crate) status: Option<u16>,
    /// Whether the document says the server cancelled the call (Google's `CANCELLED`): in a
    /// stream, an interruption, not the request's fault.
    pub(crate) cancelled: bool,
}

/// How many bodies deep a body relayed inside another is read (a gateway's message that
/// holds a provider's body that holds another's).
const RELAY_DEPTH: u8 = 3;

/// The body as kept: at most [`MAX_BODY`] bytes, cut before a character the limit would
/// split, decoded as lossy UTF-8 (and cut again at a character boundary if the
/// replacement characters made it longer).
pub(super) fn keep(bytes: &[u8]) -> String {
    let kept = match bytes.get(..MAX_BODY) {
        Some(prefix) if bytes.len() > MAX_BODY => without_split_char(prefix),
        _ => bytes,
    };
    truncate(String::from_utf8_lossy(kept).into_owned())
}

/// The first [`MAX_BODY`] bytes of `value`'s Display, without formatting the rest: a link
/// whose Display includes its causes costs at most that much to read.
pub(super) fn display_prefix(value: &dyn std::fmt::Display) -> String {
    struct Bounded(String);
    impl std::fmt::Write for Bounded {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            let room = MAX_BODY - self.0.len();
            if s.len() <= room {
                self.0.push_str(s);
                return Ok(());
            }
            self.0.push_str(&s[..floor_char_boundary(s, room)]);
            // Stop the formatting: the rest would be cut anyway.
            Err(std::fmt::Error)
        }
    }
    let mut out = Bounded(String::new());
    let _ = std::fmt::write(&mut out, format_args!("{value}"));
    out.0
}

/// `text` cut to at most [`MAX_BODY`] bytes at a character boundary.
pub(super) fn truncate(mut text: String) -> String {
    if text.len() > MAX_BODY {
        text.truncate(floor_char_boundary(&text, MAX_BODY));
    }
    text
}

/// `bytes` without a last character that the cut left incomplete.
fn without_split_char(bytes: &[u8]) -> &[u8] {
    // The last character starts at most three bytes before the end.
    for back in 1..=bytes.len().min(4) {
        let at = bytes.len() - back;
        let Some(&lead) = bytes.get(at) else { break };
        if lead & 0xC0 == 0x80 {
            continue; // a continuation byte: the character starts earlier
        }
        let width = match lead {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if width > back {
            bytes.get(..at).unwrap_or(bytes)
        } else {
            bytes
        };
    }
    bytes
}

/// Reads a body: JSON in a provider's error shape, else plain text and the words in it. A
/// page (HTML, from a CDN or a proxy) says nothing: its status decides.
pub(crate) fn read(body: &str) -> BodyHints {
    read_at(body, RELAY_DEPTH)
}

fn read_at(body: &str, depth: u8) -> BodyHints {
    if let Some(json) = json::read(body.as_bytes()) {
        return read_json(&json, depth);
    }
    if is_html(body) {
        return BodyHints::default();
    }
    if is_proxy(body) {
        // What a status says wins; without one, the upstream was not reached.
        return BodyHints {
            generic: Some(Hint {
                kind: Kind::Unavailable,
                why: Decision::Name {
                    name: "a proxy's page",
                    specific: false,
                },
            }),
            ..BodyHints::default()
        };
    }
    // A text that holds a body (an SDK's "Error code: 429 - {…}", a relay's "upstream
    // returned 402: {…}") is read as that body, and the rest of it as text.
    let (inner, phrase) = match relayed(body, depth) {
        Some((inner, rest)) => (inner, phrases(&rest)),
        // JSON that does not parse (cut, or with a stray character): its quotes are its
        // syntax, not a caller's text, so its words are read whole.
        None if body.trim_start().starts_with(['{', '[']) => {
            (BodyHints::default(), phrases_of(body, false))
        }
        None => (BodyHints::default(), phrases(body)),
    };
    BodyHints {
        phrase: inner.phrase.or(phrase),
        message_delay: inner.message_delay.or_else(|| delay::in_message(body)),
        status: inner.status.or_else(|| words::status_in(body)),
        ..inner
    }
}

/// Whether `body` is a page: HTML (or XML) that a CDN, a proxy or a load balancer answered
/// with. Its text is never read: it describes the proxy, not the provider's verdict.
fn is_html(body: &str) -> bool {
    let start = body.trim_start();
    let head = start[..floor_char_boundary(start, 512)].to_ascii_lowercase();
    head.starts_with("<!doctype")
        || head.starts_with("<html")
        || head.starts_with("<?xml")
        || (head.starts_with('<') && head.contains("<title"))
}

/// Whether `body` is a proxy's own words (Envoy's "upstream connect error", "no healthy
/// upstream"): its upstream could not be reached. Its words are not read either.
fn is_proxy(body: &str) -> bool {
    let head = body.trim_start();
    let head = head[..floor_char_boundary(head, 64)].to_ascii_lowercase();
    [
        "upstream connect error",
        "no healthy upstream",
        "upstream request timeout",
    ]
    .iter()
    .any(|words| head.starts_with(words))
}

/// A body held inside `text` (from its first `{` to its last `}`), as JSON or as a Python
/// dictionary's text (what an SDK's exception prints), read `depth − 1` bodies deep; and
/// the rest of `text`, without it. `None` when `text` holds none, or `depth` is spent.
fn relayed(text: &str, depth: u8) -> Option<(BodyHints, String)> {
    let depth = depth.checked_sub(1).filter(|d| *d > 0)?;
    let text = &text[..floor_char_boundary(text, MAX_BODY)];
    let open = text.find('{')?;
    let close = text.rfind('}').filter(|close| *close > open)?;
    let inner = &text[open..=close];
    let hints = match json::read(inner.as_bytes()) {
        Some(json) => read_json(&json, depth),
        None => {
            let converted = python_to_json(inner)?;
            read_json(&json::read(converted.as_bytes())?, depth)
        }
    };
    // A body that says nothing is no body held: the text is read whole.
    (hints != BodyHints::default())
        .then(|| (hints, format!("{} {}", &text[..open], &text[close + 1..])))
}

/// A Python dictionary's text as JSON: strings in single quotes become strings in double
/// quotes, and `None`, `True` and `False` JSON's words. `None` when it does not look like
/// one (no single-quoted key).
fn python_to_json(text: &str) -> Option<String> {
    if !text.contains("{'") {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    // The quote the string being copied opened with, if one is open.
    let mut open: Option<char> = None;
    while let Some(c) = chars.next() {
        match (open, c) {
            (Some(quote), '\\') => {
                let next = chars.next()?;
                if next == '\'' && quote == '\'' {
                    out.push('\'');
                } else {
                    out.push('\\');
                    out.push(next);
                }
            }
            (Some(quote), c) if c == quote => {
                out.push('"');
                open = None;
            }
            (Some('\''), '"') => out.push_str("\\\""),
            (Some(_), c) => out.push(c),
            (None, '\'' | '"') => {
                out.push('"');
                open = Some(c);
            }
            (None, c) if c.is_ascii_alphabetic() => {
                let mut word = String::from(c);
                while let Some(&c) = chars.peek().filter(|c| c.is_ascii_alphanumeric()) {
                    word.push(c);
                    chars.next();
                }
                out.push_str(match word.as_str() {
                    "None" => "null",
                    "True" => "true",
                    "False" => "false",
                    other => other,
                });
            }
            (None, c) => out.push(c),
        }
    }
    Some(out)
}

/// What a JSON body says: its names, specific and generic, the words of its message (and
/// of the body a gateway relays in it), its delays and a number standing for a status.
///
/// A relayed body (OpenRouter's `metadata.raw`, a body held in the message) is read at
/// most `depth − 1` bodies deeper; its specific evidence wins over the outer generic one.
fn read_json(json: &ErrorBody<'_>, depth: u8) -> BodyHints {
    let error = error_of(json);
    let message = message(json);
    let raw = error
        .metadata
        .raw
        .as_ref()
        .or(json.metadata.raw.as_ref())
        .or(json.relayed.as_ref());
    let inner_depth = depth.saturating_sub(1);
    let (upstream, rest): (BodyHints, Option<Cow<'_, str>>) = match (raw, message) {
        (Some(raw), _) if inner_depth > 0 => {
            (read_at(raw, inner_depth), message.map(Cow::Borrowed))
        }
        (None, Some(message)) => match relayed(message, depth) {
            Some((hints, rest)) => (hints, Some(Cow::Owned(rest))),
            None => (BodyHints::default(), Some(Cow::Borrowed(message))),
        },
        _ => (BodyHints::default(), message.map(Cow::Borrowed)),
    };
    let flagged = error.metadata.flagged || json.metadata.flagged;
    let [specific, generic] = names(json);
    let named = specific
        .or_else(|| google_quota(&error.details, message))
        .or(flagged.then_some(Hint {
            kind: Kind::ContentFiltered,
            why: Decision::Name {
                name: "flagged_input",
                specific: true,
            },
        }))
        .or(upstream.named)
        // A quota's name whose message names a short window ("requests per minute") is
        // a rate limit: the message's words decide.
        .filter(|hint| {
            !(matches!(
                hint.why,
                Decision::NameWords {
                    family: PLAN_LIMIT,
                    ..
                }
            ) && message.is_some_and(words::names_a_short_window))
        });
    // A status the message writes ("Request failed with status code 429", "HTTP 401") is
    // the upstream's that a relay failed on: it says more than the relay's own number.
    let status = [
        message.and_then(words::status_in),
        error.code_number,
        error.status_code,
        error.code.as_deref().and_then(status_text),
        json.code_number,
        json.http_status_code,
        json.status_number,
    ]
    .into_iter()
    .flatten()
    .find(|status| (100..=599).contains(status));
    BodyHints {
        named,
        // The primary message (without a body it holds), then every other message the
        // body gives (an HTTP reason phrase in `error` may stand before the real message).
        phrase: upstream
            .phrase
            .or_else(|| rest.as_deref().and_then(phrases))
            .or_else(|| other_messages(json, message).find_map(phrases)),
        generic: generic.or(upstream.generic),
        // Google's `RetryInfo` detail: `{"@type": "type.googleapis.com/google.rpc.RetryInfo",
        // "retryDelay": "30s"}`; else Hugging Face's `estimated_time` (seconds, saturating
        // as a message's wait does: an absurd one ends the run at `max_wait`).
        retry_delay: error
            .details
            .retry_delays
            .iter()
            .find_map(|delay| duration::protobuf(delay))
            .or_else(|| json.estimated_time.and_then(delay::saturating))
            .or_else(|| error.retry_after.and_then(delay::saturating))
            .or_else(|| json.retry_after.and_then(delay::saturating))
            .or(upstream.retry_delay),
        message_delay: message
            .and_then(delay::in_message)
            .or(upstream.message_delay),
        status: status.or(upstream.status),
        cancelled: error.status.as_deref() == Some(CANCELLED),
    }
}

/// The first name of `weight` that the body gives, in the order its places are read:
/// `error.code`, `error.type`, a top-level `type` (but Anthropic's `"error"`) and `code`,
/// Google's `error.status` and `details[].reason`, TGI's `error_type`, AWS's `__type`
/// (after its namespace's `#`) and Azure's `innererror.code`. Names the table knows come
/// first, then a name's words read by the word families ([`words_of_name`]).
fn names(json: &ErrorBody<'_>) -> [Option<Hint>; 2] {
    let error = error_of(json);
    let amzn = json
        .amzn_type
        .as_deref()
        .or(json.output_type.as_deref())
        .map(|name| name.rsplit('#').next().unwrap_or(name));
    let places = || {
        [
            error.code.as_deref(),
            error.kind.as_deref(),
            json.kind.as_deref().filter(|kind| *kind != "error"),
            json.code.as_deref(),
            json.error_code.as_deref(),
            error.status.as_deref(),
            json.error_type.as_deref(),
            amzn,
            error.inner_code.as_deref(),
        ]
        .into_iter()
        .flatten()
        .chain(error.details.reasons.iter().map(|reason| reason.as_ref()))
    };
    let yours = || {
        places().find_map(|name| {
            let (kind, name) = vocabulary::name(name)?;
            Some(Hint {
                kind,
                why: Decision::YourName { name },
            })
        })
    };
    // The names' words, read once and only when no name the tables know says anything.
    let mut by_words: Option<Vec<(Hint, Weight)>> = None;
    let mut words = |weight: Weight| {
        by_words
            .get_or_insert_with(|| places().filter_map(words_of_name).collect())
            .iter()
            .find(|(_, w)| *w == weight)
            .map(|(hint, _)| *hint)
    };
    let specific = yours()
        .or_else(|| places().find_map(|name| name_of(name, Weight::Specific)))
        .or_else(|| words(Weight::Specific));
    let generic = places()
        .find_map(|name| name_of(name, Weight::Generic))
        .or_else(|| words(Weight::Generic));
    [specific, generic]
}

/// What the providers' names give `name`, when it has `weight`.
pub(super) fn name_of(name: &str, weight: Weight) -> Option<Hint> {
    NAMES
        .iter()
        .find(|(known, _, w)| *known == name && *w == weight)
        .map(|(known, kind, w)| Hint {
            kind: *kind,
            why: Decision::Name {
                name: known,
                specific: *w == Weight::Specific,
            },
        })
}

/// What a name's words say (`insufficient_user_quota`, `QUOTA_EXHAUSTED`,
/// `billing_not_active`) when the table does not know the name, and its weight: specific,
/// but for the families that name a class of failures (a rate limit, an overload, a
/// timeout, a bad request), which are generic.
fn words_of_name(name: &str) -> Option<(Hint, Weight)> {
    // A dotted name goes from the general to the particular (`InternalError.Algo.
    // InvalidParameter`, `Throttling.RateQuota`): its last part that says something decides.
    let said = name.rsplit('.').find_map(words::in_name)?;
    let weight = match said.kind {
        Kind::RateLimit | Kind::Unavailable | Kind::Timeout | Kind::InvalidInput => Weight::Generic,
        _ => Weight::Specific,
    };
    let hint = Hint {
        kind: said.kind,
        why: Decision::NameWords {
            family: said.family,
            words: said.words,
        },
    };
    Some((hint, weight))
}

/// A status written as text (`"code": "429"`, as LiteLLM's proxy writes it).
fn status_text(code: &str) -> Option<u16> {
    (code.len() == 3 && code.bytes().all(|b| b.is_ascii_digit()))
        .then(|| code.parse().ok())
        .flatten()
}

/// The `error` the body's names and message are read from: `error`, else the Responses
/// API's `response.error`, else an error object in another place (Tencent Cloud's
/// `Response.Error`, iFlytek Spark's `header`, Cloudflare's `errors`, a wrapper's member
/// around a provider's body). An `error` that is only a string gives way to an error object
/// found elsewhere: it is a wrapper's label ("Gemini API error") over the provider's body.
fn error_of<'j, 'a>(json: &'j ErrorBody<'a>) -> &'j ErrorField<'a> {
    let places = [
        &json.error,
        &json.response_error,
        &json.other_error,
        &json.errors,
        &json.wrapped,
    ];
    let said = |error: &&ErrorField<'_>| **error != ErrorField::default();
    places
        .into_iter()
        .find(|error| said(error) && !error.is_only_text())
        .or_else(|| places.into_iter().find(said))
        .unwrap_or(&json.error)
}

/// Google's quota reading: a `QuotaFailure` (or a message naming the quota's metric) says a
/// plan's limit is spent when the quota counts per day or its limit is 0 (also an
/// `ErrorInfo` whose `quota_limit_value` is `"0"`), and a rate limit otherwise.
///
/// Without quota details, a message naming a quota is read with the phrases.
fn google_quota(details: &Details<'_>, message: Option<&str>) -> Option<Hint> {
    if details.quota_ids.is_empty() && !details.zero_limit {
        return None;
    }
    let daily = details
        .quota_ids
        .iter()
        .any(|id| id.to_ascii_lowercase().contains(DAILY_QUOTA));
    let kind = if daily || details.zero_limit {
        Kind::BudgetExhausted
    } else {
        message
            .and_then(|text| quota_in_text(&lowercase_prefix(text)))
            .unwrap_or(Kind::RateLimit)
    };
    Some(Hint {
        kind,
        why: Decision::Quota,
    })
}

/// What a message naming Google's exceeded quota says: a plan's limit when its limit is 0 or
/// it counts per day, else a rate limit; `None` when it names no quota. `lower` is the
/// message in ASCII lowercase.
fn quota_in_text(lower: &str) -> Option<Kind> {
    // "Quota exceeded for metric: …", or for a metric named by its service
    // ("Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model").
    let names_metric = lower.contains(QUOTA_METRIC)
        || lower
            .find(QUOTA_FOR)
            .is_some_and(|at| lower[at..].contains(GOOGLE_API_HOST));
    if !names_metric {
        return None;
    }
    let zero = lower.match_indices(ZERO_LIMIT).any(|(at, found)| {
        !lower[at + found.len()..]
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_digit() || b == b'.')
    });
    let daily = lower.contains("per_day") || lower.contains("perday") || lower.contains("per day");
    Some(if zero || daily {
        Kind::BudgetExhausted
    } else {
        Kind::RateLimit
    })
}

/// What an error document says, read as a body after a status is: for an error that comes
/// without a status, such as a stream's error event.
#[cfg(feature = "stream")]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Document {
    /// What the body says.
    pub(crate) hints: BodyHints,
    /// The document's human-readable message, as the peer wrote it (neither folded nor cut).
    pub(crate) message: Option<String>,
}

/// Reads an error document: JSON in a provider's error shape (its names, then a number that
/// stands for a status), else plain text and the providers' phrases in it.
#[cfg(feature = "stream")]
pub(crate) fn read_document(text: &str) -> Document {
    match json::read(text.as_bytes()) {
        Some(json) => Document {
            hints: read_json(&json, RELAY_DEPTH),
            message: message(&json).map(str::to_owned),
        },
        None => Document {
            hints: read(text),
            message: None,
        },
    }
}

/// The body's messages besides `primary`, in the order [`message`] looks for them.
fn other_messages<'j>(
    json: &'j ErrorBody<'_>,
    primary: Option<&'j str>,
) -> impl Iterator<Item = &'j str> {
    messages(json)
        .into_iter()
        .filter_map(|text| text.as_deref())
        .filter(move |text| Some(*text) != primary)
}

/// The human-readable message of a JSON error: the first of its [`messages`].
fn message<'a>(json: &'a ErrorBody<'_>) -> Option<&'a str> {
    messages(json).into_iter().find_map(|text| text.as_deref())
}

/// Where a JSON error's messages stand, in the order they are read: the body itself when it
/// is a string, `error.message`, a top-level `message` (vLLM, AWS, and Fastify's
/// `{"statusCode", "error", "message"}`, whose string `error` is only the status's reason
/// phrase), a string `error` (Ollama), `detail` (FastAPI), then the other shapes.
fn messages<'j, 'a>(json: &'j ErrorBody<'a>) -> [&'j Option<Cow<'a, str>>; 6] {
    let error = error_of(json);
    [
        &json.text,
        &error.message,
        &json.message,
        &error.text,
        &json.detail,
        &json.other_message,
    ]
}

/// How soon a plan's limit must say it comes back to be read as a rate limit: within the
/// hour, as a retrier with a long `max_wait` or a pacer may wait.
const SOON_BACK: Duration = Duration::from_secs(60 * 60);

/// What the words of free text say: Google's quota reading when it names a quota, else
/// the first word family that matches outside quotes. A plan's or a quota's limit is a
/// rate limit when the text names a short window (per minute, `TPM`), quoted or not; a
/// rate limit whose request alone is over the limit is a request too large.
pub(super) fn phrases(text: &str) -> Option<Hint> {
    phrases_of(text, true)
}

/// [`phrases`], reading text in quotes too when `unquote` is false.
fn phrases_of(text: &str, unquote: bool) -> Option<Hint> {
    if let Some((kind, words)) = words::in_message_yours(text) {
        return Some(Hint {
            kind,
            why: Decision::YourWords { words },
        });
    }
    let lower = lowercase_prefix(text);
    if let Some(kind) = quota_in_text(&lower) {
        return Some(Hint {
            kind,
            why: Decision::Quota,
        });
    }
    let said = if unquote {
        words::in_message(text)
    } else {
        words::in_text(text)
    };
    let hint = said.map(|said| {
        // A plan's limit is a rate limit when it names a short window, or when its message
        // says it comes back within the hour ("… tokens per day … try again in 9m38s").
        let soon = || delay::in_message(text).is_some_and(|wait| wait <= SOON_BACK);
        let short = said.family == PLAN_LIMIT && (words::names_a_short_window(text) || soon());
        Hint {
            kind: if short { Kind::RateLimit } else { said.kind },
            why: Decision::MessageWords {
                family: if short { SHORT_FAMILY } else { said.family },
                words: said.words,
            },
        }
    });
    // A throttle's message whose request alone is over the limit: waiting cannot help.
    match hint.map(|hint| hint.kind) {
        Some(Kind::RateLimit) | None if request_over_limit(&lower) => Some(Hint {
            kind: Kind::RequestTooLarge,
            why: Decision::MessageWords {
                family: "too large",
                words: "limit ~ requested (more than the limit)",
            },
        }),
        _ => hint,
    }
}

/// Whether a rate limit's message says the request alone asks for more than the limit, as
/// OpenAI's and Groq's do ("… (TPM): Limit 7000, Used 0, Requested ~12903."): both numbers
/// read, the request larger. `lower` is the message in ASCII lowercase.
fn request_over_limit(lower: &str) -> bool {
    // The first number after `label` (digits, with `,` between thousands), at most 20
    // digits: the first place the label is followed by one.
    let number_after = |label: &str| {
        lower.match_indices(label).find_map(|(at, _)| {
            let digits: String = lower[at + label.len()..]
                .trim_start_matches([' ', '~'])
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == ',')
                .filter(char::is_ascii_digit)
                .take(20)
                .collect();
            digits.parse::<u64>().ok()
        })
    };
    match (number_after("limit "), number_after("requested ")) {
        (Some(limit), Some(requested)) => requested > limit,
        _ => false,
    }
}

/// At most the first [`MAX_BODY`] bytes of `text`, in ASCII lowercase.
fn lowercase_prefix(text: &str) -> String {
    text[..floor_char_boundary(text, MAX_BODY)].to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_never_leaves_half_a_character() {
        let mut bytes = vec![b'a'; MAX_BODY - 1];
        bytes.extend_from_slice("é".as_bytes()); // straddles the limit
        assert_eq!(keep(&bytes), "a".repeat(MAX_BODY - 1));
        let euro = "€".as_bytes(); // three bytes
        for pad in 0..3 {
            let mut bytes = vec![b'a'; pad];
            while bytes.len() < MAX_BODY + 8 {
                bytes.extend_from_slice(euro);
            }
            let kept = keep(&bytes);
            assert!(
                kept.len() <= MAX_BODY && !kept.contains('\u{FFFD}'),
                "{pad}"
            );
            assert_eq!(kept.len(), pad + (MAX_BODY - pad) / 3 * 3, "{pad}");
        }
    }

    #[test]
    fn invalid_bytes_become_replacement_characters_within_the_limit() {
        let kept = keep(&vec![0xFF; MAX_BODY + 10]);
        assert!(kept.len() <= MAX_BODY);
        assert_eq!(kept.chars().count(), MAX_BODY / 3);
        assert!(kept.chars().all(|c| c == '\u{FFFD}'));
    }
}
