//! No retry: one request, a hand-written stream loop, and whatever happens is the answer.

use futures_util::StreamExt;

use super::{Call, CallFuture, Env, Replica, Show, Strategy};
use crate::sse::{Lines, Said, read_event, request};

/// No retry at all.
pub struct NoRetry;

impl Strategy for NoRetry {
    fn name(&self) -> &'static str {
        "no retry"
    }

    fn follows(&self) -> &'static str {
        "reqwest's streaming example (`bytes_stream`), no retry and no fallback"
    }

    fn replica(&self, env: &Env) -> Box<dyn Replica> {
        Box::new(Plain {
            env: env.clone(),
            client: crate::sse::client(),
        })
    }
}

struct Plain {
    env: Env,
    client: reqwest::Client,
}

impl Replica for Plain {
    fn call<'a>(&'a self, call: Call<'a>, show: Show<'a>) -> CallFuture<'a> {
        Box::pin(async move {
            let base = self.env.url(call.primary);
            let response = request(
                &self.client,
                base,
                call.primary,
                call.key,
                call.prompt,
                None,
            )
            .send()
            .await
            .map_err(|e| e.to_string())?;
            if !response.status().is_success() {
                return Err(format!("status {}", response.status()));
            }
            read_stream(response, show).await
        })
    }
}

/// Reads a stream to its end by hand, showing its text: `Ok` at the provider's last event
/// or at the end of the body, `Err` at an error event or a transport error.
pub async fn read_stream(response: reqwest::Response, show: Show<'_>) -> Result<(), String> {
    let mut body = response.bytes_stream();
    let mut lines = Lines::default();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| format!("stream: {e}"))?;
        for (name, data) in lines.feed(&chunk) {
            match read_event(&name, &data) {
                Said::Text(text) => show.show(&text),
                Said::Done => return Ok(()),
                Said::Error(data) => return Err(format!("error event: {data}")),
                Said::Other => {}
            }
        }
    }
    // The body ended: most hand-written loops take that as the end of the answer.
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategies::Screen;

    /// What "cut taken as complete" counts: a body that ends cleanly after a chunk, without
    /// `data: [DONE]`, is a whole answer to a hand-written loop.
    #[tokio::test]
    async fn a_hand_written_loop_takes_a_clean_cut_as_the_end() {
        let chunk = r#"data: {"choices":[{"index":0,"delta":{"content":"The agent"}}]}"#;
        let body = format!("{chunk}\n\n");
        let response = reqwest::Response::from(http::Response::new(body));
        let mut screen = Screen::default();
        assert_eq!(read_stream(response, &mut screen).await, Ok(()));
        assert_eq!(screen.text, "The agent");
    }
}
