//! A small JSON reader for provider error bodies: it checks a whole document as strictly as
//! `serde_json` does and keeps only the few fields that `body.rs` classifies by.
//!
//! It exists for build time: `serde_json` (and `serde_core`) under the default `http`
//! feature were most of a clean build's critical path, for a dozen fields of an error body.
//! One pass over the bytes, nesting bounded as `serde_json` bounds it, no panics, and the
//! values it does not need are checked and skipped, never kept.

use std::borrow::Cow;

use super::providers::RETRY_INFO;
use syntax::{Parsed, Reader};

/// JSON's grammar: checking values and stepping over them (the streams' events are read
/// with it too).
pub(crate) mod syntax;

/// What a provider's error body holds, as far as the classification reads it: each field is
/// the string at its place in the document (the last one where a key repeats, as in
/// `serde_json`'s maps), `None` when it is absent or not a string.
///
/// The document is the body itself or, when the body is an array of exactly one element,
/// that element (Google's REST endpoints may wrap the error so).
#[derive(Debug, Default, PartialEq)]
pub(super) struct ErrorBody<'a> {
    /// The document, when it is a JSON string.
    pub(super) text: Option<Cow<'a, str>>,
    /// The document's `type` (Anthropic's `"error"`).
    pub(super) kind: Option<Cow<'a, str>>,
    /// The document's `message` (vLLM).
    pub(super) message: Option<Cow<'a, str>>,
    /// The document's `detail` (FastAPI).
    pub(super) detail: Option<Cow<'a, str>>,
    /// A message in another shape, the first of: `msg`, `error_msg` (Baidu), `errmsg`,
    /// `errorMessage`, `error_message`, `base_resp.status_msg` (MiniMax), the `msg` of a
    /// `detail` list's first element (FastAPI's validation errors), `detail.msg` or
    /// `detail.message` (an object), a string `status`, a string `text`.
    pub(super) other_message: Option<Cow<'a, str>>,
    /// The document's `error_code` when it is a string (a name, as Baidu's and others'
    /// bodies give it).
    pub(super) error_code: Option<Cow<'a, str>>,
    /// The document's `code` when it is a string (the Responses API's `error` event).
    pub(super) code: Option<Cow<'a, str>>,
    /// The document's `code` when it is a status-sized whole number (OpenRouter).
    pub(super) code_number: Option<u16>,
    /// The document's `error_type` (Text Generation Inference).
    pub(super) error_type: Option<Cow<'a, str>>,
    /// The document's `http_status_code`, `status_code` or `statusCode` when it is a
    /// status-sized whole number.
    pub(super) http_status_code: Option<u16>,
    /// The document's `status` when it is a status-sized whole number (`{"status": 429,
    /// "error": "…", "message": "…"}`).
    pub(super) status_number: Option<u16>,
    /// The document's `__type` (AWS: `ThrottlingException`, or a namespaced
    /// `com.amazon…#ThrottlingException`).
    pub(super) amzn_type: Option<Cow<'a, str>>,
    /// The document's `Output.__type` (AWS's older protocols).
    pub(super) output_type: Option<Cow<'a, str>>,
    /// The document's `estimated_time` when it is a number: the seconds until a model has
    /// loaded (Hugging Face).
    pub(super) estimated_time: Option<f64>,
    /// The document's `metadata` (OpenRouter, when it sends its error object alone).
    pub(super) metadata: Metadata<'a>,
    /// The document's `response.error` (the Responses API's `response.failed` event).
    pub(super) response_error: ErrorField<'a>,
    /// An error object in another place: Tencent Cloud's `Response.Error` (`Code`,
    /// `Message`), iFlytek Spark's frame `header` (`code`, `message`).
    pub(super) other_error: ErrorField<'a>,
    /// The document's `retryAfter`, `retry_after`, `retry_after_seconds`, `reset_seconds`
    /// or `resets_in_seconds` when it is a number: seconds.
    pub(super) retry_after: Option<f64>,
    /// The first element of the document's `errors` list (Cloudflare's), read as an
    /// `error` is.
    pub(super) errors: ErrorField<'a>,
    /// The `error` of the first other member that holds one: a wrapper's own object around
    /// a provider's body (`{"message": "OpenAI API error.", "details": {"error": {…}}}`).
    pub(super) wrapped: ErrorField<'a>,
    /// The document's `error` (or `Error`, capitalised).
    pub(super) error: ErrorField<'a>,
    /// A provider's body that a wrapper holds as a string: a string `response`, `body`,
    /// `raw`, `response_body` or `upstream_response`, or the string `response` or `body`
    /// of a `response` object (`{"response": {"http_code": 429, "response": "{…}"}}`).
    pub(super) relayed: Option<Cow<'a, str>>,
}

/// The `error` member of a provider's error body.
#[derive(Debug, Default, PartialEq)]
pub(super) struct ErrorField<'a> {
    /// `error` itself, when it is a string (Ollama).
    pub(super) text: Option<Cow<'a, str>>,
    /// `error.type` (OpenAI, Anthropic).
    pub(super) kind: Option<Cow<'a, str>>,
    /// `error.status` (Google).
    pub(super) status: Option<Cow<'a, str>>,
    /// `error.code` when it is a string (OpenAI).
    pub(super) code: Option<Cow<'a, str>>,
    /// `error.code` when it is a status-sized whole number (vLLM, Google).
    pub(super) code_number: Option<u16>,
    /// `error.status_code`, `error.statusCode` or `error.http_status_code` when it is a
    /// status-sized whole number (a gateway relaying its upstream's status).
    pub(super) status_code: Option<u16>,
    /// `error.message`, or the string `error.message.error` (LiteLLM's guardrails).
    pub(super) message: Option<Cow<'a, str>>,
    /// What `error.details` says (Google).
    pub(super) details: Details<'a>,
    /// `error.innererror.code` (Azure: `ResponsibleAIPolicyViolation`).
    pub(super) inner_code: Option<Cow<'a, str>>,
    /// `error.metadata` (OpenRouter).
    pub(super) metadata: Metadata<'a>,
    /// A number of seconds to wait: `retryAfter`, `retry_after`, `retry_after_seconds`,
    /// `reset_seconds` or `resets_in_seconds`.
    pub(super) retry_after: Option<f64>,
}

impl ErrorField<'_> {
    /// Whether `error` is a string: a label such as a wrapper's `"error": "Gemini API
    /// error"` (a string holds nothing else).
    pub(super) fn is_only_text(&self) -> bool {
        self.text.is_some()
    }
}

/// What OpenRouter's `metadata` says.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Metadata<'a> {
    /// `raw`: the upstream provider's own body, relayed.
    pub(super) raw: Option<Cow<'a, str>>,
    /// Whether there is a `flagged_input` member: a moderation refusal.
    pub(super) flagged: bool,
}

/// What Google's `error.details` says, each list in order.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Details<'a> {
    /// The `retryDelay` strings of the details whose `@type` is `RetryInfo`.
    pub(super) retry_delays: Vec<Cow<'a, str>>,
    /// The `reason` strings of the details (`ErrorInfo`: `API_KEY_INVALID`, …).
    pub(super) reasons: Vec<Cow<'a, str>>,
    /// The `quotaId` strings of the details' `violations` (`QuotaFailure`:
    /// `GenerateRequestsPerDayPerProjectPerModel-FreeTier`, …).
    pub(super) quota_ids: Vec<Cow<'a, str>>,
    /// Whether a detail's `metadata.quota_limit_value` is `"0"` (`ErrorInfo`: a quota the
    /// plan does not include).
    pub(super) zero_limit: bool,
}

/// Reads `bytes` as a provider error body: `None` when they are not one JSON document (what
/// `serde_json::from_slice::<Value>` refuses, nesting too deep included).
pub(super) fn read(bytes: &[u8]) -> Option<ErrorBody<'_>> {
    let mut reader = Reader::new(bytes);
    let body = reader.document().ok()?;
    reader.at_end().then_some(body)
}

/// The fields kept, read from the places of a provider's error body.
impl<'a> Reader<'a> {
    /// The document: an array of one element is read as that element.
    fn document(&mut self) -> Parsed<ErrorBody<'a>> {
        if self.peek() != Some(b'[') {
            return self.top();
        }
        let mut only = ErrorBody::default();
        let mut count = 0usize;
        self.array(|reader| {
            count += 1;
            if count == 1 {
                only = reader.top()?;
                Ok(())
            } else {
                reader.skip_value()
            }
        })?;
        Ok(if count == 1 {
            only
        } else {
            ErrorBody::default()
        })
    }

    /// The document proper: a string, an object whose fields are kept, or anything else.
    fn top(&mut self) -> Parsed<ErrorBody<'a>> {
        let mut body = ErrorBody::default();
        // The messages in other shapes, in the order `ErrorBody::other_message` takes them.
        let mut others: [Option<Cow<'a, str>>; 10] = Default::default();
        // What a `response` object holds besides its `error`: the document's own count first.
        let (mut response_relayed, mut response_status) = (None, None);
        match self.peek() {
            Some(b'"') => body.text = Some(self.string()?),
            Some(b'{') => self.object(|reader, key| {
                match key.as_ref() {
                    "type" => body.kind = reader.text_value()?,
                    "message" => body.message = reader.text_value()?,
                    // The last `detail` counts, whatever its shape.
                    "detail" if reader.peek() == Some(b'[') => {
                        (body.detail, others[7]) = (None, None);
                        others[6] = reader.first_member("msg")?;
                    }
                    "detail" if reader.peek() == Some(b'{') => {
                        (body.detail, others[6]) = (None, None);
                        let [msg, message] = reader.two_members("msg", "message")?;
                        others[7] = msg.or(message);
                    }
                    "detail" => {
                        (others[6], others[7]) = (None, None);
                        body.detail = reader.text_value()?;
                    }
                    "status" => {
                        (others[8], body.status_number) = reader.text_or_number()?;
                    }
                    "text" => others[9] = reader.text_value()?,
                    "errors" => body.errors = reader.first_error()?,
                    "msg" | "error_msg" | "errmsg" | "errorMessage" | "error_message" => {
                        let rank = match key.as_ref() {
                            "msg" => 0,
                            "error_msg" => 1,
                            "errmsg" => 2,
                            "errorMessage" => 3,
                            _ => 4,
                        };
                        others[rank] = reader.text_value()?;
                    }
                    "base_resp" => {
                        others[5] = reader.member("status_msg")?;
                    }
                    "code" => (body.code, body.code_number) = reader.text_or_number()?,
                    "error_code" => body.error_code = reader.text_value()?,
                    "error_type" => body.error_type = reader.text_value()?,
                    "http_status_code" | "status_code" | "statusCode" | "http_code" => {
                        body.http_status_code = reader.small_integer()?;
                    }
                    "response" | "body" | "raw" | "response_body" | "upstream_response"
                        if reader.peek() == Some(b'"') =>
                    {
                        body.relayed = reader.text_value()?;
                    }
                    "__type" => body.amzn_type = reader.text_value()?,
                    "Output" => body.output_type = reader.member("__type")?,
                    "estimated_time" => body.estimated_time = reader.decimal()?,
                    "metadata" => body.metadata = reader.metadata()?,
                    "response" => {
                        (body.response_error, response_relayed, response_status) =
                            reader.response()?;
                    }
                    "Response" => body.other_error = reader.member_error("Error")?,
                    "header" => body.other_error = reader.error_value()?,
                    "retryAfter"
                    | "retry_after"
                    | "retry_after_seconds"
                    | "reset_seconds"
                    | "resets_in_seconds" => body.retry_after = reader.decimal()?,
                    "error" | "Error" => body.error = reader.error_value()?,
                    // A wrapper's member around a provider's body: the first that holds an
                    // `error` counts.
                    _ if body.wrapped == ErrorField::default() => {
                        body.wrapped = reader.member_error("error")?;
                    }
                    _ => reader.skip_value()?,
                }
                Ok(())
            })?,
            _ => self.skip_value()?,
        }
        body.other_message = others.into_iter().flatten().next();
        body.relayed = body.relayed.or(response_relayed);
        body.http_status_code = body.http_status_code.or(response_status);
        Ok(body)
    }

    /// The first element of a list, read by `read` (the default when the value is not a
    /// list or is empty); the rest is checked and skipped.
    fn first<T: Default>(&mut self, mut read: impl FnMut(&mut Self) -> Parsed<T>) -> Parsed<T> {
        let mut found = T::default();
        let mut first = true;
        self.array_or_skip(|reader| {
            if std::mem::take(&mut first) {
                found = read(reader)?;
                Ok(())
            } else {
                reader.skip_value()
            }
        })?;
        Ok(found)
    }

    /// The first element of a list, read as an `error` is.
    fn first_error(&mut self) -> Parsed<ErrorField<'a>> {
        self.first(Self::error_value)
    }

    /// The string members `a` and `b` of an object (the last of each where it repeats).
    fn two_members(&mut self, a: &str, b: &str) -> Parsed<[Option<Cow<'a, str>>; 2]> {
        let (mut first, mut second) = (None, None);
        self.object_or_skip(|reader, key| {
            if key == a {
                first = reader.text_value()?;
            } else if key == b {
                second = reader.text_value()?;
            } else {
                reader.skip_value()?;
            }
            Ok(())
        })?;
        Ok([first, second])
    }

    /// The `error` member: a string, an object whose fields are kept, a list whose first
    /// element is read so (Cloudflare's), or anything else.
    fn error_value(&mut self) -> Parsed<ErrorField<'a>> {
        let mut error = ErrorField::default();
        match self.peek() {
            Some(b'[') => error = self.first_error()?,
            Some(b'"') => error.text = Some(self.string()?),
            Some(b'{') => self.object(|reader, key| {
                match key.as_ref() {
                    "type" | "Type" => error.kind = reader.text_value()?,
                    "status" => error.status = reader.text_value()?,
                    "code" | "Code" => (error.code, error.code_number) = reader.text_or_number()?,
                    "status_code" | "statusCode" | "http_status_code" | "http_code" => {
                        error.status_code = reader.small_integer()?;
                    }
                    "retryAfter"
                    | "retry_after"
                    | "retry_after_seconds"
                    | "reset_seconds"
                    | "resets_in_seconds" => error.retry_after = reader.decimal()?,
                    "Message" => error.message = reader.text_value()?,
                    "message" if reader.peek() == Some(b'{') => {
                        error.message = reader.member("error")?;
                    }
                    "message" => error.message = reader.text_value()?,
                    "msg" if error.message.is_none() => error.message = reader.text_value()?,
                    "details" => error.details = reader.details()?,
                    "innererror" => error.inner_code = reader.member("code")?,
                    "metadata" => error.metadata = reader.metadata()?,
                    _ => reader.skip_value()?,
                }
                Ok(())
            })?,
            _ => self.skip_value()?,
        }
        Ok(error)
    }

    /// `error.details`: the `retryDelay` of each `RetryInfo` detail that has a string one,
    /// every detail's string `reason`, and the string `quotaId` of each of its `violations`.
    fn details(&mut self) -> Parsed<Details<'a>> {
        let mut details = Details::default();
        self.array_or_skip(|reader| {
            let (mut kind, mut delay, mut reason, mut limit) = (None, None, None, None);
            let mut quota_ids = Vec::new();
            reader.object_or_skip(|reader, key| {
                match key.as_ref() {
                    "@type" => kind = reader.text_value()?,
                    "retryDelay" => delay = reader.text_value()?,
                    "reason" => reason = reader.text_value()?,
                    "violations" => quota_ids = reader.quota_ids()?,
                    "metadata" => limit = reader.member("quota_limit_value")?,
                    _ => reader.skip_value()?,
                }
                Ok(())
            })?;
            if kind.is_some_and(|kind| kind.ends_with(RETRY_INFO)) {
                details.retry_delays.extend(delay);
            }
            details.reasons.extend(reason);
            details.quota_ids.append(&mut quota_ids);
            details.zero_limit |= limit.as_deref() == Some("0");
            Ok(())
        })?;
        Ok(details)
    }

    /// A `QuotaFailure`'s `violations`: the string `quotaId` of each (the last where one
    /// repeats).
    fn quota_ids(&mut self) -> Parsed<Vec<Cow<'a, str>>> {
        let mut ids = Vec::new();
        self.array_or_skip(|reader| {
            if let Some(id) = reader.member("quotaId")? {
                ids.push(id);
            }
            Ok(())
        })?;
        Ok(ids)
    }

    /// `metadata`: its string `raw`, and whether it has a `flagged_input` member.
    fn metadata(&mut self) -> Parsed<Metadata<'a>> {
        let mut metadata = Metadata::default();
        self.object_or_skip(|reader, key| {
            match key.as_ref() {
                "raw" => metadata.raw = reader.text_value()?,
                "flagged_input" => {
                    metadata.flagged = true;
                    reader.skip_value()?;
                }
                _ => reader.skip_value()?,
            }
            Ok(())
        })?;
        Ok(metadata)
    }

    /// A `response` object: its `error` member, read as a body's `error` is; the body it
    /// holds as a string (`response` or `body`); and its status (`http_code`,
    /// `status_code`, `statusCode`, `http_status_code`).
    #[allow(clippy::type_complexity)]
    fn response(&mut self) -> Parsed<(ErrorField<'a>, Option<Cow<'a, str>>, Option<u16>)> {
        let (mut error, mut relayed, mut status) = (ErrorField::default(), None, None);
        self.object_or_skip(|reader, key| {
            match key.as_ref() {
                "error" => error = reader.error_value()?,
                "response" | "body" => relayed = reader.text_value()?,
                "http_code" | "status_code" | "statusCode" | "http_status_code" => {
                    status = reader.small_integer()?;
                }
                _ => reader.skip_value()?,
            }
            Ok(())
        })?;
        Ok((error, relayed, status))
    }

    /// The member `name` of an object, read as a body's `error` is.
    fn member_error(&mut self, name: &str) -> Parsed<ErrorField<'a>> {
        let mut error = ErrorField::default();
        self.object_or_skip(|reader, key| {
            if key == name {
                error = reader.error_value()?;
                Ok(())
            } else {
                reader.skip_value()
            }
        })?;
        Ok(error)
    }

    /// The string member `name` of an object (the last where it repeats); `None` when the
    /// value is not an object or has no such string. The rest is checked and skipped.
    fn member(&mut self, name: &str) -> Parsed<Option<Cow<'a, str>>> {
        let mut found = None;
        self.object_or_skip(|reader, key| {
            if key == name {
                found = reader.text_value()?;
                Ok(())
            } else {
                reader.skip_value()
            }
        })?;
        Ok(found)
    }

    /// The string member `name` of an array's first element, when the value is an array
    /// whose first element is an object that has one. The rest is checked and skipped.
    fn first_member(&mut self, name: &str) -> Parsed<Option<Cow<'a, str>>> {
        self.first(|reader| reader.member(name))
    }

    /// A value kept as a string or as a number, whichever it is.
    fn text_or_number(&mut self) -> Parsed<(Option<Cow<'a, str>>, Option<u16>)> {
        match self.peek() {
            Some(b'"') => Ok((Some(self.string()?), None)),
            _ => Ok((None, self.small_integer()?)),
        }
    }
}

/// Generated documents, for the tests here and in `body.rs`.
#[cfg(test)]
pub(super) mod documents;
/// The reader against `serde_json`.
#[cfg(test)]
mod tests;
