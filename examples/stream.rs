//! Streaming a model's answer, and what to do when the stream breaks after `200 OK`.
//!
//! A small loopback server plays three OpenAI-shaped streams (no network needed): one that
//! completes, one that breaks after it said "Hello", and one that breaks before it said
//! anything the first time it is called. The client reads them with reqwest through
//! `agent_error::reqwest::watch`, and lets `Retrier::run_stream` re-open the third.
//!
//! `cargo run --example stream --features stream,reqwest,tokio`

use std::error::Error;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use agent_error::AgentError;
use agent_error::retry::{Retrier, tokio_sleep};
use futures_util::StreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

type BoxError = Box<dyn Error + Send + Sync>;

// The server side: Chat Completions chunks as OpenAI sends them, one `data:` line each.

const ROLE: &str = "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n";
const STOP: &str =
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n";
const DONE: &str = "data: [DONE]\n\n";

fn text(words: &str) -> String {
    format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{words}\"}}}}]}}\n\n")
}

/// What each path answers. `/flaky` breaks before any text on its first call only.
fn body(path: &str, flaky_calls: &AtomicU32) -> String {
    let complete = [ROLE, &text("Hello"), &text(" world"), STOP, DONE].concat();
    match path {
        // The connection closes before `[DONE]`: the reader has already seen "Hello".
        "/cut" => [ROLE, &text("Hello")].concat(),
        // Only the role chunk, which is metadata: nothing was delivered yet.
        "/flaky" if flaky_calls.fetch_add(1, Ordering::SeqCst) == 0 => ROLE.to_owned(),
        _ => complete,
    }
}

/// Serves the streams on a free port of 127.0.0.1 until the program ends; returns its base URL.
async fn serve() -> std::io::Result<String> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    let flaky_calls = Arc::new(AtomicU32::new(0));
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let flaky_calls = flaky_calls.clone();
            tokio::spawn(async move {
                // The request's head, read up to its blank line (and at most 16 KiB).
                let (mut head, mut buf) = (Vec::new(), [0u8; 1024]);
                while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                // "GET /path HTTP/1.1": the path is the second word.
                let head = String::from_utf8_lossy(&head);
                let path = head.split_whitespace().nth(1).unwrap_or("/");
                // No length, `connection: close`: the body ends when the socket closes, so a
                // server that stops mid-answer looks like a clean end to the HTTP client.
                // Only the missing `[DONE]` tells the watch that the stream was cut.
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n{}",
                    body(path, &flaky_calls)
                );
                let _ = socket.write_all(response.as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    Ok(base)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), BoxError> {
    let base = serve().await?;
    let client = reqwest::Client::builder().no_proxy().build()?;

    // 1. A complete stream: the watch yields every event unchanged and ends after `[DONE]`.
    let response = client.get(format!("{base}/complete")).send().await?;
    // A 4xx/5xx head would be a classified `StatusError` here, before any event is read.
    let mut events = agent_error::reqwest::watch(response)
        .await?
        .keep_text(1 << 20);
    let mut count = 0;
    while let Some(event) = events.next().await {
        event?;
        count += 1;
    }
    println!(
        "complete: {count} events from {:?}, text {:?}, stop {:?}",
        events
            .recognised()
            .expect("recognised from the first event"),
        events.partial_text().unwrap_or_default(),
        events.stop_reason().unwrap_or_default(),
    );

    // 2. Cut after text. Retrying from the start would show "Hello" twice to whoever reads
    // it, so the error is not retryable: its recovery is to continue from the partial text.
    let response = client.get(format!("{base}/cut")).send().await?;
    let mut events = agent_error::reqwest::watch(response)
        .await?
        .keep_text(1 << 20);
    let broke = loop {
        match events.next().await {
            Some(Ok(_)) => {}
            Some(Err(e)) => break e,
            None => return Err("the cut stream ended as if complete".into()),
        }
    };
    println!(
        "cut: {} (retryable: {}, recovery: {}), partial text {:?}",
        broke.code(),
        broke.is_retryable(),
        broke.recovery(),
        broke.partial_text().unwrap_or_default(),
    );

    // 3. Broke before speaking: nothing reached the reader, so the retrier opens the stream
    // again, as for any failed call. Events arrive as they come, whichever attempt sent them.
    let retrier = Retrier::new()
        .on_retry(|e, n, delay| println!("retrier: retry {n} after {}, in {delay:?}", e.code()));
    let (client, url) = (&client, format!("{base}/flaky"));
    let url = url.as_str();
    let stream = retrier.run_stream(
        |attempt| async move {
            println!("retrier: attempt {attempt}");
            let response = client.get(url).send().await?;
            Ok::<_, BoxError>(agent_error::reqwest::watch(response).await?)
        },
        tokio_sleep,
    );
    let mut stream = pin!(stream);
    let mut said = String::new();
    while let Some(event) = stream.next().await {
        // The text the event adds to the answer, whichever provider sent it.
        said.extend(event?.text());
    }
    println!("retrier: the answer is {said:?}");
    Ok(())
}
