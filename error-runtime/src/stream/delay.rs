//! A delay written only in a message ("Please try again in 11.054s", as OpenAI's rate-limit
//! events say): read by a small bounded parser, for when no header or field gives one.

use std::time::Duration;

/// The most of a message searched for the delay, in bytes.
const SEARCHED: usize = 1024;

/// The longest delay read from a message: a longer one is not believed (the retrier's own
/// `max_wait` caps what it waits in any case).
const LONGEST: Duration = Duration::from_secs(24 * 60 * 60);

/// The delay in `message` after "try again in" (any case): a decimal number of `ms`, `s`,
/// `m` or `h` (`"11.054s"`, `"20ms"`, `"1m30s"` reads its first part, `1m`); `None` when the
/// message has none, or the number is not a plain decimal, or the delay is longer than a day.
///
/// ```ignore
/// assert_eq!(in_message("Please try again in 11.054s."), Some(Duration::from_millis(11_054)));
/// ```
pub(super) fn in_message(message: &str) -> Option<Duration> {
    let searched = &message[..message.floor_char_boundary(SEARCHED)];
    let lower = searched.to_ascii_lowercase();
    let at = lower.find("try again in ")? + "try again in ".len();
    let rest = &lower[at..];
    let digits = rest
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b'.')
        .count();
    let number: f64 = rest.get(..digits)?.parse().ok()?;
    let unit = rest[digits..].trim_start();
    let seconds = if unit.starts_with("ms") {
        number / 1000.0
    } else if unit.starts_with('s') {
        number
    } else if unit.starts_with('m') {
        number * 60.0
    } else if unit.starts_with('h') {
        number * 3600.0
    } else {
        return None;
    };
    let delay = Duration::try_from_secs_f64(seconds).ok()?;
    (delay <= LONGEST).then_some(delay)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn reads_the_providers_phrasings() {
        let cases = [
            (
                "Rate limit reached for gpt-4o. Please try again in 11.054s. Visit …",
                Some(11_054),
            ),
            ("Please try again in 20ms.", Some(20)),
            ("Try again in 2m.", Some(120_000)),
            ("try again in 1.5 s", Some(1_500)),
            ("Please try again later.", None),
            ("try again in 99999999h", None),
            ("try again in .s", None),
            ("no delay here", None),
        ];
        for (message, ms) in cases {
            assert_eq!(
                in_message(message),
                ms.map(Duration::from_millis),
                "{message}"
            );
        }
    }

    proptest! {
        #[test]
        fn never_panics_and_never_believes_more_than_a_day(text in "\\PC{0,64}", tail in "[0-9.]{0,12}[a-z ]{0,3}") {
            let message = format!("{text}try again in {tail}");
            if let Some(delay) = in_message(&message) {
                prop_assert!(delay <= LONGEST);
            }
        }
    }
}
