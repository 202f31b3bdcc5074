//! Words, not strings: a message or a name is read as words (split at anything that is not
//! a letter or a digit, and at camelCase), on word boundaries, by the word families of
//! `providers`. Text in quotes is the caller's own text echoed back and is never read.
//! Writing systems without spaces (Chinese, Japanese) are read by their phrases.

use std::sync::OnceLock;

use super::kind::Kind;
use super::providers::{
    FAMILIES, Family, HIGH_LOAD, LONG_PERIOD, SHORT_FAMILY, SHORT_WINDOW, SOON, TIME_WINDOW,
};
use crate::core::summary::floor_char_boundary;

/// The most of a text that is read, in bytes.
const READ: usize = 16 * 1024;

/// The longest span between quotes taken as quoted text: a caller's name or value echoed
/// back is short, while a "quote" longer than this is most likely a relayed message.
const MAX_QUOTED: usize = 200;

/// How many words may stand between two terms of a pattern joined by ` ~ `.
const GAP: usize = 2;

/// How many words may stand between two terms joined by ` ~~ `: within a sentence's reach,
/// for words that mean one thing wherever they meet (a balance and "insufficient").
const WIDE_GAP: usize = 6;

/// The word family that a text or a name said, and the pattern of it that matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Said {
    /// What the family means.
    pub(crate) kind: Kind,
    /// The family's name (`money`, `rate limit`, …).
    pub(crate) family: &'static str,
    /// The pattern that matched, as the table writes it.
    pub(crate) words: &'static str,
}

/// Text made ready for matching: its words in lowercase, and the whole in lowercase with
/// every run of other characters one space (where phrases without spaces are found).
struct Prepared {
    flat: String,
    /// Where each word starts and ends in `flat`.
    words: Vec<(usize, usize)>,
    /// The words' places, ordered by the words (where a word, or the words a stem begins,
    /// are found without reading every word).
    sorted: Vec<u32>,
    /// Whether the text is all ASCII: then no phrase of a writing system outside it is
    /// looked for.
    ascii: bool,
}

impl Prepared {
    fn new(text: &str) -> Prepared {
        let text = &text[..floor_char_boundary(text, READ)];
        let mut flat = String::with_capacity(text.len() + 8);
        let mut words = Vec::new();
        let mut start: Option<usize> = None;
        let mut previous: Option<char> = None;
        for c in text.chars() {
            if c.is_alphanumeric() {
                // camelCase: a capital after a lowercase letter starts a word.
                let camel = c.is_uppercase() && previous.is_some_and(char::is_lowercase);
                if camel {
                    if let Some(s) = start.take() {
                        words.push((s, flat.len()));
                        flat.push(' ');
                    }
                }
                if start.is_none() {
                    start = Some(flat.len());
                }
                flat.extend(c.to_lowercase());
            } else if let Some(s) = start.take() {
                words.push((s, flat.len()));
                flat.push(' ');
            }
            previous = Some(c);
        }
        if let Some(s) = start {
            words.push((s, flat.len()));
        }
        let mut prepared = Prepared {
            ascii: flat.is_ascii(),
            flat,
            words,
            sorted: Vec::new(),
        };
        let mut sorted: Vec<u32> = (0..prepared.words.len() as u32).collect();
        sorted.sort_by(|a, b| prepared.word(*a as usize).cmp(prepared.word(*b as usize)));
        prepared.sorted = sorted;
        prepared
    }

    fn word(&self, i: usize) -> &str {
        let (s, e) = self.words[i];
        &self.flat[s..e]
    }

    /// The places of the words `part` matches (the word itself, or every word a stem
    /// begins), found by binary search.
    fn places(&self, part: Part) -> impl Iterator<Item = usize> + '_ {
        let (text, stem) = match part {
            Part::Word(word) => (word, false),
            Part::Stem(stem) => (stem, true),
        };
        let from = self
            .sorted
            .partition_point(|&i| self.word(i as usize) < text);
        self.sorted[from..]
            .iter()
            .map(|&i| i as usize)
            .take_while(move |&i| {
                let word = self.word(i);
                if stem {
                    word.starts_with(text)
                } else {
                    word == text
                }
            })
    }
}

/// One word of a pattern: the word itself, or a stem (`exhaust*`) that begins words.
#[derive(Clone, Copy, Debug)]
pub(super) enum Part {
    Word(&'static str),
    Stem(&'static str),
}

impl Part {
    fn fits(self, word: &str) -> bool {
        match self {
            Part::Word(part) => word == part,
            Part::Stem(stem) => word.starts_with(stem),
        }
    }
}

/// A term of a pattern: its alternatives (each words in a row), and how many words may
/// stand before it.
#[derive(Debug)]
pub(super) struct Term {
    gap: usize,
    alternatives: Vec<Vec<Part>>,
}

/// A pattern, read once. A pattern that starts with a letter outside ASCII is a phrase found
/// anywhere (Chinese and Japanese have no spaces between words); else its terms (separated
/// by ` ~ `) match words in order, at most [`GAP`] words apart ([`WIDE_GAP`] after ` ~~ `).
/// A term lists alternatives separated by `|`; an alternative ending in `*` matches every
/// word it begins, and one joined by `_` matches consecutive words.
#[derive(Debug)]
pub(super) enum Compiled {
    Phrase(&'static str),
    Words(Vec<Term>),
}

impl Compiled {
    /// `pattern` read once.
    pub(super) fn new(pattern: &'static str) -> Compiled {
        if !pattern.starts_with(|c: char| c.is_ascii()) {
            return Compiled::Phrase(pattern);
        }
        let terms = pattern
            .split(" ~")
            .map(|term| {
                let (term, gap) = match term.strip_prefix("~ ") {
                    Some(term) => (term, WIDE_GAP),
                    None => (term.trim_start(), GAP),
                };
                let alternatives = term
                    .split('|')
                    .map(|alternative| {
                        alternative
                            .split('_')
                            .map(|part| match part.strip_suffix('*') {
                                Some(stem) => Part::Stem(stem),
                                None => Part::Word(part),
                            })
                            .collect()
                    })
                    .collect();
                Term { gap, alternatives }
            })
            .collect();
        Compiled::Words(terms)
    }

    fn matches(&self, text: &Prepared) -> bool {
        let terms = match self {
            Compiled::Phrase(phrase) => return !text.ascii && text.flat.contains(phrase),
            Compiled::Words(terms) => terms,
        };
        let Some((first, rest)) = terms.split_first() else {
            return false;
        };
        first.alternatives.iter().any(|alternative| {
            let Some((head, tail)) = alternative.split_first() else {
                return false;
            };
            text.places(*head).any(|at| {
                let Some(mut end) = words_at(tail, text, at + 1) else {
                    return false;
                };
                for term in rest {
                    let found = (end..text.words.len().min(end + term.gap + 1))
                        .find_map(|at| term_at(term, text, at));
                    match found {
                        Some(next) => end = next,
                        None => return false,
                    }
                }
                true
            })
        })
    }
}

/// Where the words after `parts` begin when they match the words from `at` on.
fn words_at(parts: &[Part], text: &Prepared, at: usize) -> Option<usize> {
    let mut at = at;
    for part in parts {
        if !part.fits(text.words.get(at).map(|_| text.word(at))?) {
            return None;
        }
        at += 1;
    }
    Some(at)
}

/// Where the words after `term` begin when `term` matches the words at `at`.
fn term_at(term: &Term, text: &Prepared, at: usize) -> Option<usize> {
    term.alternatives
        .iter()
        .find_map(|alternative| words_at(alternative, text, at))
}

/// The families with their patterns read once.
fn families() -> &'static [(&'static Family, Vec<Compiled>)] {
    static COMPILED: OnceLock<Vec<(&'static Family, Vec<Compiled>)>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        FAMILIES
            .iter()
            .map(|family| {
                (
                    family,
                    family.patterns.iter().map(|p| Compiled::new(p)).collect(),
                )
            })
            .collect()
    })
}

/// Patterns read once, for the short window, "soon" and the long period.
fn compiled(
    patterns: &'static [&'static str],
    cell: &'static OnceLock<Vec<Compiled>>,
) -> &'static [Compiled] {
    cell.get_or_init(|| patterns.iter().map(|p| Compiled::new(p)).collect())
}

/// What the families say of a message: the first family, in the table's order, one of
/// whose patterns matches outside quotes.
pub(super) fn in_message(text: &str) -> Option<Said> {
    read(&Prepared::new(&unquoted(text)))
}

/// What your vocabulary's phrases say of a message (see [`Vocabulary`](super::Vocabulary)),
/// outside quotes, and the phrase that matched.
pub(super) fn in_message_yours(text: &str) -> Option<(Kind, &'static str)> {
    let mut prepared = None;
    super::vocabulary::phrase(|pattern| {
        let text = prepared.get_or_insert_with(|| Prepared::new(&unquoted(text)));
        pattern.matches(text)
    })
}

/// What the families say of a text read whole, quotes and all (JSON that does not parse,
/// whose quotes are its syntax).
pub(super) fn in_text(text: &str) -> Option<Said> {
    read(&Prepared::new(text))
}

/// What the families say of a name (`insufficient_user_quota`, `QuotaExhausted`,
/// `AllocationQuota.FreeTierOnly`): its words read as a message's are.
pub(super) fn in_name(name: &str) -> Option<Said> {
    read(&Prepared::new(name))
}

/// Whether `text` names a short window (per minute, per second, `TPM`), quoted or not, or
/// asks to try again later and names no long period: what turns a quota's limit into a
/// rate limit.
pub(super) fn names_a_short_window(text: &str) -> bool {
    static SHORT: OnceLock<Vec<Compiled>> = OnceLock::new();
    static SOONER: OnceLock<Vec<Compiled>> = OnceLock::new();
    static LONG: OnceLock<Vec<Compiled>> = OnceLock::new();
    let text = Prepared::new(text);
    let any = |patterns: &[Compiled]| patterns.iter().any(|pattern| pattern.matches(&text));
    any(compiled(SHORT_WINDOW, &SHORT))
        || (any(compiled(SOON, &SOONER)) && !any(compiled(LONG_PERIOD, &LONG)))
}

/// The status a message writes, from 400 to 599: three digits at most three words after
/// `HTTP`, `status` or `code` ("HTTP 401", "HTTP/1.1 503", "Request failed with status code
/// 429", "Error code: 429"), or in angle brackets opening it (`<503> InternalError…`).
/// A relay that writes its upstream's status so says what the upstream answered.
pub(super) fn status_in(text: &str) -> Option<u16> {
    let status = |word: &str| {
        (word.len() == 3 && word.bytes().all(|b| b.is_ascii_digit()))
            .then(|| word.parse::<u16>().ok())
            .flatten()
            .filter(|status| (400..=599).contains(status))
    };
    let bracketed = text.trim_start().strip_prefix('<').and_then(|rest| {
        let number = rest.get(..3)?;
        rest[3..].starts_with('>').then(|| status(number)).flatten()
    });
    if bracketed.is_some() {
        return bracketed;
    }
    // One pass over the words, remembering how far back the last word that names a status
    // stood.
    let text = &text[..floor_char_boundary(text, READ)];
    let mut since_label: Option<usize> = None;
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
    {
        if let Some(found) = status(word).filter(|_| since_label.is_some_and(|n| n < 3)) {
            return Some(found);
        }
        let label = ["http", "status", "code", "statuscode"]
            .iter()
            .any(|label| word.eq_ignore_ascii_case(label));
        since_label = if label {
            Some(0)
        } else {
            since_label.map(|n| n + 1)
        };
    }
    None
}

/// The first family that matches, unless the same text says something that outweighs it
/// ([`outweighs`]).
fn read(text: &Prepared) -> Option<Said> {
    let families = families();
    let (place, first) = families
        .iter()
        .enumerate()
        .find_map(|(place, (family, patterns))| Some((place, says(family, patterns, text)?)))?;
    let outweighing = families[place + 1..]
        .iter()
        .filter(|(family, _)| outweighs(family, first))
        .find_map(|(family, patterns)| says(family, patterns, text));
    Some(outweighing.unwrap_or(first))
}

/// Whether words of `later` outweigh `first`'s in the same text. Words of a content policy
/// give way to words that say the server failed (an overload, an internal error, a
/// timeout): "the content filter service is unavailable" is an outage, not a refusal.
/// Words of an outage give way to words of a bad request: a relay's "upstream request
/// failed: invalid request body" relays the provider's refusal, which sending again would
/// not mend. The server's high load gives way to a limit counted per minute: "high demand
/// … limited to 1 request per minute" names the caller's rate. Words of a context window
/// give way to a timeout's (Go's "context deadline exceeded" is a deadline, not a prompt
/// too long) and to a time window's ("too many tokens, please wait before trying again",
/// "tokens allowed within a given time frame": a token limit that waiting lifts).
fn outweighs(later: &Family, first: Said) -> bool {
    match first.kind {
        Kind::ContentFiltered => matches!(later.kind, Kind::Unavailable | Kind::Timeout),
        Kind::Unavailable => {
            later.kind == Kind::InvalidInput
                || (first.family == HIGH_LOAD && later.name == SHORT_FAMILY)
        }
        Kind::ContextOverflow => later.kind == Kind::Timeout || later.name == TIME_WINDOW,
        _ => false,
    }
}

/// What `family` says of `text`, when one of its `patterns` (read once) matches.
fn says(family: &'static Family, patterns: &[Compiled], text: &Prepared) -> Option<Said> {
    let at = patterns.iter().position(|pattern| pattern.matches(text))?;
    Some(Said {
        kind: family.kind,
        family: family.name,
        words: family.patterns[at],
    })
}

/// `text` without what stands in quotes or backticks (`'…'`, `"…"`, `` `…` ``, `“…”`,
/// `‘…’`, `「…」`, `『…』`): the caller's own text echoed back (a rejected tool name, a
/// parameter's value) never decides what a failure is. A single quote opens a quotation
/// only after a character that is not a letter or a digit (an apostrophe in "you've" does
/// not), and closes one only before such a character. A span longer than [`MAX_QUOTED`], or
/// one that does not close, is kept.
pub(super) fn unquoted(text: &str) -> String {
    let text = &text[..floor_char_boundary(text, READ)];
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut before: Option<char> = None;
    while let Some(c) = rest.chars().next() {
        let after_open = &rest[c.len_utf8()..];
        let close = match c {
            '"' | '`' => Some(c),
            '\'' if !before.is_some_and(char::is_alphanumeric) => Some('\''),
            '“' => Some('”'),
            '‘' => Some('’'),
            '「' => Some('」'),
            '『' => Some('』'),
            _ => None,
        };
        if let Some(close) = close {
            if let Some(len) = quoted_len(after_open, close) {
                out.push(' ');
                rest = &after_open[len + close.len_utf8()..];
                before = Some(' ');
                continue;
            }
        }
        out.push(c);
        before = Some(c);
        rest = after_open;
    }
    out
}

/// The length of the quoted text at the start of `text` up to `close`, when it closes
/// within [`MAX_QUOTED`] bytes (a single quote only before a character that is not a
/// letter or a digit).
fn quoted_len(text: &str, close: char) -> Option<usize> {
    let window = &text[..floor_char_boundary(text, MAX_QUOTED + 4)];
    window
        .char_indices()
        .filter(|(_, c)| *c == close)
        .map(|(at, _)| at)
        .find(|&at| {
            close != '\''
                || !text[at + 1..]
                    .chars()
                    .next()
                    .is_some_and(char::is_alphanumeric)
        })
        .filter(|&at| at <= MAX_QUOTED)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn kind(text: &str) -> Option<Kind> {
        in_message(text).map(|said| said.kind)
    }

    #[test]
    fn names_are_split_into_words() {
        let words = |name: &str| {
            let p = Prepared::new(name);
            (0..p.words.len())
                .map(|i| p.word(i).to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            words("AllocationQuota.FreeTierOnly"),
            ["allocation", "quota", "free", "tier", "only"]
        );
        assert_eq!(
            words("insufficient_user_quota"),
            ["insufficient", "user", "quota"]
        );
        assert_eq!(words("QUOTA_EXHAUSTED"), ["quota", "exhausted"]);
        assert_eq!(words("billing-not-active"), ["billing", "not", "active"]);
    }

    #[test]
    fn words_match_on_word_boundaries_only() {
        // "arrears" inside another word, "credit" as part of "accredited".
        assert_eq!(kind("the accredited partner list"), None);
        assert_eq!(
            kind("Your account balance is insufficient"),
            Some(Kind::BudgetExhausted)
        );
    }

    #[test]
    fn quoted_text_never_decides() {
        assert_eq!(
            kind("Invalid tool name 'too many requests': must match ^[a-z_]+$"),
            None
        );
        assert_eq!(kind("tool `overloaded` is not defined"), None);
        assert_eq!(kind("model \"insufficient balance\" not known"), None);
        // An apostrophe is not a quote.
        assert_eq!(
            kind("You've run out of credits, please top up"),
            Some(Kind::BudgetExhausted)
        );
        // A quote that never closes, or one too long to be a name, is read.
        assert_eq!(kind("'rate limit exceeded"), Some(Kind::RateLimit));
    }

    proptest! {
        #[test]
        fn any_text_is_read_without_panicking(text in "\\PC{0,300}") {
            let _ = in_message(&text);
            let _ = in_name(&text);
            prop_assert!(unquoted(&text).len() <= text.len() + 1);
        }

        #[test]
        fn quotes_and_camel_case_of_any_shape(text in "[a-zA-Z '\"`“”‘’「」 _.-]{0,200}") {
            let _ = in_message(&text);
        }
    }

    #[test]
    fn a_huge_text_is_read_up_to_its_limit() {
        let text = "quota ".repeat(2_000_000);
        assert_eq!(Prepared::new(&text).words.len(), READ / 6 + 1);
        let _ = in_message(&text);
    }
}
