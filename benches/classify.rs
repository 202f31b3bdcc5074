//! What classifying a failed response costs: `StatusError::from_parts` on real provider
//! bodies (OpenAI's spent quota, Anthropic's credit balance in a 400, a Chinese relay's
//! saturation, an SDK's printed exception), against what a user would write instead (parse
//! the body with `serde_json` and look `error.code` up in a table), and on hostile bodies
//! (50 MB of `[`, 50 MB of words), which must stay linear in their size.
//! Run with `cargo bench --bench classify --features http`.

use std::hint::black_box;

use agent_error::http::StatusError;
use criterion::Criterion;
use http::HeaderMap;

const OPENAI: &str = r#"{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#;
const ANTHROPIC: &str = r#"{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}"#;
const RELAY: &str = r#"{"error":{"message":"当前分组上游负载已饱和，请稍后再试","type":"new_api_error","code":null}}"#;
const PRINTED: &str = r#"Error code: 429 - {'error': {'message': 'Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000. Please try again in 2s.', 'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'}}"#;

/// What a user writes instead: parse the body and look its `error.code` up.
fn by_hand(status: u16, body: &str) -> &'static str {
    let code = serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v["error"]["code"].as_str().map(str::to_owned));
    match (status, code.as_deref()) {
        (_, Some("insufficient_quota")) => "budget_exhausted",
        (_, Some("context_length_exceeded")) => "context_overflow",
        (_, Some("rate_limit_exceeded")) | (429, _) => "rate_limit",
        (500.., _) => "provider_unavailable",
        _ => "invalid_input",
    }
}

fn bench(c: &mut Criterion) {
    let headers = HeaderMap::new();
    let mut group = c.benchmark_group("classify a provider's body");
    for (name, status, body) in [
        ("OpenAI 429 insufficient_quota", 429, OPENAI),
        ("Anthropic 400 credit balance", 400, ANTHROPIC),
        ("relay 500 in Chinese", 500, RELAY),
        ("SDK's printed exception", 429, PRINTED),
    ] {
        group.bench_function(format!("from_parts: {name}"), |b| {
            b.iter(|| StatusError::from_parts(status, &headers, black_box(body)))
        });
        group.bench_function(format!("serde_json and a table: {name}"), |b| {
            b.iter(|| by_hand(status, black_box(body)))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("classify a hostile body");
    group.sample_size(10);
    let brackets = "[".repeat(50 * 1024 * 1024);
    let words = "quota balance context ".repeat(50 * 1024 * 1024 / 22);
    let quotes = "'a' \"b\" ".repeat(50 * 1024 * 1024 / 8);
    for (name, body) in [
        ("50 MB of [", &brackets),
        ("50 MB of words", &words),
        ("50 MB of quotes", &quotes),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| StatusError::from_parts(400, &headers, black_box(body.as_bytes())))
        });
    }
    group.finish();
}

criterion::criterion_group!(benches, bench);
criterion::criterion_main!(benches);
