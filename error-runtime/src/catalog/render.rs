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
    if d.retry_from_cause {
        let _ = writeln!(
            out,
            "- **Recovery:** as its cause ({} when nothing classifies it)",
            d.recovery
        );
    } else if d.retry_from_status {
        let _ = writeln!(
            out,
            "- **Recovery:** as its status (retry when it is retried, else {})",
            d.recovery
        );
    } else {
        let _ = writeln!(out, "- **Recovery:** {}", d.recovery);
    }
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
///
/// Messages and hints are templates; a model reads a placeholder as a slot, not as format
/// syntax, so `{tokens}` and `{0:>6}` are written `<tokens>` and `<0>` (`{}`, `<value>`), and `{{` `}}` as
/// the braces they stand for.
pub fn prompt(entries: &[&CodeDoc]) -> String {
    let mut out = String::new();
    for (code, docs) in by_code(entries) {
        let d = docs[0];
        let behaviour = match (d.retry_from_cause, d.rate_limited, d.retryable) {
            (true, _, _) => "retry and recover as its cause",
            _ if d.retry_from_status => {
                "retry as its status says: 429 later, 408, 498 and 5xx again"
            }
            (false, true, _) => "retry later; rate-limited",
            (false, false, true) => "retry",
            (false, false, false) => "do not retry",
        };
        if d.retry_from_cause || d.retry_from_status {
            let _ = write!(out, "- {code} ({behaviour})");
        } else {
            let _ = write!(out, "- {code} ({behaviour}; recovery: {})", d.recovery);
        }
        let about = d
            .docs
            .lines()
            .next()
            .filter(|l| !l.is_empty())
            .unwrap_or(d.message);
        if !about.is_empty() {
            out.push_str(": ");
            write_readable(&mut out, about.trim_end_matches('.'));
        }
        if let Some(hint) = d.hints.first() {
            out.push_str(". Hint: ");
            write_readable(&mut out, hint);
        }
        out.push('\n');
    }
    out
}

/// A message or hint template as a model should read it: each placeholder `{name:spec}`
/// as `<name>`, `{{` and `}}` as single braces. Text that is not a well-formed template (a
/// lone brace) is written as it is.
fn write_readable(out: &mut String, template: &str) {
    let mut rest = template;
    while let Some(at) = rest.find(['{', '}']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
            continue;
        }
        let close = tail.find('}').filter(|_| tail.starts_with('{'));
        match close {
            Some(close) if !tail[1..close].contains('{') => {
                let inner = &tail[1..close];
                let name = inner.split(':').next().unwrap_or("").trim();
                let name = if name.is_empty() { "value" } else { name };
                out.push('<');
                out.push_str(name);
                out.push('>');
                rest = &tail[close + 1..];
            }
            _ => {
                out.push_str(&tail[..1]);
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
}

#[cfg(test)]
mod tests {
    use super::write_readable;

    fn readable(template: &str) -> String {
        let mut out = String::new();
        write_readable(&mut out, template);
        out
    }

    #[test]
    fn placeholders_read_as_slots() {
        assert_eq!(
            readable("fall back to {fallback}"),
            "fall back to <fallback>"
        );
        assert_eq!(readable("now {1:>6}, max {0}"), "now <1>, max <0>");
        assert_eq!(readable("{{literal}} and {}"), "{literal} and <value>");
        assert_eq!(readable("lone } and {open"), "lone } and {open");
        assert_eq!(readable("plain"), "plain");
    }
}
