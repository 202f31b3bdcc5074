//! What a call costs a provider's limits: one request and an estimate of its tokens,
//! given as one number or as input and output apart.

use crate::store::Dimension;

/// What one call spends: requests, and tokens estimated before the call (settled with
/// the real usage after it, see [`Pacer::settle`](super::Pacer::settle)).
///
/// A single estimate ([`Cost::tokens`]) counts against every token limit: the combined
/// one and, where a provider splits them (Anthropic), the input and the output ones. A
/// split estimate ([`Cost::split`]) counts its sum against the combined limit and each
/// part against its own.
///
/// ```
/// use agent_error::recover::{Cost, Dimension};
///
/// let single = Cost::tokens(1_200);
/// assert_eq!(single.units(Dimension::Requests), 1.0);
/// assert_eq!(single.units(Dimension::Tokens), 1_200.0);
/// assert_eq!(single.units(Dimension::OutputTokens), 1_200.0);
///
/// let split = Cost::split(1_000, 200);
/// assert_eq!(split.units(Dimension::Tokens), 1_200.0);
/// assert_eq!(split.units(Dimension::InputTokens), 1_000.0);
/// assert_eq!(split.units(Dimension::OutputTokens), 200.0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cost {
    requests: u32,
    input: u64,
    output: u64,
    split: bool,
}

impl Cost {
    /// One request and no tokens.
    pub const fn request() -> Cost {
        Cost {
            requests: 1,
            input: 0,
            output: 0,
            split: false,
        }
    }

    /// One request and an estimate of its tokens, input and output together.
    pub const fn tokens(estimate: u64) -> Cost {
        Cost {
            requests: 1,
            input: estimate,
            output: estimate,
            split: false,
        }
    }

    /// One request and estimates of its input and output tokens apart.
    pub const fn split(input: u64, output: u64) -> Cost {
        Cost {
            requests: 1,
            input,
            output,
            split: true,
        }
    }

    /// The same tokens over `requests` requests (0 for a usage that settles tokens only).
    #[must_use]
    pub const fn with_requests(mut self, requests: u32) -> Cost {
        self.requests = requests;
        self
    }

    /// What the cost spends of one dimension's limit.
    pub fn units(&self, dimension: Dimension) -> f64 {
        match dimension {
            Dimension::Requests => f64::from(self.requests),
            Dimension::Tokens if self.split => self.input.saturating_add(self.output) as f64,
            Dimension::Tokens | Dimension::InputTokens => self.input as f64,
            Dimension::OutputTokens => self.output as f64,
        }
    }

    /// The units of every dimension, at [`Dimension::index`].
    pub(crate) fn all_units(&self) -> [f64; 4] {
        Dimension::ALL.map(|d| self.units(d))
    }
}
