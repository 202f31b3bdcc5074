//! A small agent service written from the docs alone: a reqwest client for two providers in a
//! fallback chain (the first one throttles), a weather tool behind a circuit breaker, anyhow
//! at the top, and `tracing` for the failures. Both providers are a loopback server started
//! here. Every line that exists only to move errors around is marked `// glue`.
//!
//! `cargo run --example agent_service --features reqwest,tokio,anyhow,tracing,recover`

use std::time::Duration;

use agent_error::recover::{CallError, CircuitBreaker, Fallback};
use agent_error::retry::{Retrier, tokio_sleep};
use agent_error::{AgentError, tool};
use axum::Router;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::post;

/// The weather tool's own errors.
#[derive(Debug, AgentError)]
#[agent(op = "tool.weather")]
enum WeatherError {
    /// The model asked for a city the service does not know: its mistake, not the tool's.
    #[agent(
        code = "unknown_city",
        recovery = "replan",
        hint = "use a city name, such as \"Paris\""
    )]
    #[error("no weather for {0}")]
    UnknownCity(String),
    /// The weather service is down.
    #[agent(code = "tool_failed", retryable)]
    #[error("the weather service is down")]
    Down,
}

fn weather(city: &str) -> Result<String, WeatherError> {
    match city {
        "Paris" => Ok("Paris: 14°C, light rain".into()),
        "Atlantis" => Err(WeatherError::UnknownCity(city.into())),
        _ => Err(WeatherError::Down),
    }
}

/// One call to a provider: transport errors are classified where they arise, an error
/// response by its status, headers and body, with this operation's name.
async fn complete(client: &reqwest::Client, url: &str) -> anyhow::Result<String> {
    let response = client.post(url).body("{}").send().await?;
    let response = agent_error::reqwest::check_as(response, "llm.generate").await?; // glue
    Ok(response.text().await?)
}

/// Two providers on loopback: `/throttled` always answers 429, `/steady` answers.
async fn serve() -> String {
    let app = Router::new()
        .route(
            "/throttled",
            post(|| async {
                let headers = [("retry-after-ms", "20")];
                (StatusCode::TOO_MANY_REQUESTS, headers, "slow down").into_response()
            }),
        )
        .route("/steady", post(|| async { "the answer".into_response() }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let base = format!("http://{}", listener.local_addr().expect("a bound address"));
    tokio::spawn(async move { axum::serve(listener, app).await.expect("the server runs") });
    base
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let base = serve().await;
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(5))
        .build()?;

    // One retrier, configured once and shared (cloning it shares its budget and hooks).
    let retrier = Retrier::new().max_elapsed(Duration::from_secs(10));
    let providers = Fallback::named([
        ("throttled", format!("{base}/throttled")),
        ("steady", format!("{base}/steady")),
    ])
    .retrier(retrier.clone());

    let answer = providers
        .run_async(
            async |url, _attempt| complete(&client, url).await,
            tokio_sleep,
        )
        .await?;
    println!("{} answered: {}", answer.name(), answer.value);
    for failure in &answer.failures {
        agent_error::trace::record(failure.error.as_ref()); // glue
        println!("  on the way: {}: {}", failure.name, failure.error);
    }

    // The tool behind a breaker: the model's typo does not disable it for everyone.
    let breaker = CircuitBreaker::new().threshold(2);
    for city in [
        "Atlantis", "Atlantis", "Atlantis", "Paris", "Gotham", "Gotham", "Paris",
    ] {
        match breaker.try_call("weather", || weather(city)) {
            Ok(report) => println!("weather({city}): {report}"),
            Err(CallError::Tool(e)) => println!("weather({city}): {}", tool::render(&e)), // glue
            Err(CallError::Open(open)) => println!("weather({city}): {}", tool::render(&open)), // glue
        }
    }
    Ok(())
}
