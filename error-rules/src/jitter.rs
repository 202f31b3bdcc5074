//! How a backoff delay is randomised.

use core::fmt;

/// How a backoff delay is randomised, so that many clients do not retry in step.
///
/// The retry loop applies it to `RetryPolicy::backoff`; the policy itself only records the
/// choice. The derive takes its name: `retry(jitter = "equal")`.
///
/// ```
/// use agent_error::retry::Jitter;
///
/// assert_eq!(Jitter::ALL.map(Jitter::as_str), ["none", "full", "equal", "decorrelated"]);
/// assert_eq!(Jitter::Full.to_string(), "full");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Jitter {
    /// Wait exactly the backoff delay.
    None,
    /// Wait a uniform random delay between zero and the backoff delay.
    Full,
    /// Wait half the backoff delay plus a uniform random share of the other half.
    Equal,
    /// Wait a random delay between the base delay and three times the previous delay,
    /// capped at the maximum delay.
    Decorrelated,
}

impl Jitter {
    /// Every jitter, in declaration order.
    pub const ALL: [Jitter; 4] = [
        Jitter::None,
        Jitter::Full,
        Jitter::Equal,
        Jitter::Decorrelated,
    ];

    /// The lowercase name used in attributes (`"none"`, `"full"`, `"equal"`, `"decorrelated"`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Jitter::None => "none",
            Jitter::Full => "full",
            Jitter::Equal => "equal",
            Jitter::Decorrelated => "decorrelated",
        }
    }
}

impl fmt::Display for Jitter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}
