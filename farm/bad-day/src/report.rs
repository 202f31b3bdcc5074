//! What a run came to: the figures of one strategy in one mode, and the table.

use std::collections::HashSet;
use std::time::Duration;

use agent_error_farm::{Farm, Kind, answer, pieces};

use crate::workload::{Planned, Record};

/// One row of the table.
pub struct Row {
    /// The strategy.
    pub name: &'static str,
    /// The replicas that ran it.
    pub replicas: usize,
    /// Calls that can complete: their prompt fits, and no provider refused them for good
    /// nor is their account spent at every provider (or they completed all the same, at
    /// another provider).
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
    /// The row of `records`, of the `planned` calls in tasks of `steps`, with what `farm`
    /// counted.
    pub fn new(
        name: &'static str,
        replicas: usize,
        planned: &[Planned],
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
        // The low-credit account's calls cannot complete once its credit is spent at both
        // providers its loops call (a strategy may know it and not send them).
        let spent = [Kind::OpenAi, Kind::Anthropic]
            .iter()
            .all(|&k| farm.credit_spent(k));
        let mut can_complete = 0;
        for task in planned.chunks(steps) {
            for call in task {
                let done = whole.contains(call.prompt.as_str());
                let refused = farm.refused(&call.prompt) || (call.low_credit && spent);
                if !call.fits || (refused && !done) {
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

/// How a figure is written.
#[derive(Clone, Copy)]
enum Unit {
    Percent,
    Count,
    Ratio,
    Seconds,
}

impl Unit {
    fn write(self, v: f64) -> String {
        match self {
            Unit::Percent => format!("{v:.1}%"),
            Unit::Count if v.fract() == 0.0 => format!("{v:.0}"),
            Unit::Count => format!("{v:.1}"),
            Unit::Ratio => format!("{v:.2}"),
            Unit::Seconds => format!("{v:.2} s"),
        }
    }
}

impl Row {
    /// The figures of the row, in the table's order, each with how it is written.
    fn figures(&self) -> [(f64, Unit); 12] {
        let share = |a: f64, b: f64| if b == 0.0 { 0.0 } else { 100.0 * a / b };
        let per_call = if self.completed == 0 {
            0.0
        } else {
            self.requests as f64 / self.completed as f64
        };
        [
            (
                share(self.completed as f64, self.can_complete as f64),
                Unit::Percent,
            ),
            (self.shown_twice as f64, Unit::Count),
            (self.restarted as f64, Unit::Count),
            (self.cut_as_complete as f64, Unit::Count),
            (self.thrown_away as f64, Unit::Count),
            (per_call, Unit::Ratio),
            (self.throttled as f64, Unit::Count),
            (self.bucket_throttled as f64, Unit::Count),
            (self.p50.as_secs_f64(), Unit::Seconds),
            (self.p99.as_secs_f64(), Unit::Seconds),
            (self.hopeless as f64, Unit::Count),
            (self.can_complete as f64, Unit::Count),
        ]
    }
}

/// The median of `values` (the mean of the middle two when there is an even number).
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => 0.0,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// One line of the table over seeds: each figure's median, and its spread (the least and
/// the most) in brackets when the seeds differ.
pub fn spread_line(rows: &[&Row]) -> String {
    let Some(first) = rows.first() else {
        return String::new();
    };
    let figures: Vec<_> = rows.iter().map(|r| r.figures()).collect();
    let cell = |i: usize| {
        let unit = figures[0][i].1;
        let mut values: Vec<f64> = figures.iter().map(|f| f[i].0).collect();
        let m = median(&mut values);
        let (lo, hi) = (values[0], values[values.len() - 1]);
        if lo == hi {
            unit.write(m)
        } else {
            format!("{} ({}–{})", unit.write(m), unit.write(lo), unit.write(hi))
        }
    };
    let mode = if first.replicas == 1 {
        "1 replica".to_string()
    } else {
        format!("{} replicas", first.replicas)
    };
    format!(
        "| {} | {mode} | {} of {} | {} | {} | {} | {} | {} | {}; {} | {} | {} | {} |",
        first.name,
        cell(0),
        cell(11),
        cell(1),
        cell(2),
        cell(3),
        cell(4),
        cell(5),
        cell(6),
        cell(7),
        cell(8),
        cell(9),
        cell(10),
    )
}

/// The table over seeds: one line for each strategy and mode, of its `rows` (one a seed).
pub fn spread_table(groups: &[Vec<Row>]) -> String {
    let mut out = String::from(
        "| strategy | mode | completed, of those that can | text shown twice | answer restarted on screen | cut taken as complete | output tokens thrown away | requests per completed call | 429s met; of them from the buckets | p50 | p99 | hopeless retries |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for rows in groups {
        let rows: Vec<&Row> = rows.iter().collect();
        out.push_str(&spread_line(&rows));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_spreads() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&mut []), 0.0);
        let row = |completed, shown_twice| Row {
            name: "s",
            replicas: 1,
            can_complete: 10,
            completed,
            shown_twice,
            restarted: 0,
            cut_as_complete: 0,
            thrown_away: 0,
            requests: 20,
            throttled: 0,
            bucket_throttled: 0,
            hopeless: 0,
            p50: Duration::from_millis(500),
            p99: Duration::from_secs(1),
        };
        let rows = [row(10, 0), row(8, 2), row(9, 1)];
        let line = spread_line(&rows.iter().collect::<Vec<_>>());
        assert_eq!(
            line,
            "| s | 1 replica | 90.0% (80.0%–100.0%) of 10 | 1 (0–2) | 0 | 0 | 0 | 2.22 (2.00–2.50) | 0; 0 | 0.50 s | 1.00 s | 0 |"
        );
    }
}
