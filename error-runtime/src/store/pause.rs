//! Pauses and cooldowns: a deadline on a key that every replica waits out (the retrier,
//! after a server said "wait 30 s") or skips (a fallback candidate cooling down).

use std::time::Duration;

use super::{StoreFuture, WaitLimit};

/// A pause (or cooldown) on a key, as a [`PauseStore`] knows it: how long until its deadline,
/// how long it lasts in all, and the code that caused it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pause {
    /// How long until the deadline; zero once it has passed.
    pub remaining: Duration,
    /// How long ago the deadline passed; zero before it.
    pub overdue: Duration,
    /// How long the pause lasts in all, from when it was set.
    pub length: Duration,
    /// The code of the error that set it (`rate_limit`, `provider_unavailable`, …).
    pub code: String,
}

impl Pause {
    /// The most a replica adds after the deadline so that a fleet does not wake at one
    /// instant: a fifth of the pause, at most one second.
    pub fn max_jitter(&self) -> Duration {
        max_jitter_of(self.length)
    }

    /// How long to wait from now: until the deadline plus `fraction` (0 to 1) of
    /// [`max_jitter`](Self::max_jitter) — jitter is only ever added after the deadline, so
    /// that replicas drawing different fractions wake at different instants after it.
    pub fn wait(&self, fraction: f64) -> Duration {
        let fraction = if fraction.is_finite() {
            fraction.clamp(0.0, 1.0)
        } else {
            0.0
        };
        self.remaining
            .saturating_add(self.max_jitter().mul_f64(fraction))
            .saturating_sub(self.overdue)
    }
}

/// Which of the two name spaces of a [`PauseStore`] a key names: a pause and a cooldown
/// under the same key are two entries, so that no key a user picks for one can touch the
/// other.
///
/// ```
/// use std::time::Duration;
/// use agent_error::recover::LocalStore;
/// use agent_error::store::{PauseKind, PauseStore};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = LocalStore::new();
/// store.set_pause(PauseKind::Cooldown, "gpt-4o", Duration::from_secs(60), "rate_limit").await;
/// assert!(store.pause(PauseKind::Cooldown, "gpt-4o").await.is_some());
/// assert_eq!(store.pause(PauseKind::Pause, "gpt-4o").await, None);
/// assert_eq!(store.pause(PauseKind::Pause, "cooldown:gpt-4o").await, None);
/// # });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PauseKind {
    /// A server-announced pause on what the server limits (`openai/acct-1/gpt-4o`), kept
    /// by [`SharedPauses`](crate::recover::SharedPauses) and a shared
    /// [`Pacer`](crate::recover::Pacer): every caller waits it out.
    Pause,
    /// A [`Fallback`](crate::recover::Fallback) candidate's cooldown, under the candidate's
    /// name: every replica prefers another candidate until it passes, and waits for none.
    Cooldown,
}

impl PauseKind {
    /// The kind's name in a store's key layout: `pause` or `cooldown`.
    pub const fn as_str(self) -> &'static str {
        match self {
            PauseKind::Pause => "pause",
            PauseKind::Cooldown => "cooldown",
        }
    }
}

impl std::fmt::Display for PauseKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// [`Pause::max_jitter`] of a pause `length` long.
pub(crate) fn max_jitter_of(length: Duration) -> Duration {
    (length / 5).min(Duration::from_secs(1))
}

/// Where pauses and cooldowns live: what the [`Retrier`](crate::retry::Retrier) waits out
/// (server-announced pauses) and what [`Fallback`](crate::recover::Fallback) skips
/// (cooldowns). When two replicas write, the later deadline wins.
///
/// Pauses and cooldowns are kept apart by their [`PauseKind`]: a store keeps each kind in a
/// name space of its own, whatever the key (a pause on `cooldown:gpt-4o` is no cooldown of
/// `gpt-4o`), and applies the same rules to both.
pub trait PauseStore: WaitLimit {
    /// The pause of `kind` in force on `key`, if any (including one whose deadline passed
    /// less than its jitter ago, with `remaining` zero).
    fn pause<'a>(&'a self, kind: PauseKind, key: &'a str) -> StoreFuture<'a, Option<Pause>>;

    /// Pauses `key` in `kind`'s name space for `wait` from now because of an error with
    /// code `code`; when a later deadline is already set it stays (the later deadline
    /// wins). Returns the pause in force.
    fn set_pause<'a>(
        &'a self,
        kind: PauseKind,
        key: &'a str,
        wait: Duration,
        code: &'a str,
    ) -> StoreFuture<'a, Pause>;
}
