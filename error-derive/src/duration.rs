//! Durations written in attributes (`"250ms"`, `"1.5s"`, `"2m"`), parsed and checked at compile time.

use proc_macro2::TokenStream;
use quote::quote;

/// A checked, positive duration in nanoseconds.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
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
        return Err(format!(
            "unknown unit `{unit}` in duration `{text}`: use ns, us, ms, s, m or h"
        ));
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
            .find(|(_, scale)| n.is_multiple_of(*scale))
            .map(|(unit, scale)| (n / scale, *unit))
            .unwrap_or((n, "ns"));
        write!(f, "{value}{unit}")
    }
}
