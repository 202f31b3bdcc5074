//! The provider corpus (`tests/corpus/*.toml`, described in `tests/corpus/README.md`): real
//! error responses from LLM providers and gateways, each quoted from a public source, read as
//! a response ([`StatusError::from_parts`]) or, without a status, as a body alone
//! ([`http::classify_body`], and a stream's error event through `stream::Tracker`). Every case
//! must give its expected code, retrying, recovery, wait, wait source and request id; a
//! failure prints one line a case.

#![cfg(feature = "http")]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use agent_error::AgentError;
use agent_error::http::{self, StatusError};
use serde::Deserialize;

/// One file: a provider or gateway and its cases.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    provider: String,
    #[serde(rename = "case")]
    cases: Vec<Case>,
}

/// One response and what it means.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    source: String,
    status: Option<u16>,
    #[serde(default)]
    event: bool,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    body: String,
    code: String,
    retryable: bool,
    recovery: String,
    wait: Option<String>,
    wait_source: Option<String>,
    request_id: Option<String>,
    #[allow(dead_code)] // read by people
    note: Option<String>,
    /// The code this library gives instead, by a choice its note explains (a precedence
    /// that serves most responses, read against this one's label).
    library_reads: Option<String>,
}

/// What a case was classified as.
#[derive(Debug, PartialEq)]
struct Outcome {
    code: String,
    retryable: bool,
    recovery: String,
    wait: Option<Duration>,
    wait_source: Option<String>,
    request_id: Option<String>,
}

fn corpus_files() -> Vec<PathBuf> {
    files_in("tests/corpus")
}

/// The sets held out from the rules. Each is drawn for a release from sources the corpus and
/// the earlier sets do not use: `tests/heldout/` the first, `tests/heldout/second/` the
/// second, `tests/heldout/third/` the third. These three were read on 2026-12-08 to fix the
/// kinds of their misses (see `tests/heldout/README.md`); a fresh set measures the next.
const HELD_OUT_SETS: [&str; 5] = [
    "tests/heldout",
    "tests/heldout/second",
    "tests/heldout/third",
    "tests/heldout/fourth",
    "tests/heldout/fifth",
];

fn files_in(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    files.sort();
    files
}

fn load(path: &Path) -> File {
    let text = std::fs::read_to_string(path).expect("a corpus file");
    toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `"20s"`, `"1500ms"`, `"2m"`, `"1h"`, decimals allowed.
fn duration(text: &str) -> Duration {
    let (number, scale) = [("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0)]
        .into_iter()
        .find_map(|(unit, scale)| Some((text.strip_suffix(unit)?, scale)))
        .unwrap_or_else(|| panic!("a duration with a unit: {text}"));
    let number: f64 = number.trim().parse().expect("a decimal");
    Duration::from_secs_f64(number * scale)
}

fn expected(case: &Case) -> Outcome {
    Outcome {
        code: case.code.clone(),
        retryable: case.retryable,
        recovery: case.recovery.clone(),
        wait: case.wait.as_deref().map(duration),
        wait_source: case.wait_source.clone(),
        request_id: case.request_id.clone(),
    }
}

fn outcome_of(e: &StatusError) -> Outcome {
    Outcome {
        code: e.code().to_string(),
        retryable: e.is_retryable(),
        recovery: e.recovery().as_str().to_string(),
        wait: e.retry_after(),
        wait_source: e.retry_after_source().map(|s| s.as_str().to_string()),
        request_id: e.request_id().map(str::to_string),
    }
}

/// A case classified as this crate classifies it: a response by its parts, a body without a
/// status by `classify_body` (what it cannot read is, in a stream, an interruption).
fn classify(case: &Case) -> Outcome {
    let mut headers = ::http::HeaderMap::new();
    for (name, value) in &case.headers {
        headers.append(
            ::http::HeaderName::from_bytes(name.as_bytes()).expect("a header name"),
            ::http::HeaderValue::from_str(value).expect("a header value"),
        );
    }
    match case.status {
        Some(status) => outcome_of(&StatusError::from_parts_at(
            status,
            &headers,
            &case.body,
            SystemTime::now(),
        )),
        None => match http::classify_body(&case.body) {
            Some(e) => outcome_of(&e),
            // A stream's error event that says nothing readable ends the stream early.
            None if case.event => Outcome {
                code: "stream_interrupted".to_string(),
                retryable: true,
                recovery: "retry".to_string(),
                wait: None,
                wait_source: None,
                request_id: None,
            },
            None => Outcome {
                code: "(nothing read)".to_string(),
                retryable: false,
                recovery: String::new(),
                wait: None,
                wait_source: None,
                request_id: None,
            },
        },
    }
}

/// Whether two waits are the same to the millisecond (a decimal in a message is read as
/// seconds in `f64`).
fn same_wait(a: Option<Duration>, b: Option<Duration>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.abs_diff(b) < Duration::from_millis(1),
        (a, b) => a == b,
    }
}

/// Whether the official OpenAI and Anthropic SDKs (and the Vercel AI SDK) retry a response:
/// by its status alone, 408, 409, 429 and every 5xx; an error without a status, never.
fn sdk_retries(case: &Case) -> bool {
    matches!(case.status, Some(408 | 409 | 429 | 500..))
}

#[test]
fn every_response_is_classified_as_it_means() {
    let mut failures = Vec::new();
    let (mut count, mut sdk_wrong, mut status_wrong, mut otherwise) = (0, 0, 0, 0);
    for path in corpus_files() {
        let file = load(&path);
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        for case in &file.cases {
            count += 1;
            // What reading the status alone would say, for the figures below.
            sdk_wrong += usize::from(sdk_retries(case) != case.retryable);
            let by_status = case
                .status
                .map(|status| StatusError::new(status).code().to_string());
            status_wrong += usize::from(by_status.as_deref() != Some(case.code.as_str()));
            let (want, got) = (expected(case), classify(case));
            if let Some(reads) = &case.library_reads {
                // Read otherwise by choice: it stays read so, until the choice is revisited.
                otherwise += 1;
                if got.code != *reads || *reads == want.code {
                    failures.push(format!(
                        "{stem} / {}: expected to be read as {reads} by choice, against its label {}; got {}",
                        case.name, want.code, got.code
                    ));
                }
                continue;
            }
            let agrees = want.code == got.code
                && want.retryable == got.retryable
                && want.recovery == got.recovery
                && same_wait(want.wait, got.wait)
                && want.wait_source == got.wait_source
                && want.request_id == got.request_id;
            if !agrees {
                failures.push(format!(
                    "{stem} / {}: expected {} retryable={} {} wait={:?} from {:?} id={:?}; got {} retryable={} {} wait={:?} from {:?} id={:?}",
                    case.name,
                    want.code, want.retryable, want.recovery, want.wait, want.wait_source, want.request_id,
                    got.code, got.retryable, got.recovery, got.wait, got.wait_source, got.request_id,
                ));
            }
        }
    }
    eprintln!(
        "{count} cases: by the status alone, the SDKs' retry rule answers {sdk_wrong} wrongly \
         (retrying or not), and this crate's status table gives {status_wrong} the wrong code \
         (a case without a status counts as wrong); with the whole response, {} wrong, and \
         {otherwise} read otherwise by the library's choice (`library_reads`)",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {count} cases classified against what they mean:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A stream's error event is read by the same reader as a body after a status (with nothing
/// delivered yet, it is retried as its code says).
#[cfg(feature = "stream")]
#[test]
fn every_error_event_reads_in_a_stream_as_its_body_does() {
    use agent_error::stream::{Event, Tracker};
    let mut failures = Vec::new();
    for path in corpus_files() {
        for case in load(&path).cases.iter().filter(|case| case.event) {
            let e = Tracker::new()
                .observe(&Event::new("error", case.body.as_str()))
                .expect_err("an error event");
            let by_body = http::classify_body(&case.body);
            let want = by_body.as_ref().map_or("stream_interrupted", |e| e.code());
            if e.code() != want
                || e.is_retryable() != by_body.as_ref().is_none_or(|b| b.is_retryable())
            {
                failures.push(format!(
                    "{} / {}: the stream says {} retryable={}, the body {want}",
                    path.display(),
                    case.name,
                    e.code(),
                    e.is_retryable()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The corpus is what it says it is: every case sourced, named once, its expectation one of
/// the codes an agent acts on, with a recovery that fits it; large enough to mean something.
#[test]
fn the_corpus_is_sourced_and_broad() {
    let mut by_provider: BTreeMap<String, usize> = BTreeMap::new();
    let mut problems = Vec::new();
    for path in corpus_files() {
        let file = load(&path);
        let mut names = BTreeSet::new();
        for case in &file.cases {
            let at = format!("{} / {}", path.display(), case.name);
            if !case.source.starts_with("https://") {
                problems.push(format!("{at}: source is not a link"));
            }
            if !names.insert(case.name.as_str()) {
                problems.push(format!("{at}: a second case of this name"));
            }
            if case.event && case.status.is_some() {
                problems.push(format!("{at}: an event has no status"));
            }
            if case.wait.is_some() != case.wait_source.is_some() {
                problems.push(format!("{at}: a wait and its source go together"));
            }
            if case.wait.is_some() && !case.retryable {
                problems.push(format!("{at}: a wait on a case that is not retried"));
            }
            let recovery = match case.code.as_str() {
                "rate_limit" | "provider_unavailable" | "timeout" | "stream_interrupted" => "retry",
                "budget_exhausted" | "auth_error" => "escalate",
                "request_too_large" | "context_overflow" => "compact",
                "content_filtered" | "invalid_input" => "replan",
                "not_found" | "http_error" => "abort",
                other => {
                    problems.push(format!("{at}: unknown code {other}"));
                    continue;
                }
            };
            // `x-should-retry: false` turns a retry into a fallback.
            let refused = case.recovery == "fallback" && recovery == "retry";
            if case.recovery != recovery && !refused {
                problems.push(format!("{at}: {} recovers by {recovery}", case.code));
            }
        }
        *by_provider.entry(file.provider).or_default() += file.cases.len();
    }
    let total: usize = by_provider.values().sum();
    eprintln!(
        "{total} cases from {} providers: {by_provider:?}",
        by_provider.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(total >= 250, "{total} cases");
    assert!(by_provider.len() >= 20, "{} providers", by_provider.len());
}

/// The held-out set is held out: no site or repository it was collected from is one the
/// corpus was collected from, so that no rule written from the corpus was written from one
/// of its responses, or from their neighbours.
#[test]
fn the_held_out_set_shares_no_source_with_the_corpus() {
    // A source's site, or its repository on GitHub.
    let site = |source: &str| -> String {
        let rest = source.trim_start_matches("https://");
        let mut parts = rest.split('/');
        match parts.next() {
            Some("github.com") => {
                let repo: Vec<&str> = parts.take(2).collect();
                format!("github.com/{}", repo.join("/").to_lowercase())
            }
            host => host.unwrap_or_default().to_owned(),
        }
    };
    let sites = |files: Vec<PathBuf>| -> BTreeSet<String> {
        files
            .iter()
            .flat_map(|path| load(path).cases)
            .map(|case| site(&case.source))
            .collect()
    };
    let corpus = sites(corpus_files());
    let sets: Vec<BTreeSet<String>> = HELD_OUT_SETS
        .iter()
        .map(|dir| sites(files_in(dir)))
        .collect();
    for (dir, held_out) in HELD_OUT_SETS.iter().zip(&sets) {
        assert!(
            held_out.len() >= 20,
            "{dir}: {} held-out sites",
            held_out.len()
        );
        let shared: Vec<_> = held_out.intersection(&corpus).collect();
        assert!(
            shared.is_empty(),
            "{dir}: sites in the corpus too: {shared:?}"
        );
    }
    for (i, a) in sets.iter().enumerate() {
        for b in &sets[i + 1..] {
            let shared: Vec<_> = a.intersection(b).collect();
            assert!(shared.is_empty(), "sites in two held-out sets: {shared:?}");
        }
    }
}

/// How classification generalises: the held-out set, read once per release. It prints the
/// figures only (how many match what they mean, how many would be retried that must not
/// be), never a case, so that running it does not show the set to whoever writes rules.
/// `cargo test -p agent-error --all-features --test suite -- --ignored --nocapture held_out`.
/// With `HELD_OUT_MISSES=1` it prints each miss too, for a set that has been declared read
/// (see `tests/heldout/README.md`).
#[test]
#[ignore = "a measurement, run once per release"]
fn held_out_figure() {
    let show_misses = std::env::var_os("HELD_OUT_MISSES").is_some();
    for dir in HELD_OUT_SETS {
        let (mut count, mut matched, mut retried_wrongly) = (0, 0, 0);
        let mut providers = BTreeSet::new();
        for path in files_in(dir) {
            let file = load(&path);
            providers.insert(file.provider);
            for case in &file.cases {
                count += 1;
                let (want, got) = (expected(case), classify(case));
                matched += usize::from(
                    want.code == got.code
                        && want.retryable == got.retryable
                        && want.recovery == got.recovery,
                );
                retried_wrongly += usize::from(got.retryable && !want.retryable);
                if show_misses
                    && (want.code != got.code
                        || want.retryable != got.retryable
                        || want.recovery != got.recovery)
                {
                    eprintln!(
                        "miss {} / {}: expected {} retryable={}; got {} retryable={}",
                        path.display(),
                        case.name,
                        want.code,
                        want.retryable,
                        got.code,
                        got.retryable
                    );
                }
            }
        }
        eprintln!(
            "held out ({dir}): {count} responses from {} providers: {matched} match what they \
             mean ({:.1}%); {retried_wrongly} retried that must not be",
            providers.len(),
            100.0 * matched as f64 / count.max(1) as f64
        );
        assert!(count >= 80, "{dir}: {count} held-out responses");
    }
}
