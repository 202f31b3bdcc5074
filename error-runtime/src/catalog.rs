//! The catalog of codes: every code a type can produce, with its docs, retry behaviour and
//! recovery, for generated documentation, LLM prompts and a golden-file check of the contract.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};

use crate::{Jitter, Recovery, RetryPolicy};

/// What the catalog knows of one code, as one variant declares it.
///
/// Derived types build these at compile time: see [`Catalog`]. The fields are public to
/// read; new fields may be added, so the struct cannot be built outside this crate.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct CodeDoc {
    /// The code.
    pub code: &'static str,
    /// The op, or `None` when it is set at run time (an `#[op]` field, `with_op`).
    pub op: Option<&'static str>,
    /// The declaring type, with its module path (`my_crate::llm::LlmError`).
    pub type_name: &'static str,
    /// The variant (the type's own name for a struct).
    pub variant: &'static str,
    /// The message's format string as written (`"deadline exceeded after {tokens} tokens"`).
    pub message: &'static str,
    /// The variant's `///` doc comment, lines joined with `\n` (empty when none).
    pub docs: &'static str,
    /// The hints as written, placeholders and all.
    pub hints: &'static [&'static str],
    /// Whether it is retried.
    pub retryable: bool,
    /// Whether it is a rate limit.
    pub rate_limited: bool,
    /// What an agent loop should do.
    pub recovery: Recovery,
    /// The retry policy (without a `retry_after`, which is known only at run time).
    pub policy: RetryPolicy,
    /// The HTTP status for wire renderings (`#[agent(status = 503)]`).
    pub status: Option<u16>,
    /// The documentation URL (`docs_url` with `{code}` filled in).
    pub url: Option<&'static str>,
    /// The version the code appeared in (`#[agent(since = "1.2")]`).
    pub since: Option<&'static str>,
    /// Why the code is deprecated and what to use instead.
    pub deprecated: Option<&'static str>,
}

impl CodeDoc {
    /// An entry for a hand-written [`AgentError`](crate::AgentError) impl's
    /// [`Catalog`]: the code, where it is declared, its policy and recovery. Add the rest
    /// with the `with_*` methods; all are `const`.
    ///
    /// ```
    /// use agent_error::catalog::{Catalog, CodeDoc};
    /// use agent_error::{Recovery, RetryPolicy};
    ///
    /// struct Busy;
    /// impl Catalog for Busy {
    ///     const CODES: &'static [CodeDoc] = &[CodeDoc::new("busy", "my_crate::Busy", "Busy", RetryPolicy::DEFAULT, Recovery::Retry)
    ///         .with_op("db.query")
    ///         .with_message("the database is busy")
    ///         .with_hints(&["try again in a moment"])];
    /// }
    /// assert!(Busy::CODES[0].retryable);
    /// ```
    pub const fn new(
        code: &'static str,
        type_name: &'static str,
        variant: &'static str,
        policy: RetryPolicy,
        recovery: Recovery,
    ) -> Self {
        crate::__private::code_doc(
            code,
            None,
            type_name,
            variant,
            "",
            "",
            &[],
            recovery,
            policy,
            None,
            None,
            None,
            None,
        )
    }

    /// With the op.
    pub const fn with_op(mut self, op: &'static str) -> Self {
        self.op = Some(op);
        self
    }

    /// With the message's format string.
    pub const fn with_message(mut self, message: &'static str) -> Self {
        self.message = message;
        self
    }

    /// With the docs.
    pub const fn with_docs(mut self, docs: &'static str) -> Self {
        self.docs = docs;
        self
    }

    /// With the hints.
    pub const fn with_hints(mut self, hints: &'static [&'static str]) -> Self {
        self.hints = hints;
        self
    }

    /// With the HTTP status.
    pub const fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    /// With the documentation URL.
    pub const fn with_url(mut self, url: &'static str) -> Self {
        self.url = Some(url);
        self
    }

    /// With the version the code appeared in.
    pub const fn with_since(mut self, since: &'static str) -> Self {
        self.since = Some(since);
        self
    }

    /// Marked deprecated, saying what to use instead.
    pub const fn with_deprecated(mut self, deprecated: &'static str) -> Self {
        self.deprecated = Some(deprecated);
        self
    }

    /// `Type::Variant`, with the type's module path left out.
    pub fn declared_at(&self) -> String {
        let short = self.type_name.rsplit("::").next().unwrap_or(self.type_name);
        if short == self.variant {
            short.to_string()
        } else {
            format!("{short}::{}", self.variant)
        }
    }

    /// The retry behaviour in words: "not retried", or "retried up to 4 attempts, 100ms
    /// doubling to 5s, full jitter; honours Retry-After up to 60s".
    pub fn retry_in_words(&self) -> String {
        retry_in_words(&self.policy)
    }
}

/// The retry behaviour of `policy` in words.
pub fn retry_in_words(policy: &RetryPolicy) -> String {
    if !policy.is_retryable() {
        return "not retried".to_string();
    }
    let growth = if policy.factor() == 2.0 {
        "doubling".to_string()
    } else if policy.factor() == 1.0 {
        "constant".to_string()
    } else {
        format!("growing ×{}", policy.factor())
    };
    let jitter = match policy.jitter() {
        Jitter::None => "no jitter",
        Jitter::Full => "full jitter",
        Jitter::Equal => "equal jitter",
        Jitter::Decorrelated => "decorrelated jitter",
    };
    let delays = if policy.factor() == 1.0 || policy.base_delay() == policy.max_delay() {
        format!("{:?} between attempts", policy.base_delay())
    } else {
        format!(
            "{:?} {growth} to {:?}",
            policy.base_delay(),
            policy.max_delay()
        )
    };
    format!(
        "{}retried up to {} attempts, {delays}, {jitter}; honours Retry-After up to {:?}",
        if policy.is_rate_limited() {
            "rate-limited; "
        } else {
            ""
        },
        policy.max_attempts(),
        policy.max_wait()
    )
}

/// Types whose codes are known at compile time. `#[derive(AgentError)]` implements it
/// with one entry per variant (transparent variants have none: their codes are their
/// field's).
///
/// ```
/// use agent_error::{catalog::Catalog, AgentError};
///
/// #[derive(Debug, AgentError)]
/// #[agent(op = "llm.generate")]
/// enum LlmError {
///     /// The provider is throttling this client.
///     #[agent(code = "rate_limit", rate_limited, hint = "lower the request rate")]
///     #[error("provider returned 429")]
///     RateLimited,
/// }
///
/// let doc = &LlmError::CODES[0];
/// assert_eq!((doc.code, doc.op, doc.variant), ("rate_limit", Some("llm.generate"), "RateLimited"));
/// assert_eq!(doc.docs, "The provider is throttling this client.");
/// assert!(doc.rate_limited);
/// ```
pub trait Catalog {
    /// The type's codes, one entry per variant, in declaration order.
    const CODES: &'static [CodeDoc];
}

/// The entries of the given types, in order: `catalog![LlmError, ToolError]`. Works on
/// every platform, registry or not.
#[macro_export]
macro_rules! catalog {
    ($($ty:ty),* $(,)?) => {{
        let mut entries: ::std::vec::Vec<&'static $crate::catalog::CodeDoc> = ::std::vec::Vec::new();
        $( entries.extend(<$ty as $crate::catalog::Catalog>::CODES.iter()); )*
        entries
    }};
}

/// The entries of every type registered in the binary: every non-generic derived type (with
/// the `registry` feature), the types given to [`register!`](crate::register), and the
/// runtime's own. Sorted by code, then by where they are declared.
///
/// Link-time registration can miss a type: a generic type that is not `register!`ed, and
/// every type on a target where the `inventory` crate cannot run code before `main`. Use
/// [`catalog!`](crate::catalog!) where the list must be complete.
pub fn all() -> Vec<&'static CodeDoc> {
    let mut entries: Vec<&'static CodeDoc> = crate::registry::catalogs()
        .flat_map(|codes| codes.iter())
        .collect();
    entries.sort_by(|a, b| (a.code, a.type_name, a.variant).cmp(&(b.code, b.type_name, b.variant)));
    entries.dedup_by(|a, b| std::ptr::eq(*a, *b));
    entries
}

/// The registered entries with the code `code` (see [`all`]), like `rustc --explain`.
pub fn explain(code: &str) -> Vec<&'static CodeDoc> {
    all().into_iter().filter(|d| d.code == code).collect()
}

/// A code declared by several types that disagree on its retryability or recovery.
#[derive(Clone, Debug, PartialEq)]
pub struct Conflict {
    /// The code.
    pub code: &'static str,
    /// Every declaration of it.
    pub entries: Vec<&'static CodeDoc>,
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is declared differently:", self.code)?;
        for d in &self.entries {
            write!(
                f,
                " {} ({}, {}, recovery {});",
                d.declared_at(),
                if d.retryable {
                    "retryable"
                } else {
                    "not retryable"
                },
                if d.rate_limited {
                    "rate-limited"
                } else {
                    "not rate-limited"
                },
                d.recovery
            )?;
        }
        Ok(())
    }
}

/// Codes declared in several entries that disagree on retryability, rate limiting or
/// recovery. Sharing a code across types is normal (`timeout` is everywhere); declaring
/// it with different behaviour is the bug, since callers match on the code.
pub fn conflicts(entries: &[&'static CodeDoc]) -> Vec<Conflict> {
    let mut by_code: BTreeMap<&'static str, Vec<&'static CodeDoc>> = BTreeMap::new();
    for d in entries {
        by_code.entry(d.code).or_default().push(d);
    }
    by_code
        .into_iter()
        .filter(|(_, ds)| {
            ds.iter().any(|d| {
                (d.retryable, d.rate_limited, d.recovery)
                    != (ds[0].retryable, ds[0].rate_limited, ds[0].recovery)
            })
        })
        .map(|(code, entries)| Conflict { code, entries })
        .collect()
}

/// Groups entries by code, codes sorted, declarations in the order given.
fn by_code<'a>(entries: &[&'a CodeDoc]) -> BTreeMap<&'a str, Vec<&'a CodeDoc>> {
    let mut map: BTreeMap<&str, Vec<&CodeDoc>> = BTreeMap::new();
    for d in entries {
        map.entry(d.code).or_default().push(d);
    }
    map
}

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

#[cfg(feature = "serde")]
impl serde::Serialize for CodeDoc {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let p = &self.policy;
        let mut st = s.serialize_struct("CodeDoc", 16)?;
        st.serialize_field("code", self.code)?;
        st.serialize_field("op", &self.op)?;
        st.serialize_field("type_name", self.type_name)?;
        st.serialize_field("variant", self.variant)?;
        st.serialize_field("message", self.message)?;
        st.serialize_field("docs", self.docs)?;
        st.serialize_field("hints", self.hints)?;
        st.serialize_field("retryable", &self.retryable)?;
        st.serialize_field("rate_limited", &self.rate_limited)?;
        st.serialize_field("recovery", self.recovery.as_str())?;
        st.serialize_field(
            "policy",
            &p.is_retryable().then(|| serde_json_like::Policy {
                max_attempts: p.max_attempts(),
                base_delay_ms: p.base_delay().as_secs_f64() * 1e3,
                max_delay_ms: p.max_delay().as_secs_f64() * 1e3,
                factor: p.factor(),
                jitter: p.jitter().as_str(),
                max_wait_ms: p.max_wait().as_secs_f64() * 1e3,
            }),
        )?;
        st.serialize_field("status", &self.status)?;
        st.serialize_field("url", &self.url)?;
        st.serialize_field("since", &self.since)?;
        st.serialize_field("deprecated", &self.deprecated)?;
        st.end()
    }
}

#[cfg(feature = "serde")]
mod serde_json_like {
    /// A retry policy as JSON: durations in milliseconds.
    #[derive(serde::Serialize)]
    pub struct Policy {
        pub max_attempts: u32,
        pub base_delay_ms: f64,
        pub max_delay_ms: f64,
        pub factor: f64,
        pub jitter: &'static str,
        pub max_wait_ms: f64,
    }
}

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
        format!("retryable={}", d.retryable),
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
/// On a difference it names each change: a renamed code, a changed retry flag or
/// recovery, a variant added or removed. Those are wire-breaking: dashboards, retry rules
/// and other services match on codes.
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
    let parse = |text: &str| -> BTreeMap<String, BTreeMap<String, String>> {
        text.lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                let fields: BTreeMap<String, String> = l
                    .split('\t')
                    .filter_map(|f| f.split_once('='))
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect();
                let key = format!(
                    "{} {}",
                    fields.get("declared").map_or("", |s| s),
                    fields.get("code").map_or("", |s| s)
                );
                (key, fields)
            })
            .collect()
    };
    let (was, now) = (parse(&old), parse(&expected));
    let declared = |m: &BTreeMap<String, BTreeMap<String, String>>| -> BTreeMap<String, String> {
        m.values()
            .map(|f| {
                (
                    f.get("declared").cloned().unwrap_or_default(),
                    f.get("code").cloned().unwrap_or_default(),
                )
            })
            .collect()
    };
    let (was_at, now_at) = (declared(&was), declared(&now));
    let mut changes = Vec::new();
    for (key, old_fields) in &was {
        let at = old_fields.get("declared").cloned().unwrap_or_default();
        let code = old_fields.get("code").cloned().unwrap_or_default();
        match now.get(key) {
            Some(new_fields) => {
                for (field, old_value) in old_fields {
                    let new_value = new_fields.get(field).map_or("(missing)", String::as_str);
                    if old_value != new_value {
                        changes.push(format!(
                            "`{code}` in {at}: {field} changed from {old_value} to {new_value}"
                        ));
                    }
                }
            }
            None => match now_at.get(&at) {
                Some(new_code) if *new_code != code => changes.push(format!(
                    "{at} renamed its code from `{code}` to `{new_code}`"
                )),
                _ => changes.push(format!("`{code}` in {at} was removed")),
            },
        }
    }
    for (key, new_fields) in &now {
        if was.contains_key(key) {
            continue;
        }
        let at = new_fields.get("declared").cloned().unwrap_or_default();
        if was_at.contains_key(&at) {
            continue; // reported as a rename
        }
        let code = new_fields.get("code").cloned().unwrap_or_default();
        changes.push(format!("`{code}` in {at} was added"));
    }
    if changes.is_empty() {
        changes
            .push("the file's layout differs (comments, order or spacing); rewrite it".to_string());
    }
    Err(GoldenMismatch {
        path: path.to_path_buf(),
        changes,
    })
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
