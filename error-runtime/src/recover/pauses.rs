//! The pauses servers announce, shared through a store: a [`Gate`] of the retrier (the
//! store's side, what a pause is and how it is kept, is `store::PauseStore`).

use std::sync::Arc;
use std::time::Duration;

use crate::retry::{Gate, Turn};
use crate::store::{PauseKind, PauseStore, StoreFuture, WaitLimit, seconds_text};

/// The pauses servers announce, shared through a [`PauseStore`] under one key: a
/// [`Gate`](crate::retry::Gate) for a [`Retrier`](crate::retry::Retrier), so that what one
/// replica met every replica waits out.
///
/// Name what the server limits, such as `openai/acct-1/gpt-4o`; the pauses are kept as
/// [`PauseKind::Pause`], apart from a [`Fallback`](crate::recover::Fallback)'s cooldowns
/// whatever the key. A failure whose error carries a `retry_after` sets the pause for
/// every retrier on the same store and key (the later deadline wins); before each
/// attempt, a run waits out the pause in force, plus a positive jitter of up to a fifth of
/// it (at most 1 s) drawn for each wait, so that replicas do not all come back at the
/// deadline's instant.
///
/// A pause read from the store obeys the caps a server's `retry_after` obeys: one that
/// lasts longer than the run may wait is not waited, and the run ends before the attempt
/// with [`Stop::Paused`](crate::retry::Stop::Paused) and a `rate_limit` error (op
/// `retry.pause`) whose `retry_after` is the wait left (see
/// [`Retrier::gate`](crate::retry::Retrier::gate)).
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use agent_error::recover::{LocalStore, SharedPauses, Store};
/// use agent_error::{http::StatusError, retry::Retrier};
///
/// let store: Arc<dyn Store> = Arc::new(LocalStore::new());
/// let a = Retrier::new().gate(SharedPauses::new(store.clone(), "openai/acct-1/gpt-4o"));
/// let b = Retrier::new().gate(SharedPauses::new(store, "openai/acct-1/gpt-4o"));
/// let mut slept = Vec::new();
/// let _ = a.run_detailed_with_sleep(|attempt| match attempt {
///     1 => Err(StatusError::new(429).with_retry_after(Duration::from_secs(20))),
///     _ => Ok(()),
/// }, |d| slept.push(d));
/// // B, about to call the same account and model, waits for the pause A met.
/// let mut b_slept = Vec::new();
/// let _ = b.run_detailed_with_sleep(|_| Ok::<_, StatusError>(()), |d| b_slept.push(d));
/// assert!(b_slept[0] > Duration::from_secs(19));
/// ```
#[derive(Clone, Debug)]
pub struct SharedPauses {
    store: Arc<dyn PauseStore>,
    key: Arc<str>,
}

impl SharedPauses {
    /// The pauses on `key` in `store`.
    pub fn new(store: Arc<dyn PauseStore>, key: impl Into<Arc<str>>) -> Self {
        SharedPauses {
            store,
            key: key.into(),
        }
    }

    /// The key the pauses are kept under.
    pub fn key(&self) -> &str {
        &self.key
    }
}

impl WaitLimit for SharedPauses {
    fn wait_limit(&self) -> Duration {
        self.store.wait_limit()
    }
}

impl Gate for SharedPauses {
    fn before<'a>(&'a self, turn: Turn<'a>) -> StoreFuture<'a, Result<Duration, crate::Error>> {
        Box::pin(async move {
            let Some(pause) = self.store.pause(PauseKind::Pause, &self.key).await else {
                return Ok(Duration::ZERO);
            };
            if pause.remaining > turn.may_wait() {
                return Err(paused_error(pause.remaining, &pause.code));
            }
            // The jitter after the deadline never takes the run past what it may wait.
            Ok(pause.wait(turn.jitter()).min(turn.may_wait()))
        })
    }

    fn shares_pauses(&self) -> bool {
        true
    }

    fn share_pause<'a>(&'a self, wait: Duration, code: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.store
                .set_pause(PauseKind::Pause, &self.key, wait, code)
                .await;
        })
    }
}

/// The error a run ends with when a shared pause lasts longer than it may wait: a
/// `rate_limit` error whose `retry_after` is the wait left.
fn paused_error(wait: Duration, code: &str) -> crate::Error {
    crate::Error::new(
        "retry.pause",
        crate::codes::RATE_LIMIT,
        format!(
            "a shared pause ({}) lasts {} more, longer than this call may wait",
            // Another writer's value: only a well-formed code is repeated.
            if crate::codes::is_valid_code(code) {
                code
            } else {
                "unknown code"
            },
            seconds_text(wait)
        ),
    )
    .with_retry_after(wait)
}
