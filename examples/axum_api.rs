//! An axum API whose handlers return `Result<_, ApiError>` and use `?` on classified errors:
//! each failure answers with its status, `Retry-After` and problem+json, its `#[redact]`
//! fields hidden. The example calls its own loopback server and prints what a client sees.
//!
//! `cargo run --example axum_api --features axum,reqwest`

use std::time::Duration;

use agent_error::AgentError;
use agent_error::axum::ApiError;
use axum::Router;
use axum::extract::Path;
use axum::routing::get;

#[derive(Debug, AgentError)]
#[agent(op = "orders.get")]
enum OrderError {
    #[agent(
        code = "not_found",
        status = 404,
        hint = "list orders with GET /orders"
    )]
    #[error("no order {id} for customer {customer}")]
    Missing {
        id: u64,
        #[redact]
        customer: String,
    },
    #[agent(code = "rate_limit", rate_limited)]
    #[error("too many lookups")]
    Throttled {
        #[retry_after]
        after: Duration,
    },
}

async fn order(Path(id): Path<u64>) -> Result<String, ApiError> {
    let found = match id {
        1 => Ok("order 1: 3 books".to_string()),
        2 => Err(OrderError::Throttled {
            after: Duration::from_millis(1500),
        }),
        _ => Err(OrderError::Missing {
            id,
            customer: "alice@example.com".into(),
        }),
    };
    Ok(found?)
}

async fn export() -> Result<String, ApiError> {
    // A foreign error: classified (`io::ErrorKind::TimedOut` is a `timeout`), its text never sent.
    let io = std::io::Error::new(
        std::io::ErrorKind::TimedOut,
        "/var/exports/2024.csv: timed out",
    );
    Err(ApiError::from_error(&io))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let app = Router::new()
        .route("/orders/{id}", get(order))
        .route("/export", get(export));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, app).await });

    let client = reqwest::Client::builder().no_proxy().build()?;
    for path in ["/orders/1", "/orders/2", "/orders/7", "/export"] {
        let response = client.get(format!("{base}{path}")).send().await?;
        println!("GET {path}: {}", response.status());
        for name in ["content-type", "retry-after"] {
            if let Some(value) = response.headers().get(name) {
                println!("  {name}: {}", value.to_str()?);
            }
        }
        println!("  {}", response.text().await?);
    }
    Ok(())
}
