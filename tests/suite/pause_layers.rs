//! A pause a server announced (a 429's `Retry-After`) reaches every replica through each
//! call path: the reqwest middleware and tower's `RetryLayer`, against a real axum server
//! on 127.0.0.1 and two "replicas" (two clients) sharing one store. Replica A meets the
//! 429 and shares the pause; replica B, calling the same account, waits it out before its
//! first attempt. Nothing really sleeps: the sleeps are recorded.

use std::sync::Arc;
use std::time::Duration;

use crate::support::scripted::{Recorder, Reply, Server, bounded, serve};
use agent_error::recover::{LocalStore, SharedPauses, Store};
use agent_error::reqwest::RetryMiddleware;
use agent_error::retry::Retrier;
use agent_error::tower::RetryLayer;
use reqwest_middleware::ClientBuilder;

const KEY: &str = "provider/acct-1/model";

/// A retrier of a replica sharing pauses through `store`.
fn replica(recorder: &Recorder, store: &Arc<dyn Store>) -> Retrier {
    recorder
        .retrier()
        .gate(SharedPauses::new(store.clone(), KEY))
}

/// The server's replies: a 429 asking for 20 s, then A's answer and B's.
async fn a_pause_then_two_answers() -> Server {
    serve(vec![
        Reply::new(429).header("retry-after", "20"),
        Reply::new(200).body("a"),
        Reply::new(200).body("b"),
    ])
    .await
}

/// A waited the server's 20 s once (with the fleet's jitter after it), not twice.
fn assert_one_wait_of_the_pause(slept: &[Duration]) {
    assert_eq!(slept.len(), 1, "{slept:?}");
    assert!(slept[0] >= Duration::from_secs(20) && slept[0] <= Duration::from_secs(21));
}

/// B had not met the 429, and still waited the pause before its first attempt.
fn assert_waited_before_its_first_attempt(slept: &[Duration]) {
    assert_eq!(slept.len(), 1, "{slept:?}");
    assert!(slept[0] > Duration::from_secs(19), "{slept:?}");
}

#[tokio::test]
async fn the_middleware_shares_a_servers_pause_and_waits_one_another_shared() {
    let server = a_pause_then_two_answers().await;
    let store: Arc<dyn Store> = Arc::new(LocalStore::new());
    let (a, b) = (Recorder::default(), Recorder::default());
    let client = |recorder: &Recorder| {
        let middleware =
            RetryMiddleware::new(replica(recorder, &store)).with_sleep(recorder.sleep());
        let inner = reqwest::Client::builder().no_proxy().build().unwrap();
        ClientBuilder::new(inner).with(middleware).build()
    };
    let response = bounded(client(&a).get(&server.url).send()).await.unwrap();
    assert_eq!(response.text().await.unwrap(), "a");
    assert_one_wait_of_the_pause(&a.slept());
    let response = bounded(client(&b).get(&server.url).send()).await.unwrap();
    assert_eq!(response.text().await.unwrap(), "b");
    assert_waited_before_its_first_attempt(&b.slept());
    assert_eq!(server.hits(), 3);
}

#[tokio::test]
async fn tower_shares_a_servers_pause_and_waits_one_another_shared() {
    use tower::{Service, ServiceExt};

    let server = a_pause_then_two_answers().await;
    let store: Arc<dyn Store> = Arc::new(LocalStore::new());
    let (a, b) = (Recorder::default(), Recorder::default());
    let url = server.url.clone();
    let http = tower::service_fn(move |_: ()| {
        let url = url.clone();
        async move {
            let client = reqwest::Client::builder().no_proxy().build()?;
            let response = client.get(&url).send().await?;
            let mut head = http::Response::builder().status(response.status().as_u16());
            for (name, value) in response.headers() {
                head = head.header(name.as_str(), value.as_bytes());
            }
            let body = response.text().await?;
            Ok::<_, tower::BoxError>(head.body(body)?)
        }
    });
    let service = |recorder: &Recorder| {
        tower::ServiceBuilder::new()
            .layer(RetryLayer::new(replica(recorder, &store)).with_sleep(recorder.sleep()))
            .service(http.clone())
    };
    let mut for_a = service(&a);
    let answer = bounded(for_a.ready().await.unwrap().call(()))
        .await
        .unwrap();
    assert_eq!(answer.body(), "a");
    // tower sleeps the retry's delay, zero here (the pause is waited before the attempt).
    let slept: Vec<Duration> = a.slept().into_iter().filter(|d| !d.is_zero()).collect();
    assert_one_wait_of_the_pause(&slept);
    let answer = bounded(service(&b).oneshot(())).await.unwrap();
    assert_eq!(answer.body(), "b");
    assert_waited_before_its_first_attempt(&b.slept());
    assert_eq!(server.hits(), 3);
}

#[tokio::test]
async fn tower_paces_every_attempt_with_the_retriers_own_pacer() {
    use agent_error::recover::{Cost, Limit, Pacer};
    use tower::ServiceExt;

    let pacer = Pacer::new().limit(KEY, Limit::requests(1, Duration::from_secs(2)));
    let recorder = Recorder::default();
    let retrier = recorder.retrier().gate(pacer.on(KEY, Cost::request()));
    let calls = Arc::new(std::sync::atomic::AtomicU32::new(0));
    let counted = calls.clone();
    let service = tower::ServiceBuilder::new()
        .layer(RetryLayer::new(retrier).with_sleep(recorder.sleep()))
        .service(tower::service_fn(move |_: ()| {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            async { Ok::<_, tower::BoxError>(http::Response::new(())) }
        }));
    bounded(service.clone().oneshot(())).await.unwrap();
    bounded(service.oneshot(())).await.unwrap();
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 2);
    // The first call had the budget; the second waited for it to come back.
    let slept = recorder.slept();
    assert_eq!(slept.len(), 1, "{slept:?}");
    assert!(slept[0] > Duration::from_millis(1_900), "{slept:?}");
}
