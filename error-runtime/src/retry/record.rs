//! The record of a run's failed attempts: each one's code, the wait after it, and where
//! that wait came from. Capped, so that a run that retried for an hour keeps a record of
//! bounded size; a log line or a trace can say "3 attempts: rate_limit (waited 2.0s,
//! header), provider_unavailable (waited 400ms, backoff), then succeeded".

use std::error::Error as StdError;
use std::fmt;
use std::time::Duration;

/// Where the wait after a failed attempt came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WaitSource {
    /// The server asked, in a header (`Retry-After`, `retry-after-ms`).
    Header,
    /// The server asked, in a field of the body (Google's `RetryInfo.retryDelay`).
    Body,
    /// The server asked, in the message's text ("Please try again in 11.054s").
    Message,
    /// A rate-limit header said when the spent limit resets (OpenAI's
    /// `x-ratelimit-reset-*` on a 429).
    Reset,
    /// The error carried the delay without saying where it came from (a `#[retry_after]`
    /// field, a delay set on a dynamic error).
    Error,
    /// The retry policy's jittered backoff.
    Backoff,
}

impl WaitSource {
    /// `"header"`, `"body"`, `"message"`, `"reset"`, `"error"` or `"backoff"`: the first
    /// four are the names a [`Report`](crate::Report) gives them on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            WaitSource::Header => "header",
            WaitSource::Body => "body",
            WaitSource::Message => "message",
            WaitSource::Reset => "reset",
            WaitSource::Error => "error",
            WaitSource::Backoff => "backoff",
        }
    }

    /// Where a server's delay came from, as a failed response in `err`'s chain says it
    /// (an `http::StatusError`, or a `Report` read from another service); else
    /// [`Error`](Self::Error).
    pub(crate) fn of_delay_in(err: &(dyn StdError + 'static)) -> WaitSource {
        for link in crate::chain::links(err) {
            if let Some(source) = Self::told_by(link) {
                return source;
            }
        }
        WaitSource::Error
    }

    fn told_by(link: &(dyn StdError + 'static)) -> Option<WaitSource> {
        #[cfg(feature = "http")]
        if let Some(response) = link.downcast_ref::<crate::http::StatusError>() {
            return response
                .retry_after_source()
                .and_then(|source| Self::named(source.as_str()));
        }
        #[cfg(feature = "serde")]
        if let Some(report) = link.downcast_ref::<crate::Report>() {
            return report.retry_after_source().and_then(Self::named);
        }
        let _ = link;
        None
    }

    #[cfg(any(feature = "http", feature = "serde"))]
    fn named(name: &str) -> Option<WaitSource> {
        [
            WaitSource::Header,
            WaitSource::Body,
            WaitSource::Message,
            WaitSource::Reset,
        ]
        .into_iter()
        .find(|source| source.as_str() == name)
    }
}

impl fmt::Display for WaitSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// One failed attempt of a run, as the record keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attempt<'a> {
    number: u32,
    code: &'a str,
    wait: Option<(Duration, WaitSource)>,
}

impl<'a> Attempt<'a> {
    /// The attempt's number, 1 for the first.
    pub fn number(&self) -> u32 {
        self.number
    }

    /// The code it failed with (as it may cross a trust boundary: one outside the grammar
    /// of codes is `unclassified`).
    pub fn code(&self) -> &'a str {
        self.code
    }

    /// The wait before the next attempt, and where it came from; `None` when no attempt
    /// followed (the run stopped on it).
    pub fn wait(&self) -> Option<(Duration, WaitSource)> {
        self.wait
    }
}

/// An attempt in 16 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Entry {
    /// The wait after it in nanoseconds (saturating), when one followed.
    wait: u64,
    number: u32,
    /// A code of [`VOCABULARY`] by its place, or `OWNED | k` for the `k`th of the
    /// record's own codes.
    code: u8,
    /// The wait's place in [`SOURCES`], [`NO_WAIT`] when none followed.
    source: u8,
}

/// The codes kept without a copy: the shared vocabulary and `unclassified`.
const VOCABULARY: [&str; 16] = {
    let mut all = [crate::codes::UNCLASSIFIED; 16];
    let mut i = 0;
    while i < crate::codes::ALL.len() {
        all[i] = crate::codes::ALL[i];
        i += 1;
    }
    all
};

/// The flag of a code the record keeps a copy of out of place.
const OWNED: u8 = 0x80;

/// The code kept in place: the first one outside the vocabulary.
const IN_PLACE_CODE: u8 = 0x40;

/// The longest code (the grammar's limit): what the code kept in place may hold.
const MAX_CODE_BYTES: usize = 64;

/// The most codes outside the vocabulary a record keeps copies of; the next ones are
/// kept as `unclassified`.
const MAX_OWNED: usize = 16;

/// No wait followed the attempt.
const NO_WAIT: u8 = u8::MAX;

const SOURCES: [WaitSource; 6] = [
    WaitSource::Header,
    WaitSource::Body,
    WaitSource::Message,
    WaitSource::Reset,
    WaitSource::Error,
    WaitSource::Backoff,
];

/// The failed attempts of a run, in order: the first [`KEPT`](Self::KEPT)` / 2` and the
/// latest ones, with how many between them were left out.
///
/// The first [`IN_PLACE`](Self::IN_PLACE) attempts are kept in place, and so is the first
/// code outside the shared vocabulary: a run that fails a few times allocates nothing for
/// its record (the attempts past them, and a second code of one's own, are kept out of
/// place).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttemptRecord {
    first: [Entry; AttemptRecord::IN_PLACE],
    len: u8,
    code_len: u8,
    code: [u8; MAX_CODE_BYTES],
    spill: Option<Box<Log>>,
}

impl Default for AttemptRecord {
    fn default() -> Self {
        AttemptRecord {
            first: [Entry::default(); AttemptRecord::IN_PLACE],
            len: 0,
            code_len: 0,
            code: [0; MAX_CODE_BYTES],
            spill: None,
        }
    }
}

/// What a record keeps out of place: the attempts past the first few, how many were left
/// out, and its copies of codes outside the vocabulary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Log {
    more: Vec<Entry>,
    omitted: u32,
    owned: Vec<Box<str>>,
}

impl AttemptRecord {
    /// The most attempts kept: 16.
    pub const KEPT: usize = 16;

    /// The attempts kept in place, without allocating: 4.
    pub const IN_PLACE: usize = 4;

    /// The attempts kept, in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = Attempt<'_>> + '_ {
        let first = &self.first[..usize::from(self.len)];
        let more = self.spill.as_deref().map_or(&[][..], |log| &log.more[..]);
        first.iter().chain(more).map(|entry| self.view(entry))
    }

    /// How many attempts are kept.
    pub fn len(&self) -> usize {
        usize::from(self.len) + self.spill.as_ref().map_or(0, |log| log.more.len())
    }

    /// Whether no attempt failed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The latest failed attempt.
    pub fn last(&self) -> Option<Attempt<'_>> {
        self.iter().next_back()
    }

    /// How many failed attempts between the first and the latest ones were left out.
    pub fn omitted(&self) -> u32 {
        self.spill.as_ref().map_or(0, |log| log.omitted)
    }

    fn view(&self, entry: &Entry) -> Attempt<'_> {
        let code = if entry.code == IN_PLACE_CODE {
            std::str::from_utf8(&self.code[..usize::from(self.code_len)]).ok()
        } else if entry.code & OWNED == 0 {
            VOCABULARY.get(usize::from(entry.code)).copied()
        } else {
            self.spill
                .as_deref()
                .and_then(|log| log.owned.get(usize::from(entry.code & !OWNED)))
                .map(|code| &**code)
        };
        Attempt {
            number: entry.number,
            code: code.unwrap_or(crate::codes::UNCLASSIFIED),
            wait: SOURCES
                .get(usize::from(entry.source))
                .map(|source| (Duration::from_nanos(entry.wait), *source)),
        }
    }

    /// Records attempt `number`'s failure with `code`, no wait yet.
    pub(crate) fn failed(&mut self, number: u32, code: &str) {
        let code = match vocabulary_index(code) {
            Some(i) => i,
            None => self.own(code),
        };
        let entry = Entry {
            wait: 0,
            number,
            code,
            source: NO_WAIT,
        };
        match self.first.get_mut(usize::from(self.len)) {
            Some(slot) => {
                *slot = entry;
                self.len += 1;
            }
            None => self.spill.get_or_insert_with(Box::default).push(entry),
        }
    }

    /// Appends `other`'s attempts, numbered after `before` attempts (a chain's next run),
    /// and counts the ones it left out.
    #[cfg(all(feature = "stream", feature = "recover"))]
    pub(crate) fn append(&mut self, other: &AttemptRecord, before: u32) {
        for attempt in other.iter() {
            self.failed(attempt.number.saturating_add(before), attempt.code);
            self.waited(attempt.wait);
        }
        let omitted = other.omitted();
        if omitted > 0 {
            let log = self.spill.get_or_insert_with(Box::default);
            log.omitted = log.omitted.saturating_add(omitted);
        }
    }

    /// A code outside the vocabulary: kept in place when it is the first (or the same as
    /// it), else out of place.
    fn own(&mut self, code: &str) -> u8 {
        let public = crate::core::codes::public_code(code);
        let kept = &self.code[..usize::from(self.code_len)];
        if self.code_len > 0 && kept == public.as_bytes() {
            return IN_PLACE_CODE;
        }
        if self.code_len == 0 && public != crate::codes::UNCLASSIFIED {
            if let Some(slot) = self.code.get_mut(..public.len()) {
                slot.copy_from_slice(public.as_bytes());
                self.code_len = public.len() as u8;
                return IN_PLACE_CODE;
            }
        }
        self.spill.get_or_insert_with(Box::default).own(public)
    }

    /// Sets the wait after the latest failure (or, `None`, says none followed).
    pub(crate) fn waited(&mut self, wait: Option<(Duration, WaitSource)>) {
        let more = self
            .spill
            .as_deref_mut()
            .and_then(|log| log.more.last_mut());
        let last = match more {
            Some(last) => last,
            None => match usize::from(self.len).checked_sub(1) {
                Some(i) => &mut self.first[i],
                None => return,
            },
        };
        (last.wait, last.source) = match wait {
            Some((wait, source)) => (
                u64::try_from(wait.as_nanos()).unwrap_or(u64::MAX),
                source as u8,
            ),
            None => (0, NO_WAIT),
        };
    }
}

impl Log {
    /// Keeps an attempt past the first few: the first half of the kept ones stays, the
    /// oldest of the latest ones goes.
    fn push(&mut self, entry: Entry) {
        if self.more.len() == AttemptRecord::KEPT - AttemptRecord::IN_PLACE {
            self.more
                .remove(AttemptRecord::KEPT / 2 - AttemptRecord::IN_PLACE);
            self.omitted = self.omitted.saturating_add(1);
        }
        self.more.push(entry);
    }

    /// A code outside the vocabulary (in its public form) among the record's own copies,
    /// each kept once, at most [`MAX_OWNED`]; `unclassified` past them.
    fn own(&mut self, public: &str) -> u8 {
        let unclassified = (VOCABULARY.len() - 1) as u8;
        if public == crate::codes::UNCLASSIFIED {
            return unclassified;
        }
        if let Some(i) = self.owned.iter().position(|own| **own == *public) {
            return OWNED | i as u8;
        }
        if self.owned.len() == MAX_OWNED {
            return unclassified;
        }
        self.owned.push(public.into());
        OWNED | (self.owned.len() - 1) as u8
    }
}

/// A code's place in [`VOCABULARY`] (a `match`, which compiles to a switch on the length
/// and one comparison: a search of the list measured about 6 ns more a run of the retrier's
/// failure path; the tests hold the two in step).
#[inline]
fn vocabulary_index(code: &str) -> Option<u8> {
    Some(match code {
        "rate_limit" => 0,
        "auth_error" => 1,
        "timeout" => 2,
        "invalid_input" => 3,
        "tool_failed" => 4,
        "provider_unavailable" => 5,
        "guard_blocked" => 6,
        "budget_exhausted" => 7,
        "not_found" => 8,
        "context_overflow" => 9,
        "stream_interrupted" => 10,
        "output_truncated" => 11,
        "content_filtered" => 12,
        "invalid_output" => 13,
        "request_too_large" => 14,
        "unclassified" => 15,
        _ => return None,
    })
}

/// `rate_limit (waited 2.0s, header), timeout (waited 400ms, backoff), timeout`: each
/// failed attempt's code and the wait after it (milliseconds under a second, else seconds
/// to a tenth), `… N more` where some were left out.
impl fmt::Display for AttemptRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, attempt) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            if self.omitted() > 0 && i == Self::KEPT / 2 {
                write!(f, "… {} more, ", self.omitted())?;
            }
            f.write_str(attempt.code())?;
            match attempt.wait() {
                Some((wait, source)) if wait < Duration::from_secs(1) => {
                    write!(f, " (waited {}ms, {source})", wait.as_millis())?;
                }
                Some((wait, source)) => {
                    write!(f, " (waited {:.1}s, {source})", wait.as_secs_f64())?;
                }
                None => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vocabularys_places_and_the_sources_numbers_agree() {
        for (i, code) in VOCABULARY.iter().enumerate() {
            assert_eq!(vocabulary_index(code), Some(i as u8), "{code}");
        }
        assert_eq!(VOCABULARY.len(), crate::codes::ALL.len() + 1);
        for (i, source) in SOURCES.iter().enumerate() {
            assert_eq!(*source as u8, i as u8, "{source}");
        }
    }

    #[test]
    fn codes_outside_the_vocabulary_are_copied_once_and_capped() {
        let mut record = AttemptRecord::default();
        for n in 0..40u32 {
            record.failed(n + 1, &format!("custom.code_{}", n % 20));
            record.waited(Some((Duration::from_millis(5), WaitSource::Backoff)));
        }
        // The first code is kept in place, the next ones out of place.
        let log = record.spill.as_deref().unwrap();
        assert_eq!(log.owned.len(), MAX_OWNED);
        assert_eq!(record.len(), AttemptRecord::KEPT);
        assert_eq!(record.omitted(), 40 - AttemptRecord::KEPT as u32);
        assert_eq!(record.iter().next().unwrap().code(), "custom.code_0");
        // Past the copies kept, a new code reads `unclassified`.
        assert_eq!(record.last().unwrap().code(), "unclassified");
        record.failed(41, "bad]\ncode");
        assert_eq!(record.last().unwrap().code(), "unclassified");
        assert_eq!(record.last().unwrap().wait(), None);
    }

    /// A chain's records join with their attempts numbered along it, and what each left
    /// out is counted.
    #[cfg(all(feature = "stream", feature = "recover"))]
    #[test]
    fn records_appended_are_numbered_along_the_chain() {
        let mut chain = AttemptRecord::default();
        chain.failed(1, "rate_limit");
        chain.waited(None);
        let mut next = AttemptRecord::default();
        for n in 1..=30u32 {
            next.failed(n, "provider_unavailable");
            next.waited(Some((Duration::from_millis(n.into()), WaitSource::Backoff)));
        }
        chain.append(&next, 1);
        let numbers: Vec<u32> = chain.iter().map(|a| a.number()).collect();
        assert_eq!(numbers[..3], [1, 2, 3]);
        assert_eq!(*numbers.last().unwrap(), 31);
        assert_eq!(chain.iter().next().unwrap().code(), "rate_limit");
        assert_eq!(chain.iter().next().unwrap().wait(), None);
        assert_eq!(
            chain.last().unwrap().wait(),
            Some((Duration::from_millis(30), WaitSource::Backoff))
        );
        // Kept and left out add up to every attempt of both.
        assert_eq!(chain.len() as u32 + chain.omitted(), 31);
    }
}
