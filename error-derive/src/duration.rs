//! Durations written in attributes (`"250ms"`, `"1.5s"`, `"2m"`), parsed and checked at compile time.

use proc_macro2::TokenStream;
use quote::quote;

/// A checked, positive duration in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Nanos(pub u128);

const UNITS: [(&str, u128); 6] = [
    ("ns", 1),
    ("us", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("m", 60_000_000_000),
    ("h", 3_600_000_000_000),
];

const EXAMPLE: &str = "write a positive number with a unit, like \"250ms\", \"1.5s\" or \"2m\" (units: ns, us, ms, s, m, h)";

/// Parses `text`, or says what is wrong with it and what to write instead.
pub fn parse(text: &str) -> Result<Nanos, String> {
    let text = text.trim();
    if text.starts_with('-') {
        return Err(format!(
            "a duration cannot be negative: `{text}`; {EXAMPLE}"
        ));
    }
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let unit = unit.trim_start();
    if number.is_empty()
        || number.starts_with('.')
        || number.ends_with('.')
        || number.matches('.').count() > 1
    {
        return Err(format!("malformed duration `{text}`: {EXAMPLE}"));
    }
    if unit.is_empty() {
        return Err(format!("duration `{text}` has no unit: {EXAMPLE}"));
    }
    let Some(&(_, scale)) = UNITS.iter().find(|(name, _)| *name == unit) else {
        let fix = match meant_unit(unit) {
            Some(meant) => format!("write \"{number}{meant}\""),
            None => "use ns, us, ms, s, m or h".to_string(),
        };
        return Err(format!("unknown unit `{unit}` in duration `{text}`: {fix}"));
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let too_long = || format!("duration `{text}` is too long");
    let whole: u128 = whole.parse().map_err(|_| too_long())?;
    let mut nanos = whole.checked_mul(scale).ok_or_else(too_long)?;
    // Each fractional digit is worth a tenth of the one before; exact in integers.
    let mut place = scale;
    for digit in fraction.bytes() {
        let value = u128::from(digit - b'0');
        if place % 10 != 0 {
            if value != 0 {
                return Err(format!("duration `{text}` is finer than a nanosecond"));
            }
            continue;
        }
        place /= 10;
        nanos = nanos.checked_add(value * place).ok_or_else(too_long)?;
    }
    if nanos == 0 {
        return Err(format!(
            "a duration must be more than zero, not `{text}`; {EXAMPLE}"
        ));
    }
    if nanos / 1_000_000_000 > u128::from(u64::MAX) {
        return Err(too_long());
    }
    Ok(Nanos(nanos))
}

/// The unit a longer or foreign spelling stands for: `sec` for `s`, `µs` for `us`.
fn meant_unit(unit: &str) -> Option<&'static str> {
    Some(match unit.to_ascii_lowercase().as_str() {
        "nanos" | "nsec" | "nanosecond" | "nanoseconds" => "ns",
        "µs" | "μs" | "micros" | "usec" | "microsecond" | "microseconds" => "us",
        "millis" | "msec" | "msecs" | "millisecond" | "milliseconds" => "ms",
        "sec" | "secs" | "second" | "seconds" => "s",
        "min" | "mins" | "minute" | "minutes" => "m",
        "hr" | "hrs" | "hour" | "hours" => "h",
        _ => return None,
    })
}

impl Nanos {
    pub fn to_tokens(self) -> TokenStream {
        let secs = (self.0 / 1_000_000_000) as u64;
        let nanos = (self.0 % 1_000_000_000) as u32;
        quote!(::core::time::Duration::new(#secs, #nanos))
    }
}

impl std::fmt::Display for Nanos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.0;
        let (value, unit) = UNITS
            .iter()
            .rev()
            .find(|(_, scale)| n % scale == 0)
            .map(|(unit, scale)| (n / scale, *unit))
            .unwrap_or((n, "ns"));
        write!(f, "{value}{unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::{Nanos, parse};
    use proptest::prelude::*;

    #[test]
    fn accepts_every_unit_and_decimals() {
        assert_eq!(parse("250ms").ok(), Some(Nanos(250_000_000)));
        assert_eq!(parse("1.5s").ok(), Some(Nanos(1_500_000_000)));
        assert_eq!(parse("2m").ok(), Some(Nanos(120_000_000_000)));
        assert_eq!(parse("1h").ok(), Some(Nanos(3_600_000_000_000)));
        assert_eq!(parse("7us").ok(), Some(Nanos(7_000)));
        assert_eq!(parse("3ns").ok(), Some(Nanos(3)));
        assert_eq!(parse("0.001s").ok(), Some(Nanos(1_000_000)));
        assert_eq!(parse("1.000000001s").ok(), Some(Nanos(1_000_000_001)));
    }

    #[test]
    fn rejects_with_the_reason() {
        let err = |s: &str| parse(s).err().unwrap();
        assert!(err("fast").starts_with("malformed duration `fast`"));
        assert!(err("5").starts_with("duration `5` has no unit"));
        assert!(err("5sec").starts_with("unknown unit `sec`"));
        assert!(err("0s").starts_with("a duration must be more than zero"));
        assert!(err("0.0ms").starts_with("a duration must be more than zero"));
        assert!(err("-1s").starts_with("a duration cannot be negative"));
        assert!(err("1.5ns").contains("finer than a nanosecond"));
        assert!(err("1.s").starts_with("malformed duration"));
        assert!(err(".5s").starts_with("malformed duration"));
        assert!(err("1.2.3s").starts_with("malformed duration"));
        assert!(err("99999999999999999999999999999999999999999h").contains("too long"));
    }

    #[test]
    fn displays_in_the_largest_exact_unit() {
        assert_eq!(Nanos(1_500_000_000).to_string(), "1500ms");
        assert_eq!(Nanos(30_000_000_000).to_string(), "30s");
        assert_eq!(Nanos(120_000_000_000).to_string(), "2m");
        assert_eq!(Nanos(7).to_string(), "7ns");
    }

    proptest! {
        #[test]
        fn never_panics(text in "\\PC{0,24}") {
            let _ = parse(&text);
        }

        #[test]
        fn round_trips_whole_numbers(value in 1u64..1_000_000, unit in 0usize..6) {
            let (name, scale) = super::UNITS[unit];
            let parsed = parse(&format!("{value}{name}")).unwrap();
            prop_assert_eq!(parsed, Nanos(u128::from(value) * scale));
            prop_assert_eq!(parse(&parsed.to_string()).unwrap(), parsed);
        }

        #[test]
        fn milliseconds_with_decimals_are_exact(whole in 0u64..10_000, frac in 0u32..1000) {
            let parsed = parse(&format!("{whole}.{frac:03}s"));
            let expected = u128::from(whole) * 1_000_000_000 + u128::from(frac) * 1_000_000;
            if expected == 0 {
                prop_assert!(parsed.is_err());
            } else {
                prop_assert_eq!(parsed.unwrap(), Nanos(expected));
            }
        }
    }
}
