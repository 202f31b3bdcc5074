//! reqwest-retry's middleware with a hand-written server-sent events loop: the middleware
//! retries a transient status (429, 408, 5xx) or transport error before the body, with
//! exponential backoff (it does not read `Retry-After`); the stream is the loop's. A call
//! that failed without showing text falls back to the next provider.

use reqwest_middleware::{ClientBuilder, ClientWithMiddleware};
use reqwest_retry::RetryTransientMiddleware;
use reqwest_retry::policies::ExponentialBackoff;

use super::none::read_stream;
use agent_error_farm::Kind;

use super::{Call, CallFuture, Env, Replica, Show, Strategy, fallback_order};
use crate::sse::parts;

/// reqwest-retry, as its docs set it up.
pub struct Middleware;

impl Strategy for Middleware {
    fn name(&self) -> &'static str {
        "reqwest-retry + hand SSE loop"
    }

    fn follows(&self) -> &'static str {
        "reqwest-retry's docs (`RetryTransientMiddleware::new_with_policy(ExponentialBackoff::builder().build_with_max_retries(3))`), with a hand-written SSE loop; a call that failed before it showed text falls back to Anthropic"
    }

    fn replica(&self, env: &Env) -> Box<dyn Replica> {
        let policy = ExponentialBackoff::builder().build_with_max_retries(3);
        let http = crate::sse::client();
        Box::new(Retrying {
            env: env.clone(),
            client: ClientBuilder::new(http)
                .with(RetryTransientMiddleware::new_with_policy(policy))
                .build(),
        })
    }
}

struct Retrying {
    env: Env,
    client: ClientWithMiddleware,
}

impl Retrying {
    /// One call to `kind`, retried by the middleware until its stream opens.
    async fn once(&self, kind: Kind, call: Call<'_>, show: Show<'_>) -> Result<(), String> {
        let (url, body, headers) = parts(self.env.url(kind), kind, call.key, call.prompt, None);
        let mut request = self.client.post(url).body(body);
        for (name, value) in headers {
            request = request.header(name, value);
        }
        let response = request.send().await.map_err(|e| e.to_string())?;
        if !response.status().is_success() {
            return Err(format!("status {}", response.status()));
        }
        read_stream(response, show).await
    }
}

impl Replica for Retrying {
    fn call<'a>(&'a self, call: Call<'a>, show: Show<'a>) -> CallFuture<'a> {
        Box::pin(async move {
            let mut failure = String::new();
            for kind in fallback_order(call.primary) {
                match self.once(kind, call, show).await {
                    Ok(()) => return Ok(()),
                    Err(e) => failure = e,
                }
                // Once text was shown, another provider would show the answer again.
                if !show.text.is_empty() {
                    break;
                }
            }
            Err(failure)
        })
    }
}
