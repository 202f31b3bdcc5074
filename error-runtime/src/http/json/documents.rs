//! Generated JSON documents for the tests of the reader and of the body reading: written out
//! with keys repeated, strings escaped every way and whitespace between tokens.

use proptest::prelude::*;

/// A JSON document as written: keys may repeat, numbers are text.
#[derive(Clone, Debug)]
pub(in crate::http) enum Doc {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number as written, within `f64`'s range or not.
    Number(String),
    /// A string, escaped as it is written out.
    Text(String),
    /// An array.
    Array(Vec<Doc>),
    /// An object, its members in order, a key possibly more than once.
    Object(Vec<(String, Doc)>),
}

/// Writing a document out.
impl Doc {
    /// The document written out: `seed` picks, character by character, which characters of
    /// strings are escaped and how, and whether there is whitespace between tokens.
    pub(in crate::http) fn write(&self, seed: u64) -> String {
        let (mut out, mut writer) = (String::new(), Writer { seed, at: 0 });
        writer.space(&mut out);
        self.write_into(&mut writer, &mut out);
        writer.space(&mut out);
        out
    }

    /// Writes the document to `out`, taking choices from `w`.
    fn write_into(&self, w: &mut Writer, out: &mut String) {
        match self {
            Doc::Null => out.push_str("null"),
            Doc::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Doc::Number(n) => out.push_str(n),
            Doc::Text(text) => w.string(text, out),
            Doc::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    out.push_str(if i > 0 { "," } else { "" });
                    w.space(out);
                    item.write_into(w, out);
                }
                out.push(']');
            }
            Doc::Object(members) => {
                out.push('{');
                for (i, (key, value)) in members.iter().enumerate() {
                    out.push_str(if i > 0 { "," } else { "" });
                    w.string(key, out);
                    w.space(out);
                    out.push(':');
                    w.space(out);
                    value.write_into(w, out);
                }
                w.space(out);
                out.push('}');
            }
        }
    }
}

/// The choices of [`Doc::write`].
struct Writer {
    /// Two bits a choice, taken in turn.
    seed: u64,
    /// Where the next choice's bits are in `seed`.
    at: u32,
}

/// The choices, taken in turn.
impl Writer {
    /// The next two bits of choice.
    fn choice(&mut self) -> u64 {
        self.at = (self.at + 2) % 64;
        (self.seed >> self.at) & 3
    }

    /// Whitespace between tokens, or none.
    fn space(&mut self, out: &mut String) {
        out.push_str(["", " ", "\n\t", "\r\n  "][self.choice() as usize]);
    }

    /// `text` as a JSON string: each character raw where it may be, or as a short escape
    /// (`\n`, `\/`, …), or as `\uXXXX` (a surrogate pair outside the BMP), in either case.
    fn string(&mut self, text: &str, out: &mut String) {
        out.push('"');
        for c in text.chars() {
            let short = match c {
                '"' => Some('"'),
                '\\' => Some('\\'),
                '/' => Some('/'),
                '\n' => Some('n'),
                '\t' => Some('t'),
                '\u{8}' => Some('b'),
                _ => None,
            };
            match (self.choice(), short) {
                (0, Some(s)) => out.extend(['\\', s]),
                (0 | 1, _) => {
                    let upper = self.choice() & 1 == 1;
                    for unit in c.encode_utf16(&mut [0; 2]) {
                        out.push_str(&if upper {
                            format!("\\u{unit:04X}")
                        } else {
                            format!("\\u{unit:04x}")
                        });
                    }
                }
                _ if c == '"' || c == '\\' || c < ' ' => {
                    out.push_str(&format!("\\u{:04X}", c as u32))
                }
                _ => out.push(c),
            }
        }
        out.push('"');
    }
}

/// Short strings, with the characters that need escapes and one outside the BMP.
fn text() -> impl Strategy<Value = String> {
    let c = prop_oneof![
        3 => any::<char>(),
        1 => prop::sample::select(vec!['"', '\\', '/', '\n', '\u{1}', '😀', 'é', 'a']),
    ];
    prop::collection::vec(c, 0..8).prop_map(String::from_iter)
}

/// Numbers as written, within `f64`'s range and beyond it.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:?}")),
        "-?[1-9][0-9]{0,2}(\\.[0-9]{1,3})?[eE][+-]?[0-9]{1,3}",
        "-?(0|[1-9][0-9]{0,25})",
    ]
}

/// Any document, small and nested a little.
pub(in crate::http) fn doc() -> impl Strategy<Value = Doc> {
    let leaf = prop_oneof![
        Just(Doc::Null),
        any::<bool>().prop_map(Doc::Bool),
        number().prop_map(Doc::Number),
        text().prop_map(Doc::Text),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Doc::Array),
            prop::collection::vec((text(), inner), 0..4).prop_map(Doc::Object),
        ]
    })
}

/// A key of `names` or any key.
fn key(names: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(names).prop_map(str::to_owned),
        1 => text(),
    ]
}

/// A string of `values` or any value.
fn value(values: &'static [&'static str]) -> impl Strategy<Value = Doc> {
    prop_oneof![
        3 => prop::sample::select(values).prop_map(|v| Doc::Text(v.to_owned())),
        1 => doc(),
    ]
}

/// An object of members from `member`, keys repeating at times.
fn object(member: impl Strategy<Value = (String, Doc)>) -> impl Strategy<Value = Doc> {
    prop::collection::vec(member, 0..6).prop_map(Doc::Object)
}

/// Google's `error.details`: `RetryInfo`, `ErrorInfo` and `QuotaFailure` shaped.
fn details() -> impl Strategy<Value = Doc> {
    let violation = object((
        key(&["quotaId", "quotaMetric"]),
        value(&["GenerateRequestsPerDayPerProjectPerModel-FreeTier", "x"]),
    ));
    let detail = object((
        key(&["@type", "retryDelay", "reason", "violations"]),
        prop_oneof![
            4 => value(&[
                "type.googleapis.com/google.rpc.RetryInfo",
                "google.rpc.RetryInfo",
                "google.rpc.ErrorInfo",
                "API_KEY_INVALID",
                "30s",
                "1.5s",
                "x",
            ]),
            1 => prop::collection::vec(violation, 0..3).prop_map(Doc::Array),
        ],
    ));
    prop::collection::vec(detail, 0..4).prop_map(Doc::Array)
}

/// `innererror` (Azure) and `metadata` (OpenRouter) shaped members of `error`.
fn nested() -> impl Strategy<Value = Doc> {
    object((
        key(&["code", "raw", "flagged_input", "reasons"]),
        value(&[
            "ResponsibleAIPolicyViolation",
            "{\"error\":{}}",
            "prompt is too long",
        ]),
    ))
}

/// Error bodies shaped like the providers' (OpenAI, Anthropic, Google, Ollama, vLLM), with
/// other members and values mixed in.
pub(in crate::http) fn provider() -> impl Strategy<Value = Doc> {
    let names = &[
        "insufficient_quota",
        "context_length_exceeded",
        "overloaded_error",
        "invalid_request_error",
        "RESOURCE_EXHAUSTED",
        "INVALID_ARGUMENT",
        "prompt is too long",
        "error",
    ];
    let error_member = (
        key(&[
            "type",
            "status",
            "code",
            "message",
            "details",
            "innererror",
            "metadata",
        ]),
        prop_oneof![
            3 => value(names),
            1 => details(),
            1 => nested(),
        ],
    );
    let error = prop_oneof![object(error_member), value(names)];
    let top = object((
        key(&["type", "error", "message", "detail", "__type"]),
        prop_oneof![
            2 => value(names),
            2 => error,
        ],
    ))
    .boxed();
    prop_oneof![
        4 => top.clone(),
        1 => top.clone().prop_map(|doc| Doc::Array(vec![doc])),
        1 => prop::collection::vec(top, 0..3).prop_map(Doc::Array),
        1 => value(names),
    ]
}
