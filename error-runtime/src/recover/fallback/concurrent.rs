//! Cooldowns under concurrent calls on one `Fallback`: an answer ends only a cooldown set
//! before its attempt began. Each test orders its calls by flags, never by sleeps.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::Fallback;
use crate::recover::{LocalStore, ManualClock};
use crate::{Error, codes};

const SEC: Duration = Duration::from_secs(1);

/// Yields to the other futures until `flag` is set.
async fn until(flag: &AtomicBool) {
    while !flag.load(Ordering::SeqCst) {
        tokio::task::yield_now().await;
    }
}

/// A 429 whose `Retry-After` asks for 30 s.
fn told_to_wait() -> Error {
    Error::new("llm.generate", codes::RATE_LIMIT, "HTTP 429").with_retry_after(30 * SEC)
}

fn models(clock: &ManualClock) -> Fallback<&'static str> {
    Fallback::new(["primary", "secondary"]).clock(clock.clone())
}

/// Call X begins on the healthy primary; call Y meets the primary's 429 a second later
/// and moves on to the secondary; then X's primary answers. The primary stays in the
/// cooldown Y's 429 set.
async fn an_answer_older_than_the_429(models: &Fallback<&'static str>, clock: &ManualClock) {
    let x_began = AtomicBool::new(false);
    let y_ended = AtomicBool::new(false);
    let x = models.run_async(
        async |model: &&str, _| {
            assert_eq!(*model, "primary");
            x_began.store(true, Ordering::SeqCst);
            until(&y_ended).await;
            Ok::<_, Error>("x")
        },
        |_| async {},
    );
    let y = async {
        until(&x_began).await;
        clock.advance(SEC);
        let answer = models
            .run_async(
                async |model: &&str, _| match *model {
                    "primary" => Err(told_to_wait()),
                    _ => Ok("y"),
                },
                |_| async {},
            )
            .await
            .unwrap();
        assert_eq!(answer.name(), "secondary");
        y_ended.store(true, Ordering::SeqCst);
    };
    let (x, ()) = tokio::join!(x, y);
    assert_eq!(x.unwrap().name(), "primary");
}

async fn next_call(models: &Fallback<&'static str>) -> String {
    let answer = models
        .run_async(async |model: &&str, _| Ok::<_, Error>(*model), |_| async {})
        .await
        .unwrap();
    answer.name().to_owned()
}

#[tokio::test(flavor = "current_thread")]
async fn an_answer_to_an_attempt_begun_before_a_429_leaves_the_cooldown_in_force() {
    let clock = ManualClock::new();
    let models = models(&clock);
    an_answer_older_than_the_429(&models, &clock).await;
    clock.advance(SEC);
    // The 60 s cooldown (longer than the 30 s asked for) set a second after X began.
    assert_eq!(models.cooling_for(0), Some(59 * SEC));
    assert_eq!(next_call(&models).await, "secondary");
}

#[tokio::test(flavor = "current_thread")]
async fn with_a_shared_store_the_local_cooldown_stays_as_the_shared_one_does() {
    let clock = ManualClock::new();
    let models = models(&clock).store(Arc::new(LocalStore::new()));
    an_answer_older_than_the_429(&models, &clock).await;
    assert_eq!(models.cooling_for(0), Some(60 * SEC));
    assert_eq!(next_call(&models).await, "secondary");
}

#[tokio::test(flavor = "current_thread")]
async fn an_answer_to_an_attempt_begun_after_the_cooldown_ends_it() {
    let clock = ManualClock::new();
    let models = models(&clock);
    // A 429 puts the primary in cooldown.
    let answer = models
        .run_async(
            async |model: &&str, _| match *model {
                "primary" => Err(told_to_wait()),
                _ => Ok("y"),
            },
            |_| async {},
        )
        .await
        .unwrap();
    assert_eq!(answer.name(), "secondary");
    assert!(models.cooling_for(0).is_some());
    // Later, with the secondary down, the primary is tried in its cooldown, and answers.
    clock.advance(SEC);
    let answer = models
        .run_async(
            async |model: &&str, _| match *model {
                "primary" => Ok("x"),
                _ => Err(told_to_wait()),
            },
            |_| async {},
        )
        .await
        .unwrap();
    assert_eq!(
        (answer.name(), answer.skipped.as_slice()),
        ("primary", &[][..])
    );
    assert_eq!(models.cooling_for(0), None);
    assert!(models.cooling_for(1).is_some());
    assert_eq!(next_call(&models).await, "primary");
}

/// The same over streams: a stream opened on the healthy primary that ends well after
/// another call's 429 leaves the primary in cooldown.
#[cfg(feature = "stream")]
#[tokio::test(flavor = "current_thread")]
async fn a_stream_opened_before_a_429_leaves_the_cooldown_in_force() {
    use std::convert::Infallible;

    use futures_util::StreamExt;

    use crate::stream::Watch;

    const BODY: &str = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\n\
                        data: [DONE]\n\n";
    let clock = ManualClock::new();
    let models = models(&clock);
    let x_began = AtomicBool::new(false);
    let y_ended = AtomicBool::new(false);
    let x = models
        .run_stream(
            async |model: &&str, _: Option<&str>, _| {
                assert_eq!(*model, "primary");
                x_began.store(true, Ordering::SeqCst);
                let body = futures_util::stream::once(async {
                    until(&y_ended).await;
                    Ok::<_, Infallible>(BODY)
                });
                Ok::<_, Infallible>(Watch::new(body))
            },
            |_| async {},
        )
        .collect::<Vec<_>>();
    let y = async {
        until(&x_began).await;
        clock.advance(SEC);
        let items: Vec<_> = models
            .run_stream(
                async |model: &&str, _: Option<&str>, _| match *model {
                    "primary" => Err(told_to_wait()),
                    _ => Ok(Watch::new(futures_util::stream::iter([
                        Ok::<_, Infallible>(BODY),
                    ]))),
                },
                |_| async {},
            )
            .collect()
            .await;
        assert!(items.iter().all(Result::is_ok), "{items:?}");
        y_ended.store(true, Ordering::SeqCst);
    };
    let (x, ()) = tokio::join!(x, y);
    assert!(x.iter().all(Result::is_ok), "{x:?}");
    assert_eq!(models.cooling_for(0), Some(60 * SEC));
    assert_eq!(next_call(&models).await, "secondary");
}
