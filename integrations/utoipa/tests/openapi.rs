//! An axum service's OpenAPI document, served on loopback and read back as OpenAPI 3.1: it
//! lists every code its error type answers with, and what the service answers agrees with it.

use std::time::Duration;

use agent_error::axum::ApiError;
use agent_error::catalog::{Catalog, CodeDoc};
use agent_error::utoipa::ErrorResponses;
use agent_error::{AgentError, Recovery};
use axum::extract::Path;
use axum::http::{Method, StatusCode, header};
use axum::response::IntoResponse;
use serde_json::{Value, json};
use utoipa::OpenApi;

/// The service's error, one variant a way a chat call fails.
#[derive(Debug, AgentError)]
#[agent(op = "chat.reply")]
enum LlmError {
    /// The provider is throttling this service.
    #[agent(
        code = "rate_limit",
        rate_limited,
        hint = "wait before sending it again"
    )]
    #[error("the provider is throttling us")]
    RateLimited {
        #[retry_after]
        retry_after: Option<Duration>,
    },
    /// The provider did not answer in time.
    #[agent(code = "timeout")]
    #[error("the provider took longer than {secs}s")]
    Timeout { secs: u64 },
    /// The conversation's budget is spent.
    #[agent(
        code = "budget_spent",
        status = 402,
        hint = "raise the budget of the conversation"
    )]
    #[error("the budget of {limit} tokens is spent")]
    Budget { limit: u64 },
    /// The prompt cannot be answered as sent.
    #[agent(code = "invalid_input")]
    #[error("the prompt is empty")]
    EmptyPrompt,
    /// The provider answered with an error status.
    #[agent(code = "provider_status")]
    #[error("the provider answered {status}")]
    Provider {
        #[status]
        status: u16,
    },
    /// The prompt is longer than the model reads.
    #[agent(
        code = "prompt_too_long",
        deprecated = "use `invalid_input`",
        since = "0.1"
    )]
    #[error("the prompt is too long")]
    TooLong,
}

/// One failure of each variant, by the name the path gives it.
fn failure(case: &str) -> Option<LlmError> {
    Some(match case {
        "rate_limit" => LlmError::RateLimited {
            retry_after: Some(Duration::from_millis(1500)),
        },
        "timeout" => LlmError::Timeout { secs: 30 },
        "budget_spent" => LlmError::Budget { limit: 10_000 },
        "invalid_input" => LlmError::EmptyPrompt,
        "provider_status" => LlmError::Provider { status: 503 },
        "prompt_too_long" => LlmError::TooLong,
        _ => return None,
    })
}

/// Answers, or fails as the case says.
#[utoipa::path(
    get,
    path = "/chat/{case}",
    params(("case" = String, Path, description = "The failure to answer with.")),
    responses((status = 200, description = "The reply.", body = String), ErrorResponses<LlmError>)
)]
async fn chat(Path(case): Path<String>) -> Result<String, ApiError> {
    match failure(&case) {
        Some(e) => Err(e.into()),
        None => Ok(format!("hello from {case}")),
    }
}

#[derive(OpenApi)]
#[openapi(paths(chat))]
struct Api;

async fn openapi_json() -> axum::response::Response {
    match Api::openapi().to_pretty_json() {
        Ok(json) => ([(header::CONTENT_TYPE, "application/json")], json).into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// The service on loopback; it stops when dropped.
struct Server {
    base: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve() -> Server {
    let app = axum::Router::new()
        .route("/openapi.json", axum::routing::get(openapi_json))
        .route("/chat/{case}", axum::routing::get(chat));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let addr = listener.local_addr().expect("local address");
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Server {
        base: format!("http://{addr}"),
        task,
    }
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .expect("a client")
}

/// The response key an entry is documented under.
fn key(doc: &CodeDoc) -> String {
    doc.http_status()
        .map_or_else(|| "default".to_string(), |s| s.to_string())
}

/// The problem+json media type of the response documented under `key`, with its schema as
/// JSON and its examples' values, read through the typed OpenAPI 3.1 model.
struct Documented {
    schema: Value,
    examples: Vec<(String, Option<String>, Value)>,
}

fn documented(spec: &oas3::Spec, key: &str) -> Documented {
    let operation = spec
        .operation(&Method::GET, "/chat/{case}")
        .expect("the chat operation");
    let responses = operation.responses(spec);
    let response = responses
        .get(key)
        .unwrap_or_else(|| panic!("a response under {key}"));
    let media = response
        .content
        .get("application/problem+json")
        .unwrap_or_else(|| panic!("problem+json under {key}"));
    let schema = media
        .schema(spec)
        .expect("the schema resolves")
        .expect("a schema");
    let examples = media
        .examples(spec)
        .iter()
        .map(|(name, example)| {
            (
                name.clone(),
                example.summary.clone(),
                example.value.clone().unwrap_or(Value::Null),
            )
        })
        .collect();
    Documented {
        schema: serde_json::to_value(schema).expect("the schema serializes"),
        examples,
    }
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::new(schema).expect("a valid JSON Schema (2020-12)")
}

fn errors_of(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

/// What an example of `doc` holds: what `ApiError` answers for its variant, less what only
/// the failure itself knows.
fn expected_example(doc: &CodeDoc) -> Value {
    let mut value = json!({
        "type": doc.url.unwrap_or("about:blank"),
        "title": doc.code,
        "detail": doc.message,
        "code": doc.code,
        "op": "chat.reply",
    });
    if let Some(status) = doc.http_status() {
        value["status"] = status.into();
    }
    if !(doc.retry_from_status || doc.retry_from_cause) {
        value["retryable"] = doc.retryable.into();
        value["rate_limited"] = doc.rate_limited.into();
        value["recovery"] = doc.recovery.as_str().into();
    }
    if !doc.hints.is_empty() {
        value["hints"] = doc.hints.iter().copied().collect();
    }
    value
}

#[tokio::test]
async fn the_document_lists_every_code_and_the_service_answers_as_documented() {
    let server = serve().await;
    let client = client();

    let text = client
        .get(format!("{}/openapi.json", server.base))
        .send()
        .await
        .expect("the document is served")
        .text()
        .await
        .expect("the document's text");
    let spec = oas3::from_json(&text).expect("the document parses as OpenAPI");
    let version = spec.validate_version().expect("an OpenAPI 3.1 document");
    assert_eq!((version.major, version.minor), (3, 1));

    let raw: Value = serde_json::from_str(&text).expect("JSON");
    let responses = &raw["paths"]["/chat/{case}"]["get"]["responses"];
    println!(
        "the error responses of GET /chat/{{case}}:\n{}",
        serde_json::to_string_pretty(responses).unwrap_or_default()
    );
    let keys: Vec<&String> = responses.as_object().expect("responses").keys().collect();
    assert_eq!(keys, ["200", "400", "402", "429", "500", "504", "default"]);

    // Every code of the catalog, under the status it answers with, in its enum, with an
    // example that says what the service answers and validates against the schema.
    let catalog = agent_error::catalog![LlmError];
    assert_eq!(catalog.len(), 6);
    for doc in &catalog {
        let key = key(doc);
        let response = documented(&spec, &key);
        let codes = &response.schema["properties"]["code"]["enum"];
        assert!(
            codes
                .as_array()
                .is_some_and(|codes| codes.iter().any(|c| c == doc.code)),
            "{} is in the enum of {key}: {codes}",
            doc.code
        );
        let (_, summary, example) = response
            .examples
            .iter()
            .find(|(name, _, _)| name == doc.code)
            .unwrap_or_else(|| panic!("an example of {} under {key}", doc.code));
        assert_eq!(example, &expected_example(doc), "{}", doc.code);
        let errors = errors_of(&validator(&response.schema), example);
        assert!(errors.is_empty(), "{}'s example: {errors:?}", doc.code);
        match doc.deprecated {
            Some(why) => assert_eq!(
                summary.as_deref(),
                Some(
                    format!("Deprecated: {why} — The prompt is longer than the model reads.")
                        .as_str()
                )
            ),
            None => assert!(
                summary
                    .as_deref()
                    .is_some_and(|s| !s.starts_with("Deprecated"))
            ),
        }
    }
    // Each response lists exactly the codes documented under it, each once.
    for key in ["400", "402", "429", "500", "504", "default"] {
        let mut listed: Vec<&str> = catalog
            .iter()
            .filter(|doc| self::key(doc) == key)
            .map(|doc| doc.code)
            .collect();
        listed.sort_unstable();
        let response = documented(&spec, key);
        let mut codes: Vec<String> = response.schema["properties"]["code"]["enum"]
            .as_array()
            .expect("an enum")
            .iter()
            .filter_map(|c| c.as_str().map(str::to_string))
            .collect();
        codes.sort_unstable();
        assert_eq!(codes, listed, "the codes of {key}");
        let mut names: Vec<&str> = response
            .examples
            .iter()
            .map(|(n, _, _)| n.as_str())
            .collect();
        names.sort_unstable();
        assert_eq!(names, listed, "the examples of {key}");
    }
    assert_eq!(key(&LlmError::CODES[2]), "402");
    assert_eq!(key(&LlmError::CODES[4]), "default");
    let deprecated = &responses["500"]["description"];
    assert!(
        deprecated
            .as_str()
            .is_some_and(|d| d.contains("- `prompt_too_long` (deprecated: use `invalid_input`)")),
        "{deprecated}"
    );

    // What the service answers for each variant validates against the schema documented for
    // its status (`default` where no response is keyed by it), and its code is in the enum.
    for doc in &catalog {
        let url = format!("{}/chat/{}", server.base, doc.code);
        let answer = client.get(url).send().await.expect("an answer");
        let status = answer.status().as_u16();
        let content_type = answer
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let retry_after = answer.headers().contains_key(header::RETRY_AFTER);
        let body: Value =
            serde_json::from_str(&answer.text().await.expect("a body")).expect("JSON");
        assert_eq!(content_type.as_deref(), Some("application/problem+json"));

        let key = if responses.get(status.to_string()).is_some() {
            status.to_string()
        } else {
            "default".to_string()
        };
        assert_eq!(key, self::key(doc), "{} answered {status}", doc.code);
        let response = documented(&spec, &key);
        let errors = errors_of(&validator(&response.schema), &body);
        assert!(
            errors.is_empty(),
            "{} answered {body}: {errors:?}",
            doc.code
        );
        assert!(
            response.schema["properties"]["code"]["enum"]
                .as_array()
                .is_some_and(|codes| codes.contains(&body["code"])),
            "{body}"
        );
        assert_eq!(body["code"], doc.code);
        // The example's members are the answer's, but what only the failure knows.
        let (_, _, example) = response
            .examples
            .iter()
            .find(|(name, _, _)| name == doc.code)
            .expect("its example");
        for (member, value) in example.as_object().expect("an object") {
            if member != "detail" {
                assert_eq!(&body[member], value, "{}'s {member}", doc.code);
            }
        }
        if retry_after {
            assert!(
                responses[&key]["headers"]["Retry-After"].is_object(),
                "{key}"
            );
        }
    }
    // The answers carry what the examples leave to the failure: the message's values, the
    // status a variant holds, the delay.
    let answer = |case: &str| {
        let client = client.clone();
        let url = format!("{}/chat/{case}", server.base);
        async move {
            let answer = client.get(url).send().await.expect("an answer");
            let status = answer.status().as_u16();
            let body: Value =
                serde_json::from_str(&answer.text().await.expect("a body")).expect("JSON");
            (status, body)
        }
    };
    let (status, body) = answer("provider_status").await;
    assert_eq!(
        (status, &body["detail"], &body["retryable"]),
        (503, &json!("the provider answered 503"), &json!(true))
    );
    let (status, body) = answer("rate_limit").await;
    assert_eq!(
        (status, &body["retry_after_ms"], &body["recovery"]),
        (429, &json!(1500), &json!(Recovery::Retry.as_str()))
    );
    let (status, body) = answer("budget_spent").await;
    assert_eq!(
        (status, &body["detail"]),
        (402, &json!("the budget of 10000 tokens is spent"))
    );

    drop(server);
}
