//! gRPC statuses end to end: a real tonic server and client on 127.0.0.1, a hand-written
//! service (no protoc), and the `Retrier` obeying the status each failed call read back into.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use agent_error::retry::{Retrier, tokio_sleep};
use agent_error::{AgentError, Recovery, Report, codes};
use tonic::server::{NamedService, UnaryService};
use tonic::transport::server::TcpIncoming;
use tonic::{Code, Request, Response, Status};
use tonic_prost::ProstCodec;
use tonic_types::StatusExt;

#[derive(Clone, PartialEq, prost::Message)]
struct AskRequest {
    #[prost(string, tag = "1")]
    question: String,
}

#[derive(Clone, PartialEq, prost::Message)]
struct AskReply {
    #[prost(string, tag = "1")]
    answer: String,
}

/// What the server answers, hit after hit; `Ok` once the script is spent.
#[derive(Clone, Default)]
struct Oracle {
    hits: Arc<AtomicU32>,
    script: Arc<Mutex<VecDeque<Status>>>,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl UnaryService<AskRequest> for Oracle {
    type Response = AskReply;
    type Future = BoxFuture<Result<Response<AskReply>, Status>>;

    fn call(&mut self, request: Request<AskRequest>) -> Self::Future {
        self.hits.fetch_add(1, Ordering::SeqCst);
        let next = self.script.lock().unwrap().pop_front();
        let question = request.into_inner().question;
        Box::pin(async move {
            match next {
                Some(status) => Err(status),
                None => Ok(Response::new(AskReply {
                    answer: format!("42 ({question})"),
                })),
            }
        })
    }
}

impl tower_service::Service<http::Request<tonic::body::Body>> for Oracle {
    type Response = http::Response<tonic::body::Body>;
    type Error = Infallible;
    type Future = BoxFuture<Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<tonic::body::Body>) -> Self::Future {
        let oracle = self.clone();
        Box::pin(async move {
            let mut grpc = tonic::server::Grpc::new(ProstCodec::<AskReply, AskRequest>::default());
            Ok(grpc.unary(oracle, request).await)
        })
    }
}

impl NamedService for Oracle {
    const NAME: &'static str = "test.Oracle";
}

/// Starts a server on 127.0.0.1 that answers with `script`, then with success.
async fn serve(script: Vec<Status>) -> (SocketAddr, Oracle, tokio::task::JoinHandle<()>) {
    let oracle = Oracle::default();
    oracle.script.lock().unwrap().extend(script);
    let incoming = TcpIncoming::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = incoming.local_addr().unwrap();
    let service = oracle.clone();
    let server = tokio::spawn(async move {
        tonic::transport::Server::builder()
            .add_service(service)
            .serve_with_incoming(incoming)
            .await
            .unwrap();
    });
    (addr, oracle, server)
}

/// One call through a real tonic client; a failed call reads back into a `Report`.
async fn ask(addr: SocketAddr) -> Result<String, Report> {
    let status = |e: tonic::transport::Error| Status::unavailable(e.to_string());
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect_timeout(Duration::from_secs(2))
        .timeout(Duration::from_secs(5))
        .connect()
        .await
        .map_err(|e| agent_error::tonic::read_status(&status(e)))?;
    let mut client = tonic::client::Grpc::new(channel);
    client
        .ready()
        .await
        .map_err(|e| agent_error::tonic::read_status(&status(e)))?;
    let reply = client
        .unary(
            Request::new(AskRequest {
                question: "meaning".into(),
            }),
            http::uri::PathAndQuery::from_static("/test.Oracle/Ask"),
            ProstCodec::<AskRequest, AskReply>::default(),
        )
        .await
        .map_err(|s| agent_error::tonic::read_status(&s))?;
    Ok(reply.into_inner().answer)
}

fn retrier(delays: Arc<Mutex<Vec<Duration>>>) -> Retrier {
    Retrier::new()
        .max_attempts(4)
        .max_elapsed(Duration::from_secs(10))
        .seed(7)
        .on_retry(move |_, _, delay| delays.lock().unwrap().push(delay))
}

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate")]
enum LlmError {
    #[agent(code = "rate_limit", rate_limited, hint = "lower the request rate")]
    #[error("provider returned 429 for key {key}")]
    RateLimited {
        #[redact]
        key: String,
        #[retry_after]
        retry_after: Duration,
    },
    #[agent(code = "invalid_input", recovery = "replan")]
    #[error("temperature must be between 0 and 2")]
    BadTemperature,
    #[agent(code = "budget_exhausted", recovery = "escalate")]
    #[error("the month's token budget is spent")]
    OutOfBudget,
}

#[tokio::test]
async fn unavailable_from_a_server_that_knows_nothing_of_this_crate_is_retried() {
    let (addr, oracle, server) = serve(vec![
        Status::unavailable("backend restarting"),
        Status::unavailable("backend restarting"),
    ])
    .await;
    let delays = Arc::new(Mutex::new(Vec::new()));
    let answer = retrier(delays.clone())
        .run_async(|_| ask(addr), tokio_sleep)
        .await;
    assert_eq!(answer.unwrap(), "42 (meaning)");
    assert_eq!(oracle.hits.load(Ordering::SeqCst), 3);
    assert_eq!(delays.lock().unwrap().len(), 2);
    server.abort();
}

#[tokio::test]
async fn resource_exhausted_with_retry_info_waits_the_servers_delay() {
    let sent = LlmError::RateLimited {
        key: "sk-CANARY-1234".into(),
        retry_after: Duration::from_millis(300),
    };
    let (addr, oracle, server) = serve(vec![agent_error::tonic::to_status(&sent)]).await;

    // What crossed the wire: code, public message, AIP-193 details.
    let report = ask(addr).await.unwrap_err();
    assert_eq!(report.code(), "rate_limit");
    assert_eq!(report.op(), "llm.generate");
    assert_eq!(report.message(), "provider returned 429 for key [redacted]");
    assert!(report.is_rate_limited());
    assert_eq!(report.retry_after(), Some(Duration::from_millis(300)));
    assert_eq!(report.recovery(), Recovery::Retry);
    assert_eq!(report.hints(), ["lower the request rate"]);
    assert_eq!(oracle.hits.load(Ordering::SeqCst), 1);

    oracle
        .script
        .lock()
        .unwrap()
        .push_back(agent_error::tonic::to_status(&sent));
    let delays = Arc::new(Mutex::new(Vec::new()));
    let started = Instant::now();
    let answer = retrier(delays.clone())
        .run_async(|_| ask(addr), tokio_sleep)
        .await;
    assert_eq!(answer.unwrap(), "42 (meaning)");
    assert_eq!(oracle.hits.load(Ordering::SeqCst), 3);
    assert_eq!(*delays.lock().unwrap(), [Duration::from_millis(300)]);
    assert!(started.elapsed() >= Duration::from_millis(300));
    server.abort();
}

#[tokio::test]
async fn permanent_statuses_are_not_retried() {
    for (sent, code, grpc) in [
        (
            LlmError::BadTemperature,
            codes::INVALID_INPUT,
            Code::InvalidArgument,
        ),
        // RESOURCE_EXHAUSTED alone would be retried; the ErrorInfo says it must not be.
        (
            LlmError::OutOfBudget,
            codes::BUDGET_EXHAUSTED,
            Code::ResourceExhausted,
        ),
    ] {
        let status = agent_error::tonic::to_status(&sent);
        assert_eq!(status.code(), grpc);
        let info = status.get_details_error_info().unwrap();
        assert_eq!(info.reason, code);
        assert_eq!(info.domain, agent_error::tonic::DOMAIN);
        assert_eq!(info.metadata["retryable"], "false");

        let (addr, oracle, server) = serve(vec![status]).await;
        let delays = Arc::new(Mutex::new(Vec::new()));
        let report = retrier(delays.clone())
            .run_async(|_| ask(addr), tokio_sleep)
            .await
            .unwrap_err();
        assert_eq!(report.code(), code);
        assert_eq!(report.recovery(), sent.recovery());
        assert_eq!(oracle.hits.load(Ordering::SeqCst), 1, "{code} was retried");
        assert!(delays.lock().unwrap().is_empty());
        server.abort();
    }
}

#[test]
fn a_status_is_classified_in_a_chain_by_its_code_alone() {
    let c = |status: Status| {
        let err = anyhow::Error::new(status).context("asking the oracle");
        let c = agent_error::classify(err.as_ref()).unwrap();
        (c.code().to_string(), c.is_retryable(), c.message())
    };
    assert_eq!(
        c(Status::unavailable("10.0.0.7 refused")),
        (
            "provider_unavailable".into(),
            true,
            "The service is currently unavailable".into()
        )
    );
    assert_eq!(
        c(Status::deadline_exceeded("slow")).0.as_str(),
        codes::TIMEOUT
    );
    assert_eq!(c(Status::permission_denied("no")).0.as_str(), codes::AUTH);
    assert_eq!(
        c(Status::internal("boom")),
        ("grpc.internal".into(), false, "Internal error".into())
    );
    assert_eq!(
        agent_error::tonic::to_status(&std::io::Error::other("secret")).code(),
        Code::Unknown
    );
}
