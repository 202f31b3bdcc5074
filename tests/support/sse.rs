//! A real HTTP/1.1 server on 127.0.0.1 that answers each request with a script of raw bytes,
//! so that a stream test controls every byte a client reads: the head, the body's framing
//! (close-delimited, chunked, or with a length), pauses, and how it ends (finished, cut,
//! or held open in silence). A server plays one script to every connection, or one script
//! a connection in turn (a failing attempt, then the one after it), and counts the
//! connections and when it sent each piece. Each server answers a bounded number of
//! connections, every wait is bounded, and dropping the server stops it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// How the body is framed on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// `Connection: close` and no length: the body ends when the server closes, so a close
    /// at any point looks like a clean end to the client.
    Close,
    /// `Transfer-Encoding: chunked`, one HTTP chunk per step: a close before the last chunk
    /// is a transport error for the client.
    Chunked,
    /// `Content-Length`, the sum of the steps: for error responses.
    Length,
}

/// One step of the body.
#[derive(Clone, Debug)]
enum Step {
    Send(Vec<u8>),
    Pause(Duration),
    /// A chunk whose header promises more bytes than follow, then the close (chunked only).
    CutChunk(Vec<u8>),
}

/// How the response ends after its steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// The body's proper end (the last chunk when chunked), then the close.
    Finish,
    /// The close, without the last chunk.
    Cut,
    /// Nothing more, the connection open, for this long.
    Hold(Duration),
}

/// A scripted response.
#[derive(Clone, Debug)]
pub struct Script {
    status: u16,
    headers: Vec<(String, String)>,
    framing: Framing,
    steps: Vec<Step>,
    end: End,
}

/// The longest a server holds a silent connection open: longer than any test waits.
const HOLD: Duration = Duration::from_secs(8);

impl Script {
    /// A `200 OK` event stream, framed as `framing` says.
    pub fn ok(framing: Framing) -> Script {
        Script {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            framing,
            steps: Vec::new(),
            end: End::Finish,
        }
    }

    /// An error status with a JSON body of known length.
    pub fn status(status: u16, body: &str) -> Script {
        Script {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            framing: Framing::Length,
            steps: vec![Step::Send(body.as_bytes().to_vec())],
            end: End::Finish,
        }
    }

    /// The body's `content-type` instead of the one the script began with.
    pub fn content_type(mut self, value: &str) -> Script {
        self.headers.retain(|(name, _)| name != "content-type");
        self.header("content-type", value)
    }

    pub fn header(mut self, name: &str, value: &str) -> Script {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sends these bytes (one HTTP chunk when chunked).
    pub fn send(mut self, bytes: impl AsRef<[u8]>) -> Script {
        self.steps.push(Step::Send(bytes.as_ref().to_vec()));
        self
    }

    /// Sends each of these, one write (and chunk) each.
    pub fn send_all<B: AsRef<[u8]>>(mut self, pieces: impl IntoIterator<Item = B>) -> Script {
        for piece in pieces {
            self = self.send(piece);
        }
        self
    }

    pub fn pause(mut self, pause: Duration) -> Script {
        self.steps.push(Step::Pause(pause));
        self
    }

    /// Chunked only: a chunk that promises more than these bytes, then the close.
    pub fn cut_chunk(mut self, bytes: impl AsRef<[u8]>) -> Script {
        assert_eq!(self.framing, Framing::Chunked);
        self.steps.push(Step::CutChunk(bytes.as_ref().to_vec()));
        self.end = End::Cut;
        self
    }

    /// Closes without the body's proper end.
    pub fn cut(mut self) -> Script {
        self.end = End::Cut;
        self
    }

    /// Holds the connection open after the steps, sending nothing.
    pub fn hold(mut self) -> Script {
        self.end = End::Hold(HOLD);
        self
    }

    fn head(&self) -> Vec<u8> {
        let mut head = format!("HTTP/1.1 {} Scripted\r\n", self.status);
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        match self.framing {
            Framing::Close => head.push_str("connection: close\r\n"),
            Framing::Chunked => head.push_str("transfer-encoding: chunked\r\n"),
            Framing::Length => {
                let length: usize = self
                    .steps
                    .iter()
                    .map(|step| match step {
                        Step::Send(bytes) | Step::CutChunk(bytes) => bytes.len(),
                        Step::Pause(_) => 0,
                    })
                    .sum();
                head.push_str(&format!(
                    "content-length: {length}\r\nconnection: close\r\n"
                ));
            }
        }
        head.push_str("\r\n");
        head.into_bytes()
    }
}

/// A running server; dropping it stops it.
pub struct Server {
    pub url: String,
    task: JoinHandle<()>,
    /// The connections accepted so far.
    connections: Arc<AtomicUsize>,
    /// When each `send` step of any connection was written and flushed, in order.
    sent: Arc<Mutex<Vec<Instant>>>,
}

impl Server {
    /// The connections accepted so far: with one request a connection (the server closes
    /// each after its response), the attempts a client made.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    /// When each `send` step was written and flushed, every connection's in order.
    pub fn sent(&self) -> Vec<Instant> {
        self.sent.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The most connections a server answers (a client may retry once or twice).
const CONNECTIONS: usize = 4;

/// The most connections a server of [`serve_each`] answers: more than any retrier of a test
/// makes attempts.
const SCRIPTED_CONNECTIONS: usize = 12;

/// Serves `script` on a free port of 127.0.0.1, to at most a few connections.
pub async fn serve(script: Script) -> Server {
    serve_scripts(vec![script], CONNECTIONS).await
}

/// Serves connection 1 with the first script, connection 2 with the second, and so on; the
/// connections after the last script get the last one again (at most a dozen in all).
pub async fn serve_each(scripts: impl IntoIterator<Item = Script>) -> Server {
    let scripts: Vec<Script> = scripts.into_iter().collect();
    assert!(!scripts.is_empty(), "a server needs a script");
    serve_scripts(scripts, SCRIPTED_CONNECTIONS).await
}

async fn serve_scripts(scripts: Vec<Script>, limit: usize) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1/stream", listener.local_addr().unwrap());
    let connections = Arc::new(AtomicUsize::new(0));
    let sent = Arc::new(Mutex::new(Vec::new()));
    let (count, log) = (connections.clone(), sent.clone());
    let task = tokio::spawn(async move {
        for n in 0..limit {
            let Ok((socket, _)) = listener.accept().await else {
                return;
            };
            count.fetch_add(1, Ordering::SeqCst);
            let script = scripts[n.min(scripts.len() - 1)].clone();
            let log = log.clone();
            tokio::spawn(async move {
                let _ = tokio::time::timeout(HOLD * 2, answer(socket, &script, &log)).await;
            });
        }
    });
    Server {
        url,
        task,
        connections,
        sent,
    }
}

/// Reads the request's head (bounded), then plays the script.
async fn answer(
    mut socket: TcpStream,
    script: &Script,
    sent: &Mutex<Vec<Instant>>,
) -> std::io::Result<()> {
    let mut request = Vec::new();
    let mut buf = [0u8; 4096];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = socket.read(&mut buf).await?;
        if n == 0 || request.len() > 64 * 1024 {
            return Ok(());
        }
        request.extend_from_slice(&buf[..n]);
    }
    socket.write_all(&script.head()).await?;
    socket.flush().await?;
    let chunked = script.framing == Framing::Chunked;
    for step in &script.steps {
        match step {
            Step::Send(bytes) if chunked => {
                if !bytes.is_empty() {
                    let mut frame = format!("{:x}\r\n", bytes.len()).into_bytes();
                    frame.extend_from_slice(bytes);
                    frame.extend_from_slice(b"\r\n");
                    socket.write_all(&frame).await?;
                }
            }
            Step::Send(bytes) => socket.write_all(bytes).await?,
            Step::CutChunk(bytes) => {
                let mut frame = format!("{:x}\r\n", bytes.len() + 64).into_bytes();
                frame.extend_from_slice(bytes);
                socket.write_all(&frame).await?;
            }
            Step::Pause(pause) => {
                socket.flush().await?;
                tokio::time::sleep(*pause).await;
            }
        }
        socket.flush().await?;
        if let Step::Send(_) = step {
            sent.lock().unwrap().push(Instant::now());
        }
    }
    match script.end {
        End::Finish if chunked => socket.write_all(b"0\r\n\r\n").await?,
        End::Finish | End::Cut => {}
        End::Hold(hold) => tokio::time::sleep(hold).await,
    }
    socket.flush().await?;
    socket.shutdown().await
}

// The near side: the real reqwest client, and a watch read to its end.

/// A client that goes straight to 127.0.0.1.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().build().unwrap()
}

/// Requests the server's stream and watches it (the head must be a success).
pub async fn open(
    server: &Server,
) -> agent_error::stream::Watch<
    impl futures_util::Stream<Item = reqwest::Result<bytes::Bytes>> + Send + use<>,
> {
    let response = client().get(&server.url).send().await.unwrap();
    agent_error::reqwest::watch(response).await.unwrap()
}

/// What a watch yielded, to its end.
#[derive(Debug)]
pub struct Ended {
    pub events: Vec<agent_error::stream::Event>,
    /// The error it ended in, if any (always its last item).
    pub error: Option<agent_error::stream::StreamError>,
}

impl Ended {
    /// The error, which the test expects.
    pub fn error(&self) -> &agent_error::stream::StreamError {
        self.error.as_ref().expect("the stream ends in an error")
    }
}

/// Reads `watch` to its end (`None`), within 10 s; nothing comes after an error.
pub async fn drain<S>(watch: &mut agent_error::stream::Watch<S>) -> Ended
where
    S: futures_util::TryStream,
    agent_error::stream::Watch<S>: futures_util::Stream<
            Item = Result<agent_error::stream::Event, agent_error::stream::StreamError>,
        >,
{
    use futures_util::StreamExt;
    let run = async {
        let mut events = Vec::new();
        while let Some(item) = watch.next().await {
            match item {
                Ok(event) => events.push(event),
                Err(error) => {
                    assert!(watch.next().await.is_none(), "nothing after the error");
                    return Ended {
                        events,
                        error: Some(error),
                    };
                }
            }
        }
        Ended {
            events,
            error: None,
        }
    };
    tokio::time::timeout(Duration::from_secs(10), run)
        .await
        .expect("the stream ends within 10 s")
}

/// A fixture cut into its events (each with its blank line), one write each.
pub fn events(fixture: &str) -> Vec<&str> {
    fixture.split_inclusive("\n\n").collect()
}
