//! One pacer setting paces every call path: the retrier's own loop, the reqwest
//! middleware, tower's `PaceLayer` and a fallback chain, each against a real loopback
//! provider that enforces a bucket of requests (and, where it says so, sends OpenAI's
//! headers), through reqwest.

use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_error::http::StatusError;
use agent_error::recover::{Cost, Fallback, Limit, Pacer};
use agent_error::retry::{Retrier, tokio_sleep};

use crate::support::rate_limited;

use rate_limited::{Bucket, Headers, Provider, Setup, TOKENS};

const KEY: &str = "loopback/acct-1/model";
const RUN: Duration = Duration::from_millis(1_500);

/// A provider of 20 requests a second (a bucket of 20) and tokens to spare.
fn setup(headers: Headers) -> Setup {
    Setup {
        requests: Bucket::per(20, Duration::from_secs(1)),
        tokens: Bucket::per(1_000_000, Duration::from_secs(1)),
        headers,
        latency: Duration::from_millis(5),
    }
}

/// One call: `Ok` for a 200, a `StatusError` (with its headers read) otherwise.
async fn call(client: &reqwest::Client, url: &str) -> Result<(), StatusError> {
    let response = client
        .post(url)
        .header(TOKENS, "1")
        .send()
        .await
        .map_err(|_| StatusError::new(503))?;
    if response.status().is_success() {
        return Ok(());
    }
    Err(StatusError::from_parts(
        response.status(),
        response.headers(),
        "",
    ))
}

/// Runs `tasks` loops of `one`, side by side on this task, until `RUN` has passed.
async fn for_a_while<F, Fut>(tasks: usize, one: F)
where
    F: Fn() -> Fut + Clone,
    Fut: std::future::Future<Output = ()>,
{
    let end = Instant::now() + RUN;
    let loops = (0..tasks).map(|_| {
        let one = one.clone();
        async move {
            while Instant::now() < end {
                one().await;
            }
        }
    });
    futures_util::future::join_all(loops).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_retrier_paces_every_attempt_by_a_configured_limit() {
    let provider = Provider::start(setup(Headers::None)).await;
    // Half the provider's rate: nothing is ever answered 429.
    let pacer = Pacer::new().limit(KEY, Limit::requests(10, Duration::from_secs(1)));
    let retrier = Arc::new(Retrier::new().gate(pacer.on(KEY, Cost::request())));
    let (client, url) = (reqwest::Client::new(), provider.url().to_owned());
    for_a_while(8, move || {
        let (retrier, client, url) = (retrier.clone(), client.clone(), url.clone());
        async move {
            let _ = retrier
                .run_async(|_| call(&client, &url), tokio_sleep)
                .await;
        }
    })
    .await;
    let counts = provider.counts();
    assert_eq!(counts.limited, 0, "{counts:?}");
    // The bucket of 10, then 10 a second, for the run and the last waits.
    let most = 10.0 + 10.0 * counts.elapsed.as_secs_f64();
    assert!(
        counts.ok as f64 <= most + 1.0 && counts.ok as f64 >= 0.8 * 10.0 * RUN.as_secs_f64(),
        "{counts:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_middleware_paces_with_the_retriers_pacer_and_feeds_it_the_headers() {
    let provider = Provider::start(setup(Headers::OpenAi)).await;
    let pacer = Pacer::new();
    let retrier = Retrier::new()
        .max_attempts(1)
        .gate(pacer.on(KEY, Cost::request()));
    let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
        .with(agent_error::reqwest::RetryMiddleware::new(retrier))
        .build();
    let url = provider.url().to_owned();
    for_a_while(8, move || {
        let (client, url) = (client.clone(), url.clone());
        async move {
            let _ = client.post(&url).header(TOKENS, "1").send().await;
        }
    })
    .await;
    let counts = provider.counts();
    // The headers reached the pacer through the middleware.
    assert!(
        pacer
            .remaining(KEY, agent_error::recover::Dimension::Requests)
            .is_some()
    );
    // Only the calls sent before the first answer came back are blind.
    assert!(counts.limited <= 8, "{counts:?}");
    assert!(counts.share_of_limit(&provider.setup) > 0.8, "{counts:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tower_paces_an_http_service_and_feeds_the_pacer_its_answers() {
    use tower::{Service, ServiceExt};

    let provider = Provider::start(setup(Headers::OpenAi)).await;
    let pacer = Pacer::new();
    let client = reqwest::Client::new();
    let url = provider.url().to_owned();
    let http = tower::service_fn(move |_: ()| {
        let (client, url) = (client.clone(), url.clone());
        async move {
            let response = client.post(&url).header(TOKENS, "1").send().await?;
            let mut head = http::Response::builder().status(response.status());
            for (name, value) in response.headers() {
                head = head.header(name, value);
            }
            Ok::<_, tower::BoxError>(head.body(())?)
        }
    });
    let service = tower::ServiceBuilder::new()
        .layer(agent_error::tower::PaceLayer::new(
            pacer.clone(),
            KEY,
            Cost::request(),
        ))
        .service(http);
    for_a_while(8, move || {
        let mut service = service.clone();
        async move {
            if let Ok(ready) = service.ready().await {
                let _ = ready.call(()).await;
            }
        }
    })
    .await;
    let counts = provider.counts();
    assert!(
        pacer
            .remaining(KEY, agent_error::recover::Dimension::Requests)
            .is_some()
    );
    assert!(counts.limited <= 8, "{counts:?}");
    assert!(counts.share_of_limit(&provider.setup) > 0.8, "{counts:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fallback_moves_on_when_its_first_candidates_budget_is_short() {
    let first = Provider::start(setup(Headers::None)).await;
    let second = Provider::start(setup(Headers::None)).await;
    // The first candidate may take 5 a second; the rest goes to the second.
    let pacer = Pacer::new().limit("first", Limit::requests(5, Duration::from_secs(1)));
    let models = Arc::new(
        Fallback::named([
            ("first", first.url().to_owned()),
            ("second", second.url().to_owned()),
        ])
        .pacer(pacer, Cost::request()),
    );
    let client = reqwest::Client::new();
    for_a_while(4, move || {
        let (models, client) = (models.clone(), client.clone());
        async move {
            let _ = models
                .run_async(
                    async |url: &String, _| call(&client, url).await,
                    tokio_sleep,
                )
                .await;
        }
    })
    .await;
    let (a, b) = (first.counts(), second.counts());
    assert_eq!(a.limited, 0, "{a:?}");
    let most = 5.0 + 5.0 * a.elapsed.as_secs_f64();
    assert!(a.ok as f64 <= most + 1.0, "{a:?}");
    assert!(b.ok > a.ok, "{a:?} {b:?}");
}
