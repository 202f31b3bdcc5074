//! The golden-file check of the catalog: a renamed code or a changed retry flag (a
//! wire-breaking change) fails the tests until the committed file is updated on purpose.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use super::CodeDoc;

/// The environment variable that rewrites golden files instead of comparing them.
pub const BLESS_VAR: &str = "AGENT_ERROR_BLESS";

/// The catalog as a golden file: one line per entry with everything callers may match on
/// (code, retry behaviour, recovery, status, lifecycle), keyed by where it is declared.
/// Messages, docs and hints are left out: changing them breaks no caller.
pub fn golden(entries: &[&CodeDoc]) -> String {
    let mut lines: Vec<String> = entries
        .iter()
        .map(|d| golden_fields(d).join("\t"))
        .collect();
    lines.sort();
    lines.dedup();
    let mut out = String::from(
        "# agent-error catalog: one line per code; rewrite with AGENT_ERROR_BLESS=1\n",
    );
    for line in lines {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn one_line(text: &str) -> String {
    text.replace(['\t', '\n', '\r'], " ")
}

fn golden_fields(d: &CodeDoc) -> Vec<String> {
    let p = &d.policy;
    let opt = |v: Option<String>| v.unwrap_or_else(|| "-".to_string());
    let retry = |s: String| if p.is_retryable() { s } else { "-".to_string() };
    vec![
        format!("declared={}", d.declared_at()),
        format!("code={}", d.code),
        format!("op={}", d.op.unwrap_or("(run time)")),
        if d.retry_from_cause {
            "retryable=as_cause".to_string()
        } else if d.retry_from_status {
            "retryable=as_status".to_string()
        } else {
            format!("retryable={}", d.retryable)
        },
        format!("rate_limited={}", d.rate_limited),
        format!("recovery={}", d.recovery),
        format!("attempts={}", retry(p.max_attempts().to_string())),
        format!("base={}", retry(format!("{:?}", p.base_delay()))),
        format!("max={}", retry(format!("{:?}", p.max_delay()))),
        format!("factor={}", retry(p.factor().to_string())),
        format!("jitter={}", retry(p.jitter().to_string())),
        format!("max_wait={}", retry(format!("{:?}", p.max_wait()))),
        format!("status={}", opt(d.status.map(|s| s.to_string()))),
        format!("since={}", opt(d.since.map(one_line))),
        format!("deprecated={}", opt(d.deprecated.map(one_line))),
    ]
}

/// A golden check that failed: what changed, in words.
#[derive(Clone, PartialEq, Eq)]
pub struct GoldenMismatch {
    path: PathBuf,
    changes: Vec<String>,
}

impl GoldenMismatch {
    /// Each change, in words.
    pub fn changes(&self) -> &[String] {
        &self.changes
    }
}

impl fmt::Display for GoldenMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} does not match:", self.path.display())?;
        for change in &self.changes {
            writeln!(f, "  {change}")?;
        }
        write!(
            f,
            "If the change is on purpose, rerun with {BLESS_VAR}=1 to rewrite the file."
        )
    }
}

impl fmt::Debug for GoldenMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for GoldenMismatch {}

fn blessing() -> bool {
    std::env::var_os(BLESS_VAR).is_some_and(|v| !v.is_empty() && v != "0")
}

/// Compares the catalog `entries` with the golden file at `path` (see [`golden`]); with
/// `AGENT_ERROR_BLESS=1` set, writes the file instead. A relative path is relative to the
/// current directory, the package root under `cargo test`.
///
/// On a difference it names each change, one line per changed fact, the wire-breaking ones
/// first (a changed retry flag, rate-limit flag or recovery, a renamed or removed code),
/// then the op, status, retry tuning and lifecycle, then added codes. Dashboards, retry
/// rules and other services match on these.
///
/// ```no_run
/// #[test]
/// fn error_codes_are_stable() {
///     let entries = agent_error::catalog![my_crate::LlmError, my_crate::ToolError];
///     agent_error::catalog::check_golden("tests/error_codes.golden", &entries).unwrap();
/// }
/// # mod my_crate { pub type LlmError = agent_error::tool::ToolError; pub type ToolError = agent_error::tool::ToolError; }
/// ```
pub fn check_golden(path: impl AsRef<Path>, entries: &[&CodeDoc]) -> Result<(), GoldenMismatch> {
    let path = path.as_ref();
    let expected = golden(entries);
    let old = match read_or_bless(path, &expected)? {
        Some(old) => old,
        None => return Ok(()),
    };
    if old == expected {
        return Ok(());
    }
    let mut changes = semantic_diff(&parse_golden(&old), &parse_golden(&expected));
    if changes.is_empty() {
        changes
            .push("the file's layout differs (comments, order or spacing); rewrite it".to_string());
    }
    Err(GoldenMismatch {
        path: path.to_path_buf(),
        changes,
    })
}

/// A golden file's entries: where each is declared → the entry's `field=value` pairs.
type GoldenEntries = BTreeMap<String, BTreeMap<String, String>>;

fn parse_golden(text: &str) -> GoldenEntries {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let fields: BTreeMap<String, String> = l
                .split('\t')
                .filter_map(|f| f.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            (field(&fields, "declared"), fields)
        })
        .collect()
}

fn field(fields: &BTreeMap<String, String>, name: &str) -> String {
    fields.get(name).cloned().unwrap_or_default()
}

/// The fields that break callers when they change, most breaking first: what a retry rule
/// or another service reads (whether to retry, whether it is a rate limit, what to do),
/// then the code itself.
const BREAKING: [&str; 3] = ["retryable", "rate_limited", "recovery"];

/// The retry tuning, reported together on one line.
const TUNING: [&str; 6] = ["attempts", "base", "max", "factor", "jitter", "max_wait"];

/// The changes from `was` to `now`, in words, one line per changed fact, the wire-breaking
/// ones first: retrying, rate limiting and recovery, then renamed and removed codes, then
/// the op and status, the retry tuning, the lifecycle, and last the added codes. Entries are
/// matched by where they are declared, so a code renamed in the same change that drops its
/// retry reports both.
fn semantic_diff(was: &GoldenEntries, now: &GoldenEntries) -> Vec<String> {
    let mut changes: Vec<(usize, String)> = Vec::new();
    for (at, old) in was {
        let code = field(old, "code");
        let Some(new) = now.get(at) else {
            changes.push((BREAKING.len() + 1, format!("`{code}` in {at} was removed")));
            continue;
        };
        let changed = |name: &str| {
            let (o, n) = (field(old, name), field(new, name));
            (o != n).then_some((o, n))
        };
        for (rank, name) in BREAKING.iter().enumerate() {
            if let Some((o, n)) = changed(name) {
                changes.push((
                    rank,
                    format!("`{code}` in {at}: {name} changed from {o} to {n}"),
                ));
            }
        }
        if let Some((o, n)) = changed("code") {
            changes.push((
                BREAKING.len(),
                format!("{at} renamed its code from `{o}` to `{n}`"),
            ));
        }
        for name in ["op", "status"] {
            if let Some((o, n)) = changed(name) {
                changes.push((
                    BREAKING.len() + 2,
                    format!("`{code}` in {at}: {name} changed from {o} to {n}"),
                ));
            }
        }
        let tuning: Vec<String> = TUNING
            .iter()
            .filter_map(|name| changed(name).map(|(o, n)| format!("{name} {o} to {n}")))
            .collect();
        if !tuning.is_empty() {
            changes.push((
                BREAKING.len() + 3,
                format!(
                    "`{code}` in {at}: retry tuning changed: {}",
                    tuning.join(", ")
                ),
            ));
        }
        // Anything else the file holds (the lifecycle, fields of a later version).
        let known = |name: &str| {
            BREAKING.contains(&name)
                || TUNING.contains(&name)
                || ["declared", "code", "op", "status"].contains(&name)
        };
        let names: std::collections::BTreeSet<&String> = old.keys().chain(new.keys()).collect();
        for name in names.into_iter().filter(|n| !known(n)) {
            if let Some((o, n)) = changed(name) {
                let (o, n) = (or_missing(o), or_missing(n));
                changes.push((
                    BREAKING.len() + 4,
                    format!("`{code}` in {at}: {name} changed from {o} to {n}"),
                ));
            }
        }
    }
    for (at, new) in now {
        if !was.contains_key(at) {
            changes.push((
                BREAKING.len() + 5,
                format!("`{}` in {at} was added", field(new, "code")),
            ));
        }
    }
    // Stable: within a rank, entries keep the order of where they are declared.
    changes.sort_by_key(|(rank, _)| *rank);
    changes.into_iter().map(|(_, line)| line).collect()
}

fn or_missing(value: String) -> String {
    if value.is_empty() {
        "(missing)".to_string()
    } else {
        value
    }
}

/// Compares `contents` with the file at `path`, for generated documents such as
/// `docs/ERROR_CODES.md`; with `AGENT_ERROR_BLESS=1` set, writes the file instead. On a
/// difference it shows the changed lines.
pub fn check_file(path: impl AsRef<Path>, contents: &str) -> Result<(), GoldenMismatch> {
    let path = path.as_ref();
    let Some(old) = read_or_bless(path, contents)? else {
        return Ok(());
    };
    if old == contents {
        return Ok(());
    }
    Err(GoldenMismatch {
        path: path.to_path_buf(),
        changes: line_diff(&old, contents),
    })
}

/// The file's text, or `None` after writing `expected` to it when blessing.
fn read_or_bless(path: &Path, expected: &str) -> Result<Option<String>, GoldenMismatch> {
    let fail = |why: String| GoldenMismatch {
        path: path.to_path_buf(),
        changes: vec![why],
    };
    if blessing() {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| fail(format!("cannot create its folder: {e}")))?;
        }
        std::fs::write(path, expected).map_err(|e| fail(format!("cannot write it: {e}")))?;
        return Ok(None);
    }
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text.replace("\r\n", "\n"))),
        Err(e) => Err(fail(format!(
            "cannot read it ({e}); create it by running the test with {BLESS_VAR}=1"
        ))),
    }
}

/// The lines that differ, as `- old` / `+ new`, after a longest-common-subsequence match.
fn line_diff(old: &str, new: &str) -> Vec<String> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    // Large files: compare only the differing middle to bound the table.
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut out = Vec::new();
    if a.len().saturating_mul(b.len()) > 4_000_000 {
        out.extend(a.iter().map(|l| format!("line {}: - {l}", prefix + 1)));
        out.extend(b.iter().map(|l| format!("line {}: + {l}", prefix + 1)));
    } else {
        let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
        for i in (0..a.len()).rev() {
            for j in (0..b.len()).rev() {
                lcs[i][j] = if a[i] == b[j] {
                    lcs[i + 1][j + 1] + 1
                } else {
                    lcs[i + 1][j].max(lcs[i][j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            if i < a.len() && j < b.len() && a[i] == b[j] {
                i += 1;
                j += 1;
            } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
                out.push(format!("line {}: + {}", prefix + j + 1, b[j]));
                j += 1;
            } else {
                out.push(format!("line {}: - {}", prefix + i + 1, a[i]));
                i += 1;
            }
        }
    }
    const SHOWN: usize = 40;
    if out.len() > SHOWN {
        let more = out.len() - SHOWN;
        out.truncate(SHOWN);
        out.push(format!("… and {more} more changed lines"));
    }
    out
}
