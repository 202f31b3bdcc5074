//! What an agent loop should do about a failure.
//! Every classified error names one [`Recovery`]; planners and loops branch on it.

use core::fmt;
use core::str::FromStr;

/// The action an agent loop should take after a failure.
///
/// The derive sets it with `#[agent(recovery = "...")]`; without that, retryable
/// variants recover with [`Recovery::Retry`] and all others with [`Recovery::Abort`].
///
/// ```
/// use agent_error::Recovery;
///
/// assert_eq!("compact".parse::<Recovery>(), Ok(Recovery::Compact));
/// assert_eq!(Recovery::Fallback.as_str(), "fallback");
/// assert_eq!(Recovery::Continue.to_string(), "continue");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Recovery {
    /// Try the same call again, after the delay the retry policy gives.
    Retry,
    /// Go on from the partial output: the call already delivered part of its answer (a
    /// stream that failed after it spoke, output cut at its token limit); continue from it
    /// instead of starting again.
    Continue,
    /// Change the plan: the arguments or the approach were wrong.
    Replan,
    /// Use another provider, model or tool.
    Fallback,
    /// Shrink the context (summarise, drop history) and try again.
    Compact,
    /// Stop; the failure is permanent.
    Abort,
    /// Hand the failure to a person (permissions, billing, policy).
    Escalate,
}

impl Recovery {
    /// The recovery of an error that names none, the one rule every type follows: `retry`
    /// for an error that is retried, `abort` otherwise.
    ///
    /// ```
    /// use agent_error::{Recovery, RetryPolicy};
    ///
    /// assert_eq!(Recovery::default_for(RetryPolicy::DEFAULT.is_retryable()), Recovery::Retry);
    /// assert_eq!(Recovery::default_for(RetryPolicy::NEVER.is_retryable()), Recovery::Abort);
    /// ```
    pub const fn default_for(retryable: bool) -> Recovery {
        if retryable {
            Recovery::Retry
        } else {
            Recovery::Abort
        }
    }

    /// Every recovery, in declaration order.
    pub const ALL: [Recovery; 7] = [
        Recovery::Retry,
        Recovery::Continue,
        Recovery::Replan,
        Recovery::Fallback,
        Recovery::Compact,
        Recovery::Abort,
        Recovery::Escalate,
    ];

    /// The lowercase name used in attributes and renderings (`"retry"`, `"continue"`,
    /// `"compact"`, …).
    pub const fn as_str(self) -> &'static str {
        match self {
            Recovery::Retry => "retry",
            Recovery::Continue => "continue",
            Recovery::Replan => "replan",
            Recovery::Fallback => "fallback",
            Recovery::Compact => "compact",
            Recovery::Abort => "abort",
            Recovery::Escalate => "escalate",
        }
    }
}

impl fmt::Display for Recovery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// The error of parsing a [`Recovery`] from text that names none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownRecovery;

impl fmt::Display for UnknownRecovery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "unknown recovery; expected one of retry, continue, replan, fallback, compact, abort, escalate",
        )
    }
}

impl core::error::Error for UnknownRecovery {}

impl FromStr for Recovery {
    type Err = UnknownRecovery;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Recovery::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or(UnknownRecovery)
    }
}
