//! A gRPC service whose failures are classified statuses: the server answers with
//! `agent_error::tonic::to_status` (the gRPC code follows the classification, with AIP-193
//! `ErrorInfo` and `RetryInfo` details), and the client's `Retrier` obeys the status it
//! reads back: `UNAVAILABLE` is retried, `RESOURCE_EXHAUSTED` waits the `RetryInfo` delay,
//! `INVALID_ARGUMENT` is returned at once. A real tonic server and client on 127.0.0.1, with
//! a hand-written service (no protoc).
//!
//! `cargo run --example grpc_status --features tonic,tokio`
//!
//! `tests/suite/grpc.rs` runs its server and client too.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use agent_error::AgentError;
use agent_error::http::StatusError;
use agent_error::retry::{Retrier, tokio_sleep};
use tonic::server::{NamedService, UnaryService};
use tonic::transport::server::TcpIncoming;
use tonic::{Request, Response, Status};
use tonic_prost::ProstCodec;

#[derive(Clone, PartialEq, prost::Message)]
struct Prompt {
    #[prost(string, tag = "1")]
    text: String,
}

#[derive(Clone, PartialEq, prost::Message)]
struct Completion {
    #[prost(string, tag = "1")]
    text: String,
}

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum LlmError {
    #[agent(code = "rate_limit", rate_limited, hint = "lower the request rate")]
    #[error("too many requests")]
    RateLimited {
        #[retry_after]
        retry_after: Duration,
    },
    #[agent(code = "invalid_input", recovery = "replan")]
    #[error("the prompt is empty")]
    EmptyPrompt,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// Answers each call with the next scripted failure, then with a completion.
#[derive(Clone, Default)]
pub struct Model {
    calls: Arc<AtomicU32>,
    script: Arc<Mutex<VecDeque<Status>>>,
}

impl Model {
    /// The calls received so far.
    pub fn calls(&self) -> u32 {
        self.calls.load(Ordering::SeqCst)
    }
}

impl UnaryService<Prompt> for Model {
    type Response = Completion;
    type Future = BoxFuture<Result<Response<Completion>, Status>>;

    fn call(&mut self, request: Request<Prompt>) -> Self::Future {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let next = self.script.lock().unwrap().pop_front();
        let prompt = request.into_inner().text;
        Box::pin(async move {
            if prompt.is_empty() {
                return Err(agent_error::tonic::to_status(&LlmError::EmptyPrompt));
            }
            match next {
                Some(status) => Err(status),
                None => Ok(Response::new(Completion {
                    text: format!("echo: {prompt}"),
                })),
            }
        })
    }
}

impl tower_service::Service<http::Request<tonic::body::Body>> for Model {
    type Response = http::Response<tonic::body::Body>;
    type Error = Infallible;
    type Future = BoxFuture<Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<tonic::body::Body>) -> Self::Future {
        let model = self.clone();
        Box::pin(async move {
            let mut grpc = tonic::server::Grpc::new(ProstCodec::<Completion, Prompt>::default());
            Ok(grpc.unary(model, request).await)
        })
    }
}

impl NamedService for Model {
    const NAME: &'static str = "demo.Model";
}

type Server = tokio::task::JoinHandle<Result<(), tonic::transport::Error>>;

/// Serves the model on 127.0.0.1: it answers with `script`, then with completions.
pub async fn serve(
    script: impl IntoIterator<Item = Status>,
) -> Result<(SocketAddr, Model, Server), Box<dyn std::error::Error>> {
    let model = Model::default();
    model.script.lock().unwrap().extend(script);
    let incoming = TcpIncoming::bind("127.0.0.1:0".parse()?)?;
    let addr = incoming.local_addr()?;
    let server = tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(model.clone())
            .serve_with_incoming(incoming),
    );
    Ok((addr, model, server))
}

/// One call through a tonic client; a connection that fails is `UNAVAILABLE`.
pub async fn generate(addr: SocketAddr, prompt: &str) -> Result<String, Status> {
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
        .map_err(|e| Status::invalid_argument(e.to_string()))?
        .connect_timeout(Duration::from_secs(2))
        .timeout(Duration::from_secs(5))
        .connect()
        .await
        .map_err(|e| Status::unavailable(e.to_string()))?;
    let mut client = tonic::client::Grpc::new(channel);
    client
        .ready()
        .await
        .map_err(|e| Status::unavailable(e.to_string()))?;
    let reply = client
        .unary(
            Request::new(Prompt {
                text: prompt.to_string(),
            }),
            http::uri::PathAndQuery::from_static("/demo.Model/Generate"),
            ProstCodec::<Prompt, Completion>::default(),
        )
        .await?;
    Ok(reply.into_inner().text)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (addr, model, server) = serve([
        agent_error::tonic::to_status(&StatusError::new(503).with_op("llm.generate")),
        agent_error::tonic::to_status(&LlmError::RateLimited {
            retry_after: Duration::from_millis(200),
        }),
    ])
    .await?;

    let retrier = Retrier::new()
        .max_attempts(4)
        .max_elapsed(Duration::from_secs(10))
        .seed(7)
        .on_retry(|e, retry, delay| {
            println!(
                "retry {retry} after {} ({}): waiting {} ms",
                e.code(),
                agent_error::tonic::grpc_code(e).description(),
                delay.as_millis()
            )
        });
    // A tonic::Status is classified by itself: the retrier needs no mapping.
    let answer = retrier
        .run_async(|_| generate(addr, "hello"), tokio_sleep)
        .await?;
    println!("answer: {answer} (the server took {} calls)", model.calls());

    let status = retrier
        .run_async(|_| generate(addr, ""), tokio_sleep)
        .await
        .unwrap_err();
    let report = agent_error::tonic::read_status(&status);
    println!(
        "not retried: {:?} {}: code={} recovery={}",
        status.code(),
        status.message(),
        report.code(),
        report.recovery()
    );
    server.abort();
    Ok(())
}
