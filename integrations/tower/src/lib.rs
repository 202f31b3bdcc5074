//! The tower integration (feature `tower`): [`RetryLayer`] retries any `Service` by the
//! classification of its errors and, for HTTP services, of its error responses.
//!
//! It is built on tower's own retry middleware: [`ClassifiedRetry`] is a
//! [`tower::retry::Policy`] whose decisions are a [`Retrier`]'s, so
//! the service is tower's [`Retry`] and composes with
//! [`ServiceBuilder`](::tower::ServiceBuilder) like any tower layer. Before each attempt
//! ([`BeforeEachAttempt`]) it waits what the retrier's other call paths wait: a pause the
//! fleet shares and the turn of the retrier's pacer (its [gates](Retrier::gate)). [`PaceLayer`]
//! paces an HTTP service's calls with a [`Pacer`](agent_error_runtime::recover::Pacer) and
//! feeds it each response's headers, inside a `RetryLayer` whose retrier has no pacer.

#![forbid(unsafe_code)]
// On docs.rs (nightly, `--cfg docsrs`): each item says which feature brings it.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use ::tower::retry::{Policy, Retry};
use ::tower::{Layer, Service};

mod pace;

pub use pace::{PaceLayer, Paced};

use agent_error_runtime::AgentError;
use agent_error_runtime::chain::ErrorChain;
use agent_error_runtime::chain::markers;
use agent_error_runtime::extend::{BoxSleep, Sleeper};
use agent_error_runtime::http::StatusError;
use agent_error_runtime::recover::PaceGate;
use agent_error_runtime::retry::{Retrier, RetryState};

/// A tower [`Layer`] that retries a service's calls as each failure's classification says,
/// with a [`Retrier`]'s caps, budget, jitter and `on_retry` hook.
///
/// - An error (any `E: Error + 'static`, or tower's `BoxError`) is
///   [`classify`](agent_error_runtime::classify)'d: a timeout, a refused connection, a derived retryable
///   error are retried; an unclassified or permanent one is returned at once.
/// - A response is asked [`ClassifyResponse::failure`]: an `http::Response` with an error
///   status (4xx, 5xx) is classified from its status and headers
///   ([`StatusError::from_head`]: `Retry-After`, `retry-after-ms`, `x-should-retry`); its
///   body is never read. Other response types are successes, or say otherwise by
///   implementing [`ClassifyResponse`].
/// - Any other response type (a `u32`, a type of another crate) needs no impl and no
///   newtype: [`any_response`](Self::any_response) passes every response through as a
///   success, and [`classify_responses`](Self::classify_responses) takes a function that
///   says which responses are failures.
///
/// With a gate that shares pauses ([`SharedPauses`](agent_error_runtime::recover::SharedPauses)),
/// a server's delay is shared with every replica and each attempt (the first one included)
/// first waits out the pause in force; with a pacer's gate ([`PaceGate`]), each attempt first
/// waits its turn, and each answer feeds the pacer's adaptive rate.
///
/// The request type must be `Clone` (each attempt sends a copy) and the inner service too,
/// as with tower's own `Retry`. Waits use tokio's sleep unless
/// [`with_sleep`](Self::with_sleep) says otherwise. The last response or error is returned.
///
/// ```
/// use std::time::Duration;
/// use agent_error::{retry::Retrier, tower::RetryLayer};
/// use tower::{Service, ServiceBuilder, ServiceExt};
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let calls = std::sync::atomic::AtomicU32::new(0);
/// let flaky = tower::service_fn(|prompt: String| {
///     let n = calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
///     async move {
///         if n == 0 {
///             Err(std::io::Error::from(std::io::ErrorKind::TimedOut)) // classified `timeout`
///         } else {
///             Ok(format!("answer to {prompt}"))
///         }
///     }
/// });
/// let mut service = ServiceBuilder::new()
///     .layer(RetryLayer::new(Retrier::new()).with_sleep(|_| async {}))
///     .service(flaky);
/// let answer = service.ready().await.unwrap().call("hi".to_string()).await.unwrap();
/// assert_eq!(answer, "answer to hi");
/// assert_eq!(calls.into_inner(), 2);
/// # }
/// ```
pub struct RetryLayer<M = markers::Typed, R = ByType> {
    retrier: Arc<Retrier>,
    sleep: Sleeper,
    responses: R,
    marker: PhantomData<fn() -> M>,
}

impl<M> RetryLayer<M> {
    /// A layer deciding with `retrier` (a `Retrier`, or an `Arc<Retrier>` shared with other
    /// code). `M` tells how the service's errors are walked (an `Error` type or a boxed
    /// one, see [`ErrorChain`]); it is inferred. Responses are classified by their type
    /// ([`ClassifyResponse`]); for another response type, add
    /// [`any_response`](Self::any_response) or [`classify_responses`](Self::classify_responses).
    pub fn new(retrier: impl Into<Arc<Retrier>>) -> Self {
        RetryLayer {
            retrier: retrier.into(),
            sleep: Sleeper::default(),
            responses: ByType,
            marker: PhantomData,
        }
    }
}

impl<M, R> RetryLayer<M, R> {
    /// Treats every response as a success, whatever its type: only errors are retried. For
    /// a `Service` whose response is a `u32`, a `Vec<T>`, any type of any crate.
    ///
    /// ```
    /// use agent_error::{retry::Retrier, tower::RetryLayer};
    /// use tower::{ServiceBuilder, ServiceExt};
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let tokens = tower::service_fn(|prompt: &'static str| async move {
    ///     Ok::<u32, std::io::Error>(prompt.len() as u32)
    /// });
    /// let service = ServiceBuilder::new()
    ///     .layer(RetryLayer::new(Retrier::new()).any_response())
    ///     .service(tokens);
    /// assert_eq!(service.oneshot("hello").await.unwrap(), 5);
    /// # }
    /// ```
    pub fn any_response(self) -> RetryLayer<M, AnyResponse> {
        self.responses(AnyResponse)
    }

    /// Classifies responses with `failure(&response)`: `Some(error)` when the response is a
    /// failure (retried as that error's classification says), `None` for a success.
    ///
    /// ```
    /// use agent_error::{codes, retry::Retrier, tower::RetryLayer, AgentError, Error};
    ///
    /// // A service that answers 0 when it is overloaded.
    /// // The error marker is inferred once the layer wraps a service; named here, it has none.
    /// let layer = RetryLayer::<agent_error::chain::markers::Typed>::new(Retrier::new())
    ///     .classify_responses(|n: &u32| {
    ///     (*n == 0).then(|| {
    ///         Box::new(Error::new("count", codes::PROVIDER_UNAVAILABLE, "overloaded"))
    ///             as Box<dyn AgentError + Send + Sync>
    ///     })
    /// });
    /// # let _ = layer;
    /// ```
    pub fn classify_responses<Res, F>(self, failure: F) -> RetryLayer<M, ClassifyWith<F>>
    where
        F: Fn(&Res) -> Option<Box<dyn AgentError + Send + Sync>> + Send + Sync + 'static,
    {
        self.responses(ClassifyWith(Arc::new(failure)))
    }

    fn responses<R2>(self, responses: R2) -> RetryLayer<M, R2> {
        RetryLayer {
            retrier: self.retrier,
            sleep: self.sleep,
            responses,
            marker: PhantomData,
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

impl<M, R: Clone> Clone for RetryLayer<M, R> {
    fn clone(&self) -> Self {
        RetryLayer {
            retrier: self.retrier.clone(),
            sleep: self.sleep.clone(),
            responses: self.responses.clone(),
            marker: PhantomData,
        }
    }
}

impl<M, R> fmt::Debug for RetryLayer<M, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RetryLayer")
            .field("retrier", &self.retrier)
            .field("sleep", &self.sleep)
            .finish()
    }
}

impl<S, M, R: Clone> Layer<S> for RetryLayer<M, R> {
    type Service = Retry<ClassifiedRetry<M, R>, BeforeEachAttempt<S>>;

    fn layer(&self, inner: S) -> Self::Service {
        Retry::new(
            ClassifiedRetry::new(
                self.retrier.clone(),
                self.sleep.clone(),
                self.responses.clone(),
            ),
            BeforeEachAttempt {
                inner,
                retrier: self.retrier.clone(),
                sleep: self.sleep.clone(),
            },
        )
    }
}

/// The service a [`RetryLayer`] retries: before each attempt, the first one included, it
/// waits what the retrier's [`RetryState::before_attempt`] says: a pause that a server
/// announced to the fleet, and the turn of the retrier's own pacer (its
/// [gates](Retrier::gate)). A wait longer than the run may wait is not waited: the attempt is
/// made at once, and the server's answer ends the run. Without pauses or a pacer it calls
/// the service straight away.
#[derive(Clone, Debug)]
pub struct BeforeEachAttempt<S> {
    inner: S,
    retrier: Arc<Retrier>,
    sleep: Sleeper,
}

impl<S, Req> Service<Req> for BeforeEachAttempt<S>
where
    S: Service<Req> + Clone,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BeforeEachAttemptFuture<S, Req>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Req) -> Self::Future {
        // The clone is the one not yet polled ready: the ready one makes this call.
        let clone = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, clone);
        let (retrier, sleep) = (self.retrier.clone(), self.sleep.clone());
        // Without pauses or a pacer the wait is zero at its first poll, and nothing sleeps.
        let wait = Box::pin(async move {
            let mut run = RetryState::new(retrier);
            let wait = run.before_attempt().await.unwrap_or_default();
            if !wait.is_zero() {
                sleep.sleep(wait).await;
            }
        });
        BeforeEachAttemptFuture {
            state: State::Waiting {
                wait,
                inner,
                request,
            },
        }
    }
}

/// The future of a [`BeforeEachAttempt`] call: the wait, then the inner service's call.
pub struct BeforeEachAttemptFuture<S: Service<Req>, Req> {
    state: State<S, Req>,
}

enum State<S: Service<Req>, Req> {
    /// Waiting for the pauses and the pacer, then sleeping what they said.
    Waiting {
        wait: Pin<Box<dyn Future<Output = ()> + Send>>,
        inner: S,
        request: Req,
    },
    Calling(Pin<Box<S::Future>>),
    Done,
}

// Nothing is pinned in place: the service and the request are moved out by value, and the
// futures polled are boxed.
impl<S: Service<Req>, Req> Unpin for BeforeEachAttemptFuture<S, Req> {}

impl<S: Service<Req>, Req> Future for BeforeEachAttemptFuture<S, Req> {
    type Output = Result<S::Response, S::Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        loop {
            match &mut self.state {
                State::Waiting { wait, .. } => {
                    if wait.as_mut().poll(cx).is_pending() {
                        return Poll::Pending;
                    }
                    let State::Waiting {
                        mut inner, request, ..
                    } = std::mem::replace(&mut self.state, State::Done)
                    else {
                        unreachable!("the state was just matched");
                    };
                    self.state = State::Calling(Box::pin(inner.call(request)));
                }
                State::Calling(call) => {
                    let out = std::task::ready!(call.as_mut().poll(cx));
                    self.state = State::Done;
                    return Poll::Ready(out);
                }
                State::Done => panic!("a BeforeEachAttemptFuture polled after it completed"),
            }
        }
    }
}

/// How a [`RetryLayer`] reads a service's responses: [`ByType`] (the default),
/// [`AnyResponse`] or [`ClassifyWith`].
pub trait ResponsePolicy<Res> {
    /// The response's failure, classified, when it is one; `None` for a success.
    fn failure(&self, response: &Res) -> Option<Box<dyn AgentError + Send + Sync>>;
}

/// Responses classified by their type, through [`ClassifyResponse`]: `http::Response`
/// statuses, and the types that implement it. The default of [`RetryLayer`].
#[derive(Clone, Copy, Debug, Default)]
pub struct ByType;

impl<Res: ClassifyResponse> ResponsePolicy<Res> for ByType {
    fn failure(&self, response: &Res) -> Option<Box<dyn AgentError + Send + Sync>> {
        response.failure()
    }
}

/// Every response is a success, whatever its type ([`RetryLayer::any_response`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct AnyResponse;

impl<Res> ResponsePolicy<Res> for AnyResponse {
    fn failure(&self, _: &Res) -> Option<Box<dyn AgentError + Send + Sync>> {
        None
    }
}

/// Responses classified by a function of the caller's ([`RetryLayer::classify_responses`]).
pub struct ClassifyWith<F>(Arc<F>);

impl<F> Clone for ClassifyWith<F> {
    fn clone(&self) -> Self {
        ClassifyWith(self.0.clone())
    }
}

impl<F> fmt::Debug for ClassifyWith<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ClassifyWith(..)")
    }
}

impl<Res, F> ResponsePolicy<Res> for ClassifyWith<F>
where
    F: Fn(&Res) -> Option<Box<dyn AgentError + Send + Sync>>,
{
    fn failure(&self, response: &Res) -> Option<Box<dyn AgentError + Send + Sync>> {
        (self.0)(response)
    }
}

/// The [`tower::retry::Policy`] behind [`RetryLayer`]: one
/// [`RetryState`] per call, deciding as [`Retrier::run`] does.
///
/// tower clones the policy for each call; a clone starts a new run (fresh attempt count,
/// `max_elapsed` clock started), so calls never share their state, only the retrier and its
/// budget.
pub struct ClassifiedRetry<M = markers::Typed, R = ByType> {
    run: RetryState<Arc<Retrier>>,
    sleep: Sleeper,
    responses: R,
    marker: PhantomData<fn() -> M>,
}

impl<M, R> ClassifiedRetry<M, R> {
    fn new(retrier: Arc<Retrier>, sleep: Sleeper, responses: R) -> Self {
        ClassifiedRetry {
            run: RetryState::new(retrier),
            sleep,
            responses,
            marker: PhantomData,
        }
    }

    /// The run of this call so far.
    pub fn state(&self) -> &RetryState<Arc<Retrier>> {
        &self.run
    }

    fn retrier(&self) -> Arc<Retrier> {
        self.run.retrier().clone()
    }
}

impl<M, R: Clone> Clone for ClassifiedRetry<M, R> {
    /// A new run with the same retrier, sleep and response policy.
    fn clone(&self) -> Self {
        ClassifiedRetry::new(self.retrier(), self.sleep.clone(), self.responses.clone())
    }
}

impl<M, R> fmt::Debug for ClassifiedRetry<M, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClassifiedRetry")
            .field("run", &self.run)
            .field("sleep", &self.sleep)
            .finish()
    }
}

impl<Req, Res, E, M, R> Policy<Req, Res, E> for ClassifiedRetry<M, R>
where
    Req: Clone,
    R: ResponsePolicy<Res>,
    E: ErrorChain<M>,
{
    type Future = BoxSleep;

    fn retry(&mut self, _: &mut Req, result: &mut Result<Res, E>) -> Option<Self::Future> {
        let retrier = self.retrier();
        let pacer = PaceGate::of(&retrier).map(|paced| (paced.pacer(), paced.key()));
        let decision = match result {
            Ok(response) => match self.responses.failure(response) {
                Some(failure) => {
                    if let Some((pacer, key)) = pacer {
                        pacer.failed(key, &*failure);
                    }
                    self.run.next_delay(&*failure)
                }
                None => {
                    if let Some((pacer, key)) = pacer {
                        pacer.succeeded(key);
                    }
                    self.run.succeeded();
                    return None;
                }
            },
            Err(e) => {
                if let Some((pacer, key)) = pacer {
                    pacer.failed(key, e.error_chain());
                }
                self.run.next_delay_for(e.error_chain())
            }
        };
        decision.ok().map(|delay| self.sleep.sleep(delay))
    }

    fn clone_request(&mut self, req: &Req) -> Option<Req> {
        Some(req.clone())
    }
}

/// What a service's response says about failure: an `http::Response` with an error status
/// is one, classified; most other responses are successes.
///
/// Implemented for `http::Response<B>` (any body, never read) and for `()`, `String`,
/// `Vec<u8>` and `bool`. For a response type of your own, say when it is a failure, or
/// write an empty impl (the default: never):
///
/// ```
/// use agent_error::{AgentError, Error, codes, tower::ClassifyResponse};
///
/// struct Completion { finish_reason: String }
///
/// impl ClassifyResponse for Completion {
///     fn failure(&self) -> Option<Box<dyn AgentError + Send + Sync>> {
///         (self.finish_reason == "overloaded").then(|| {
///             Box::new(Error::new("llm.generate", codes::PROVIDER_UNAVAILABLE, "overloaded")) as _
///         })
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`RetryLayer::new` cannot tell whether a `{Self}` response is a failure",
    label = "this service's response type",
    note = "for any response type, add `.any_response()` (every response is a success) or `.classify_responses(|r: &{Self}| ..)` to the `RetryLayer`"
)]
pub trait ClassifyResponse {
    /// The response's failure, classified, when it is one; `None` for a success.
    fn failure(&self) -> Option<Box<dyn AgentError + Send + Sync>> {
        None
    }
}

impl<B> ClassifyResponse for ::http::Response<B> {
    /// An error status (4xx, 5xx), read with [`StatusError::from_head`].
    fn failure(&self) -> Option<Box<dyn AgentError + Send + Sync>> {
        let status = self.status();
        (status.is_client_error() || status.is_server_error())
            .then(|| Box::new(StatusError::from_head(status, self.headers())) as _)
    }
}

impl ClassifyResponse for () {}
impl ClassifyResponse for String {}
impl ClassifyResponse for Vec<u8> {}
impl ClassifyResponse for bool {}
