//! One code's answer as problem+json: the JSON Schema of the body and the example of one
//! catalog entry, as `Report::to_problem` writes them for a service's answer.

use agent_error_runtime::Recovery;
use agent_error_runtime::catalog::CodeDoc;
use agent_error_runtime::codes;
use agent_error_runtime::report::Problem;
use serde_json::{Map, Value};
use utoipa::openapi::example::{Example, ExampleBuilder};
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Schema, Type};

/// The JSON Schema of a problem+json body (RFC 9457) with this crate's extension members,
/// whose `code` is one of `codes`: `type`, `title`, `status` (400–599), `detail`, `instance`,
/// and `code`, `op`, `retryable`, `rate_limited`, `retry_after_ms`, `recovery`, `hints`.
/// `type` and `code` are required; the others may be absent, as [`Problem`] reads them.
/// Other members are allowed (RFC 9457 lets a problem carry more).
///
/// [`ErrorResponses`](crate::ErrorResponses) writes it into each response with the codes
/// of that response; call it to name the schema in a document's components yourself.
///
/// ```
/// let schema = serde_json::to_value(agent_error::utoipa::problem_schema(&["rate_limit", "timeout"])).unwrap();
/// assert_eq!(schema["properties"]["code"]["enum"], serde_json::json!(["rate_limit", "timeout"]));
/// assert_eq!(schema["required"], serde_json::json!(["type", "code"]));
/// ```
pub fn problem_schema(codes: &[&str]) -> Schema {
    let string = || ObjectBuilder::new().schema_type(Type::String);
    let boolean = || ObjectBuilder::new().schema_type(Type::Boolean);
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .description(Some(
            "Problem details (RFC 9457), with agent-error's extension members.",
        ))
        .property(
            "type",
            string().description(Some(
                "A URI naming the problem type: the code's documentation, or `about:blank`.",
            )),
        )
        .required("type")
        .property("title", string().description(Some("The code.")))
        .property(
            "status",
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .minimum(Some(400u16))
                .maximum(Some(599u16)),
        )
        .property(
            "detail",
            string().description(Some("What went wrong, the public message.")),
        )
        .property("instance", string())
        .property(
            "code",
            string()
                .enum_values(Some(codes.iter().copied()))
                .description(Some(
                    "The stable, machine-readable code: what to branch on.",
                )),
        )
        .required("code")
        .property(
            "op",
            string().description(Some("The operation that failed (`llm.generate`).")),
        )
        .property(
            "retryable",
            boolean().description(Some("Whether trying again may succeed.")),
        )
        .property(
            "rate_limited",
            boolean().description(Some("Whether it is a rate limit.")),
        )
        .property(
            "retry_after_ms",
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .minimum(Some(0u64))
                .description(Some(
                    "How long to wait before trying again, in milliseconds.",
                )),
        )
        .property(
            "recovery",
            string()
                .enum_values(Some(Recovery::ALL.iter().map(|r| r.as_str())))
                .description(Some("What an agent loop should do next.")),
        )
        .property(
            "hints",
            ArrayBuilder::new()
                .items(string())
                .description(Some("How to recover, in words.")),
        )
        .build()
        .into()
}

/// The code an entry shows on the wire: itself, or `unclassified` when it does not follow
/// the grammar of codes (a hand-written catalog's), as a report captures it.
pub(crate) fn wire_code(doc: &CodeDoc) -> &'static str {
    codes::public_code(doc.code)
}

/// Whether the entry's retrying (and so its recovery) is decided when it fails: by the status
/// it holds or by its cause.
pub(crate) fn retry_at_run_time(doc: &CodeDoc) -> bool {
    doc.retry_from_status || doc.retry_from_cause
}

/// The first line of the entry's doc comment, else its message as written.
pub(crate) fn summary(doc: &CodeDoc) -> &'static str {
    doc.docs
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or(doc.message)
}

/// The example of one entry: the body an error of that variant answers with, its message as
/// written (placeholders and all, no field's value), and only what is known before it fails.
pub(crate) fn example(doc: &CodeDoc) -> Example {
    let code = wire_code(doc);
    let mut value = Map::new();
    let type_uri = doc.url.unwrap_or(Problem::ABOUT_BLANK);
    value.insert("type".into(), type_uri.into());
    value.insert("title".into(), code.into());
    if let Some(status) = doc.http_status() {
        value.insert("status".into(), status.into());
    }
    if !doc.message.is_empty() {
        value.insert("detail".into(), doc.message.into());
    }
    value.insert("code".into(), code.into());
    if let Some(op) = doc.op.filter(|op| codes::is_valid_op(op) && !op.is_empty()) {
        value.insert("op".into(), op.into());
    }
    if !retry_at_run_time(doc) {
        value.insert("retryable".into(), doc.retryable.into());
        value.insert("rate_limited".into(), doc.rate_limited.into());
        value.insert("recovery".into(), doc.recovery.as_str().into());
    }
    if !doc.hints.is_empty() {
        value.insert("hints".into(), doc.hints.iter().copied().collect());
    }

    let title = match doc.deprecated {
        Some(why) if summary(doc).is_empty() => deprecated(why),
        Some(why) => format!("{} — {}", deprecated(why), summary(doc)),
        None => summary(doc).to_string(),
    };
    let mut builder = ExampleBuilder::new()
        .summary(title)
        .value(Some(Value::Object(value)));
    if let Some(description) = decided_when_it_fails(doc) {
        builder = builder.description(description);
    }
    builder.build()
}

/// What of the example only the failure decides, and by what: `None` when nothing is.
fn decided_when_it_fails(doc: &CodeDoc) -> Option<String> {
    const HELD: &str = "the status the error holds";
    const CAUSE: &str = "its cause";
    let status = match (doc.http_status(), doc.holds_status || doc.retry_from_status) {
        (Some(_), _) => None,
        (None, true) => Some(HELD),
        (None, false) => Some(CAUSE),
    };
    let retrying = if doc.retry_from_status {
        Some(HELD)
    } else if doc.retry_from_cause {
        Some(CAUSE)
    } else {
        None
    };
    Some(match (status, retrying) {
        (Some(a), Some(b)) if a == b => {
            format!(
                "Its status, whether it is retried and its recovery come from {a}, when it fails."
            )
        }
        (Some(a), Some(b)) => format!(
            "Its status comes from {a}, whether it is retried and its recovery from {b}, when it fails."
        ),
        (Some(a), None) => format!("Its status comes from {a}, when it fails."),
        (None, Some(b)) => {
            format!("Whether it is retried and its recovery come from {b}, when it fails.")
        }
        (None, None) => return None,
    })
}

/// "deprecated", with why when the entry says.
pub(crate) fn deprecated(why: &str) -> String {
    if why.trim().is_empty() {
        "Deprecated".to_string()
    } else {
        format!("Deprecated: {}", why.trim())
    }
}
