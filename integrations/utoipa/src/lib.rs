//! The utoipa integration (feature `utoipa`): every code a classified error type answers with,
//! as the OpenAPI responses of an operation, so a service's document lists what clients handle.
//!
//! Name the error type once, in the `responses(...)` of `#[utoipa::path]`, beside the
//! responses of success: [`ErrorResponses<T>`](ErrorResponses) is the type to write there.
//!
//! ```
//! use agent_error::{AgentError, utoipa::ErrorResponses};
//! use utoipa::OpenApi;
//!
//! #[derive(Debug, AgentError)]
//! #[agent(op = "chat.reply")]
//! enum ChatError {
//!     /// The provider is throttling this service.
//!     #[agent(code = "rate_limit", rate_limited, hint = "wait, then send it again")]
//!     #[error("the provider is throttling us")]
//!     Throttled,
//!     /// Two codes may share a status: both are listed in its response.
//!     #[agent(code = "timeout")]
//!     #[error("the provider took longer than {secs}s")]
//!     Slow { secs: u64 },
//!     #[agent(code = "invalid_input")]
//!     #[error("the prompt is empty")]
//!     EmptyPrompt,
//! }
//!
//! #[utoipa::path(post, path = "/chat", responses((status = 200, body = String), ErrorResponses<ChatError>))]
//! async fn chat() -> Result<String, agent_error::axum::ApiError> {
//!     Err(ChatError::EmptyPrompt)?
//! }
//!
//! #[derive(OpenApi)]
//! #[openapi(paths(chat))]
//! struct Api;
//!
//! let document = serde_json::to_value(Api::openapi()).unwrap();
//! let responses = &document["paths"]["/chat"]["post"]["responses"];
//! let statuses: Vec<&str> = responses.as_object().unwrap().keys().map(String::as_str).collect();
//! assert_eq!(statuses, ["200", "400", "429", "504"]);
//!
//! let throttled = &responses["429"]["content"]["application/problem+json"];
//! assert_eq!(throttled["schema"]["properties"]["code"]["enum"], serde_json::json!(["rate_limit"]));
//! assert_eq!(throttled["examples"]["rate_limit"]["value"], serde_json::json!({
//!     "type": "about:blank", "title": "rate_limit", "status": 429,
//!     "detail": "the provider is throttling us", "code": "rate_limit", "op": "chat.reply",
//!     "retryable": true, "rate_limited": true, "recovery": "retry",
//!     "hints": ["wait, then send it again"],
//! }));
//! ```
//!
//! # What each response says
//!
//! - **One response a status.** Each entry of the type's catalog (every variant, and the
//!   types its transparent variants wrap) answers with the status
//!   [`CodeDoc::http_status`] gives, as `agent_error::axum::ApiError` does; entries whose
//!   status is known only when they fail (held in a `#[status]` field, or taken from the
//!   cause) are listed under `default`.
//! - **Its description** lists its codes, each with the first line of its doc comment (else
//!   its message as written), deprecated codes marked.
//! - **Its content** is `application/problem+json`, with [`problem_schema`]: the members a
//!   problem carries, `code` an enum of exactly that response's codes.
//! - **One example a code**, named after it: the body an error of that variant answers with,
//!   with the message as written (`{secs}` stays `{secs}`: no field's value ever appears) and
//!   what is known before it fails; a deprecated code's summary says so.
//! - **`Retry-After`** is documented on a response where some code may be retried.
//!
//! Several error types on one operation: write a marker type whose
//! `IntoResponses` returns [`error_responses`] of `agent_error::catalog![A, B]`, so that
//! a status both answer with is one response listing both types' codes.
//!
//! A response written in the same `responses(...)` for a status the error type answers with
//! is replaced by the error type's when it is written before `ErrorResponses`, and replaces it
//! when written after (utoipa keeps the last response given for a status).
//!
//! The `utoipa` here is version 6: the service's own `utoipa` must be the same major version
//! for its `#[utoipa::path]` to accept [`ErrorResponses`]. Import the type itself (`use
//! agent_error::utoipa::ErrorResponses`), not the module under the name `utoipa`: the macros
//! name the crate `utoipa`.

#![forbid(unsafe_code)]
// On docs.rs (nightly, `--cfg docsrs`): each item says which feature brings it.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use agent_error_runtime::catalog::{Catalog, CodeDoc};
use agent_error_runtime::report::Problem;
use utoipa::IntoResponses;
use utoipa::openapi::RefOr;
use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::response::{Response, ResponseBuilder, Responses};
use utoipa::openapi::schema::{ObjectBuilder, Type};

mod problem;

pub use problem::problem_schema;

/// The responses of every code `T` answers with, for the `responses(...)` of
/// `#[utoipa::path]`: `responses((status = 200, body = Answer), ErrorResponses<LlmError>)`.
///
/// `T` is any type with a [`Catalog`]: a derived type, or one whose `Catalog` is written by
/// hand. Its codes are [`Catalog::collect_codes`]'s, those of the types its transparent
/// variants wrap included (as `agent_error::catalog![T]`); see the [crate docs](crate) for
/// what each response says.
///
/// It is a type only, never a value: utoipa calls its [`IntoResponses`] when it builds the
/// document.
pub struct ErrorResponses<T: Catalog>(PhantomData<fn() -> T>);

impl<T: Catalog> IntoResponses for ErrorResponses<T> {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        error_responses(&agent_error_runtime::catalog![T]).into()
    }
}

impl<T: Catalog> fmt::Debug for ErrorResponses<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ErrorResponses")
    }
}

/// The key of the response an entry is listed under: its status, or `default`.
const DEFAULT: &str = "default";

/// The responses of the given catalog entries: one a status they answer with (see
/// [`CodeDoc::http_status`]), keyed by it, and `default` for the entries whose status is
/// known only when they fail. No entries, no responses.
///
/// [`ErrorResponses`] calls it with one type's entries; call it with several types'
/// (`agent_error::catalog![A, B]`) from an `IntoResponses` of your own, or to add the
/// responses to an operation built by hand.
///
/// ```
/// use agent_error::AgentError;
///
/// #[derive(Debug, AgentError)]
/// #[agent(op = "search")]
/// enum SearchError {
///     #[agent(code = "timeout")]
///     #[error("the index took too long")]
///     Slow,
/// }
///
/// #[derive(Debug, AgentError)]
/// #[agent(op = "fetch")]
/// enum FetchError {
///     #[agent(code = "page_gone", status = 410)]
///     #[error("the page is gone")]
///     Gone,
///     #[agent(code = "timeout")]
///     #[error("the site took too long")]
///     Slow,
/// }
///
/// let responses = agent_error::utoipa::error_responses(&agent_error::catalog![SearchError, FetchError]);
/// let statuses: Vec<&String> = responses.responses.keys().collect();
/// assert_eq!(statuses, ["410", "504"]);
/// ```
pub fn error_responses(entries: &[&CodeDoc]) -> Responses {
    let mut by_status: BTreeMap<String, Vec<&CodeDoc>> = BTreeMap::new();
    for doc in entries {
        let key = doc
            .http_status()
            .map_or_else(|| DEFAULT.to_string(), |status| status.to_string());
        let listed = by_status.entry(key).or_default();
        // One entry a code: the first declared speaks for it.
        if !listed
            .iter()
            .any(|seen| problem::wire_code(seen) == problem::wire_code(doc))
        {
            listed.push(doc);
        }
    }
    by_status
        .into_iter()
        .map(|(key, docs)| {
            let response = response(&docs, key == DEFAULT);
            (key, response)
        })
        .collect()
}

/// The response of the entries answering with one status (or, `at_run_time`, under `default`).
fn response(docs: &[&CodeDoc], at_run_time: bool) -> Response {
    let codes: Vec<&str> = docs.iter().map(|doc| problem::wire_code(doc)).collect();
    let content = ContentBuilder::new()
        .schema(Some(problem_schema(&codes)))
        .examples_from_iter(
            docs.iter()
                .map(|doc| (problem::wire_code(doc), problem::example(doc))),
        )
        .build();
    let mut response = ResponseBuilder::new()
        .description(description(docs, at_run_time))
        .content(Problem::CONTENT_TYPE, content);
    if docs.iter().any(|doc| may_be_retried(doc)) {
        let seconds = ObjectBuilder::new()
            .schema_type(Type::Integer)
            .minimum(Some(0u64));
        let retry_after = HeaderBuilder::new()
            .schema(Some(seconds))
            .description(Some(
                "When the error carries a delay: the seconds to wait before trying again.",
            ))
            .build();
        response = response.header("Retry-After", retry_after);
    }
    response.build()
}

/// Whether an error of the entry may be retried, and so carry a delay.
fn may_be_retried(doc: &CodeDoc) -> bool {
    doc.retryable || doc.rate_limited || problem::retry_at_run_time(doc)
}

/// The response's description: what it is, then one line a code.
fn description(docs: &[&CodeDoc], at_run_time: bool) -> String {
    let mut out = String::from(if at_run_time {
        "The request failed with one of these codes, with the status the error holds or \
         takes from its cause (problem details, RFC 9457):\n"
    } else {
        "The request failed with one of these codes (problem details, RFC 9457):\n"
    });
    for doc in docs {
        out.push_str("\n- `");
        out.push_str(problem::wire_code(doc));
        out.push('`');
        match doc.deprecated.map(str::trim) {
            Some("") => out.push_str(" (deprecated)"),
            Some(why) => {
                out.push_str(" (deprecated: ");
                out.push_str(why);
                out.push(')');
            }
            None => {}
        }
        let summary = problem::summary(doc);
        if !summary.is_empty() {
            out.push_str(": ");
            out.push_str(summary);
        }
    }
    out
}

#[cfg(test)]
mod tests;
