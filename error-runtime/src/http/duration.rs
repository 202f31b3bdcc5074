//! Durations as servers write them: `1500.5` milliseconds, protobuf's `"1.5s"`, Go's
//! `"1h2m3.5s"`. Integer arithmetic: anything malformed is `None`, and a well-formed value
//! too large for a `Duration` saturates at `Duration::MAX` (a server asking for an absurd
//! wait must not be retried at once: the retrier's `max_wait` then gives up).

use std::time::Duration;

const NANOS_PER_SECOND: u128 = 1_000_000_000;

/// Nanoseconds in a millisecond.
pub(super) const MILLISECOND: u128 = 1_000_000;
/// Nanoseconds in a second.
pub(super) const SECOND: u128 = NANOS_PER_SECOND;

/// `digits[.digits]` (either side may be empty, not both) of `unit` nanoseconds.
pub(super) fn decimal(value: &str, unit: u128) -> Option<Duration> {
    from_nanos(decimal_nanos(value, unit)?)
}

/// A protobuf JSON duration: seconds with an optional fraction and an `s` (`"30s"`, `"1.5s"`).
/// Negative durations are refused.
pub(super) fn protobuf(value: &str) -> Option<Duration> {
    decimal(value.trim().strip_suffix('s')?, SECOND)
}

/// A Go duration (`time.Duration.String()`): decimal numbers each with a unit (`ns`, `us`,
/// `µs`, `ms`, `s`, `m`, `h`), summed, or a bare `0`. No sign: a negative delay means nothing.
pub(super) fn go(value: &str) -> Option<Duration> {
    let mut rest = value.trim();
    if rest == "0" {
        return Some(Duration::ZERO);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total: u128 = 0;
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (number, tail) = rest.split_at_checked(number_len)?;
        let unit_len = tail
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(tail.len());
        let (unit, next) = tail.split_at_checked(unit_len)?;
        let unit = match unit {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => MILLISECOND,
            "s" => SECOND,
            "m" => 60 * SECOND,
            "h" => 3_600 * SECOND,
            _ => return None,
        };
        total = total.saturating_add(decimal_nanos(number, unit)?);
        rest = next;
    }
    from_nanos(total)
}

fn decimal_nanos(value: &str, unit: u128) -> Option<u128> {
    let (whole, fraction) = value.split_once('.').unwrap_or((value, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty()) || !digits(whole) || !digits(fraction) {
        return None;
    }
    let mut count: u128 = 0;
    for digit in whole.bytes() {
        count = count
            .saturating_mul(10)
            .saturating_add(u128::from(digit - b'0'));
    }
    let mut nanos = count.saturating_mul(unit);
    // Each fractional digit is worth a tenth of the one before; below a nanosecond, nothing.
    let mut scale = unit;
    for digit in fraction.bytes() {
        scale /= 10;
        if scale == 0 {
            break;
        }
        nanos = nanos.saturating_add(u128::from(digit - b'0') * scale);
    }
    Some(nanos)
}

fn from_nanos(nanos: u128) -> Option<Duration> {
    let Ok(secs) = u64::try_from(nanos / NANOS_PER_SECOND) else {
        return Some(Duration::MAX);
    };
    let subsec = u32::try_from(nanos % NANOS_PER_SECOND).ok()?;
    Some(Duration::new(secs, subsec))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_are_exact_down_to_the_nanosecond() {
        assert_eq!(decimal("1.5", SECOND), Some(Duration::from_millis(1500)));
        assert_eq!(decimal(".25", SECOND), Some(Duration::from_millis(250)));
        assert_eq!(decimal("2.", MILLISECOND), Some(Duration::from_millis(2)));
        assert_eq!(
            decimal("0.0000000019", SECOND),
            Some(Duration::from_nanos(1))
        );
        assert_eq!(go("1.5h"), Some(Duration::from_secs(5400)));
        assert_eq!(go("0.1m"), Some(Duration::from_secs(6)));
    }

    #[test]
    fn malformed_is_none_and_too_large_saturates() {
        for value in ["", ".", "1..2", "1e3", "-1", "+1", " 1 2", "1_000"] {
            assert_eq!(decimal(value, SECOND), None, "{value:?}");
        }
        assert_eq!(decimal(&"9".repeat(60), SECOND), Some(Duration::MAX));
        assert_eq!(decimal("18446744073709551616", SECOND), Some(Duration::MAX));
        assert_eq!(go(&format!("{}h", u64::MAX)), Some(Duration::MAX));
        assert_eq!(go("1h1h1h"), Some(Duration::from_secs(3 * 3600)));
    }
}
