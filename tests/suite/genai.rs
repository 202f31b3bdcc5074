//! genai's errors classified with no glue: genai's real client against scripted providers on
//! loopback (OpenAI's and Anthropic's shapes), each situation an agent meets — a 429 with
//! `Retry-After`, a spent quota, an overload, a context overflow, a bad key, a refused
//! connection, a timeout, a body that is no JSON, an error event mid-stream, a stream cut
//! before its end — asserting code, retrying, wait and recovery, and through the retrier.
#![cfg(all(feature = "genai", feature = "stream", feature = "tokio"))]

use std::time::Duration;

use agent_error::retry::{Retrier, tokio_sleep};
use agent_error::stream::StreamError;
use agent_error::{AgentError, Recovery, codes};
use futures_util::StreamExt;
use genai::adapter::AdapterKind;
use genai::chat::{ChatMessage, ChatRequest, ChatStreamEvent};
use genai::resolver::{AuthData, Endpoint, ServiceTargetResolver};
use genai::{Client, ModelIden, ServiceTarget};

use crate::support::sse;

use crate::support::replies;

use replies::{
    BAD_KEY, COMPLETION, CREDIT, LIMITED, OVERFLOW, OVERLOADED, SERVER_ERROR, SPENT, verdict,
};
use sse::{Framing, Script};

/// genai's client, sending every model to `base` as `adapter` speaks.
fn client(base: &str, adapter: AdapterKind) -> Client {
    let base = base.to_string();
    let resolver = ServiceTargetResolver::from_resolver_fn(
        move |target: ServiceTarget| -> Result<ServiceTarget, genai::resolver::Error> {
            Ok(ServiceTarget {
                endpoint: Endpoint::from_owned(base.clone()),
                auth: AuthData::from_single("sk-test"),
                model: ModelIden::new(adapter, target.model.model_name),
            })
        },
    );
    let http = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    Client::builder()
        .with_reqwest(http)
        .with_service_target_resolver(resolver)
        .build()
        .unwrap()
}

/// The server's base URL, as genai's endpoints are written.
fn base(server: &sse::Server) -> String {
    format!("{}/", server.url.trim_end_matches("/stream"))
}

fn request() -> ChatRequest {
    ChatRequest::new(vec![ChatMessage::user("hi")])
}

/// One call through genai's OpenAI adapter against `script`.
async fn openai_call(script: Script) -> genai::Error {
    let server = sse::serve(script).await;
    client(&base(&server), AdapterKind::OpenAI)
        .exec_chat("gpt-4o-mini", request(), None)
        .await
        .expect_err("a failure")
}

#[tokio::test]
async fn failed_responses_are_read_with_their_headers_and_bodies() {
    let limited = LIMITED;
    let e = openai_call(Script::status(429, limited).header("retry-after", "2")).await;
    assert_eq!(
        verdict(&e),
        (
            "rate_limit".into(),
            true,
            Recovery::Retry,
            Some(Duration::from_secs(2))
        )
    );

    let spent = SPENT;
    let e = openai_call(Script::status(429, spent).header("retry-after", "2")).await;
    assert_eq!(
        verdict(&e),
        ("budget_exhausted".into(), false, Recovery::Escalate, None)
    );

    let overflow = OVERFLOW;
    let e = openai_call(Script::status(400, overflow)).await;
    assert_eq!(
        verdict(&e),
        ("context_overflow".into(), false, Recovery::Compact, None)
    );

    let key = BAD_KEY;
    let e = openai_call(Script::status(401, key)).await;
    assert_eq!(
        verdict(&e),
        ("auth_error".into(), false, Recovery::Escalate, None)
    );

    for status in [500, 503] {
        let e = openai_call(Script::status(status, SERVER_ERROR)).await;
        assert_eq!(verdict(&e).0, "provider_unavailable", "{status}");
        assert!(verdict(&e).1);
    }
    // The provider's text stays out of what people and the model read.
    let e = openai_call(Script::status(401, key)).await;
    let c = agent_error::classify(&e).unwrap();
    assert!(!agent_error::tool::render(&*c).contains("sk-test"));
}

#[tokio::test]
async fn anthropics_shape_is_read_the_same_way() {
    let call = |script: Script| async move {
        let server = sse::serve(script).await;
        client(&base(&server), AdapterKind::Anthropic)
            .exec_chat("claude-sonnet-4", request(), None)
            .await
            .expect_err("a failure")
    };
    let overloaded = OVERLOADED;
    let e = call(Script::status(529, overloaded)).await;
    assert_eq!(
        verdict(&e),
        ("provider_unavailable".into(), true, Recovery::Retry, None)
    );
    let credit = CREDIT;
    let e = call(Script::status(400, credit)).await;
    assert_eq!(
        verdict(&e),
        ("budget_exhausted".into(), false, Recovery::Escalate, None)
    );
}

#[tokio::test]
async fn transports_and_unreadable_bodies() {
    // A refused connection: a port that was just free.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let e = client(&format!("http://127.0.0.1:{port}/v1/"), AdapterKind::OpenAI)
        .exec_chat("gpt-4o-mini", request(), None)
        .await
        .unwrap_err();
    assert_eq!(verdict(&e).0, "provider_unavailable", "{e:?}");
    assert!(verdict(&e).1);
    // A server that never answers: the client's timeout.
    let e = openai_call(Script::ok(Framing::Close).hold()).await;
    assert_eq!(verdict(&e).0, "timeout", "{e:?}");
    // A 200 whose body is no JSON: output that could not be read, tried once more.
    let e = openai_call(Script::status(200, "<html>a proxy's page</html>")).await;
    assert_eq!(
        (verdict(&e).0.as_str(), verdict(&e).1),
        ("invalid_output", true),
        "{e:?}"
    );
}

/// A 200 is not an error body: one genai cannot read is output that could not be read,
/// whatever the model's text says.
#[tokio::test]
async fn a_success_whose_body_cannot_be_read_is_never_read_for_phrases() {
    let bodies = [
        "rate limit exceeded",
        "Error: insufficient_quota, you exceeded your current quota",
        "The model is overloaded. Please try again in 30s.",
        r#"{"error":{"type":"insufficient_quota","message":"rate limit exceeded""#,
    ];
    for body in bodies {
        for content_type in ["application/json", "text/plain"] {
            let e = openai_call(Script::status(200, body).content_type(content_type)).await;
            assert_eq!(
                verdict(&e),
                ("invalid_output".into(), true, Recovery::Retry, None),
                "{content_type} {body}: {e:?}"
            );
        }
    }
}

#[test]
fn configuration_and_credentials() {
    let iden = ModelIden::new(AdapterKind::OpenAI, "gpt-4o-mini");
    let e = genai::Error::RequiresApiKey {
        model_iden: iden.clone(),
    };
    assert_eq!(verdict(&e).0, "auth_error");
    let e = genai::Error::ChatReqHasNoMessages { model_iden: iden };
    assert_eq!(
        verdict(&e),
        ("invalid_input".into(), false, Recovery::Replan, None)
    );
}

/// A chat chunk of OpenAI's stream.
fn chunk(delta: &str, finish: &str) -> String {
    format!(
        "data: {{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o-mini\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"finish_reason\":{finish}}}]}}\n\n"
    )
}

fn text(text: &str) -> String {
    chunk(&format!(r#"{{"content":"{text}"}}"#), "null")
}

/// Streams through `genai::watch`: the text yielded, and how it ended.
async fn watched(script: Script) -> (String, Option<StreamError>, bool) {
    let server = sse::serve(script).await;
    let response = client(&base(&server), AdapterKind::OpenAI)
        .exec_chat_stream("gpt-4o-mini", request(), None)
        .await
        .expect("the call is made");
    let mut events = agent_error::genai::watch(response.stream).keep_text(1024);
    let (mut said, mut end, mut ended) = (String::new(), None, false);
    tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(event) = events.next().await {
            match event {
                Ok(ChatStreamEvent::Chunk(c)) => said.push_str(&c.content),
                Ok(ChatStreamEvent::End(_)) => ended = true,
                Ok(_) => {}
                Err(e) => end = Some(e),
            }
        }
    })
    .await
    .expect("the stream ends within 5 s");
    (said, end, ended)
}

#[tokio::test]
async fn a_stream_cut_before_its_end_is_never_taken_for_a_whole_answer() {
    // Close-delimited: genai ends the stream as if it were whole.
    let cut = Script::ok(Framing::Close)
        .send_all([text("Hel"), text("lo")])
        .cut();
    let server = sse::serve(cut.clone()).await;
    let response = client(&base(&server), AdapterKind::OpenAI)
        .exec_chat_stream("gpt-4o-mini", request(), None)
        .await
        .unwrap();
    let bare: Vec<_> = response.stream.collect().await;
    assert!(
        bare.iter().all(Result::is_ok),
        "genai alone says nothing went wrong"
    );
    // Watched, the cut is an interruption, after text: not retried from the start.
    let (said, end, ended) = watched(cut).await;
    assert_eq!((said.as_str(), ended), ("Hello", false));
    let e = end.expect("a failure");
    assert_eq!(e.code(), codes::STREAM_INTERRUPTED);
    assert!(!e.is_retryable());
    assert_eq!(
        (e.recovery(), e.partial_text()),
        (Recovery::Continue, Some("Hello"))
    );
    // A whole stream ends cleanly.
    let whole = Script::ok(Framing::Close).send_all([
        text("Hi"),
        chunk("{}", "\"stop\""),
        "data: [DONE]\n\n".into(),
    ]);
    let (said, end, ended) = watched(whole).await;
    assert_eq!((said.as_str(), ended), ("Hi", true));
    assert!(end.is_none(), "{end:?}");
}

#[tokio::test]
async fn a_streams_failures_are_classified_by_what_was_delivered() {
    // An error event after text.
    let error = "data: {\"error\":{\"message\":\"The server had an error while processing your request.\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n";
    let (said, end, _) =
        watched(Script::ok(Framing::Chunked).send_all([text("Hel"), error.into()])).await;
    let e = end.expect("a failure");
    assert_eq!(
        (said.as_str(), e.code()),
        ("Hel", codes::PROVIDER_UNAVAILABLE)
    );
    assert_eq!(e.recovery(), Recovery::Continue);
    // The same before any text: retried as its code says.
    let (_, end, _) = watched(Script::ok(Framing::Chunked).send(error)).await;
    let e = end.expect("a failure");
    assert!(e.is_retryable(), "{e:?}");
    // A stop at the token limit: the End event, then the failure.
    let (said, end, ended) = watched(Script::ok(Framing::Close).send_all([
        text("Hel"),
        chunk("{}", "\"length\""),
        "data: [DONE]\n\n".into(),
    ]))
    .await;
    assert_eq!((said.as_str(), ended), ("Hel", true));
    assert_eq!(end.expect("a failure").code(), codes::OUTPUT_TRUNCATED);
    // The stream never opened: a 429 with its wait.
    let (_, end, _) = watched(
        Script::status(
            429,
            r#"{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}"#,
        )
        .header("retry-after", "3"),
    )
    .await;
    let e = end.expect("a failure");
    assert_eq!(
        (e.code(), e.retry_after()),
        (codes::RATE_LIMIT, Some(Duration::from_secs(3)))
    );
}

#[tokio::test]
async fn the_retrier_is_the_only_retry_loop_and_waits_what_the_header_said() {
    let limited =
        r#"{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}"#;
    let server = sse::serve_each([
        Script::status(429, limited).header("retry-after-ms", "150"),
        Script::status(200, COMPLETION),
    ])
    .await;
    let client = client(&base(&server), AdapterKind::OpenAI);
    let waits = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = waits.clone();
    let answer = Retrier::new()
        .seed(7)
        .on_retry(move |_, _, delay| seen.lock().unwrap().push(delay))
        .run_async(
            |_| client.exec_chat("gpt-4o-mini", request(), None),
            tokio_sleep,
        )
        .await
        .unwrap();
    assert_eq!(answer.first_text(), Some("hello"));
    assert_eq!(*waits.lock().unwrap(), [Duration::from_millis(150)]);
    assert_eq!(server.connections(), 2, "one request an attempt");
    // A provider that is down gets exactly the retrier's attempts: genai adds none.
    let down = sse::serve(Script::status(
        503,
        r#"{"error":{"message":"down","type":"server_error"}}"#,
    ))
    .await;
    let client = self::client(&base(&down), AdapterKind::OpenAI);
    let err = Retrier::new()
        .max_attempts(3)
        .seed(7)
        .run_async(
            |_| client.exec_chat("gpt-4o-mini", request(), None),
            tokio_sleep,
        )
        .await
        .unwrap_err();
    assert_eq!(verdict(&err).0, "provider_unavailable");
    assert_eq!(down.connections(), 3);
    // A spent quota returns at once.
    let spent = sse::serve(Script::status(
        429,
        r#"{"error":{"message":"quota","type":"insufficient_quota","code":"insufficient_quota"}}"#,
    ))
    .await;
    let client = self::client(&base(&spent), AdapterKind::OpenAI);
    let err = Retrier::new()
        .run_async(
            |_| client.exec_chat("gpt-4o-mini", request(), None),
            tokio_sleep,
        )
        .await
        .unwrap_err();
    assert_eq!(verdict(&err).0, "budget_exhausted");
    assert_eq!(spent.connections(), 1);
}

#[cfg(feature = "recover")]
#[tokio::test]
async fn a_fallback_moves_on_from_a_spent_account_without_retrying_it() {
    use agent_error::recover::Fallback;
    let spent = sse::serve(Script::status(
        429,
        r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#,
    ))
    .await;
    let healthy = sse::serve(Script::status(200, COMPLETION)).await;
    let accounts = Fallback::named([
        ("account-a", client(&base(&spent), AdapterKind::OpenAI)),
        ("account-b", client(&base(&healthy), AdapterKind::OpenAI)),
    ]);
    let answer = accounts
        .run_async(
            async |client: &Client, _| client.exec_chat("gpt-4o-mini", request(), None).await,
            tokio_sleep,
        )
        .await
        .unwrap();
    assert_eq!(answer.name(), "account-b");
    assert_eq!(answer.value.first_text(), Some("hello"));
    assert_eq!((spent.connections(), healthy.connections()), (1, 1));
    assert!(
        accounts.cooling_for(0).is_some(),
        "the spent account cools down"
    );
}
