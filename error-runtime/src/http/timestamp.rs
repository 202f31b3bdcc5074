//! Times as servers write them in headers: RFC 3339 (`2024-04-19T18:30:00Z`), the form of
//! Anthropic's rate-limit resets. Strict, integer arithmetic: anything malformed is `None`.

use std::time::{Duration, SystemTime};

const SECONDS_PER_DAY: i64 = 86_400;

/// An RFC 3339 date-time, `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, as a `SystemTime`.
///
/// `T` and `Z` may be lowercase, as RFC 3339 allows; a leap second (`:60`) counts as the
/// first second of the next minute; digits of the fraction below a nanosecond are dropped.
/// `None` for anything else: a missing part, a space, a date that does not exist
/// (`2023-02-29`), an offset without its colon.
pub(super) fn rfc3339(text: &str) -> Option<SystemTime> {
    let bytes = text.as_bytes();
    let separators = [(4, b'-'), (7, b'-'), (13, b':'), (16, b':')];
    if !separators.iter().all(|&(at, c)| bytes.get(at) == Some(&c))
        || !matches!(bytes.get(10), Some(b'T' | b't'))
    {
        return None;
    }
    let year = number(bytes, 0, 4)?;
    let month = number(bytes, 5, 2)?;
    let day = number(bytes, 8, 2)?;
    let hour = number(bytes, 11, 2)?;
    let minute = number(bytes, 14, 2)?;
    let second = number(bytes, 17, 2)?;
    if !(1..=12).contains(&month)
        || !(1..=days_in_month(year, month)).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }

    let mut rest = bytes.get(19..)?;
    let mut nanos: u32 = 0;
    if let Some(fraction) = rest.strip_prefix(b".") {
        let len = fraction
            .iter()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(fraction.len());
        let (digits, after) = fraction.split_at_checked(len)?;
        if digits.is_empty() {
            return None;
        }
        // Nine digits make nanoseconds; the first nine are kept, padded on the right.
        let mut scale = 100_000_000;
        for &digit in digits.iter().take(9) {
            nanos += u32::from(digit - b'0') * scale;
            scale /= 10;
        }
        rest = after;
    }

    let offset = match rest {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
            let hours = number(rest, 1, 2)?;
            let minutes = number(rest, 4, 2)?;
            if hours > 23 || minutes > 59 {
                return None;
            }
            let offset = hours * 3_600 + minutes * 60;
            if *sign == b'-' { -offset } else { offset }
        }
        _ => return None,
    };

    // The wall clock is local to the offset: UTC is the wall clock less the offset.
    let seconds =
        days_from_civil(year, month, day) * SECONDS_PER_DAY + hour * 3_600 + minute * 60 + second
            - offset;
    let whole = Duration::from_secs(seconds.unsigned_abs());
    let at = if seconds >= 0 {
        SystemTime::UNIX_EPOCH.checked_add(whole)?
    } else {
        SystemTime::UNIX_EPOCH.checked_sub(whole)?
    };
    at.checked_add(Duration::from_nanos(u64::from(nanos)))
}

/// The decimal number written by `len` ASCII digits at `from`.
fn number(bytes: &[u8], from: usize, len: usize) -> Option<i64> {
    bytes
        .get(from..from.checked_add(len)?)?
        .iter()
        .try_fold(0, |n: i64, &digit| {
            digit
                .is_ascii_digit()
                .then(|| n * 10 + i64::from(digit - b'0'))
        })
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar, counted in eras of
/// 400 years (146,097 days) from 0000-03-01, so that February's length comes last.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year.rem_euclid(400);
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}
