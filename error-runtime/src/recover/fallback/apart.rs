//! A candidate's cooldown and a server's pause under a key spelled `cooldown:<name>`, in
//! one store, stay apart: whatever name a user gives a pause key, it is never a cooldown.

use std::sync::Arc;
use std::time::Duration;

use super::Fallback;
use crate::recover::{Cost, LocalStore, Pacer, SharedPauses, Store};
use crate::retry::Retrier;
use crate::{Error, codes, http::StatusError};

const SEC: Duration = Duration::from_secs(1);

/// A call of a fallback over `x` then `y` in `store` (`x` answering 429 when
/// `x_limited`): the candidate that answered, and those skipped.
fn answered_by(store: &Arc<dyn Store>, x_limited: bool) -> (String, Vec<usize>) {
    let models = Fallback::new(["x", "y"]).store(store.clone());
    let answer = models
        .run_with_sleep(
            |model: &&'static str, _| match *model {
                "x" if x_limited => Err(Error::new("llm.generate", codes::RATE_LIMIT, "HTTP 429")),
                model => Ok(model),
            },
            |_| {},
        )
        .unwrap();
    (answer.name().to_owned(), answer.skipped)
}

/// What a retrier gated on the shared pauses of `key` sleeps before its one attempt.
fn slept_on(store: &Arc<dyn Store>, key: &str) -> Vec<Duration> {
    let retrier = Retrier::new().gate(SharedPauses::new(store.clone(), key));
    let mut slept = Vec::new();
    let outcome = retrier.run_detailed_with_sleep(|_| Ok::<_, StatusError>(()), |d| slept.push(d));
    assert_eq!(outcome.attempts, 1);
    slept
}

#[test]
fn a_pacer_pause_on_a_key_named_cooldown_x_leaves_candidate_x_alone() {
    let store: Arc<dyn Store> = Arc::new(LocalStore::new());
    let pacer = Pacer::new().shared_in(store.clone());
    pacer.throttled("cooldown:x", Some(30 * SEC));
    // The pause reaches the store with the key's next turn, which it holds back.
    assert!(pacer.try_acquire("cooldown:x", Cost::request()).is_err());
    assert_eq!(answered_by(&store, false), ("x".to_owned(), vec![]));
}

#[test]
fn a_shared_pause_on_a_key_named_cooldown_x_leaves_candidate_x_alone() {
    let store: Arc<dyn Store> = Arc::new(LocalStore::new());
    let retrier = Retrier::new().gate(SharedPauses::new(store.clone(), "cooldown:x"));
    let _ = retrier.run_detailed_with_sleep(
        |attempt| match attempt {
            1 => Err(StatusError::new(429).with_retry_after(20 * SEC)),
            _ => Ok(()),
        },
        |_| {},
    );
    assert!(slept_on(&store, "cooldown:x")[0] > 19 * SEC);
    assert_eq!(answered_by(&store, false), ("x".to_owned(), vec![]));
}

#[test]
fn a_cooldown_of_candidate_x_pauses_no_key_named_cooldown_x() {
    let store: Arc<dyn Store> = Arc::new(LocalStore::new());
    assert_eq!(answered_by(&store, true), ("y".to_owned(), vec![]));
    // x cools down: the next call skips it.
    assert_eq!(answered_by(&store, false), ("y".to_owned(), vec![0]));

    assert_eq!(slept_on(&store, "cooldown:x"), Vec::<Duration>::new());

    let pacer = Pacer::new().shared_in(store);
    assert_eq!(pacer.try_acquire("cooldown:x", Cost::request()), Ok(()));
}
