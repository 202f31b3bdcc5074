//! The reqwest-middleware integration (feature `reqwest-middleware`): [`RetryMiddleware`]
//! retries failed requests and error responses as their classification says.

use std::collections::VecDeque;
use std::error::Error as StdError;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use ::reqwest::{Body, Request, Response, ResponseBuilderExt, StatusCode};
use ::reqwest_middleware::{Error as MiddlewareError, Middleware, Next};
use bytes::Bytes;
use http_body::{Frame, SizeHint};
use http_body_util::BodyExt;

use agent_error_runtime::extend::Sleeper;
use agent_error_runtime::http::StatusError;
use agent_error_runtime::recover::PaceGate;
use agent_error_runtime::retry::Retrier;
#[cfg(doc)]
use agent_error_runtime::retry::RetryState;

/// A [`reqwest_middleware::Middleware`] that retries by classification, with a [`Retrier`]'s
/// caps, budget, jitter and `on_retry` hook.
///
/// After each attempt:
/// - a transport error is [`classify`](agent_error_runtime::classify)'d (a timeout is `timeout`, a refused
///   connection `provider_unavailable`, both retried; a bad URL is `invalid_input`, not
///   retried);
/// - an error response (4xx, 5xx) is read into a [`StatusError`] with
///   [`StatusError::from_parts`]: status, server hints (`Retry-After`, `retry-after-ms`,
///   `x-should-retry`, OpenAI's rate-limit resets) and at most [`StatusError::MAX_BODY`]
///   bytes of body, so that a 429 whose body says `insufficient_quota` is not retried. The
///   bytes read are put back: the response returned is whole;
/// - a successful response is returned at once, its body untouched, and refills the
///   retrier's [`RetryBudget`](agent_error_runtime::retry::RetryBudget).
///
/// Then the [`Retrier`] decides exactly as in [`Retrier::run`]: the server's delay is waited
/// (up to `max_wait`), else the policy's jittered backoff; the shared budget pays for each
/// retry. When it stops, the last response or error is returned unchanged, as
/// reqwest-middleware expects. A request whose body cannot be cloned (a stream) is sent once.
///
/// Before each attempt it waits what the run's [`RetryState::before_attempt`] says: the
/// shared pause in force and, with a pacer's gate ([`PaceGate`]), the pacer's turn (the
/// retrier's [gates](Retrier::gate)); each response's headers then feed that pacer
/// ([`Pacer::observe_response`](agent_error_runtime::recover::Pacer::observe_response)),
/// so that one setting on the retrier paces every request. A wait longer than the run may
/// wait ends the request with that `rate_limit` error (a `reqwest_middleware::Error::Middleware`).
///
/// Waits use tokio's sleep (reqwest runs on tokio); [`with_sleep`](Self::with_sleep) swaps it.
///
/// ```no_run
/// use std::time::Duration;
/// use agent_error::{reqwest::RetryMiddleware, retry::{Retrier, RetryBudget}};
///
/// # async fn call() -> Result<(), reqwest_middleware::Error> {
/// let retrier = Retrier::new()
///     .max_elapsed(Duration::from_secs(30))
///     .budget(RetryBudget::new())
///     .on_retry(|e, retry, delay| eprintln!("retry {retry} in {delay:?}: {}", e.code()));
/// let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
///     .with(RetryMiddleware::new(retrier))
///     .build();
/// let response = client.get("http://127.0.0.1:8080/v1/models").send().await?;
/// # Ok(()) }
/// ```
pub struct RetryMiddleware {
    retrier: Arc<Retrier>,
    sleep: Sleeper,
}

impl RetryMiddleware {
    /// A middleware deciding with `retrier` (a `Retrier`, or an `Arc<Retrier>` shared with
    /// other code).
    pub fn new(retrier: impl Into<Arc<Retrier>>) -> Self {
        RetryMiddleware {
            retrier: retrier.into(),
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

impl fmt::Debug for RetryMiddleware {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RetryMiddleware")
            .field("retrier", &self.retrier)
            .field("sleep", &self.sleep)
            .finish()
    }
}

#[async_trait::async_trait]
impl Middleware for RetryMiddleware {
    async fn handle(
        &self,
        mut request: Request,
        extensions: &mut http::Extensions,
        next: Next<'_>,
    ) -> Result<Response, MiddlewareError> {
        let mut run = self.retrier.start();
        loop {
            match run.before_attempt().await {
                Ok(wait) if !wait.is_zero() => self.sleep.sleep(wait).await,
                Ok(_) => {}
                Err(held) => return Err(MiddlewareError::middleware(held)),
            }
            let spare = request.try_clone();
            let result = next.clone().run(request, extensions).await;
            if let Some(paced) = PaceGate::of(&self.retrier) {
                let (pacer, key) = (paced.pacer(), paced.key());
                match &result {
                    Ok(response) => {
                        pacer.observe_response(key, response.status(), response.headers())
                    }
                    Err(e) => pacer.failed(key, e),
                }
            }
            let Some(spare) = spare else {
                // A streaming body is gone once sent: there is nothing to retry with.
                if result.as_ref().is_ok_and(|r| !is_failure(r.status())) {
                    run.succeeded_async().await;
                }
                return result;
            };
            let (result, decision) = match result {
                Ok(response) if is_failure(response.status()) => {
                    let (response, failure) = read_failure(response).await;
                    // As a chain, so that the run's record says where a delay came from.
                    (Ok(response), run.next_delay_for_async(&failure).await)
                }
                Ok(response) => {
                    run.succeeded_async().await;
                    return Ok(response);
                }
                Err(e) => {
                    let decision = run.next_delay_for_async(&e).await;
                    (Err(e), decision)
                }
            };
            match decision {
                Ok(delay) => {
                    // Release the connection before waiting.
                    drop(result);
                    // Zero when the delay was shared as a pause: the next
                    // `before_attempt` waits it out.
                    if !delay.is_zero() {
                        self.sleep.sleep(delay).await;
                    }
                }
                Err(_) => return result,
            }
            request = spare;
        }
    }
}

fn is_failure(status: StatusCode) -> bool {
    status.is_client_error() || status.is_server_error()
}

/// Classifies an error response from its status, headers and first
/// [`StatusError::MAX_BODY`] bytes, and gives back a response whose body replays those bytes
/// before the rest.
async fn read_failure(response: Response) -> (Response, StatusError) {
    let url = response.url().clone();
    let (mut parts, mut body) = ::http::Response::<Body>::from(response).into_parts();
    let mut read = VecDeque::new();
    let mut data = Vec::new();
    let mut rest = Some(());
    while data.len() < StatusError::MAX_BODY {
        match body.frame().await {
            Some(frame) => {
                if let Some(chunk) = frame.as_ref().ok().and_then(Frame::data_ref) {
                    data.extend_from_slice(chunk);
                }
                let failed = frame.is_err();
                read.push_back(frame);
                if failed {
                    rest = None;
                    break;
                }
            }
            None => {
                rest = None;
                break;
            }
        }
    }
    let failure = StatusError::from_parts(parts.status, &parts.headers, &data);
    // `From<http::Response>` reads the URL from an extension that only the builder can set.
    let with_url = ::http::Response::builder()
        .url(url)
        .body(())
        .map(|r| r.into_parts().0.extensions)
        .unwrap_or_default();
    parts.extensions.extend(with_url);
    let replay = Replay {
        read,
        rest: rest.map(|()| body),
    };
    let response = ::http::Response::from_parts(parts, Body::wrap(replay));
    (Response::from(response), failure)
}

/// A body that gives back the frames already read, then the rest of the original body.
struct Replay {
    read: VecDeque<Result<Frame<Bytes>, ::reqwest::Error>>,
    rest: Option<Body>,
}

impl http_body::Body for Replay {
    type Data = Bytes;
    type Error = ::reqwest::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if let Some(frame) = self.read.pop_front() {
            return Poll::Ready(Some(frame));
        }
        match &mut self.rest {
            Some(rest) => Pin::new(rest).poll_frame(cx),
            None => Poll::Ready(None),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.read.is_empty() && self.rest.as_ref().is_none_or(|b| b.is_end_stream())
    }

    fn size_hint(&self) -> SizeHint {
        let read: u64 = self
            .read
            .iter()
            .filter_map(|f| f.as_ref().ok().and_then(Frame::data_ref))
            .map(|d| d.len() as u64)
            .sum();
        let mut hint = self
            .rest
            .as_ref()
            .map_or_else(|| SizeHint::with_exact(0), |b| b.size_hint());
        // Upper first: a lower bound above the upper one panics.
        if let Some(upper) = hint.upper() {
            hint.set_upper(upper + read);
        }
        hint.set_lower(hint.lower() + read);
        hint
    }
}

/// A `reqwest_middleware::Error` is classified as the error it carries: a `reqwest::Error`,
/// or a middleware's error (whose outermost link its `source()` would skip).
fn classify(e: &MiddlewareError) -> Option<agent_error_runtime::Error> {
    let inner: &(dyn StdError + 'static) = match e {
        MiddlewareError::Reqwest(e) => e,
        MiddlewareError::Middleware(e) => e.as_ref(),
    };
    agent_error_runtime::classify(inner).map(|c| agent_error_runtime::Error::classification_of(&*c))
}

agent_error_runtime::extend::builtin_classifier!(MiddlewareError, |e: &MiddlewareError| classify(
    e
)
.map(Into::into));
