//! agent-error: each call a fallback chain over two providers, retried by the library's
//! retrier; each stream watched (a cut or a silence is a failure, never an answer); a
//! stream that broke after it spoke is continued from its text where the next provider can
//! continue an answer (Anthropic's prefill, vLLM's `continue_final_message`), and where it
//! cannot (OpenAI's Chat API) the answer starts again, marked as a new attempt; a pacer
//! fed by the providers' rate-limit headers; in a fleet, the pacer's buckets and the
//! chains' cooldowns shared through Redis.
//!
//! As the guide recommends it: "Streams" (`Fallback::run_stream`, a `Watch` with
//! `keep_text` and an idle timeout, `Recovery::Continue` with `partial_text`), "Pacing"
//! (`Pacer::observe_response`, `Fallback::pacer`), "Fleet" (`RedisStore`) and "In an agent
//! loop" (`decide` on what the chain ends in).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use agent_error::recover::{Cost, Decision, Fallback, Pacer, decide};
use agent_error::retry::{Retrier, tokio_sleep};
use agent_error_farm::Kind;
use futures_util::StreamExt;

use super::{Call, CallFuture, Env, Replica, Show, Strategy};
use crate::sse::{continues, request};

/// This library.
pub struct Library;

impl Strategy for Library {
    fn name(&self) -> &'static str {
        "agent-error"
    }

    fn follows(&self) -> &'static str {
        "the guide's Streams, Pacing and Fleet chapters: Fallback::run_stream over a Watch, Pacer, RedisStore"
    }

    fn replica(&self, env: &Env) -> Box<dyn Replica> {
        let mut pacer = Pacer::new();
        if let Some(store) = &env.redis {
            pacer = pacer.shared_in(store.clone());
        }
        Box::new(Ours {
            env: env.clone(),
            client: crate::sse::client(),
            accounts: Mutex::new(HashMap::new()),
            pacer,
        })
    }
}

struct Ours {
    env: Env,
    client: reqwest::Client,
    /// The chains of each API key, made at its first call.
    accounts: Mutex<HashMap<String, Arc<Account>>>,
    pacer: Pacer,
}

/// The chains of one account (an API key): its providers' limits, cooldowns and spent
/// credit are its own, so its candidates are named after it (`openai@team-key`), and the
/// pacer and the fleet's store keep them apart from another account's.
struct Account {
    openai_first: Fallback<Kind>,
    /// The chain that goes on from an answer shown in part, for the loops that call OpenAI
    /// first: Anthropic first, as it continues an answer, and OpenAI, which cannot, last.
    continue_after_openai: Fallback<Kind>,
    compatible_first: Fallback<Kind>,
}

/// The name of `kind` for the account `key`: what the pacer and the cooldowns key it by.
fn candidate(kind: Kind, key: &str) -> String {
    format!("{}@{key}", kind.name())
}

/// The provider a candidate's name stands for.
fn kind_of(candidate: &str) -> Option<Kind> {
    let name = candidate.split('@').next()?;
    Kind::ALL.into_iter().find(|k| k.name() == name)
}

impl Ours {
    fn account(&self, key: &str) -> Arc<Account> {
        let mut accounts = self.accounts.lock().unwrap_or_else(PoisonError::into_inner);
        let chain = |first: Kind, second: Kind| {
            let mut chain = Fallback::named([
                (candidate(first, key), first),
                (candidate(second, key), second),
            ])
            .retrier(Retrier::new())
            .pacer(self.pacer.clone(), Cost::request());
            if let Some(store) = &self.env.redis {
                chain = chain.store(store.clone());
            }
            chain
        };
        accounts
            .entry(key.to_string())
            .or_insert_with(|| {
                Arc::new(Account {
                    openai_first: chain(Kind::OpenAi, Kind::Anthropic),
                    continue_after_openai: chain(Kind::Anthropic, Kind::OpenAi),
                    compatible_first: chain(Kind::Compatible, Kind::Anthropic),
                })
            })
            .clone()
    }
}

/// How many times a call runs its chain again (to go on from its text, or after a wait),
/// at most.
const CONTINUATIONS: usize = 3;

/// Why a stream did not open: the chain walk classifies either through `source()`.
#[derive(Debug)]
enum Opening {
    /// The request was not sent, or no answer came.
    Send(reqwest::Error),
    /// The provider refused it.
    Refused(agent_error::http::StatusError),
}

impl std::fmt::Display for Opening {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the stream did not open")
    }
}

impl std::error::Error for Opening {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Opening::Send(e) => Some(e),
            Opening::Refused(e) => Some(e),
        }
    }
}

impl Replica for Ours {
    fn call<'a>(&'a self, call: Call<'a>, show: Show<'a>) -> CallFuture<'a> {
        Box::pin(async move {
            let account = self.account(call.key);
            // What the user has been shown of the answer, across chains.
            let mut said = String::new();
            let mut failures = 0;
            for _ in 0..=CONTINUATIONS {
                // Going on from text shown, the chain begins where an answer can be continued.
                let chain = match call.primary {
                    Kind::Compatible => &account.compatible_first,
                    _ if said.is_empty() => &account.openai_first,
                    _ => &account.continue_after_openai,
                };
                let before = said.clone();
                // The opener owns what it uses and returns an owned future: a `Send`
                // future that borrows from the call cannot be proven `Send` by rustc for
                // every lifetime the opener is called with.
                let (client, pacer, env) =
                    (self.client.clone(), self.pacer.clone(), self.env.clone());
                let (key, prompt) = (call.key.to_string(), call.prompt.to_string());
                let open = move |kind: &Kind, resume: Option<&str>, _attempt: u32| {
                    let kind = *kind;
                    // A provider that cannot continue an answer is sent the prompt alone.
                    let so_far = format!("{before}{}", resume.unwrap_or(""));
                    let prefill = continues(kind).then_some(so_far);
                    let sent = request(
                        &client,
                        env.url(kind),
                        kind,
                        &key,
                        &prompt,
                        prefill.as_deref(),
                    )
                    .send();
                    let (pacer, name) = (pacer.clone(), candidate(kind, &key));
                    async move {
                        let response = sent.await.map_err(Opening::Send)?;
                        pacer.observe_response(&name, response.status(), response.headers());
                        let watch = agent_error::reqwest::watch(response)
                            .await
                            .map_err(Opening::Refused)?;
                        Ok::<_, Opening>(
                            watch
                                .keep_text(1 << 20)
                                .idle_timeout(crate::sse::READ_TIMEOUT),
                        )
                    }
                };
                let mut events = std::pin::pin!(chain.run_stream(open, tokio_sleep));
                let mut broke = None;
                let mut speaking = None;
                while let Some(item) = events.next().await {
                    match item {
                        Ok(event) => {
                            let Some(text) = event.text() else { continue };
                            // The first text of an attempt on a provider that cannot
                            // continue begins a new answer: the screen starts over.
                            if speaking != event.attempt() {
                                speaking = event.attempt();
                                let restarts = event
                                    .candidate()
                                    .and_then(kind_of)
                                    .is_some_and(|k| !continues(k));
                                if restarts {
                                    show.new_attempt();
                                    said.clear();
                                }
                            }
                            show.show(&text);
                            said.push_str(&text);
                        }
                        Err(e) => broke = Some(e),
                    }
                }
                let Some(e) = broke else {
                    return Ok(());
                };
                // The agent loop's own decision, as the guide's agent-loop chapter makes it:
                // go on from what was shown, wait and call again, or give the task up.
                failures += 1;
                match decide(&e, failures) {
                    Decision::Continue if !said.is_empty() => {}
                    Decision::Retry(delay) => tokio::time::sleep(delay).await,
                    _ => return Err(e.to_string()),
                }
            }
            Err("the answer broke after every continuation".into())
        })
    }
}
