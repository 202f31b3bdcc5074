//! The bad day, drawn from a seed: windows of time in which a provider throttles every call
//! or is overloaded, and, for each call, whether its stream fails and how.
//!
//! A call's fault is drawn from the seed, the provider, the prompt and how many times that
//! provider has seen the prompt: two runs with one seed meet the same faults on the same
//! calls, whatever order concurrent calls arrive in.

use std::time::Duration;

/// A small, seedable generator (SplitMix64): stable across runs and platforms.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (`0` when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next_u64() % n }
    }

    /// A number in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// What a window of time does to every call that arrives in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Incident {
    /// Every call is answered 429, with a `Retry-After` of the window's remaining seconds
    /// (rounded up) on a provider that sends headers.
    Throttled,
    /// Every call is answered as the provider answers when overloaded (529, or 503).
    Overloaded,
}

/// One window of an incident, from the farm's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// When it begins.
    pub from: Duration,
    /// When it ends.
    pub until: Duration,
    /// What it does.
    pub incident: Incident,
}

/// How a call's stream fails, when it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The stream sends an error event before its first delta.
    ErrorBeforeText,
    /// The stream sends an error event after some of its deltas.
    ErrorAfterText,
    /// The connection is cut after some deltas, before the provider's last event: a
    /// transport error.
    Cut,
    /// The stream ends cleanly after some deltas (a proper end of the body), without the
    /// provider's last event: what a reader that takes the end of the body as the end of the
    /// answer takes as complete.
    CleanCut,
    /// The stream goes silent after some deltas, and stays open.
    Silent,
}

/// How often each thing goes wrong.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rates {
    /// Of calls, the share whose stream sends an error event before any text.
    pub error_before_text: f64,
    /// Of calls, the share whose stream sends an error event after some text.
    pub error_after_text: f64,
    /// Of calls, the share whose connection is cut before the last event.
    pub cut: f64,
    /// Of calls, the share whose stream ends cleanly before the last event.
    pub clean_cut: f64,
    /// Of calls, the share whose stream goes silent.
    pub silent: f64,
    /// The mean time between the starts of two incidents.
    pub incident_every: Duration,
    /// How long a throttled window lasts.
    pub throttled_for: Duration,
    /// How long an overloaded window lasts.
    pub overloaded_for: Duration,
}

impl Rates {
    /// A bad day: about one stream in six fails, and an incident every fifteen seconds.
    pub const BAD_DAY: Rates = Rates {
        error_before_text: 0.05,
        error_after_text: 0.05,
        cut: 0.02,
        clean_cut: 0.02,
        silent: 0.02,
        incident_every: Duration::from_secs(15),
        throttled_for: Duration::from_secs(2),
        overloaded_for: Duration::from_secs(3),
    };

    /// A calm day: nothing fails but what the buckets and the prompts cause.
    pub const CALM: Rates = Rates {
        error_before_text: 0.0,
        error_after_text: 0.0,
        cut: 0.0,
        clean_cut: 0.0,
        silent: 0.0,
        incident_every: Duration::ZERO,
        throttled_for: Duration::ZERO,
        overloaded_for: Duration::ZERO,
    };
}

/// The windows of incidents of one provider over `horizon`, drawn from `seed`.
pub fn windows(seed: u64, provider: u64, rates: &Rates, horizon: Duration) -> Vec<Window> {
    let mut out = Vec::new();
    if rates.incident_every.is_zero() {
        return out;
    }
    let mut rng = Rng::new(seed ^ provider.wrapping_mul(0xA076_1D64_78BD_642F));
    let mean = rates.incident_every.as_secs_f64();
    let mut at = Duration::from_secs_f64(mean * (0.5 + rng.unit()));
    while at < horizon {
        let incident = if rng.below(2) == 0 {
            Incident::Throttled
        } else {
            Incident::Overloaded
        };
        let length = match incident {
            Incident::Throttled => rates.throttled_for,
            Incident::Overloaded => rates.overloaded_for,
        };
        out.push(Window {
            from: at,
            until: at + length,
            incident,
        });
        at += length + Duration::from_secs_f64(mean * (0.5 + rng.unit()));
    }
    out
}

/// The incident under way at `elapsed`, if any, and when it ends.
pub fn incident_at(windows: &[Window], elapsed: Duration) -> Option<Window> {
    windows
        .iter()
        .find(|w| w.from <= elapsed && elapsed < w.until)
        .copied()
}

/// The fault of the `nth` call (from 0) of `prompt_hash` at `provider`, if it has one, and
/// after how many deltas it strikes (for the faults that follow text).
pub fn fault(
    seed: u64,
    provider: u64,
    prompt_hash: u64,
    nth: u64,
    rates: &Rates,
) -> Option<(Fault, usize)> {
    let mut rng = Rng::new(
        seed ^ provider.wrapping_mul(0xE703_7ED1_A0B4_28DB)
            ^ prompt_hash.rotate_left(17)
            ^ nth.wrapping_mul(0x8EBC_6AF0_9C88_C6E3),
    );
    let roll = rng.unit();
    let after = 1 + rng.below(8) as usize;
    let mut edge = rates.error_before_text;
    if roll < edge {
        return Some((Fault::ErrorBeforeText, 0));
    }
    for (share, fault) in [
        (rates.error_after_text, Fault::ErrorAfterText),
        (rates.cut, Fault::Cut),
        (rates.clean_cut, Fault::CleanCut),
        (rates.silent, Fault::Silent),
    ] {
        edge += share;
        if roll < edge {
            return Some((fault, after));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_seed_one_day() {
        let day = windows(7, 1, &Rates::BAD_DAY, Duration::from_secs(120));
        assert_eq!(
            day,
            windows(7, 1, &Rates::BAD_DAY, Duration::from_secs(120))
        );
        assert_ne!(
            day,
            windows(8, 1, &Rates::BAD_DAY, Duration::from_secs(120))
        );
        assert!(day.len() >= 4, "{day:?}");
        assert!(day.windows(2).all(|w| w[0].until < w[1].from));
        assert!(windows(7, 1, &Rates::CALM, Duration::from_secs(120)).is_empty());
    }

    #[test]
    fn faults_come_at_about_their_rates() {
        let calls = 20_000;
        let faulted = (0..calls)
            .filter(|&i| fault(7, 0, i, 0, &Rates::BAD_DAY).is_some())
            .count() as f64;
        let expected = 0.16 * calls as f64;
        assert!((faulted - expected).abs() < expected * 0.1, "{faulted}");
        assert_eq!(
            fault(7, 0, 42, 0, &Rates::BAD_DAY),
            fault(7, 0, 42, 0, &Rates::BAD_DAY)
        );
        assert!((0..1000).all(|i| fault(7, 0, i, 0, &Rates::CALM).is_none()));
    }
}
