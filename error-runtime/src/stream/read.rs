//! What one event says, provider by provider: output delivered (and its text, or the answer's
//! text alone), a stop reason, the provider's last event, or an error to classify. Events are read with the runtime's
//! strict JSON reader (nesting bounded, never a panic); the commonest healthy events of each
//! provider are recognised first by their fixed shape, without reading the whole document.

use std::borrow::Cow;
use std::ops::Range;

use super::provider::Provider;
use crate::http::json::syntax::{Parsed, Reader};

/// Which of an event's output a reading keeps as its text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Keep {
    /// All output content: the answer, refusal, thinking and tool-call arguments (what the
    /// watch counts, and keeps when asked).
    #[default]
    Content,
    /// The answer's text alone (what [`Event::text`](super::Event::text) gives).
    Answer,
}

/// What a piece of output content is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Output {
    /// The answer's text.
    Answer,
    /// Refusal text.
    Refusal,
    /// Thinking or reasoning text, or its summary.
    Thinking,
    /// A tool call's arguments or input, or an audio answer's transcript.
    Other,
}

/// What one event says.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Reading<'a> {
    /// Which output the text keeps.
    keep: Keep,
    /// Output content: text, refusal text, thinking text or tool-call arguments.
    pub(super) content: bool,
    /// The output text this event delivered, decoded (counted, and kept when asked): all of
    /// it, or the answer's alone, as [`Keep`] says.
    pub(super) text: Option<Cow<'a, str>>,
    /// The content was a refusal.
    pub(super) refusal: bool,
    /// A stop reason (`finish_reason`, `stop_reason`, `finishReason`, the reason a response
    /// is incomplete, a blocked prompt's reason).
    pub(super) stop: Option<Cow<'a, str>>,
    /// The prompt was blocked (Gemini's `promptFeedback.blockReason`).
    pub(super) blocked: bool,
    /// The provider's last event.
    pub(super) terminal: bool,
    /// An error: the document to classify, as a body after a status is.
    pub(super) error: Option<&'a str>,
}

impl<'a> Reading<'a> {
    fn new(keep: Keep) -> Self {
        Reading {
            keep,
            ..Reading::default()
        }
    }

    fn text(&mut self, output: Output, text: Cow<'a, str>) {
        if text.is_empty() {
            return;
        }
        self.content = true;
        if self.keep == Keep::Answer && output != Output::Answer {
            return;
        }
        self.text = Some(match self.text.take() {
            None => text,
            Some(before) => Cow::Owned(before.into_owned() + &text),
        });
    }
}

/// Reads one event of `provider` (none yet recognised: only what every provider shares, an
/// error document).
pub(super) fn read<'a>(
    provider: Option<Provider>,
    name: Option<&str>,
    data: &'a str,
) -> Reading<'a> {
    read_keeping(Keep::Content, provider, name, data)
}

/// Reads one event of `provider`, its text keeping what `keep` says.
pub(super) fn read_keeping<'a>(
    keep: Keep,
    provider: Option<Provider>,
    name: Option<&str>,
    data: &'a str,
) -> Reading<'a> {
    match provider {
        Some(Provider::OpenAiChat) => chat(keep, data),
        Some(Provider::Anthropic) => anthropic(keep, name, data),
        Some(Provider::OpenAiResponses) => responses(keep, name, data),
        Some(Provider::Gemini) => gemini(keep, data),
        None => unknown(name, data),
    }
}

/// The text an event of `provider` (none: the one its name or data tells) adds to the
/// answer: not refusal, thinking or tool input, and nothing from an error event.
pub(super) fn answer<'a>(
    provider: Option<Provider>,
    name: Option<&str>,
    data: &'a str,
) -> Option<Cow<'a, str>> {
    let provider = provider.or_else(|| Provider::recognise(name, data))?;
    let reading = read_keeping(Keep::Answer, Some(provider), name, data);
    if reading.error.is_some() {
        return None;
    }
    reading.text
}

/// Where the text of a text delta in its provider's fixed shape (a Chat chunk with one
/// choice and no stop, an Anthropic `text_delta`) lies in `data`, read without a reading:
/// the event's only news is that text, which [`read`] would give. `None` for any other
/// event, and for an empty text.
#[inline]
pub(super) fn text_delta(
    provider: Option<Provider>,
    name: Option<&str>,
    data: &str,
) -> Option<Range<usize>> {
    match provider? {
        Provider::OpenAiChat => chat_text(data),
        Provider::Anthropic if name == Some("content_block_delta") => anthropic_text_fast(data),
        _ => None,
    }
    .filter(|text| !text.is_empty())
}

/// An event before the provider is known: an error is an error whoever sent it.
fn unknown<'a>(name: Option<&str>, data: &'a str) -> Reading<'a> {
    let mut reading = Reading::default();
    if name == Some("error") || is_error_document(data) {
        reading.error = Some(data);
    }
    reading
}

/// Whether `data` is an error document: an object with a top-level `error` member, or vLLM's
/// `"object": "error"`, or Anthropic's and the Responses API's `"type": "error"`.
pub(super) fn is_error_document(data: &str) -> bool {
    let mut found = false;
    let _ = Reader::new(data.as_bytes()).object(|reader, key| {
        match key.as_ref() {
            "error" => found = true,
            "object" | "type" => {
                if reader.peek() == Some(b'"') && reader.string()? == "error" {
                    found = true;
                }
                return Ok(());
            }
            _ => {}
        }
        reader.skip_value()
    });
    found
}

/// The top-level shape of an event's JSON object: its `type`, and which of the keys that
/// tell a provider it has at the top (never a key nested in a value, such as a function
/// call's arguments).
#[derive(Debug, Default)]
pub(super) struct TopShape<'a> {
    /// The object's string `type`.
    pub(super) kind: Option<Cow<'a, str>>,
    /// `choices`, or `"object": "chat.completion.chunk"`: OpenAI Chat.
    pub(super) chat: bool,
    /// `candidates` or `promptFeedback`: Gemini.
    pub(super) gemini: bool,
}

/// Reads the top-level shape of `data` (what was read before any malformed part).
pub(super) fn top_shape(data: &str) -> TopShape<'_> {
    let mut shape = TopShape::default();
    let _ = Reader::new(data.as_bytes()).object(|reader, key| {
        let is_text = reader.peek() == Some(b'"');
        match key.as_ref() {
            "type" if is_text => shape.kind = Some(reader.string()?),
            "object" if is_text => shape.chat |= reader.string()? == "chat.completion.chunk",
            "choices" => {
                shape.chat = true;
                reader.skip_value()?;
            }
            "candidates" | "promptFeedback" => {
                shape.gemini = true;
                reader.skip_value()?;
            }
            _ => reader.skip_value()?,
        }
        Ok(())
    });
    shape
}

// OpenAI Chat Completions, and the servers that speak it.

/// The end of a Chat chunk that carries text and no stop: `…"content":"TEXT"}` then the end
/// of the choice, with no `finish_reason` but `null`. The fixed shape OpenAI sends.
const CHAT_TAILS: [&str; 3] = [
    "\"},\"logprobs\":null,\"finish_reason\":null}]}",
    "\"},\"finish_reason\":null}]}",
    "\"},\"finish_reason\":null,\"logprobs\":null}]}",
];

/// A Chat chunk: `[DONE]`, an error object, or choices with deltas and finish reasons.
fn chat(keep: Keep, data: &str) -> Reading<'_> {
    chat_fast(keep, data).unwrap_or_else(|| chat_in_full(keep, data))
}

/// A Chat chunk read in full.
fn chat_in_full(keep: Keep, data: &str) -> Reading<'_> {
    let mut reading = Reading::new(keep);
    let trimmed = data.trim();
    if trimmed == "[DONE]" {
        reading.terminal = true;
        return reading;
    }
    let mut error = false;
    let parsed = Reader::new(trimmed.as_bytes()).object(|reader, key| match key.as_ref() {
        "choices" => reader.array(|reader| chat_choice(reader, &mut reading)),
        "error" => {
            error = true;
            reader.skip_value()
        }
        "object" => {
            if reader.peek() == Some(b'"') && reader.string()? == "error" {
                error = true;
            }
            Ok(())
        }
        _ => reader.skip_value(),
    });
    if error || (parsed.is_err() && is_error_document(trimmed)) {
        reading.error = Some(data);
    }
    reading
}

/// The commonest Chat chunk, one choice with a text delta, read from its fixed shape:
/// `"choices":[{"index":0,"delta":{"content":"TEXT"` then one of [`CHAT_TAILS`], with no
/// escape in the text. `None` for any other shape, which is read in full.
fn chat_fast(keep: Keep, data: &str) -> Option<Reading<'_>> {
    let text = data.get(chat_text(data)?)?;
    let mut reading = Reading::new(keep);
    reading.text(Output::Answer, Cow::Borrowed(text));
    Some(reading)
}

/// Where the text of a Chat chunk in the fixed shape that [`chat_fast`] reads lies.
#[inline]
fn chat_text(data: &str) -> Option<Range<usize>> {
    let bytes = data.as_bytes();
    let tail = CHAT_TAILS
        .iter()
        .find(|tail| ends_with(bytes, tail.as_bytes()))?;
    let end = data.len() - tail.len();
    // The text's opening quote is the last quote before its end when the text holds none
    // (an escape sends the chunk to the full reading); before it, the choices' opening.
    // With the tail, it is the only choice.
    const OPEN: &str = "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"";
    quoted_after(data, end, OPEN)
}

/// One element of `choices`.
fn chat_choice<'a>(reader: &mut Reader<'a>, reading: &mut Reading<'a>) -> Parsed<()> {
    reader.object_or_skip(|reader, key| match key.as_ref() {
        "delta" | "message" => chat_delta(reader, reading),
        "finish_reason" => {
            if let Some(reason) = reader.text_value()? {
                reading.stop = Some(reason);
            }
            Ok(())
        }
        _ => reader.skip_value(),
    })
}

/// A choice's `delta`: text, refusal, reasoning and tool-call arguments.
fn chat_delta<'a>(reader: &mut Reader<'a>, reading: &mut Reading<'a>) -> Parsed<()> {
    reader.object_or_skip(|reader, key| match key.as_ref() {
        "content" => {
            if let Some(text) = reader.text_value()? {
                reading.text(Output::Answer, text);
            }
            Ok(())
        }
        "reasoning_content" | "reasoning" => {
            if let Some(text) = reader.text_value()? {
                reading.text(Output::Thinking, text);
            }
            Ok(())
        }
        "refusal" => {
            if let Some(text) = reader.text_value()?.filter(|t| !t.is_empty()) {
                reading.refusal = true;
                reading.text(Output::Refusal, text);
            }
            Ok(())
        }
        "tool_calls" | "function_call" => tool_calls(reader, reading),
        _ => reader.skip_value(),
    })
}

/// `tool_calls` (or the older `function_call`): each call's `function.arguments` text, and
/// a call's name alone counts as content too.
fn tool_calls<'a>(reader: &mut Reader<'a>, reading: &mut Reading<'a>) -> Parsed<()> {
    match reader.peek() {
        Some(b'[') => reader.array(|reader| tool_calls(reader, reading)),
        Some(b'{') => reader.object(|reader, key| match key.as_ref() {
            "function" => tool_calls(reader, reading),
            "arguments" => {
                if let Some(text) = reader.text_value()? {
                    reading.text(Output::Other, text);
                }
                Ok(())
            }
            "name" => {
                if reader.text_value()?.is_some_and(|name| !name.is_empty()) {
                    reading.content = true;
                }
                Ok(())
            }
            _ => reader.skip_value(),
        }),
        _ => reader.skip_value(),
    }
}

// Anthropic Messages.

/// An Anthropic event, by its type (the `event:` field, else the data's `type`).
fn anthropic<'a>(keep: Keep, name: Option<&str>, data: &'a str) -> Reading<'a> {
    let mut reading = Reading::new(keep);
    let kind = event_type(name, data);
    match &*kind {
        "message_stop" => reading.terminal = true,
        "error" => reading.error = Some(data),
        "content_block_delta" => {
            if let Some(fast) = anthropic_text_fast(data).and_then(|text| data.get(text)) {
                reading.text(Output::Answer, Cow::Borrowed(fast));
            } else {
                let _ = member(data, "delta", |reader| {
                    anthropic_delta(reader, &mut reading)
                });
            }
        }
        "message_delta" => {
            let _ = member(data, "delta", |reader| {
                reader.object(|reader, key| match key.as_ref() {
                    "stop_reason" => {
                        reading.stop = reader.text_value()?;
                        Ok(())
                    }
                    _ => reader.skip_value(),
                })
            });
        }
        _ if is_error_document(data) => reading.error = Some(data),
        _ => {}
    }
    reading
}

/// The commonest Anthropic delta, `{"type":"content_block_delta","index":N,"delta":
/// {"type":"text_delta","text":"TEXT"}}`, read from its fixed shape: where its text lies.
#[inline]
fn anthropic_text_fast(data: &str) -> Option<Range<usize>> {
    const OPEN: &str = "\"delta\":{\"type\":\"text_delta\",\"text\":\"";
    let end = data
        .len()
        .checked_sub(3)
        .filter(|_| data.as_bytes().ends_with(b"\"}}"))?;
    quoted_after(data, end, OPEN)
}

/// Where the text of a JSON string lies that ends (its closing quote) at `end` and opens
/// right after `open`, when it holds no escape, no quote and no control character. Its
/// bounds are next to quotes, so they are character boundaries.
#[inline]
fn quoted_after(data: &str, end: usize, open: &str) -> Option<Range<usize>> {
    let bytes = data.as_bytes().get(..end)?;
    let start = plain_string_start(bytes)?;
    ends_with(bytes.get(..start)?, open.as_bytes()).then_some(start..end)
}

/// Where the JSON string that closes at the end of `bytes` begins (just after its opening
/// quote), found from its end eight bytes at a time; `None` when an escape or a control
/// character comes first, or when the quote is among the first eight bytes (every key that
/// [`quoted_after`] checks before the quote is longer than that).
#[inline]
fn plain_string_start(bytes: &[u8]) -> Option<usize> {
    // A delta's text is most often shorter than a word: the first word is read here, and
    // a longer text's other words apart, out of the common path.
    let end = bytes.len();
    let (quotes, unplain) = word_masks(word_before(bytes, end)?);
    if quotes == 0 {
        return if unplain == 0 {
            longer_string_start(bytes, end - 8)
        } else {
            None
        };
    }
    start_in_word(quotes, unplain, end)
}

/// [`plain_string_start`] past the first word: `bytes` up to `end` are plain.
#[inline(never)]
fn longer_string_start(bytes: &[u8], mut end: usize) -> Option<usize> {
    loop {
        let (quotes, unplain) = word_masks(word_before(bytes, end)?);
        if quotes != 0 {
            return start_in_word(quotes, unplain, end);
        }
        if unplain != 0 {
            return None;
        }
        end -= 8;
    }
}

/// The eight bytes of `bytes` before `end`, as a little-endian word.
#[inline]
fn word_before(bytes: &[u8], end: usize) -> Option<u64> {
    let word = bytes.get(end.checked_sub(8)?..end)?;
    Some(u64::from_le_bytes(word.try_into().ok()?))
}

/// Where a string begins whose opening quote is the last one in the word before `end`,
/// unless a byte after that quote is not plain.
#[inline]
fn start_in_word(quotes: u64, unplain: u64, end: usize) -> Option<usize> {
    // The bytes after the last quote, at the word's high end.
    let after = quotes.leading_zeros() as usize / 8;
    let up_to_quote = u64::MAX >> (8 * after);
    (unplain & !up_to_quote == 0).then(|| end - after)
}

/// Each byte's high bit.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
/// Each byte's low seven bits.
const LOW_BITS: u64 = 0x7F7F_7F7F_7F7F_7F7F;
/// One in each byte.
const EACH_BYTE: u64 = 0x0101_0101_0101_0101;

/// The high bit of each byte of `word` that is a quote, and of each byte that is a
/// backslash or a control character (the bytes that make a string's text not plain):
/// eight bytes compared at once, exactly (no carry crosses from byte to byte).
#[inline]
fn word_masks(word: u64) -> (u64, u64) {
    let zero_bytes = |word: u64| !(((word & LOW_BITS) + LOW_BITS) | word) & HIGH_BITS;
    let quotes = zero_bytes(word ^ (EACH_BYTE * u64::from(b'"')));
    let backslashes = zero_bytes(word ^ (EACH_BYTE * u64::from(b'\\')));
    // Below 0x20: the high bit clear, and the low seven bits plus 0x60 still below 0x80.
    let controls = !(((word & LOW_BITS) + EACH_BYTE * 0x60) | word) & HIGH_BITS;
    (quotes, backslashes | controls)
}

/// Whether `bytes` end with `tail`, compared sixteen bytes at a time (the fixed shapes'
/// pieces are 20 to 45 bytes long: no call out for them).
#[inline]
fn ends_with(bytes: &[u8], tail: &[u8]) -> bool {
    let Some(end) = bytes.len().checked_sub(tail.len()).map(|at| &bytes[at..]) else {
        return false;
    };
    if tail.len() < 16 {
        return end == tail;
    }
    let word = |s: &[u8], at: usize| {
        s.get(at..at + 16)
            .and_then(|w| <[u8; 16]>::try_from(w).ok())
            .map_or(0, u128::from_ne_bytes)
    };
    let last = tail.len() - 16;
    (0..last)
        .step_by(16)
        .all(|at| word(end, at) == word(tail, at))
        && word(end, last) == word(tail, last)
}

/// A `content_block_delta`'s `delta`: text, tool input JSON, thinking.
fn anthropic_delta<'a>(reader: &mut Reader<'a>, reading: &mut Reading<'a>) -> Parsed<()> {
    reader.object_or_skip(|reader, key| {
        let output = match key.as_ref() {
            "text" => Output::Answer,
            "thinking" => Output::Thinking,
            "partial_json" => Output::Other,
            _ => return reader.skip_value(),
        };
        if let Some(text) = reader.text_value()? {
            reading.text(output, text);
        }
        Ok(())
    })
}

// The OpenAI Responses API.

/// The Responses API's events whose `delta` is output content.
const RESPONSES_DELTAS: [&str; 7] = [
    "response.output_text.delta",
    "response.refusal.delta",
    "response.function_call_arguments.delta",
    "response.custom_tool_call_input.delta",
    "response.reasoning_text.delta",
    "response.reasoning_summary_text.delta",
    "response.audio.transcript.delta",
];

/// A Responses event, by its type (the `event:` field, else the data's `type`).
fn responses<'a>(keep: Keep, name: Option<&str>, data: &'a str) -> Reading<'a> {
    let mut reading = Reading::new(keep);
    let kind = event_type(name, data);
    match &*kind {
        "response.completed" => reading.terminal = true,
        "error" => reading.error = Some(data),
        // The failed response's `error` is the document to classify.
        "response.failed" => {
            reading.error = Some(raw_member(data, "response").unwrap_or(data));
        }
        "response.incomplete" => {
            reading.terminal = true;
            let _ = member(data, "response", |reader| {
                reader.object(|reader, key| match key.as_ref() {
                    "incomplete_details" => {
                        reader.object_or_skip(|reader, key| match key.as_ref() {
                            "reason" => {
                                reading.stop = reader.text_value()?;
                                Ok(())
                            }
                            _ => reader.skip_value(),
                        })
                    }
                    _ => reader.skip_value(),
                })
            });
            if reading.stop.is_none() {
                reading.stop = Some(Cow::Borrowed("incomplete"));
            }
        }
        delta if RESPONSES_DELTAS.contains(&delta) => {
            reading.refusal = delta == "response.refusal.delta";
            let output = match delta {
                "response.output_text.delta" => Output::Answer,
                "response.refusal.delta" => Output::Refusal,
                "response.reasoning_text.delta" | "response.reasoning_summary_text.delta" => {
                    Output::Thinking
                }
                _ => Output::Other,
            };
            let _ = member(data, "delta", |reader| {
                if let Some(text) = reader.text_value()? {
                    reading.text(output, text);
                }
                Ok(())
            });
        }
        _ if is_error_document(data) && !kind.starts_with("response.") => {
            reading.error = Some(data);
        }
        _ => {}
    }
    reading
}

// Google Gemini.

/// A Gemini chunk: candidates with parts and a finish reason, a blocked prompt, or an error.
fn gemini(keep: Keep, data: &str) -> Reading<'_> {
    let mut reading = Reading::new(keep);
    let mut error = false;
    let parsed = Reader::new(data.as_bytes()).object(|reader, key| match key.as_ref() {
        "candidates" => reader.array(|reader| gemini_candidate(reader, &mut reading)),
        "promptFeedback" => reader.object_or_skip(|reader, key| match key.as_ref() {
            "blockReason" => {
                if let Some(reason) = reader.text_value()? {
                    reading.blocked = true;
                    reading.stop = Some(reason);
                }
                Ok(())
            }
            _ => reader.skip_value(),
        }),
        "error" => {
            error = true;
            reader.skip_value()
        }
        _ => reader.skip_value(),
    });
    if error || (parsed.is_err() && is_error_document(data)) {
        reading.error = Some(data);
    }
    reading
}

/// One candidate: its parts' text (a part marked `thought` is thinking) and calls, and its
/// finish reason.
fn gemini_candidate<'a>(reader: &mut Reader<'a>, reading: &mut Reading<'a>) -> Parsed<()> {
    reader.object_or_skip(|reader, key| match key.as_ref() {
        "finishReason" => {
            if let Some(reason) = reader.text_value()? {
                reading.stop = Some(reason);
            }
            Ok(())
        }
        "content" => reader.object_or_skip(|reader, key| match key.as_ref() {
            "parts" => reader.array_or_skip(|reader| {
                // `thought` may come after `text`: the part is read whole first.
                let (mut text, mut thought) = (None, false);
                let parsed = reader.object_or_skip(|reader, key| match key.as_ref() {
                    "text" => {
                        text = reader.text_value()?;
                        Ok(())
                    }
                    "thought" => {
                        thought = reader.peek() == Some(b't');
                        reader.skip_value()
                    }
                    "functionCall" | "executableCode" | "inlineData" => {
                        reading.content = true;
                        reader.skip_value()
                    }
                    _ => reader.skip_value(),
                });
                if let Some(text) = text {
                    let output = if thought {
                        Output::Thinking
                    } else {
                        Output::Answer
                    };
                    reading.text(output, text);
                }
                parsed
            }),
            _ => reader.skip_value(),
        }),
        _ => reader.skip_value(),
    })
}

// Shared steps.

/// An event's type: its `event:` field, else its data's `type` (a proxy may drop the
/// `event:` lines; Anthropic's and the Responses API's data say the type again).
fn event_type<'e>(name: Option<&'e str>, data: &'e str) -> Cow<'e, str> {
    match name {
        Some(name) if name != "message" => Cow::Borrowed(name),
        _ => top_shape(data).kind.unwrap_or_default(),
    }
}

/// Reads the top-level member `key` of the object `data` with `read`.
fn member<'a>(
    data: &'a str,
    key: &str,
    mut read: impl FnMut(&mut Reader<'a>) -> Parsed<()>,
) -> Parsed<()> {
    Reader::new(data.as_bytes()).object(|reader, name| {
        if name == key {
            read(reader)
        } else {
            reader.skip_value()
        }
    })
}

/// The text of the top-level member `key` of the object `data`, as written.
fn raw_member<'a>(data: &'a str, key: &str) -> Option<&'a str> {
    let mut found = None;
    let _ = Reader::new(data.as_bytes()).object(|reader, name| {
        if name == key {
            let start = reader.position();
            reader.skip_value()?;
            found = data.get(start..reader.position()).map(str::trim_end);
            Ok(())
        } else {
            reader.skip_value()
        }
    });
    found
}

#[cfg(test)]
mod tests;
