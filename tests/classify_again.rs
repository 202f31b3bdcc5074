//! A retrier remembers which classifiers answered for its last failure and asks them first;
//! a classifier added at run time afterwards still comes first, as it does for `classify`.
//! Its own test binary: the classifier it adds, for `std::io::Error`, is for the whole process.

use std::io::{Error as IoError, ErrorKind};
use std::sync::{Arc, Mutex};

use agent_error::retry::{Retrier, Stop};
use agent_error::{Error, codes};

#[test]
fn a_classifier_added_after_a_failure_answers_for_the_next() {
    let codes_seen = Arc::new(Mutex::new(Vec::new()));
    let seen = codes_seen.clone();
    let retrier = Retrier::new()
        .seed(1)
        .on_retry(move |e, _, _| seen.lock().unwrap().push(e.code().to_owned()));
    let outcome = retrier.run_detailed_with_sleep(
        |attempt| {
            if attempt == 2 {
                // The built-in classifier answered for attempt 1; from now on, this one does.
                agent_error::register_classifier(|e: &IoError| {
                    (e.kind() == ErrorKind::TimedOut)
                        .then(|| Error::new("pool", codes::RATE_LIMIT, "the pool is throttled"))
                });
            }
            match attempt {
                1 | 2 => Err(IoError::from(ErrorKind::TimedOut)),
                _ => Ok(attempt),
            }
        },
        |_| {},
    );
    assert_eq!((outcome.stop, outcome.attempts), (Stop::Succeeded, 3));
    assert_eq!(*codes_seen.lock().unwrap(), ["timeout", "rate_limit"]);
    assert_eq!(
        agent_error::classify(&IoError::from(ErrorKind::TimedOut)).map(|c| c.code().to_owned()),
        Some("rate_limit".to_owned())
    );
}
