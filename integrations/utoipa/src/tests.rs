//! The responses of small catalogs, read back as JSON: shared statuses, an empty catalog,
//! a hand-written one, deprecated codes and statuses known only at run time.

#![expect(
    dead_code,
    reason = "the error types are read through their catalogs only"
)]

use agent_error::catalog::{Catalog, CodeDoc};
use agent_error::{AgentError, Recovery, RetryPolicy};
use serde_json::{Value, json};
use utoipa::IntoResponses;

use crate::{ErrorResponses, error_responses};

/// The responses of `T`, as a document carries them.
fn responses_of<T: Catalog>() -> Value {
    serde_json::to_value(ErrorResponses::<T>::responses()).expect("responses serialize")
}

fn problem(responses: &Value, status: &str) -> Value {
    responses[status]["content"]["application/problem+json"].clone()
}

#[derive(Debug, AgentError)]
#[agent(op = "crawl.fetch")]
enum CrawlError {
    /// The site did not answer in time.
    #[agent(code = "timeout")]
    #[error("the site took longer than {secs}s")]
    Slow { secs: u64 },
    #[agent(code = "proxy_timeout", status = 504, retryable)]
    #[error("the proxy gave up")]
    ProxyGaveUp,
}

#[test]
fn codes_that_share_a_status_are_one_response() {
    let responses = responses_of::<CrawlError>();
    assert_eq!(
        responses.as_object().map(|o| o.len()),
        Some(1),
        "{responses:#}"
    );
    let content = problem(&responses, "504");
    assert_eq!(
        content["schema"]["properties"]["code"]["enum"],
        json!(["timeout", "proxy_timeout"])
    );
    assert_eq!(
        content["examples"]["timeout"]["value"],
        json!({
            "type": "about:blank", "title": "timeout", "status": 504,
            "detail": "the site took longer than {secs}s", "code": "timeout", "op": "crawl.fetch",
            "retryable": true, "rate_limited": false, "recovery": "retry",
        })
    );
    assert_eq!(
        content["examples"]["timeout"]["summary"],
        "The site did not answer in time."
    );
    assert_eq!(content["examples"]["proxy_timeout"]["value"]["status"], 504);
    assert_eq!(
        content["examples"]["proxy_timeout"]["summary"],
        "the proxy gave up"
    );
    assert_eq!(
        responses["504"]["description"],
        "The request failed with one of these codes (problem details, RFC 9457):\n\n\
         - `timeout`: The site did not answer in time.\n\
         - `proxy_timeout`: the proxy gave up"
    );
    assert_eq!(
        responses["504"]["headers"]["Retry-After"]["schema"],
        json!({"type": "integer", "minimum": 0})
    );
}

/// A type with no code of its own.
struct Nothing;

impl Catalog for Nothing {
    const CODES: &'static [CodeDoc] = &[];
}

#[test]
fn an_empty_catalog_has_no_response() {
    assert!(ErrorResponses::<Nothing>::responses().is_empty());
    assert!(error_responses(&[]).responses.is_empty());
}

/// A type whose `Catalog` is written by hand, with a code that breaks the grammar of codes.
struct Ledger;

impl Catalog for Ledger {
    const CODES: &'static [CodeDoc] = &[
        CodeDoc::new(
            "ledger.busy",
            "bank::Ledger",
            "Busy",
            RetryPolicy::DEFAULT,
            Recovery::Retry,
        )
        .with_op("ledger.write")
        .with_message("the ledger is busy")
        .with_hints(&["try again in a moment"])
        .with_status(503)
        .with_url("https://docs.example.com/errors/ledger.busy"),
        CodeDoc::new(
            "ledger.closed",
            "bank::Ledger",
            "Closed",
            RetryPolicy::NEVER,
            Recovery::Escalate,
        )
        .with_docs("The books are closed for the day.\nThey open at nine.")
        .with_deprecated("use `ledger.busy`"),
        CodeDoc::new(
            "Not A Code",
            "bank::Ledger",
            "Odd",
            RetryPolicy::NEVER,
            Recovery::Abort,
        )
        .with_op("not an op"),
    ];
}

#[test]
fn a_hand_written_catalog_answers_the_same() {
    let responses = responses_of::<Ledger>();
    let keys: Vec<&String> = responses.as_object().expect("a map").keys().collect();
    assert_eq!(keys, ["500", "503"]);

    let busy = problem(&responses, "503");
    assert_eq!(
        busy["schema"]["properties"]["code"]["enum"],
        json!(["ledger.busy"])
    );
    assert_eq!(
        busy["examples"]["ledger.busy"]["value"],
        json!({
            "type": "https://docs.example.com/errors/ledger.busy", "title": "ledger.busy",
            "status": 503, "detail": "the ledger is busy", "code": "ledger.busy",
            "op": "ledger.write", "retryable": true, "rate_limited": false, "recovery": "retry",
            "hints": ["try again in a moment"],
        })
    );

    // A code outside the grammar reaches the wire as `unclassified`, with no op.
    let closed = problem(&responses, "500");
    assert_eq!(
        closed["schema"]["properties"]["code"]["enum"],
        json!(["ledger.closed", "unclassified"])
    );
    assert_eq!(
        closed["examples"]["unclassified"]["value"],
        json!({
            "type": "about:blank", "title": "unclassified", "status": 500, "code": "unclassified",
            "retryable": false, "rate_limited": false, "recovery": "abort",
        })
    );
    // Deprecated: in the description and the example's summary; the docs' first line.
    assert_eq!(
        closed["examples"]["ledger.closed"]["summary"],
        "Deprecated: use `ledger.busy` — The books are closed for the day."
    );
    assert_eq!(
        responses["500"]["description"],
        "The request failed with one of these codes (problem details, RFC 9457):\n\n\
         - `ledger.closed` (deprecated: use `ledger.busy`): The books are closed for the day.\n\
         - `unclassified`"
    );
    // Nothing there is retried: no `Retry-After`.
    assert!(responses["500"].get("headers").is_none());
}

#[derive(Debug, AgentError)]
#[agent(op = "proxy.relay")]
enum RelayError {
    /// The upstream answered with an error status.
    #[agent(code = "upstream_status")]
    #[error("the upstream answered {status}")]
    Upstream {
        #[status]
        status: u16,
    },
    #[agent(code = "upstream_io")]
    #[error("the upstream connection failed")]
    Io(#[source] std::io::Error),
    /// The upstream asked for another try.
    #[agent(code = "upstream_busy", retryable)]
    #[error("the upstream answered {status}, try again")]
    Busy {
        #[status]
        status: u16,
    },
    #[agent(code = "upstream_reset", status = 502)]
    #[error("the upstream reset the connection")]
    Reset(#[source] std::io::Error),
}

#[test]
fn a_status_known_only_at_run_time_is_the_default_response() {
    let responses = responses_of::<RelayError>();
    let keys: Vec<&String> = responses.as_object().expect("a map").keys().collect();
    assert_eq!(keys, ["502", "default"]);

    let default = problem(&responses, "default");
    assert_eq!(
        default["schema"]["properties"]["code"]["enum"],
        json!(["upstream_status", "upstream_io", "upstream_busy"])
    );
    // Neither status nor retrying is known before it fails.
    assert_eq!(
        default["examples"]["upstream_status"]["value"],
        json!({
            "type": "about:blank", "title": "upstream_status",
            "detail": "the upstream answered {status}", "code": "upstream_status", "op": "proxy.relay",
        })
    );
    assert_eq!(
        default["examples"]["upstream_status"]["description"],
        "Its status, whether it is retried and its recovery come from the status the error holds, when it fails."
    );
    assert_eq!(
        default["examples"]["upstream_io"]["description"],
        "Its status, whether it is retried and its recovery come from its cause, when it fails."
    );
    // A held status that does not decide the retrying: the status only is left out.
    assert_eq!(
        default["examples"]["upstream_busy"]["value"],
        json!({
            "type": "about:blank", "title": "upstream_busy",
            "detail": "the upstream answered {status}, try again", "code": "upstream_busy",
            "op": "proxy.relay", "retryable": true, "rate_limited": false, "recovery": "retry",
        })
    );
    assert_eq!(
        default["examples"]["upstream_busy"]["description"],
        "Its status comes from the status the error holds, when it fails."
    );
    assert!(responses["default"]["headers"]["Retry-After"].is_object());
    // A declared status is known, even where the cause decides the retrying.
    let declared = problem(&responses, "502");
    assert_eq!(
        declared["examples"]["upstream_reset"]["value"]["status"],
        502
    );
    assert_eq!(
        declared["examples"]["upstream_reset"]["description"],
        "Whether it is retried and its recovery come from its cause, when it fails."
    );
}

#[derive(Debug, AgentError)]
#[agent(op = "pay")]
enum CardError {
    #[agent(code = "card_declined", status = 402)]
    #[error("the card was declined")]
    Declined,
}

#[derive(Debug, AgentError)]
#[agent(op = "pay")]
enum BankError {
    #[agent(code = "card_declined", status = 402)]
    #[error("the card was declined by the bank")]
    Declined,
    #[agent(code = "bank_down")]
    #[error("the bank is down")]
    Down,
}

#[test]
fn a_code_two_types_declare_is_listed_once() {
    let responses = serde_json::to_value(error_responses(&agent_error::catalog![
        CardError, BankError
    ]))
    .expect("responses serialize");
    let keys: Vec<&String> = responses.as_object().expect("a map").keys().collect();
    assert_eq!(keys, ["402", "500"]);
    let declined = problem(&responses, "402");
    assert_eq!(
        declined["schema"]["properties"]["code"]["enum"],
        json!(["card_declined"])
    );
    // The first type named speaks for it.
    assert_eq!(
        declined["examples"]["card_declined"]["value"]["detail"],
        "the card was declined"
    );
}
