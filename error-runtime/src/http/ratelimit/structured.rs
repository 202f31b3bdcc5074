//! The structured-field syntax of the IETF rate-limit fields (RFC 9651): a list of members,
//! each a bare item or a `key=value` pair, with `;key=value` parameters.
//!
//! One grammar serves the list of the current drafts (`"default";r=50;t=30`) and the
//! dictionary of the older ones (`limit=100, remaining=50`): a member whose name is a key
//! may carry a value. A field with any syntax error is refused whole, as RFC 9651 asks.

/// A value as a field writes it. Strings keep their escapes: RFC 9651 allows only `\"` and
/// `\\`, so two strings are equal exactly when their written forms are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Bare<'a> {
    /// An integer, at most 15 digits.
    Integer(i64),
    /// A decimal (`1.5`): its value is never needed.
    Decimal,
    /// The text between the quotes.
    String(&'a str),
    /// A token (`default`, `*`).
    Token(&'a str),
    /// The text between the colons of a byte sequence (`:cHJpdmF0ZQ==:`).
    Bytes(&'a str),
    /// `?1` or `?0`, or a parameter written without a value.
    Boolean(bool),
    /// `@` and seconds since the epoch.
    Date(i64),
    /// `%"…"`, text with percent-encoded bytes.
    DisplayString,
    /// `(a b c)`: never needed as a value here.
    InnerList,
}

impl<'a> Bare<'a> {
    /// The text of a string or a token, what names a policy or a unit.
    pub(super) fn text(self) -> Option<&'a str> {
        match self {
            Bare::String(text) | Bare::Token(text) => Some(text),
            _ => None,
        }
    }
}

/// One member of a list or a dictionary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Member<'a> {
    /// The item of a list member, or the key of a dictionary member (a token).
    pub(super) name: Bare<'a>,
    /// The value after `=`, in a dictionary.
    pub(super) value: Option<Bare<'a>>,
    /// The parameters as written, checked already.
    params: &'a str,
}

impl<'a> Member<'a> {
    /// A placeholder, for the slots of a fixed array.
    pub(super) const EMPTY: Member<'static> = Member {
        name: Bare::Boolean(false),
        value: None,
        params: "",
    };

    /// The value of the parameter `key` (the last one, when it repeats).
    pub(super) fn param(&self, key: &str) -> Option<Bare<'a>> {
        let mut cursor = Cursor::new(self.params);
        let mut found = None;
        while let Ok(Some((name, value))) = cursor.param() {
            if name == key {
                found = Some(value);
            }
        }
        found
    }
}

/// The field had a syntax error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Malformed;

/// The members of one field line, in order; an `Err` ends them.
pub(super) struct Members<'a> {
    cursor: Cursor<'a>,
    started: bool,
    done: bool,
}

impl<'a> Members<'a> {
    /// The members of `line`.
    pub(super) fn new(line: &'a str) -> Self {
        Members {
            cursor: Cursor::new(line),
            started: false,
            done: false,
        }
    }

    fn member(&mut self) -> Result<Option<Member<'a>>, Malformed> {
        let cursor = &mut self.cursor;
        if self.started {
            cursor.skip_whitespace();
            if cursor.at_end() {
                return Ok(None);
            }
            if !cursor.eat(b',') {
                return Err(Malformed);
            }
            cursor.skip_whitespace();
            if cursor.at_end() {
                return Err(Malformed);
            }
        } else {
            self.started = true;
            cursor.skip_spaces();
            if cursor.at_end() {
                return Ok(None);
            }
        }
        let name = cursor.item_or_inner_list()?;
        let value = match name {
            Bare::Token(key) if is_key(key) && cursor.eat(b'=') => {
                Some(cursor.item_or_inner_list()?)
            }
            _ => None,
        };
        let from = cursor.at;
        while cursor.param()?.is_some() {}
        let params = cursor.text.get(from..cursor.at).ok_or(Malformed)?;
        Ok(Some(Member {
            name,
            value,
            params,
        }))
    }
}

impl<'a> Iterator for Members<'a> {
    type Item = Result<Member<'a>, Malformed>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let member = self.member();
        if !matches!(member, Ok(Some(_))) {
            self.done = true;
        }
        member.transpose()
    }
}

/// Whether `token` is also a key (lowercase, as dictionary keys and parameter names are).
fn is_key(token: &str) -> bool {
    let mut bytes = token.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_lowercase() || b == b'*')
        && bytes.all(is_key_char)
}

fn is_key_char(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'-' | b'.' | b'*')
}

fn is_token_char(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'!' | b'#'
                | b'$'
                | b'%'
                | b'&'
                | b'\''
                | b'*'
                | b'+'
                | b'-'
                | b'.'
                | b'^'
                | b'_'
                | b'`'
                | b'|'
                | b'~'
                | b':'
                | b'/'
        )
}

struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str) -> Self {
        Cursor { text, at: 0 }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn at_end(&self) -> bool {
        self.at >= self.text.len()
    }

    fn eat(&mut self, expected: u8) -> bool {
        let found = self.peek() == Some(expected);
        if found {
            self.at += 1;
        }
        found
    }

    /// Consumes bytes while `accept` holds; how many it consumed.
    fn skip_while(&mut self, accept: impl Fn(u8) -> bool) -> usize {
        let from = self.at;
        while self.peek().is_some_and(&accept) {
            self.at += 1;
        }
        self.at - from
    }

    fn skip_spaces(&mut self) {
        self.skip_while(|b| b == b' ');
    }

    fn skip_whitespace(&mut self) {
        self.skip_while(|b| b == b' ' || b == b'\t');
    }

    /// The text from `from` to here.
    fn since(&self, from: usize) -> Result<&'a str, Malformed> {
        self.text.get(from..self.at).ok_or(Malformed)
    }

    fn item_or_inner_list(&mut self) -> Result<Bare<'a>, Malformed> {
        if !self.eat(b'(') {
            return self.bare();
        }
        loop {
            self.skip_spaces();
            if self.eat(b')') {
                break;
            }
            self.bare()?;
            while self.param()?.is_some() {}
            if !matches!(self.peek(), Some(b' ' | b')')) {
                return Err(Malformed);
            }
        }
        Ok(Bare::InnerList)
    }

    /// One `;key[=value]`, or `None` where the parameters end.
    fn param(&mut self) -> Result<Option<(&'a str, Bare<'a>)>, Malformed> {
        if !self.eat(b';') {
            return Ok(None);
        }
        self.skip_spaces();
        let from = self.at;
        if !self
            .peek()
            .is_some_and(|b| b.is_ascii_lowercase() || b == b'*')
        {
            return Err(Malformed);
        }
        self.skip_while(is_key_char);
        let key = self.since(from)?;
        let value = if self.eat(b'=') {
            self.bare()?
        } else {
            Bare::Boolean(true)
        };
        Ok(Some((key, value)))
    }

    fn bare(&mut self) -> Result<Bare<'a>, Malformed> {
        match self.peek().ok_or(Malformed)? {
            b'-' | b'0'..=b'9' => self.number(),
            b'"' => {
                self.at += 1;
                self.string().map(Bare::String)
            }
            b':' => {
                self.at += 1;
                let from = self.at;
                self.skip_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
                let bytes = self.since(from)?;
                if self.eat(b':') {
                    Ok(Bare::Bytes(bytes))
                } else {
                    Err(Malformed)
                }
            }
            b'?' => {
                self.at += 1;
                if self.eat(b'1') {
                    Ok(Bare::Boolean(true))
                } else if self.eat(b'0') {
                    Ok(Bare::Boolean(false))
                } else {
                    Err(Malformed)
                }
            }
            b'@' => {
                self.at += 1;
                match self.number()? {
                    Bare::Integer(seconds) => Ok(Bare::Date(seconds)),
                    _ => Err(Malformed),
                }
            }
            b'%' => {
                self.at += 1;
                if !self.eat(b'"') {
                    return Err(Malformed);
                }
                self.display_string()
            }
            b if b.is_ascii_alphabetic() || b == b'*' => {
                let from = self.at;
                self.skip_while(is_token_char);
                self.since(from).map(Bare::Token)
            }
            _ => Err(Malformed),
        }
    }

    /// An integer (at most 15 digits) or a decimal (at most 12 digits, a dot, 1 to 3 digits).
    fn number(&mut self) -> Result<Bare<'a>, Malformed> {
        let negative = self.eat(b'-');
        let from = self.at;
        let whole = self.skip_while(|b| b.is_ascii_digit());
        if whole == 0 {
            return Err(Malformed);
        }
        if self.eat(b'.') {
            let fraction = self.skip_while(|b| b.is_ascii_digit());
            return if whole <= 12 && (1..=3).contains(&fraction) {
                Ok(Bare::Decimal)
            } else {
                Err(Malformed)
            };
        }
        if whole > 15 {
            return Err(Malformed);
        }
        let value = self
            .since(from)?
            .bytes()
            .fold(0_i64, |n, digit| n * 10 + i64::from(digit - b'0'));
        Ok(Bare::Integer(if negative { -value } else { value }))
    }

    /// The rest of a string, after its opening quote: its text as written.
    fn string(&mut self) -> Result<&'a str, Malformed> {
        let from = self.at;
        loop {
            match self.peek().ok_or(Malformed)? {
                b'"' => {
                    let text = self.since(from)?;
                    self.at += 1;
                    return Ok(text);
                }
                b'\\' => {
                    self.at += 1;
                    if !(self.eat(b'"') || self.eat(b'\\')) {
                        return Err(Malformed);
                    }
                }
                0x20..=0x7e => self.at += 1,
                _ => return Err(Malformed),
            }
        }
    }

    /// The rest of a display string, after `%"`.
    fn display_string(&mut self) -> Result<Bare<'a>, Malformed> {
        let lower_hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
        loop {
            match self.peek().ok_or(Malformed)? {
                b'"' => {
                    self.at += 1;
                    return Ok(Bare::DisplayString);
                }
                b'%' => {
                    self.at += 1;
                    for _ in 0..2 {
                        if !self.peek().is_some_and(lower_hex) {
                            return Err(Malformed);
                        }
                        self.at += 1;
                    }
                }
                0x20..=0x7e => self.at += 1,
                _ => return Err(Malformed),
            }
        }
    }
}
