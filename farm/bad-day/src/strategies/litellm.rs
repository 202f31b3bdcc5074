//! LiteLLM's Router, the strongest peer: a Python process (`litellm/router.py`) running one
//! Router over the farm's providers, set up for resilience as LiteLLM's docs recommend
//! (retries honouring `Retry-After`, fallbacks in the benchmark's order, cooldowns, rpm/tpm,
//! its mid-stream fallback continuation), called as an agent service calls LiteLLM's proxy:
//! an OpenAI Chat Completions stream read by a hand-written SSE loop. Optional: only with
//! `--litellm PYTHON`, a Python with `pip install litellm`; not in CI.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, PoisonError};

use agent_error_farm::Kind;
use serde_json::json;

use super::none::read_stream;
use super::{Call, CallFuture, Env, Replica, Show, Strategy};

/// The Router's script.
const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/litellm/router.py");

/// LiteLLM's Router, with router processes started ahead of the runs (importing LiteLLM
/// takes seconds), one a run.
pub struct LiteLlm {
    python: String,
    ready: Mutex<Vec<Server>>,
}

/// A router process, waiting for the farm's URLs or serving them; killed on drop.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start(python: &str) -> std::io::Result<Server> {
        let mut child = Command::new(python)
            .arg(SCRIPT)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let mut line = String::new();
        if let Some(out) = child.stdout.take() {
            BufReader::new(out).read_line(&mut line)?;
        }
        let port = line
            .strip_prefix("ready ")
            .and_then(|p| p.trim().parse().ok());
        match port {
            Some(port) => Ok(Server { child, port }),
            None => {
                let _ = child.kill();
                let _ = child.wait();
                Err(std::io::Error::other(format!(
                    "{SCRIPT} did not start (is litellm installed for {python}?)"
                )))
            }
        }
    }

    /// Points the Router at the farm of `env`.
    fn configure(&self, env: &Env) -> std::io::Result<()> {
        let body = json!({
            "openai": env.url(Kind::OpenAi),
            "anthropic": env.url(Kind::Anthropic),
            "compatible": env.url(Kind::Compatible),
        })
        .to_string();
        let mut stream = TcpStream::connect(("127.0.0.1", self.port))?;
        write!(
            stream,
            "POST /configure HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer)?;
        if answer.starts_with("HTTP/1.1 200") {
            Ok(())
        } else {
            Err(std::io::Error::other(format!("configure: {answer}")))
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl LiteLlm {
    /// LiteLLM's Router, run with `python`: checked by starting one router process, kept
    /// for the first run.
    pub fn new(python: &str) -> std::io::Result<LiteLlm> {
        Ok(LiteLlm {
            python: python.to_string(),
            ready: Mutex::new(vec![Server::start(python)?]),
        })
    }
}

impl Strategy for LiteLlm {
    fn name(&self) -> &'static str {
        "LiteLLM Router"
    }

    fn follows(&self) -> &'static str {
        "LiteLLM's Router docs (\"Retries, fallbacks and cooldowns\"): num_retries 3 honouring Retry-After, fallbacks to Anthropic, allowed_fails and cooldown_time, rpm/tpm per deployment, stream_timeout 2 s, enable_mid_stream_fallback_continuation; read by a hand-written SSE loop as from LiteLLM's proxy"
    }

    fn fleet(&self) -> bool {
        false
    }

    fn prepare(&self, runs: usize) {
        // Started here, not at the benchmark's start: importing LiteLLM takes seconds of
        // CPU, which would fall on the runs of the strategies before it.
        let mut ready = self.ready.lock().unwrap_or_else(PoisonError::into_inner);
        while ready.len() < runs {
            match Server::start(&self.python) {
                Ok(server) => ready.push(server),
                Err(_) => break,
            }
        }
    }

    fn seeds_at_once(&self) -> bool {
        // The Router is CPU-bound in Python: five at once on two cores would time each
        // other out.
        false
    }

    fn replica(&self, env: &Env) -> Box<dyn Replica> {
        let ready = self
            .ready
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let server = ready
            .map(Ok)
            .unwrap_or_else(|| Server::start(&self.python))
            .and_then(|server| server.configure(env).map(|()| server));
        // The Router applies the read timeout to the providers (`stream_timeout`); between
        // the agent and the Router, on loopback, it may wait out a `Retry-After` before the
        // first byte, as a proxy does.
        let client = reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("a client");
        Box::new(ViaRouter {
            client,
            server: server.map_err(|e| e.to_string()),
        })
    }
}

struct ViaRouter {
    client: reqwest::Client,
    server: Result<Server, String>,
}

impl Replica for ViaRouter {
    fn call<'a>(&'a self, call: Call<'a>, show: Show<'a>) -> CallFuture<'a> {
        Box::pin(async move {
            let port = self.server.as_ref().map_err(Clone::clone)?.port;
            // The model group of the loop's provider and account: the Router falls back
            // from it to Anthropic's group of the same account.
            let model = format!("{}@{}", call.primary.name(), call.key);
            let body = json!({"model": model, "max_tokens": 1024, "stream": true,
                "messages": [{"role": "user", "content": call.prompt}]});
            let response = self
                .client
                .post(format!("http://127.0.0.1:{port}/v1/chat/completions"))
                .header("content-type", "application/json")
                .body(body.to_string())
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
