//! The farm from the other side: the real reqwest client reads each provider's answers
//! through agent-error's watch and classification, as an agent would.

use std::time::Duration;

use agent_error::AgentError;
use agent_error::stream::StreamError;
use agent_error_farm::{Config, Farm, Incident, Kind, LOW_CREDIT_KEY, Rates, answer};
use futures_util::StreamExt;
use serde_json::json;

fn client() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().build().unwrap()
}

/// A streamed call to `kind` with `key` and a last message `prompt`.
async fn call(farm: &Farm, kind: Kind, key: &str, prompt: &str) -> reqwest::Response {
    let url = format!("{}{}", farm.url(kind), &kind.path()[3..]);
    let body = serde_json::json!({
        "model": "farm-model", "max_tokens": 256, "stream": true,
        "messages": [{"role": "user", "content": prompt}],
    });
    let request = client().post(url).json(&body);
    let request = match kind {
        Kind::Anthropic => request.header("x-api-key", key),
        Kind::OpenAi | Kind::Compatible => request.bearer_auth(key),
    };
    request.send().await.unwrap()
}

/// What a watched stream gave: its text, whether it was complete, and its error.
async fn read(response: reqwest::Response) -> (String, bool, Option<StreamError>) {
    let mut watch = agent_error::reqwest::watch(response)
        .await
        .unwrap()
        .keep_text(1 << 16)
        .idle_timeout(Duration::from_millis(300));
    let mut error = None;
    let run = async {
        while let Some(item) = watch.next().await {
            if let Err(e) = item {
                error = Some(e);
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), run)
        .await
        .unwrap();
    // After a failure the error holds the text kept.
    let text = match &error {
        Some(e) => e.partial_text(),
        None => watch.partial_text(),
    };
    let text = text.unwrap_or_default().to_string();
    (text, watch.is_complete(), error)
}

/// The error of a call refused before its stream.
async fn refusal(response: reqwest::Response) -> agent_error::http::StatusError {
    match agent_error::reqwest::watch(response).await {
        Ok(_) => panic!("the call was not refused"),
        Err(e) => e,
    }
}

#[tokio::test]
async fn a_calm_day_answers_each_call_whole_with_each_providers_headers() {
    let farm = Farm::start(Config::calm(7)).await.unwrap();
    for kind in Kind::ALL {
        let prompt = format!("what does {} say?", kind.name());
        let response = call(&farm, kind, "key-1", &prompt).await;
        let headers = response.headers().clone();
        let (text, complete, error) = read(response).await;
        assert!(error.is_none(), "{kind:?}: {error:?}");
        assert!(complete, "{kind:?}");
        assert_eq!(text, answer(&prompt), "{kind:?}");
        let limit = match kind {
            Kind::OpenAi => Some("x-ratelimit-remaining-requests"),
            Kind::Anthropic => Some("anthropic-ratelimit-requests-remaining"),
            Kind::Compatible => None,
        };
        match limit {
            Some(name) => assert_eq!(headers[name], "599", "{kind:?}"),
            None => assert!(!headers.keys().any(|h| h.as_str().contains("ratelimit"))),
        }
        let stats = farm.stats(kind);
        assert_eq!((stats.requests, stats.streams, stats.finished), (1, 1, 1));
        assert_eq!(
            stats.output_tokens,
            agent_error_farm::pieces(&prompt).len() as u64
        );
    }
}

/// A farm where every stream fails the one way.
async fn every_stream(fault: fn(&mut Rates)) -> Farm {
    let mut config = Config::calm(7);
    fault(&mut config.rates);
    config.silence = Duration::from_secs(2);
    Farm::start(config).await.unwrap()
}

#[tokio::test]
async fn each_fault_reads_as_what_it_is() {
    // How the farm fails every stream, the code that failure reads as, and whether text
    // came before it.
    type Case = (fn(&mut Rates), &'static str, bool);
    let cases: [Case; 5] = [
        (|r| r.error_before_text = 1.0, "provider_unavailable", false),
        (|r| r.error_after_text = 1.0, "provider_unavailable", true),
        (|r| r.cut = 1.0, "stream_interrupted", true),
        // A clean end of the body without the last event is a cut all the same.
        (|r| r.clean_cut = 1.0, "stream_interrupted", true),
        (|r| r.silent = 1.0, "timeout", true),
    ];
    for (i, (fault, code, spoke)) in cases.into_iter().enumerate() {
        let farm = every_stream(fault).await;
        for kind in Kind::ALL {
            let prompt = "tell me about the weather";
            let (text, complete, error) = read(call(&farm, kind, "key-1", prompt).await).await;
            let error = error.unwrap_or_else(|| panic!("case {i}, {kind:?}: no error"));
            assert_eq!(error.code(), code, "case {i}, {kind:?}: {error}");
            assert!(!complete, "case {i}, {kind:?}");
            // What was sent is a prefix of the answer, never more.
            assert!(answer(prompt).starts_with(&text), "case {i}, {kind:?}");
            assert_eq!(!text.is_empty(), spoke, "case {i}, {kind:?}");
            let s = farm.stats(kind);
            assert_eq!(s.finished, 0);
            let faults = s.error_before_text + s.error_after_text + s.cut + s.clean_cut + s.silent;
            assert_eq!(faults, 1, "case {i}, {kind:?}: {s:?}");
        }
    }
}

#[tokio::test]
async fn refusals_come_in_each_providers_shape() {
    let mut config = Config::calm(7);
    config.requests_per_minute = 1;
    config.context_tokens = 100;
    config.credit_tokens = 1;
    let farm = Farm::start(config).await.unwrap();
    for kind in Kind::ALL {
        let long = "word ".repeat(200);
        let e = refusal(call(&farm, kind, "key-1", &long).await).await;
        assert_eq!(e.code(), "context_overflow", "{kind:?}: {e}");
        // The one request of the minute, then a 429.
        let (_, complete, _) = read(call(&farm, kind, "key-1", "hello").await).await;
        assert!(complete);
        let e = refusal(call(&farm, kind, "key-1", "hello again").await).await;
        assert_eq!(e.code(), "rate_limit", "{kind:?}: {e}");
        let told = e.retry_after().is_some();
        assert_eq!(told, kind != Kind::Compatible, "{kind:?}: {e}");
        // The low-credit account spends its one token, then is refused for good.
        let _ = read(call(&farm, kind, LOW_CREDIT_KEY, "hello").await).await;
        let e = refusal(call(&farm, kind, LOW_CREDIT_KEY, "hello").await).await;
        assert_eq!(e.code(), "budget_exhausted", "{kind:?}: {e}");
        assert!(!e.is_retryable());
        let e = refusal(call(&farm, kind, LOW_CREDIT_KEY, "hello").await).await;
        assert_eq!(e.code(), "budget_exhausted", "{kind:?}: {e}");
        let stats = farm.stats(kind);
        assert_eq!(
            (stats.context_overflow, stats.throttled, stats.credit_spent),
            (1, 1, 2)
        );
        assert_eq!(stats.bucket_throttled, 1);
        // The same prompt refused for good twice: the second was hopeless. So is the long
        // prompt sent to the next provider: every provider has the same context window.
        let sent_before = usize::from(kind != Kind::OpenAi) as u64;
        assert_eq!(stats.hopeless_retries, 1 + sent_before, "{kind:?}");
        assert!(farm.refused(&long) && farm.refused("hello") && !farm.refused("hello again"));
    }
}

/// A streamed call to `kind` whose messages end with the assistant's `said`, with `extra`
/// fields in the body.
async fn call_after(
    farm: &Farm,
    kind: Kind,
    prompt: &str,
    said: &str,
    extra: serde_json::Value,
) -> reqwest::Response {
    let url = format!("{}{}", farm.url(kind), &kind.path()[3..]);
    let mut body = serde_json::json!({
        "model": "m", "max_tokens": 256, "stream": true,
        "messages": [{"role": "user", "content": prompt}, {"role": "assistant", "content": said}],
    });
    if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
        body.extend(extra.clone());
    }
    client()
        .post(url)
        .json(&body)
        .bearer_auth("k")
        .header("x-api-key", "k")
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn anthropic_continues_a_prefill() {
    let farm = Farm::start(Config::calm(7)).await.unwrap();
    let prompt = "continue me";
    let whole = answer(prompt);
    for cut in [1, 9, whole.len() - 1] {
        let said = &whole[..cut];
        let response = call_after(&farm, Kind::Anthropic, prompt, said, json!({})).await;
        let (text, complete, error) = read(response).await;
        assert!(error.is_none() && complete, "{cut}");
        assert_eq!(format!("{said}{text}"), whole, "{cut}");
    }
    // As Anthropic does, a prefill that ends in white space is refused.
    let e = refusal(call_after(&farm, Kind::Anthropic, prompt, "The ", json!({})).await).await;
    assert_eq!(e.status(), 400, "{e}");
}

#[tokio::test]
async fn openai_chat_writes_a_new_answer_after_an_assistant_message() {
    let farm = Farm::start(Config::calm(7)).await.unwrap();
    let prompt = "continue me";
    let whole = answer(prompt);
    // The trailing assistant message is context: the model writes its whole answer, even
    // when asked with the switches of OpenAI-compatible servers (which OpenAI does not have).
    for extra in [
        json!({}),
        json!({"continue_final_message": true, "add_generation_prompt": false}),
    ] {
        let response = call_after(&farm, Kind::OpenAi, prompt, &whole[..9], extra).await;
        let (text, complete, error) = read(response).await;
        assert!(error.is_none() && complete);
        assert_eq!(text, whole);
    }
}

#[tokio::test]
async fn the_compatible_server_continues_only_when_asked() {
    let farm = Farm::start(Config::calm(7)).await.unwrap();
    let prompt = "continue me";
    let whole = answer(prompt);
    let said = &whole[..9];
    // Not asked: a new answer.
    let (text, _, error) =
        read(call_after(&farm, Kind::Compatible, prompt, said, json!({})).await).await;
    assert!(error.is_none());
    assert_eq!(text, whole);
    // Asked as vLLM is asked: the rest of the answer.
    let asked = json!({"continue_final_message": true, "add_generation_prompt": false});
    let (text, complete, error) =
        read(call_after(&farm, Kind::Compatible, prompt, said, asked).await).await;
    assert!(error.is_none() && complete);
    assert_eq!(format!("{said}{text}"), whole);
    // Asked without turning the generation prompt off: refused, as vLLM refuses it.
    let half = json!({"continue_final_message": true});
    let e = refusal(call_after(&farm, Kind::Compatible, prompt, said, half).await).await;
    assert_eq!(e.status(), 400, "{e}");
    assert_eq!(farm.stats(Kind::Compatible).malformed, 1);
}

#[tokio::test]
async fn incidents_throttle_or_overload_every_call_while_they_last() {
    let mut config = Config::calm(11);
    config.rates.incident_every = Duration::from_millis(400);
    config.rates.throttled_for = Duration::from_millis(300);
    config.rates.overloaded_for = Duration::from_millis(300);
    config.horizon = Duration::from_secs(5);
    let farm = Farm::start(config).await.unwrap();
    let start = tokio::time::Instant::now();
    for kind in Kind::ALL {
        let windows = farm.incidents(kind).to_vec();
        assert!(windows.iter().any(|w| w.incident == Incident::Throttled));
        assert!(windows.iter().any(|w| w.incident == Incident::Overloaded));
    }
    let mut seen = 0;
    for kind in Kind::ALL {
        for window in farm.incidents(kind).to_vec().into_iter().take(4) {
            // Call in the middle of the window (the farm waits 30 ms before deciding).
            let middle = window.from + (window.until - window.from) / 3;
            if start.elapsed() > middle {
                continue;
            }
            tokio::time::sleep_until(start + middle).await;
            let e = refusal(call(&farm, kind, "key-1", "hi").await).await;
            let expected = match window.incident {
                Incident::Throttled => "rate_limit",
                Incident::Overloaded => "provider_unavailable",
            };
            assert_eq!(e.code(), expected, "{kind:?} {window:?}: {e}");
            assert!(e.is_retryable());
            seen += 1;
        }
    }
    assert!(seen >= 4, "{seen}");
}
