//! A small JSON reader for provider error bodies: it checks a whole document as strictly as
//! `serde_json` does and keeps only the few fields that `body.rs` classifies by.
//!
//! It exists for build time: `serde_json` (and `serde_core`) under the default `http`
//! feature were most of a clean build's critical path, for a dozen fields of an error body.
//! One pass over the bytes, nesting bounded as `serde_json` bounds it, no panics, and the
//! values it does not need are checked and skipped, never kept.

use std::borrow::Cow;

/// The deepest nesting of arrays and objects read: `serde_json` refuses a document whose
/// 128th nested container opens, and so does this reader, so that both call the same
/// documents JSON.
const MAX_DEPTH: usize = 127;

/// The `@type` suffix of Google's `RetryInfo` error detail.
const RETRY_INFO: &str = "google.rpc.RetryInfo";

/// What a provider's error body holds, as far as the classification reads it: each field is
/// the string at its place in the document (the last one where a key repeats, as in
/// `serde_json`'s maps), `None` when it is absent or not a string.
///
/// The document is the body itself or, when the body is an array of exactly one element,
/// that element (Google's REST endpoints may wrap the error so).
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct ErrorBody<'a> {
    /// The document, when it is a JSON string.
    pub(super) text: Option<Cow<'a, str>>,
    /// The document's `type` (Anthropic's `"error"`).
    pub(super) kind: Option<Cow<'a, str>>,
    /// The document's `message` (vLLM).
    pub(super) message: Option<Cow<'a, str>>,
    /// The document's `detail` (FastAPI).
    pub(super) detail: Option<Cow<'a, str>>,
    /// The document's `error`.
    pub(super) error: ErrorField<'a>,
}

/// The `error` member of a provider's error body.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct ErrorField<'a> {
    /// `error` itself, when it is a string (Ollama).
    pub(super) text: Option<Cow<'a, str>>,
    /// `error.type` (OpenAI, Anthropic).
    pub(super) kind: Option<Cow<'a, str>>,
    /// `error.status` (Google).
    pub(super) status: Option<Cow<'a, str>>,
    /// `error.code` (OpenAI).
    pub(super) code: Option<Cow<'a, str>>,
    /// `error.message`.
    pub(super) message: Option<Cow<'a, str>>,
    /// The `retryDelay` strings of the `error.details` whose `@type` is Google's `RetryInfo`,
    /// in order.
    pub(super) retry_delays: Vec<Cow<'a, str>>,
}

/// Reads `bytes` as a provider error body: `None` when they are not one JSON document (what
/// `serde_json::from_slice::<Value>` refuses, nesting too deep included).
pub(super) fn read(bytes: &[u8]) -> Option<ErrorBody<'_>> {
    let mut reader = Reader {
        bytes,
        at: 0,
        depth: 0,
    };
    let body = reader.document().ok()?;
    reader.whitespace();
    (reader.at == bytes.len()).then_some(body)
}

/// The document is not JSON.
struct Invalid;

/// What a step of the reader gives: the value, or the document is not JSON.
type Parsed<T> = Result<T, Invalid>;

/// A cursor over the document's bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    /// The next byte to read.
    at: usize,
    /// How many arrays and objects are open.
    depth: usize,
}

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
        match self.peek() {
            Some(b'"') => body.text = Some(self.string()?),
            Some(b'{') => self.object(|reader, key| {
                match key.as_ref() {
                    "type" => body.kind = reader.text_value()?,
                    "message" => body.message = reader.text_value()?,
                    "detail" => body.detail = reader.text_value()?,
                    "error" => body.error = reader.error_value()?,
                    _ => reader.skip_value()?,
                }
                Ok(())
            })?,
            _ => self.skip_value()?,
        }
        Ok(body)
    }

    /// The `error` member: a string, an object whose fields are kept, or anything else.
    fn error_value(&mut self) -> Parsed<ErrorField<'a>> {
        let mut error = ErrorField::default();
        match self.peek() {
            Some(b'"') => error.text = Some(self.string()?),
            Some(b'{') => self.object(|reader, key| {
                match key.as_ref() {
                    "type" => error.kind = reader.text_value()?,
                    "status" => error.status = reader.text_value()?,
                    "code" => error.code = reader.text_value()?,
                    "message" => error.message = reader.text_value()?,
                    "details" => error.retry_delays = reader.retry_delays()?,
                    _ => reader.skip_value()?,
                }
                Ok(())
            })?,
            _ => self.skip_value()?,
        }
        Ok(error)
    }

    /// `error.details`: the `retryDelay` of each `RetryInfo` detail that has a string one.
    fn retry_delays(&mut self) -> Parsed<Vec<Cow<'a, str>>> {
        let mut delays = Vec::new();
        if self.peek() != Some(b'[') {
            self.skip_value()?;
            return Ok(delays);
        }
        self.array(|reader| {
            if reader.peek() != Some(b'{') {
                return reader.skip_value();
            }
            let (mut kind, mut delay) = (None, None);
            reader.object(|reader, key| {
                match key.as_ref() {
                    "@type" => kind = reader.text_value()?,
                    "retryDelay" => delay = reader.text_value()?,
                    _ => reader.skip_value()?,
                }
                Ok(())
            })?;
            if kind.is_some_and(|kind| kind.ends_with(RETRY_INFO)) {
                delays.extend(delay);
            }
            Ok(())
        })?;
        Ok(delays)
    }

    /// A value kept only if it is a string.
    fn text_value(&mut self) -> Parsed<Option<Cow<'a, str>>> {
        if self.peek() == Some(b'"') {
            self.string().map(Some)
        } else {
            self.skip_value().map(|()| None)
        }
    }

    /// Checks a value and steps over it.
    fn skip_value(&mut self) -> Parsed<()> {
        match self.peek().ok_or(Invalid)? {
            b'"' => self.string().map(drop),
            b'{' => self.object(|reader, _| reader.skip_value()),
            b'[' => self.array(Self::skip_value),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => self.number(),
        }
    }

    /// An object: `field` reads each member's value, given its key, from the reader placed
    /// at that value.
    fn object(
        &mut self,
        mut field: impl FnMut(&mut Self, Cow<'a, str>) -> Parsed<()>,
    ) -> Parsed<()> {
        self.open()?;
        if self.peek() == Some(b'}') {
            return self.close();
        }
        loop {
            if self.peek() != Some(b'"') {
                return Err(Invalid);
            }
            let key = self.string()?;
            self.expect(b':')?;
            self.whitespace();
            field(self, key)?;
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => return self.close(),
                _ => return Err(Invalid),
            }
        }
    }

    /// An array: `element` reads each element from the reader placed at it.
    fn array(&mut self, mut element: impl FnMut(&mut Self) -> Parsed<()>) -> Parsed<()> {
        self.open()?;
        if self.peek() == Some(b']') {
            return self.close();
        }
        loop {
            element(self)?;
            match self.peek() {
                Some(b',') => {
                    self.at += 1;
                    self.whitespace();
                }
                Some(b']') => return self.close(),
                _ => return Err(Invalid),
            }
        }
    }

    /// Steps into an array or object, refusing nesting deeper than [`MAX_DEPTH`].
    fn open(&mut self) -> Parsed<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Invalid);
        }
        self.at += 1;
        self.whitespace();
        Ok(())
    }

    /// Steps out of an array or object, over its closing bracket.
    fn close(&mut self) -> Parsed<()> {
        self.depth -= 1;
        self.at += 1;
        self.whitespace();
        Ok(())
    }

    /// A string, from its opening quote: its value, borrowed when it has no escape.
    fn string(&mut self) -> Parsed<Cow<'a, str>> {
        self.at += 1;
        let mut owned: Option<String> = None;
        loop {
            let start = self.at;
            while let Some(&byte) = self.bytes.get(self.at) {
                if byte == b'"' || byte == b'\\' || byte < 0x20 {
                    break;
                }
                self.at += 1;
            }
            // Escapes are ASCII, so a run between them holds whole characters.
            let run = self.bytes.get(start..self.at).ok_or(Invalid)?;
            let run = std::str::from_utf8(run).map_err(|_| Invalid)?;
            match self.bytes.get(self.at) {
                Some(b'"') => {
                    self.at += 1;
                    self.whitespace();
                    return Ok(match owned {
                        Some(mut text) => {
                            text.push_str(run);
                            Cow::Owned(text)
                        }
                        None => Cow::Borrowed(run),
                    });
                }
                Some(b'\\') => {
                    let text = owned.get_or_insert_with(String::new);
                    text.push_str(run);
                    self.at += 1;
                    text.push(self.escape()?);
                }
                // A control character, or the end of the input.
                _ => return Err(Invalid),
            }
        }
    }

    /// The character of an escape, from the byte after its backslash.
    fn escape(&mut self) -> Parsed<char> {
        let byte = self.bytes.get(self.at).copied().ok_or(Invalid)?;
        self.at += 1;
        Ok(match byte {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => return self.unicode_escape(),
            _ => return Err(Invalid),
        })
    }

    /// A `\uXXXX` escape after its `\u`, or two for a surrogate pair; a lone surrogate is
    /// refused, as `serde_json` refuses it in a string.
    fn unicode_escape(&mut self) -> Parsed<char> {
        let unit = self.hex4()?;
        let code = match unit {
            0xD800..=0xDBFF => {
                if self.bytes.get(self.at..self.at + 2) != Some(b"\\u") {
                    return Err(Invalid);
                }
                self.at += 2;
                let low = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(Invalid);
                }
                0x1_0000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            }
            _ => unit,
        };
        // `None` for a trailing surrogate without its leading one.
        char::from_u32(code).ok_or(Invalid)
    }

    /// Four hex digits, as a UTF-16 code unit.
    fn hex4(&mut self) -> Parsed<u32> {
        let digits = self.bytes.get(self.at..self.at + 4).ok_or(Invalid)?;
        let mut unit = 0;
        for &digit in digits {
            unit = unit * 16 + char::from(digit).to_digit(16).ok_or(Invalid)?;
        }
        self.at += 4;
        Ok(unit)
    }

    /// A number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, within `f64`'s
    /// range as `serde_json` requires (`1e400` is refused).
    fn number(&mut self) -> Parsed<()> {
        let start = self.at;
        self.eat(b'-');
        match self.bytes.get(self.at) {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(Invalid),
        }
        if self.eat(b'.') {
            self.required_digits()?;
        }
        if self.eat(b'e') || self.eat(b'E') {
            if !self.eat(b'+') {
                self.eat(b'-');
            }
            self.required_digits()?;
        }
        let text = self.bytes.get(start..self.at).ok_or(Invalid)?;
        let text = std::str::from_utf8(text).map_err(|_| Invalid)?;
        if text.parse::<f64>().map_err(|_| Invalid)?.is_infinite() {
            return Err(Invalid);
        }
        self.whitespace();
        Ok(())
    }

    /// One digit or more.
    fn required_digits(&mut self) -> Parsed<()> {
        let start = self.at;
        self.digits();
        if self.at == start {
            Err(Invalid)
        } else {
            Ok(())
        }
    }

    /// Any number of digits.
    fn digits(&mut self) {
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
    }

    /// `true`, `false` or `null`.
    fn literal(&mut self, word: &[u8]) -> Parsed<()> {
        if self.bytes.get(self.at..self.at + word.len()) != Some(word) {
            return Err(Invalid);
        }
        self.at += word.len();
        self.whitespace();
        Ok(())
    }

    /// Steps over `byte` and the whitespace after it, or fails.
    fn expect(&mut self, byte: u8) -> Parsed<()> {
        if self.eat(byte) {
            self.whitespace();
            Ok(())
        } else {
            Err(Invalid)
        }
    }

    /// Steps over `byte` if it is next.
    fn eat(&mut self, byte: u8) -> bool {
        let next = self.bytes.get(self.at) == Some(&byte);
        self.at += usize::from(next);
        next
    }

    /// The next byte after any whitespace, not consumed.
    fn peek(&mut self) -> Option<u8> {
        self.whitespace();
        self.bytes.get(self.at).copied()
    }

    /// Steps over JSON's whitespace: space, tab, line feed, carriage return.
    fn whitespace(&mut self) {
        while matches!(self.bytes.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }
}

#[cfg(test)]
pub(super) mod tests;
