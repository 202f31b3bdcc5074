//! A real axum server on 127.0.0.1 that answers from a script, one reply per request (the
//! last one repeated), and counts the requests it receives: the far side of the retry tests.
//! On the near side, a [`Recorder`] of what the retries asked for, and a bound on every run.

use std::future::{Future, Ready, ready};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agent_error::retry::Retrier;
use axum::body::Body;
use axum::extract::State;
use axum::http::Response;

/// One scripted reply.
#[derive(Clone)]
pub struct Reply {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: String,
}

impl Reply {
    pub fn new(status: u16) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            body: String::new(),
        }
    }

    pub fn header(mut self, name: &'static str, value: impl Into<String>) -> Reply {
        self.headers.push((name, value.into()));
        self
    }

    pub fn body(mut self, body: impl Into<String>) -> Reply {
        self.body = body.into();
        self
    }
}

struct Script {
    replies: Vec<Reply>,
    hits: AtomicUsize,
    times: Mutex<Vec<Instant>>,
}

/// A running scripted server.
#[derive(Clone)]
pub struct Server {
    pub url: String,
    script: Arc<Script>,
}

impl Server {
    /// Requests received so far.
    pub fn hits(&self) -> usize {
        self.script.hits.load(Ordering::SeqCst)
    }

    /// When each request arrived.
    pub fn times(&self) -> Vec<Instant> {
        self.script.times.lock().unwrap().clone()
    }
}

async fn answer(State(script): State<Arc<Script>>, body: Body) -> Response<Body> {
    // Read the request body, so that a streaming body is really sent.
    let _ = axum::body::to_bytes(body, usize::MAX).await;
    let n = script.hits.fetch_add(1, Ordering::SeqCst);
    script.times.lock().unwrap().push(Instant::now());
    let reply = &script.replies[n.min(script.replies.len() - 1)];
    let mut response = Response::builder().status(reply.status);
    for (name, value) in &reply.headers {
        response = response.header(*name, value);
    }
    response.body(Body::from(reply.body.clone())).unwrap()
}

/// Serves `replies` on a free port of 127.0.0.1 until the runtime ends.
pub async fn serve(replies: Vec<Reply>) -> Server {
    let script = Arc::new(Script {
        replies,
        hits: AtomicUsize::new(0),
        times: Mutex::new(Vec::new()),
    });
    let app = axum::Router::new()
        .fallback(answer)
        .with_state(script.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    Server { url, script }
}

/// A URL on 127.0.0.1 where nothing listens: the port was bound, then released.
pub async fn refused_url() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    drop(listener);
    url
}

/// Fails the test instead of hanging it.
pub async fn bounded<T>(run: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), run)
        .await
        .expect("the run ends within 10 s")
}

/// The delays a retry middleware asked to wait, and the codes its `on_retry` hook saw;
/// nothing is really waited.
#[derive(Clone, Default)]
pub struct Recorder {
    slept: Arc<Mutex<Vec<Duration>>>,
    codes: Arc<Mutex<Vec<String>>>,
}

impl Recorder {
    /// A default retrier whose hook records each failure's code.
    pub fn retrier(&self) -> Retrier {
        let codes = self.codes.clone();
        Retrier::new()
            .seed(7)
            .on_retry(move |e, _, _| codes.lock().unwrap().push(e.code().to_string()))
    }

    /// A sleep for the middleware's `with_sleep`: records the delay and returns at once.
    pub fn sleep(&self) -> impl Fn(Duration) -> Ready<()> + Send + Sync + 'static {
        let slept = self.slept.clone();
        move |delay| {
            slept.lock().unwrap().push(delay);
            ready(())
        }
    }

    pub fn slept(&self) -> Vec<Duration> {
        self.slept.lock().unwrap().clone()
    }

    pub fn codes(&self) -> Vec<String> {
        self.codes.lock().unwrap().clone()
    }
}
