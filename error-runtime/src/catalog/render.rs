//! The catalog rendered for readers: markdown documentation (a section a code, like
//! `rustc --explain`) and the compact block for an LLM's system prompt.

use std::fmt::Write as _;

use super::{CodeDoc, by_code};

/// Markdown documentation of `entries`, one section per code, like `rustc --explain`: the
/// code as a heading with an anchor, the docs, the message, the retry behaviour in words,
/// the recovery, the hints, where it is declared, and its lifecycle.
pub fn markdown(entries: &[&CodeDoc]) -> String {
    let mut out = String::new();
    for (code, docs) in by_code(entries) {
        let _ = writeln!(out, "<a id=\"{}\"></a>\n\n## `{code}`\n", anchor(code));
        for d in &docs {
            if docs.len() > 1 {
                let _ = writeln!(out, "### In `{}`\n", d.declared_at());
            }
            if !d.docs.is_empty() {
                let _ = writeln!(out, "{}\n", d.docs);
            }
            write_entry(&mut out, d);
        }
    }
    out
}

fn write_entry(out: &mut String, d: &CodeDoc) {
    if !d.message.is_empty() {
        let _ = writeln!(out, "- **Message:** `{}`", d.message.replace('`', "'"));
    }
    let _ = writeln!(out, "- **Retry:** {}", d.retry_in_words());
    let _ = writeln!(out, "- **Recovery:** {}", d.recovery);
    for hint in d.hints {
        let _ = writeln!(out, "- **Hint:** {hint}");
    }
    let op =
        d.op.map_or_else(|| "set at run time".to_string(), |op| format!("`{op}`"));
    let _ = writeln!(
        out,
        "- **Declared in:** `{}::{}` (op {op})",
        d.type_name, d.variant
    );
    if let Some(status) = d.status {
        let _ = writeln!(out, "- **HTTP status:** {status}");
    }
    if let Some(url) = d.url {
        let _ = writeln!(out, "- **More:** <{url}>");
    }
    if let Some(since) = d.since {
        let _ = writeln!(out, "- **Since:** {since}");
    }
    if let Some(deprecated) = d.deprecated {
        let _ = writeln!(out, "- **Deprecated:** {deprecated}");
    }
    out.push('\n');
}

/// A heading anchor for a code: lowercase, `.` and `_` as `-`.
fn anchor(code: &str) -> String {
    code.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

/// A compact block for an LLM's system prompt, one line per code:
/// `- rate_limit (retry later; rate-limited): the provider is throttling this client. Hint: lower the request rate`.
pub fn prompt(entries: &[&CodeDoc]) -> String {
    let mut out = String::new();
    for (code, docs) in by_code(entries) {
        let d = docs[0];
        let behaviour = match (d.rate_limited, d.retryable) {
            (true, _) => "retry later; rate-limited",
            (false, true) => "retry",
            (false, false) => "do not retry",
        };
        let _ = write!(out, "- {code} ({behaviour}; recovery: {})", d.recovery);
        let about = d
            .docs
            .lines()
            .next()
            .filter(|l| !l.is_empty())
            .unwrap_or(d.message);
        if !about.is_empty() {
            let _ = write!(out, ": {}", about.trim_end_matches('.'));
        }
        if let Some(hint) = d.hints.first() {
            let _ = write!(out, ". Hint: {hint}");
        }
        out.push('\n');
    }
    out
}
