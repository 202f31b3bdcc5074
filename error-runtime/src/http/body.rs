//! Provider bodies: what an error body says, read as JSON where it is JSON (OpenAI, Anthropic,
//! Google, by the tables of `providers`), with the providers' phrases as the fallback for
//! plain text. Bodies are kept to 64 KiB.

use std::time::Duration;

use super::duration;
use super::json::{self, ErrorBody};
use super::kind::Kind;
use super::providers::{ANTHROPIC, CONTEXT_OVERFLOW_MARKERS, GOOGLE, OPENAI, QUOTA_MARKERS, TGI};

/// The most of a body that is kept and read, in bytes.
pub(super) const MAX_BODY: usize = 64 * 1024;

/// What a body says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct BodyHints {
    /// What the failure is, when the body names it.
    pub(crate) kind: Option<Kind>,
    /// Google's `RetryInfo.retryDelay`.
    pub(crate) retry_delay: Option<Duration>,
}

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
            self.0.push_str(&s[..s.floor_char_boundary(room)]);
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
        text.truncate(text.floor_char_boundary(MAX_BODY));
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

/// Reads a body: JSON in a provider's error shape, else the providers' phrases.
pub(super) fn read(body: &str) -> BodyHints {
    match json::read(body.as_bytes()) {
        Some(json) => read_json(&json),
        None => BodyHints {
            kind: phrases(body),
            retry_delay: None,
        },
    }
}

/// What a JSON body says: the provider's name for the failure, else its message's phrases,
/// and Google's `RetryInfo` delay.
fn read_json(json: &ErrorBody<'_>) -> BodyHints {
    let message = message(json);
    BodyHints {
        kind: kind(named(json), message),
        // Google's `RetryInfo` detail: `{"@type": "type.googleapis.com/google.rpc.RetryInfo",
        // "retryDelay": "30s"}`.
        retry_delay: json
            .error
            .retry_delays
            .iter()
            .find_map(|delay| duration::protobuf(delay)),
    }
}

/// The kind a body's own names give, the first that a table knows, most specific first:
/// `error.code`, Anthropic's `error.type` (under `"type": "error"`), `error.type` as OpenAI
/// names it, a `code` at the top (the Responses API's `error` event), Google's
/// `error.status`, and Text Generation Inference's `error_type`.
fn named(json: &ErrorBody<'_>) -> Option<Kind> {
    let error = &json.error;
    let anthropic = json.kind.as_deref() == Some("error");
    [
        (error.code.as_deref(), OPENAI),
        (error.kind.as_deref().filter(|_| anthropic), ANTHROPIC),
        (error.kind.as_deref(), OPENAI),
        (json.code.as_deref(), OPENAI),
        (error.status.as_deref(), GOOGLE),
        (json.error_type.as_deref(), TGI),
    ]
    .into_iter()
    .find_map(|(id, table)| lookup(table, id?))
}

/// What an error document says, read as a body after a status is: for an error that comes
/// without a status, such as a stream's error event.
#[cfg(feature = "stream")]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Document {
    /// What the body says.
    pub(crate) hints: BodyHints,
    /// The status that a number in the document stands for (`error.code`, `code`,
    /// `http_status_code`), when it is one (100 to 599).
    pub(crate) status: Option<u16>,
    /// The document's human-readable message, as the peer wrote it (neither folded nor cut).
    pub(crate) message: Option<String>,
}

/// Reads an error document: JSON in a provider's error shape (its names, then a number that
/// stands for a status), else plain text and the providers' phrases in it.
#[cfg(feature = "stream")]
pub(crate) fn read_document(text: &str) -> Document {
    let Some(json) = json::read(text.as_bytes()) else {
        return Document {
            hints: BodyHints {
                kind: phrases(text),
                retry_delay: None,
            },
            status: None,
            message: None,
        };
    };
    let status = [
        json.error.code_number,
        json.code_number,
        json.http_status_code,
    ]
    .into_iter()
    .flatten()
    .find(|status| (100..=599).contains(status));
    Document {
        hints: read_json(&json),
        status,
        message: message(&json).map(str::to_owned),
    }
}

/// The kind that a provider's `table` gives `id`.
fn lookup(table: &[(&str, Kind)], id: &str) -> Option<Kind> {
    table
        .iter()
        .find(|(name, _)| *name == id)
        .map(|(_, kind)| *kind)
}

/// The human-readable message of a JSON error: `error.message`, a string `error`
/// (Ollama), a top-level `message` (vLLM) or `detail` (FastAPI), or the body itself
/// when it is a JSON string.
fn message<'a>(json: &'a ErrorBody<'_>) -> Option<&'a str> {
    [
        &json.text,
        &json.error.text,
        &json.error.message,
        &json.message,
        &json.detail,
    ]
    .into_iter()
    .find_map(|text| text.as_deref())
}

/// What the providers' phrases in free text say: an overflow, a spent quota, or nothing.
/// The kind of a body: the one its provider code or type names, else what its message
/// says; an invalid request whose message is about the prompt's length is an overflow.
pub(super) fn kind(named: Option<Kind>, message: Option<&str>) -> Option<Kind> {
    match named {
        Some(Kind::InvalidInput) if message.is_some_and(shows_overflow) => {
            Some(Kind::ContextOverflow)
        }
        Some(kind) => Some(kind),
        None => message.and_then(phrases),
    }
}

fn phrases(text: &str) -> Option<Kind> {
    if shows_overflow(text) {
        Some(Kind::ContextOverflow)
    } else if contains_any(text, &QUOTA_MARKERS) {
        Some(Kind::QuotaSpent)
    } else {
        None
    }
}

/// Whether free text carries one of the providers' context-overflow messages.
pub(super) fn shows_overflow(text: &str) -> bool {
    contains_any(text, &CONTEXT_OVERFLOW_MARKERS)
}

fn contains_any(haystack: &str, needles: &[&str]) -> bool {
    let haystack = haystack.to_ascii_lowercase();
    needles.iter().any(|n| haystack.contains(n))
}

/// The reading against the `serde_json` reading it replaced.
#[cfg(test)]
mod agreement;

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
