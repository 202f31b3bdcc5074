//! What the tool-result text costs: `tool::render` of a `ToolError` against a `format!`
//! of the same text, and `tool::parse` against a bare split of that text.
//! Run with `cargo bench --bench tool`.

use std::hint::black_box;

use agent_error::tool::{self, ToolError};
use agent_error::{AgentError, tool::ParsedToolError};
use criterion::Criterion;

/// The reference for `render`: the same text written with `format!` from values known in
/// advance, so it skips the one-line folding and the public message.
fn render_by_hand(matches: usize) -> String {
    format!(
        "[error:NOT_UNIQUE] {matches} matches for the text to replace; expected exactly one\nhint: add surrounding lines to the text to replace so that it matches once"
    )
}

/// The reference for `parse`: split the first line at `]` and take `hint:` lines, with
/// none of `parse`'s checks for `\r`, blank lines or a body.
fn parse_by_hand(text: &str) -> Option<ParsedToolError> {
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    let (code, summary) = first.strip_prefix("[error:")?.split_once("] ")?;
    Some(ParsedToolError {
        code: code.to_string(),
        summary: summary.to_string(),
        hints: rest
            .lines()
            .filter_map(|l| l.strip_prefix("hint: ").map(str::to_string))
            .collect(),
        body: None,
    })
}

fn bench(c: &mut Criterion) {
    let error = ToolError::NotUnique {
        tool: "fs.edit".into(),
        matches: 3,
    };
    assert_eq!(tool::render(&error), render_by_hand(3));

    let mut group = c.benchmark_group("tool::render, one hint");
    group.bench_function("tool::render", |b| {
        b.iter(|| tool::render(black_box(&error as &dyn AgentError)))
    });
    group.bench_function("format! by hand", |b| {
        b.iter(|| render_by_hand(black_box(3)))
    });
    group.finish();

    let text = tool::render(&error);
    assert_eq!(tool::parse(&text), parse_by_hand(&text));
    let mut group = c.benchmark_group("tool::parse, one hint");
    group.bench_function("tool::parse", |b| b.iter(|| tool::parse(black_box(&text))));
    group.bench_function("split by hand", |b| {
        b.iter(|| parse_by_hand(black_box(&text)))
    });
    group.finish();

    let body: String = (0..40)
        .map(|i| format!("line {i}: some output\n"))
        .collect();
    let with_body = format!("{text}\n\n{body}");
    assert_eq!(tool::parse(&with_body).and_then(|p| p.body), Some(body));
    let mut group = c.benchmark_group("tool::parse, one hint and a 40-line body");
    group.bench_function("tool::parse", |b| {
        b.iter(|| tool::parse(black_box(&with_body)))
    });
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
