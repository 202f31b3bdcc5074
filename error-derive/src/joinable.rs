//! Whether a format string can be joined with Display's prefix into one `write!`: only
//! when rustc surely accepts it, and once marked so that rustc does not map it to the source.

/// Whether Display may join the rewritten message `text` with its prefix into one
/// literal: rustc surely accepts it and, unless it is `plain`, `write` can mark its own
/// literal as not from the source (see [`unsourced`]).
pub fn joinable(text: &str, plain: bool) -> bool {
    well_formed(text) && (plain || unsourced(text) != text)
}

/// Whether rustc surely accepts `text` as a format string: braces balanced or doubled,
/// every placeholder `{}`, `{arg}` or `{arg:spec}` with a spec in the grammar of
/// `std::fmt`. Conservative: `false` for anything unusual, which is then left to rustc.
pub fn well_formed(text: &str) -> bool {
    let mut rest = text;
    while let Some(at) = rest.find(['{', '}']) {
        let tail = &rest[at..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            rest = &tail[2..];
            continue;
        }
        let Some(inner) = tail.strip_prefix('{').and_then(|t| t.split('}').next()) else {
            return false;
        };
        if inner.contains('{') || inner.len() + 1 == tail.len() {
            return false;
        }
        let (arg, spec) = inner.split_once(':').unwrap_or((inner, ""));
        if !(is_argument(arg) && well_formed_spec(spec)) {
            return false;
        }
        rest = &tail[inner.len() + 2..];
    }
    true
}

/// Empty, an index or an identifier.
fn is_argument(arg: &str) -> bool {
    arg.is_empty()
        || arg.bytes().all(|b| b.is_ascii_digit())
        || (arg.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && arg.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
}

/// `[[fill]align][sign]['#']['0'][width]['.' precision][type]`, with counts as integers
/// or `name$`.
fn well_formed_spec(spec: &str) -> bool {
    let mut s = spec;
    let mut chars = s.chars();
    let (first, second) = (chars.next(), chars.next());
    if second.is_some_and(|c| matches!(c, '<' | '^' | '>')) {
        s = chars.as_str();
    } else if first.is_some_and(|c| matches!(c, '<' | '^' | '>')) {
        s = &s[1..];
    }
    s = s.strip_prefix(['+', '-']).unwrap_or(s);
    s = s.strip_prefix('#').unwrap_or(s);
    s = s.strip_prefix('0').unwrap_or(s);
    let Some(after_width) = count(s) else {
        return false;
    };
    s = after_width;
    if let Some(precision) = s.strip_prefix('.') {
        s = match precision.strip_prefix('*') {
            Some(after) => after,
            None => match count(precision) {
                Some(after) if after.len() < precision.len() => after,
                _ => return false,
            },
        };
    }
    matches!(
        s,
        "" | "?" | "x?" | "X?" | "x" | "X" | "o" | "b" | "e" | "E" | "p"
    )
}

/// What follows an optional count (`8`, `width$`, `1$`); `None` when it is malformed.
fn count(s: &str) -> Option<&str> {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    if let Some(after) = s[end..].strip_prefix('$') {
        return (end > 0 && is_argument(&s[..end])).then_some(after);
    }
    Some(s.trim_start_matches(|c: char| c.is_ascii_digit()))
}

/// `text` changed so that rustc cannot take it for the literal in the source, without
/// changing what it formats: an empty spec on its first placeholder that has none
/// (`{name}` as `{name:}`).
pub fn unsourced(text: &str) -> String {
    let mut rest = text;
    let mut out = String::with_capacity(text.len() + 1);
    while let Some(at) = rest.find(['{', '}']) {
        let tail = &rest[at..];
        out.push_str(&rest[..at]);
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..2]);
            rest = &tail[2..];
            continue;
        }
        let close = tail.find('}').unwrap_or(tail.len() - 1);
        out.push_str(&tail[..close]);
        if !tail[..close].contains(':') {
            out.push(':');
            out.push_str(&tail[close..]);
            return out;
        }
        out.push('}');
        rest = &tail[close + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn joins_only_format_strings_it_surely_understands() {
        use super::well_formed;
        for ok in [
            "",
            "plain {{braces}}",
            "{} and {0} and {name}",
            "{x:?} {x:#?} {x:x?} {x:08.3} {x:>width$} {x:*^10} {x:+e} {x:.*} {x:.prec$}",
            "{x:8x} {x:<} {x:0} {x:#010b} {x:€>4}",
        ] {
            assert!(well_formed(ok), "{ok}");
        }
        for bad in [
            "{", "}", "a } b", "{x", "{ x }", "{x:z}", "{x:8q}", "{x:.}", "{x:$}", "{x:0$}",
            "{x:}>5}", "{x:{>5}", "{x.y}", "{r#x}", "{x::}",
        ] {
            assert!(!well_formed(bad), "{bad}");
        }
    }

    #[test]
    fn marks_the_first_placeholder_without_a_spec() {
        use super::unsourced;
        assert_eq!(unsourced("{{a}} {x:?} {y} {z}"), "{{a}} {x:?} {y:} {z}");
        assert_eq!(unsourced("{}"), "{:}");
        assert_eq!(unsourced("{x:?}"), "{x:?}");
    }
}
