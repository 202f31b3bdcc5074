//! `decide`: the one answer to "what now?" for agent loops that handle errors themselves,
//! from the error's classification and the attempt that just failed.

use std::error::Error as StdError;
use std::fmt;
use std::time::Duration;

use crate::Recovery;
use crate::chain::ErrorChain;
use crate::retry::{Outcome, Stop};

/// What an agent loop should do after a failure, as [`decide`] answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decision {
    /// Call again after this delay.
    Retry(Duration),
    /// Go on from the partial output the failed call already delivered, instead of
    /// starting it again.
    Continue,
    /// Use another model, provider or tool.
    Fallback,
    /// Shrink the context, then call again.
    Compact,
    /// Change the plan: the arguments or the approach were wrong.
    Replan,
    /// Stop: the failure is permanent, or unknown.
    Abort,
    /// Hand the failure to a person.
    Escalate,
}

impl Decision {
    /// A short lowercase name (`"retry"`, `"continue"`, `"fallback"`, …), for logs.
    pub const fn as_str(self) -> &'static str {
        match self {
            Decision::Retry(_) => "retry",
            Decision::Continue => "continue",
            Decision::Fallback => "fallback",
            Decision::Compact => "compact",
            Decision::Replan => "replan",
            Decision::Abort => "abort",
            Decision::Escalate => "escalate",
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decision::Retry(delay) => write!(f, "retry in {delay:?}"),
            other => f.pad(other.as_str()),
        }
    }
}

/// What to do about `err` after attempt number `attempt` (1 for the first) failed, for
/// loops that run their own `onError`.
///
/// `attempt` counts the calls made for this one request that failed with an error retried
/// by this decision, the failed one included: 1 after the first failure, 2 after the first
/// retry failed. Not the agent loop's turn number, and not the attempts of a
/// [`Retrier`](crate::retry::Retrier) that already retried the call: when the error comes
/// out of a retrier, pass its [`Outcome`] to [`decide_after`] instead, which knows that the
/// retrier spent the retries (a `decide(err, 1)` there would retry again what the retrier
/// gave up on).
///
/// The error's [`classify`](crate::classify)cation decides:
///
/// - unclassified: [`Decision::Abort`];
/// - recovery `retry`: [`Decision::Retry`] while the policy allows another attempt
///   (`attempt < max_attempts`), after the server's `retry_after` when it asked, else the
///   policy's `backoff(attempt - 1)` without jitter (the longest its jitter would wait).
///   When the attempts are used up, or the server asks to wait longer than the policy's
///   `max_wait`, [`Decision::Fallback`]: another model or provider may answer (a loop with
///   none aborts). A recovery of `retry` on an error that is not retryable is
///   [`Decision::Abort`];
/// - every other recovery maps to its decision: `continue`, `fallback`, `compact`, `replan`,
///   `abort`, `escalate`.
///
/// ```
/// use std::time::Duration;
/// use agent_error::recover::{decide, Decision};
/// use agent_error::{codes, Error};
///
/// let busy = Error::new("llm.generate", codes::RATE_LIMIT, "429").with_retry_after(Duration::from_secs(2));
/// assert_eq!(decide(&busy, 1), Decision::Retry(Duration::from_secs(2)));
/// assert_eq!(decide(&busy, 3), Decision::Fallback); // rate_limit allows 3 attempts in all
///
/// let long = Error::new("llm.generate", codes::CONTEXT_OVERFLOW, "prompt is too long");
/// assert_eq!(decide(&long, 1), Decision::Compact);
///
/// let cut = Error::new("llm.generate", codes::OUTPUT_TRUNCATED, "stopped at max_tokens");
/// assert_eq!(decide(&cut, 1), Decision::Continue);
/// assert_eq!(decide(&std::io::Error::other("disk on fire"), 1), Decision::Abort);
/// ```
pub fn decide(err: &(dyn StdError + 'static), attempt: u32) -> Decision {
    let Some(c) = crate::classify(err) else {
        return Decision::Abort;
    };
    match c.recovery() {
        Recovery::Retry => {
            let policy = c.retry_policy();
            if !policy.is_retryable() {
                return Decision::Abort;
            }
            let attempt = attempt.max(1);
            if attempt >= policy.max_attempts() {
                return Decision::Fallback;
            }
            match policy.retry_after() {
                Some(asked) if asked > policy.max_wait() => Decision::Fallback,
                Some(asked) => Decision::Retry(asked),
                None => Decision::Retry(policy.backoff(attempt - 1)),
            }
        }
        Recovery::Continue => Decision::Continue,
        Recovery::Fallback => Decision::Fallback,
        Recovery::Compact => Decision::Compact,
        Recovery::Replan => Decision::Replan,
        Recovery::Abort => Decision::Abort,
        Recovery::Escalate => Decision::Escalate,
    }
}

/// What to do after a [`Retrier`](crate::retry::Retrier) run ended, from its [`Outcome`]:
/// `None` when it succeeded. The count is the retrier's, so it cannot be the wrong one:
///
/// - the retrier gave up on a retryable error (attempts exhausted, budget empty, deadline,
///   a wait too long, an inner retrier's give-up): retrying again would only add load, so
///   recovery `retry` becomes [`Decision::Fallback`]; other recoveries map as in [`decide`];
/// - the error asked for another candidate ([`Stop::HandedBack`]): [`Decision::Fallback`];
/// - otherwise (a permanent or unclassified error): [`decide`] with the run's attempts.
///
/// ```
/// use agent_error::recover::{decide_after, Decision};
/// use agent_error::{codes, retry::{Retrier, Stop}, Error};
///
/// let outcome = Retrier::new().run_detailed_with_sleep(
///     |_| Err::<(), _>(Error::new("llm.generate", codes::TIMEOUT, "deadline exceeded")),
///     |_| {},
/// );
/// assert_eq!((outcome.attempts, outcome.stop), (3, Stop::AttemptsExhausted));
/// // The retrier made 3 attempts: not another retry, another model.
/// assert_eq!(decide_after(&outcome), Some(Decision::Fallback));
///
/// let outcome = Retrier::new().run_detailed_with_sleep(|_| Ok::<_, Error>("hi"), |_| {});
/// assert_eq!(decide_after(&outcome), None);
/// ```
pub fn decide_after<T, E: ErrorChain<M>, M>(outcome: &Outcome<T, E>) -> Option<Decision> {
    let err = outcome.result.as_ref().err()?.error_chain();
    Some(match outcome.stop {
        Stop::HandedBack => Decision::Fallback,
        stop if stop.gave_up() => decide(err, u32::MAX),
        _ => decide(err, outcome.attempts),
    })
}
