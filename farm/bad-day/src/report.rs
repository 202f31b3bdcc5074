//! What a run came to: the figures of one strategy in one mode, and the table.

use std::collections::HashSet;
use std::time::Duration;

use agent_error_farm::{Farm, Kind, answer, pieces};

use crate::workload::Record;

/// One row of the table.
pub struct Row {
    /// The strategy.
    pub name: &'static str,
    /// The replicas that ran it.
    pub replicas: usize,
    /// Calls that can complete: their prompt fits, and no provider refused them for good
    /// (or they completed all the same, at another provider).
    pub can_complete: usize,
    /// Of those, answered whole and once, and taken as complete.
    pub completed: usize,
    /// Calls whose shown text repeats part of the answer.
    pub shown_twice: usize,
    /// Calls whose answer started over on screen after text was shown (a new attempt,
    /// marked: the screen cleared and the answer shown again from its start).
    pub restarted: usize,
    /// Calls the strategy took as complete with a text that is not the whole answer.
    pub cut_as_complete: usize,
    /// Output tokens the providers streamed that no completed answer kept.
    pub thrown_away: u64,
    /// Requests the providers received.
    pub requests: u64,
    /// Of them, answered 429.
    pub throttled: u64,
    /// Of those, by a bucket (not a throttled window): what pacing avoids.
    pub bucket_throttled: u64,
    /// Refusals that could not change, repeated.
    pub hopeless: u64,
    /// Time to completion of the completed calls: the median.
    pub p50: Duration,
    /// And the 99th percentile.
    pub p99: Duration,
}

impl Row {
    /// The row of `records`, of the `planned` calls (prompt, fits the context window) in
    /// tasks of `steps`, with what `farm` counted.
    pub fn new(
        name: &'static str,
        replicas: usize,
        planned: &[(String, bool)],
        steps: usize,
        records: &[Record],
        farm: &Farm,
    ) -> Row {
        // A call can complete when its prompt fits and no provider refused it for good (or
        // it completed all the same, at another provider), whether the strategy got to make
        // it or not, unless an earlier call of its task could not (the loop gives the task
        // up there, whatever the strategy).
        let whole: HashSet<&str> = records
            .iter()
            .filter(|r| r.ok && r.shown == answer(&r.prompt))
            .map(|r| r.prompt.as_str())
            .collect();
        let mut can_complete = 0;
        for task in planned.chunks(steps) {
            for (prompt, fits) in task {
                if !*fits || (farm.refused(prompt) && !whole.contains(prompt.as_str())) {
                    break;
                }
                can_complete += 1;
            }
        }
        let mut completed = 0;
        let mut shown_twice = 0;
        let mut restarted = 0;
        let mut cut_as_complete = 0;
        let mut kept_tokens = 0;
        let mut times = Vec::new();
        for r in records {
            let whole = answer(&r.prompt);
            if r.ok && r.shown == whole {
                completed += 1;
                kept_tokens += pieces(&r.prompt).len() as u64;
                times.push(r.took);
            } else if r.ok && whole.starts_with(&r.shown) {
                cut_as_complete += 1;
            }
            if !whole.starts_with(&r.shown) {
                shown_twice += 1;
            }
            if r.restarts > 0 {
                restarted += 1;
            }
        }
        times.sort();
        let at = |q: f64| {
            times
                .get(((times.len() as f64 * q).ceil() as usize).saturating_sub(1))
                .copied()
                .unwrap_or_default()
        };
        let stats: Vec<_> = Kind::ALL.iter().map(|&k| farm.stats(k)).collect();
        let sum = |f: fn(&agent_error_farm::Stats) -> u64| stats.iter().map(f).sum::<u64>();
        Row {
            name,
            replicas,
            can_complete,
            completed,
            shown_twice,
            restarted,
            cut_as_complete,
            thrown_away: sum(|s| s.output_tokens).saturating_sub(kept_tokens),
            requests: sum(|s| s.requests),
            throttled: sum(|s| s.throttled),
            bucket_throttled: sum(|s| s.bucket_throttled),
            hopeless: sum(|s| s.hopeless_retries),
            p50: at(0.5),
            p99: at(0.99),
        }
    }

    /// The row as one line of the table.
    pub fn line(&self) -> String {
        let share = |a: u64, b: u64| {
            if b == 0 {
                0.0
            } else {
                100.0 * a as f64 / b as f64
            }
        };
        format!(
            "| {} | {} | {} / {} ({:.1}%) | {} | {} | {} | {} | {:.2} | {} ({:.1}%), {} ({:.1}%) | {:.2} s | {:.2} s | {} |",
            self.name,
            if self.replicas == 1 {
                "1 replica".to_string()
            } else {
                format!("{} replicas", self.replicas)
            },
            self.completed,
            self.can_complete,
            share(self.completed as u64, self.can_complete as u64),
            self.shown_twice,
            self.restarted,
            self.cut_as_complete,
            self.thrown_away,
            if self.completed == 0 {
                0.0
            } else {
                self.requests as f64 / self.completed as f64
            },
            self.throttled,
            share(self.throttled, self.requests),
            self.bucket_throttled,
            share(self.bucket_throttled, self.requests),
            self.p50.as_secs_f64(),
            self.p99.as_secs_f64(),
            self.hopeless,
        )
    }
}

/// The table of `rows`, in Markdown.
pub fn table(rows: &[Row]) -> String {
    let mut out = String::from(
        "| strategy | mode | completed, of those that can | text shown twice | answer restarted on screen | cut taken as complete | output tokens thrown away | requests per completed call | 429s met, of them from the buckets | p50 | p99 | hopeless retries |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for row in rows {
        out.push_str(&row.line());
        out.push('\n');
    }
    out
}
