//! [`PaceLayer`]: every call of an HTTP service waits its turn with a
//! [`Pacer`], and every response's headers tell the pacer what is left.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use ::tower::{Layer, Service};

use agent_error_runtime::extend::Sleeper;
use agent_error_runtime::recover::{Cost, Pacer};

/// A tower [`Layer`] that paces an HTTP service's calls with a [`Pacer`] on one key: each
/// call first waits its turn ([`Pacer::acquire_with_sleep`], each costing `cost`), and each
/// response's status and headers feed the pacer ([`Pacer::observe_response`]): the
/// provider's own rate-limit headers, its `Retry-After`, and the adaptive rate for a
/// provider that sends none. A call that would wait longer than the pacer's
/// [`max_wait`](Pacer::max_wait) fails at once with a `rate_limit` error (op `pace`)
/// carrying the wait, converted into the service's error type.
///
/// Put it inside a [`RetryLayer`](crate::RetryLayer) so that every attempt is paced (a
/// retrier with a pacer of its own paces the attempts itself: give the pacer to one of the
/// two):
///
/// ```
/// use std::time::Duration;
/// use agent_error::recover::{Cost, Limit, Pacer};
/// use agent_error::{retry::Retrier, tower::{PaceLayer, RetryLayer}};
/// use tower::{ServiceBuilder, ServiceExt};
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let pacer = Pacer::new().limit("provider", Limit::requests(100, Duration::from_secs(60)));
/// let provider = tower::service_fn(|_: ()| async {
///     Ok::<_, tower::BoxError>(http::Response::new("ok"))
/// });
/// let service = ServiceBuilder::new()
///     .layer(RetryLayer::new(Retrier::new()))
///     .layer(PaceLayer::new(pacer.clone(), "provider", Cost::request()))
///     .service(provider);
/// assert_eq!(*service.oneshot(()).await.unwrap().body(), "ok");
/// # }
/// ```
#[derive(Clone)]
pub struct PaceLayer {
    pacer: Pacer,
    key: Arc<str>,
    cost: Cost,
    sleep: Sleeper,
}

impl PaceLayer {
    /// A layer pacing calls with `pacer` on `key`, each costing `cost`.
    pub fn new(pacer: Pacer, key: impl Into<Arc<str>>, cost: Cost) -> Self {
        PaceLayer {
            pacer,
            key: key.into(),
            cost,
            sleep: Sleeper::default(),
        }
    }

    /// Waits with `sleep(delay)` instead of tokio's sleep: another runtime's, or a fake one
    /// in tests.
    #[must_use]
    pub fn with_sleep<F, Fut>(mut self, sleep: F) -> Self
    where
        F: Fn(Duration) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.sleep = Sleeper::new(sleep);
        self
    }
}

impl fmt::Debug for PaceLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PaceLayer")
            .field("pacer", &self.pacer)
            .field("key", &self.key)
            .field("cost", &self.cost)
            .finish()
    }
}

impl<S> Layer<S> for PaceLayer {
    type Service = Paced<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Paced {
            inner,
            layer: self.clone(),
        }
    }
}

/// The service of a [`PaceLayer`].
#[derive(Clone, Debug)]
pub struct Paced<S> {
    inner: S,
    layer: PaceLayer,
}

impl<S, Req, B> Service<Req> for Paced<S>
where
    S: Service<Req, Response = http::Response<B>> + Clone + Send + 'static,
    S::Future: Send,
    S::Error: From<agent_error_runtime::Error>,
    Req: Send + 'static,
{
    type Response = http::Response<B>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<http::Response<B>, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Req) -> Self::Future {
        // The clone is the one not yet polled ready: the ready one makes this call.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let layer = self.layer.clone();
        Box::pin(async move {
            let sleep = |wait| layer.sleep.sleep(wait);
            layer
                .pacer
                .acquire_with_sleep(&layer.key, layer.cost, sleep)
                .await?;
            let result = inner.call(request).await;
            if let Ok(response) = &result {
                layer
                    .pacer
                    .observe_response(&layer.key, response.status(), response.headers());
            }
            result
        })
    }
}
