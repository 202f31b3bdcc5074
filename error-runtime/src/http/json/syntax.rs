//! JSON's syntax, as strictly as `serde_json` reads it: a cursor that checks every value and
//! steps over it, handing the members and elements that its caller asks for to the caller.

use std::borrow::Cow;

/// The deepest nesting of arrays and objects read: `serde_json` refuses a document whose
/// 128th nested container opens, and so does this reader, so that both call the same
/// documents JSON.
const MAX_DEPTH: usize = 127;

/// The document is not JSON.
pub(crate) struct Invalid;

/// What a step of the reader gives: the value, or the document is not JSON.
pub(crate) type Parsed<T> = Result<T, Invalid>;

/// A cursor over a document's bytes. Each step starts at a value (whitespace before it
/// skipped) and ends after it and the whitespace that follows.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    /// The next byte to read.
    at: usize,
    /// How many arrays and objects are open.
    depth: usize,
}

/// The grammar, a value at a time.
impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Reader {
            bytes,
            at: 0,
            depth: 0,
        }
    }

    /// Where the reader is: the index of the next byte to read.
    #[cfg(feature = "stream")]
    pub(crate) fn position(&self) -> usize {
        self.at
    }

    /// Whether only whitespace is left.
    pub(crate) fn at_end(&mut self) -> bool {
        self.whitespace();
        self.at == self.bytes.len()
    }

    /// Checks a value and steps over it.
    pub(crate) fn skip_value(&mut self) -> Parsed<()> {
        match self.peek().ok_or(Invalid)? {
            b'"' => self.string().map(drop),
            b'{' => self.object(|reader, _| reader.skip_value()),
            b'[' => self.array(Self::skip_value),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => self.number().map(drop),
        }
    }

    /// An object: `field` reads each member's value, given its key, from the reader placed
    /// at that value.
    pub(crate) fn object(
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
    pub(crate) fn array(&mut self, mut element: impl FnMut(&mut Self) -> Parsed<()>) -> Parsed<()> {
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

    /// A string value, or `None` after checking and skipping a value of another type.
    pub(crate) fn text_value(&mut self) -> Parsed<Option<Cow<'a, str>>> {
        if self.peek() == Some(b'"') {
            self.string().map(Some)
        } else {
            self.skip_value().map(|()| None)
        }
    }

    /// An object read as [`object`](Self::object) reads it, or a value of another type
    /// checked and skipped.
    pub(crate) fn object_or_skip(
        &mut self,
        field: impl FnMut(&mut Self, Cow<'a, str>) -> Parsed<()>,
    ) -> Parsed<()> {
        if self.peek() == Some(b'{') {
            self.object(field)
        } else {
            self.skip_value()
        }
    }

    /// An array read as [`array`](Self::array) reads it, or a value of another type checked
    /// and skipped.
    pub(crate) fn array_or_skip(
        &mut self,
        element: impl FnMut(&mut Self) -> Parsed<()>,
    ) -> Parsed<()> {
        if self.peek() == Some(b'[') {
            self.array(element)
        } else {
            self.skip_value()
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
    pub(crate) fn string(&mut self) -> Parsed<Cow<'a, str>> {
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

    /// A value kept only if it is a whole number from 0 to 65535 written without a fraction
    /// or an exponent (a status, as `serde_json`'s `as_u64` reads it).
    pub(crate) fn small_integer(&mut self) -> Parsed<Option<u16>> {
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => {
                let text = self.number()?;
                Ok(text.trim_end().parse().ok())
            }
            _ => self.skip_value().map(|()| None),
        }
    }

    /// A value kept only if it is a number, as `f64` (as `serde_json`'s `as_f64` reads it).
    pub(crate) fn decimal(&mut self) -> Parsed<Option<f64>> {
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => Ok(self.number()?.trim_end().parse().ok()),
            _ => self.skip_value().map(|()| None),
        }
    }

    /// A number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, within `f64`'s
    /// range as `serde_json` requires (`1e400` is refused); its text.
    fn number(&mut self) -> Parsed<&'a str> {
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
        Ok(text)
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
    pub(crate) fn peek(&mut self) -> Option<u8> {
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
