//! The wire form as JSON Schema (feature `schemars`): a [`Report`] and a [`Problem`] as
//! their serializers write them and their readers accept them, with `code` an enum of the
//! codes the catalog knows, so that a client's generated types list every code it must
//! handle.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use super::{Problem, Report};

/// Every code a report may carry: the registered catalog's (the derived types linked in,
/// the runtime's own), the shared vocabulary and `unclassified`, sorted, each once.
pub fn known_codes() -> Vec<&'static str> {
    crate::catalog::codes_with_vocabulary(&crate::catalog::all())
}

/// The recoveries' names on the wire.
fn recoveries() -> Vec<&'static str> {
    crate::Recovery::ALL.iter().map(|r| r.as_str()).collect()
}

/// A report, as [`Report`]'s serializer writes it: `code` and `message` are what a reader
/// requires; every other member may be absent. `cause` is a report too.
impl JsonSchema for Report {
    fn schema_name() -> Cow<'static, str> {
        "AgentErrorReport".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "agent_error::Report".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let cause = generator.subschema_for::<Report>();
        json_schema!({
            "type": "object",
            "description": "An error as it crosses a process boundary: the classified links of a chain, each with its public message.",
            "required": ["code", "message"],
            "properties": {
                "op": {"type": "string", "description": "The operation that failed (`llm.generate`)."},
                "code": {"type": "string", "enum": known_codes(), "description": "The stable, machine-readable code."},
                "message": {"type": "string", "description": "The public message."},
                "retryable": {"type": "boolean"},
                "rate_limited": {"type": "boolean"},
                "retry_after_ms": {"type": "integer", "minimum": 0, "description": "The delay the server asked for."},
                "recovery": {"type": "string", "enum": recoveries()},
                "hints": {"type": "array", "items": {"type": "string"}},
                "status": {"type": "integer", "minimum": 100, "maximum": 599},
                "docs_url": {"type": "string"},
                "request_id": {"type": "string", "description": "The provider's request id, to quote to it."},
                "retry_after_source": {"type": "string", "enum": ["header", "body", "message", "reset"]},
                "location": {"type": "string", "description": "Where the error was made (`src/tools.rs:42:17`)."},
                "evidence": {"type": "string", "description": "What decided a failed response's code: a name, a word family of its message, a status."},
                "cause": cause,
            },
        })
    }
}

/// RFC 9457 problem details with this crate's extension members, as [`Problem`] is written
/// and read: no member is required (`type` is `about:blank` when absent).
impl JsonSchema for Problem {
    fn schema_name() -> Cow<'static, str> {
        "AgentErrorProblem".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "agent_error::report::Problem".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "description": "RFC 9457 problem details, with agent-error's extension members.",
            "properties": {
                "type": {"type": "string", "description": "A URI naming the problem type; `about:blank` when there is none."},
                "title": {"type": "string"},
                "status": {"type": "integer", "minimum": 100, "maximum": 599},
                "detail": {"type": "string"},
                "instance": {"type": "string"},
                "code": {"type": "string", "enum": known_codes()},
                "op": {"type": "string"},
                "retryable": {"type": "boolean"},
                "rate_limited": {"type": "boolean"},
                "retry_after_ms": {"type": "integer", "minimum": 0},
                "recovery": {"type": "string", "enum": recoveries()},
                "hints": {"type": "array", "items": {"type": "string"}},
            },
        })
    }
}
