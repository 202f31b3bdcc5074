//! A delay written only in a message ("Please try again in 11.054s", as OpenAI's and Groq's
//! rate-limit messages say; "Please retry in 33.36s", as Google's do): read by a small bounded
//! parser, for when no header or field gives one.

use std::time::Duration;

use crate::core::summary::floor_char_boundary;

/// The most of a message searched for the delay, in bytes.
const SEARCHED: usize = 4096;

/// The longest delay read from a message or a body's field: anything up to it is read as the
/// server wrote it, and a longer one (or one too large for a `Duration`) saturates at it.
/// Either way the retrier's own `max_wait` ends a run the server put days away (OpenAI has
/// written "Please try again in 114h18m0s") instead of retrying it on backoff; what keeps a
/// wait for others (a pacer's pause, a shared store, a fallback's cooldown) holds it far
/// shorter.
pub(super) const LONGEST: Duration = Duration::from_secs(31 * 24 * 60 * 60);

/// The words a delay follows, in lowercase.
const LEADS: [&str; 8] = [
    "try again in ",
    "try again after ",
    "retry in ",
    "retry after ",
    "reset after ",
    "reset in ",
    "resets after ",
    "resets in ",
];

/// The delay in `message` after "try again in", "try again after", "retry in", "retry
/// after", or "reset(s) in" and "reset(s) after" (a quota that says when it comes back), in
/// any case: a
/// decimal number of `ms`, `s`, `m` or `h`, or of milliseconds, seconds, minutes or hours
/// spelt out, with Go's compound form read whole (`"1m30s"`, `"6m0s"`). `None` when the
/// message has none, or the number is not a plain decimal (no sign, no exponent); a delay
/// longer than 31 days is 31 days ([`saturating`]).
///
/// ```ignore
/// assert_eq!(in_message("Please try again in 11.054s."), Some(Duration::from_millis(11_054)));
/// ```
pub(crate) fn in_message(message: &str) -> Option<Duration> {
    let searched = &message[..floor_char_boundary(message, SEARCHED)];
    let lower = searched.to_ascii_lowercase();
    let at = LEADS
        .iter()
        .filter_map(|lead| lower.find(lead).map(|at| at + lead.len()))
        .min()?;
    let (mut seconds, mut rest, mut compact) = segment(&lower[at..])?;
    // Go's compound durations go on with a digit right after the unit: "1m30s".
    while compact && rest.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        let Some((part, after, more)) = segment(rest) else {
            break;
        };
        (seconds, rest, compact) = (seconds + part, after, more);
    }
    saturating(seconds)
}

/// `seconds` as a delay of at most [`LONGEST`]: a wait too long to believe, however large
/// (infinite included), is a very long wait, never a reason to retry at once. `None` for a
/// negative number or NaN, which mean no wait at all.
pub(super) fn saturating(seconds: f64) -> Option<Duration> {
    if seconds.is_nan() || seconds < 0.0 {
        return None;
    }
    Some(Duration::try_from_secs_f64(seconds).map_or(LONGEST, |delay| delay.min(LONGEST)))
}

/// One number and its unit at the start of `text`: the seconds it stands for, the text after
/// it, and whether the unit was a one-letter or two-letter abbreviation (`ms`, `s`, `m`,
/// `h`), after which Go's compound form may go on.
fn segment(text: &str) -> Option<(f64, &str, bool)> {
    let digits = text
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b'.')
        .count();
    let number: f64 = text.get(..digits)?.parse().ok()?;
    let unit = text[digits..].trim_start();
    let word_len = unit.bytes().take_while(u8::is_ascii_alphabetic).count();
    let word = &unit[..word_len];
    let scale = match word {
        "ms" | "millisecond" | "milliseconds" => 0.001,
        "s" | "sec" | "secs" | "second" | "seconds" => 1.0,
        "m" | "min" | "mins" | "minute" | "minutes" => 60.0,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3600.0,
        _ => return None,
    };
    let compact = matches!(word, "ms" | "s" | "m" | "h");
    Some((number * scale, &unit[word_len..], compact))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const LONGEST_MS: u64 = 31 * 24 * 60 * 60 * 1000;

    #[test]
    fn reads_the_providers_phrasings() {
        let cases = [
            (
                "Rate limit reached for gpt-4o. Please try again in 11.054s. Visit …",
                Some(11_054),
            ),
            ("Please try again in 20ms.", Some(20)),
            ("Your quota will reset after 5s.", Some(5_000)),
            ("The limit resets in 2m.", Some(120_000)),
            ("Try again in 2m.", Some(120_000)),
            ("try again in 1.5 s", Some(1_500)),
            ("Please try again in 1m30s.", Some(90_000)),
            ("Please try again in 6m0s.", Some(360_000)),
            ("Please try again in 2h1m3.5s", Some(7_263_500)),
            ("Please retry in 33.360230493s.", Some(33_360)),
            ("try again in 20 seconds", Some(20_000)),
            ("try again in 250 milliseconds", Some(250)),
            ("try again in 3 minutes", Some(180_000)),
            ("Please try again later.", None),
            ("try again in 99999999h", Some(LONGEST_MS)),
            ("Please try again in 744h.", Some(LONGEST_MS)),
            ("Please try again in 1080h.", Some(LONGEST_MS)),
            ("retry in 5000000000s", Some(LONGEST_MS)),
            ("try again in 2678400.001s", Some(LONGEST_MS)),
            ("try again in -5s", None),
            ("try again in 1.2.3s", None),
            ("try again in 1e30s", None),
            ("Please try again in 114h18m0s.", Some(411_480_000)),
            ("please try again after 1 seconds", Some(1_000)),
            ("Please retry after 22 seconds", Some(22_000)),
            ("try again in .s", None),
            ("try again in 5 days", None),
            ("no delay here", None),
        ];
        for (message, ms) in cases {
            assert_eq!(
                in_message(message).map(|d| d.as_millis()),
                ms.map(|ms: u64| u128::from(ms)),
                "{message}"
            );
        }
    }

    #[test]
    fn a_number_too_large_saturates_and_a_negative_one_is_no_wait() {
        assert_eq!(saturating(2.5), Some(Duration::from_millis(2_500)));
        for seconds in [2_678_400.5, 1e19, 1e20, f64::MAX, f64::INFINITY] {
            assert_eq!(saturating(seconds), Some(LONGEST), "{seconds}");
        }
        for seconds in [-1.0, -0.5, f64::NEG_INFINITY, f64::NAN] {
            assert_eq!(saturating(seconds), None, "{seconds}");
        }
    }

    proptest! {
        #[test]
        fn never_panics_and_never_believes_more_than_a_month(text in "\\PC{0,64}", tail in "[0-9.]{0,12}[a-z ]{0,3}([0-9.]{0,4}[a-z]{0,2}){0,3}") {
            let message = format!("{text}try again in {tail}");
            if let Some(delay) = in_message(&message) {
                prop_assert!(delay <= LONGEST);
            }
        }

        #[test]
        fn a_wait_too_long_to_believe_saturates(digits in "[1-9][0-9]{7,400}", unit in "(ms|s|m|h| seconds| hours)") {
            // Eight digits or more of any unit is over a month, or (in milliseconds) close
            // to one: never dropped, which would retry at once.
            let message = format!("Please try again in {digits}{unit}.");
            let delay = in_message(&message);
            prop_assert!(delay.is_some(), "{message}");
            if unit != "ms" {
                prop_assert_eq!(delay, Some(LONGEST));
            }
        }
    }
}
