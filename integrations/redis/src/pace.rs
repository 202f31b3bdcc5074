//! Pacing through Redis: a [`PaceStep`] turned into the arguments of the pacing script,
//! and its answer read back into a [`PaceAnswer`], every number checked on the way in.

use std::time::Duration;

use agent_error_runtime::store::{BucketView, MAX_HOLD, PaceAnswer, PaceStep};
use redis::Value;

use crate::scripts::PACE_ARGS_PER_DIMENSION;

/// A number as the script reads it: Rust's shortest text that reads back the same.
fn number(x: f64) -> String {
    x.to_string()
}

/// Milliseconds with their fraction, as the script counts time.
fn millis(d: Duration) -> String {
    number(d.as_secs_f64() * 1000.0)
}

/// The script's arguments for `step` (see [`PACE`](crate::scripts::PACE)). What the
/// runtime's bucket would not apply is not sent: a report that is not plausible, a
/// configured limit it would not obey (`DimensionStep::configured_limit`). Units that are
/// not finite count as none.
pub(crate) fn args(step: &PaceStep, ttl: Duration) -> Vec<String> {
    let mut args = Vec::with_capacity(PACE_ARGS_PER_DIMENSION * 4 + 3);
    for d in &step.dimensions {
        match d.report.filter(|r| r.is_plausible()) {
            Some(r) => args.extend([
                number(r.capacity),
                number(r.level),
                number(r.rate),
                millis(r.hold),
            ]),
            None => args.extend(std::iter::repeat_n(String::new(), 4)),
        }
        match d.configured_limit() {
            Some((capacity, rate)) => args.extend([number(capacity), number(rate)]),
            None => args.extend([String::new(), String::new()]),
        }
        let finite = |x: f64| if x.is_finite() { x } else { 0.0 };
        args.extend([
            number(finite(d.spent)),
            number(finite(d.take)),
            number(finite(d.lease).max(0.0)),
        ]);
    }
    args.extend([millis(step.max_wait), step.replica.to_string(), millis(ttl)]);
    args
}

/// Reads the script's answer (its `repaired` flag already taken off); `None` when it is
/// not what the script writes: a missing element, or a number that is not finite.
pub(crate) fn answer(value: Value) -> Option<PaceAnswer> {
    let Value::Array(items) = value else {
        return None;
    };
    let [_now, reserved, wait, replicas, views @ ..] = items.as_slice() else {
        return None;
    };
    let wait = waited(finite(wait)?)?;
    let wait = match integer(reserved)? {
        1 => Ok(wait),
        0 => Err(wait),
        _ => return None,
    };
    let replicas = u32::try_from(integer(replicas)?).ok()?.max(1);
    let [a, b, c, d, leased] = views else {
        return None;
    };
    let Value::Array(leased) = leased else {
        return None;
    };
    let leased: [&Value; 4] = match leased.as_slice() {
        [w, x, y, z] => [w, x, y, z],
        _ => return None,
    };
    let leased = leased.map(|v| finite(v).filter(|x| *x >= 0.0));
    Some(PaceAnswer {
        wait,
        buckets: [view(a)?, view(b)?, view(c)?, view(d)?],
        replicas,
        leased: [leased[0]?, leased[1]?, leased[2]?, leased[3]?],
    })
}

/// A wait in milliseconds as a duration; one too long for a duration is the longest hold,
/// as the runtime's bucket counts it.
fn waited(ms: f64) -> Option<Duration> {
    if ms < 0.0 {
        return None;
    }
    Some(Duration::try_from_secs_f64(ms / 1000.0).unwrap_or(MAX_HOLD))
}

/// One dimension's view: `Some(None)` for an empty array (nothing known).
fn view(value: &Value) -> Option<Option<BucketView>> {
    let Value::Array(items) = value else {
        return None;
    };
    match items.as_slice() {
        [] => Some(None),
        [capacity, level, rate, hold] => Some(Some(BucketView {
            capacity: finite(capacity)?,
            level: finite(level)?,
            rate: finite(rate)?,
            hold: waited(finite(hold)?)?.min(MAX_HOLD),
        })),
        _ => None,
    }
}

/// A finite number the script wrote as text (or, whole, as an integer).
fn finite(value: &Value) -> Option<f64> {
    let x = match value {
        Value::BulkString(bytes) => std::str::from_utf8(bytes).ok()?.parse::<f64>().ok()?,
        Value::SimpleString(text) => text.parse::<f64>().ok()?,
        Value::Int(i) => *i as f64,
        Value::Double(x) => *x,
        _ => return None,
    };
    x.is_finite().then_some(x)
}

fn integer(value: &Value) -> Option<i64> {
    match value {
        Value::Int(i) => Some(*i),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_error_runtime::store::{BucketReport, DimensionStep};

    fn text(s: &str) -> Value {
        Value::BulkString(s.as_bytes().to_vec())
    }

    #[test]
    fn a_step_becomes_nine_arguments_a_dimension_and_three_more() {
        let mut step = PaceStep {
            max_wait: Duration::from_millis(1500),
            replica: 42,
            ..PaceStep::default()
        };
        step.dimensions[0] = DimensionStep {
            report: Some(BucketReport {
                capacity: 60.0,
                level: 0.5,
                rate: 1.0,
                hold: Duration::from_secs(2),
            }),
            configured: Some((20.0, 1.0 / 3.0)),
            spent: 2.0,
            take: 1.0,
            lease: 4.0,
        };
        step.dimensions[1].report = Some(BucketReport {
            capacity: f64::NAN,
            level: 1.0,
            rate: 1.0,
            hold: Duration::ZERO,
        });
        step.dimensions[1].spent = f64::INFINITY;
        let args = args(&step, Duration::from_secs(3600));
        assert_eq!(args.len(), 39);
        assert_eq!(
            &args[..9],
            [
                "60",
                "0.5",
                "1",
                "2000",
                "20",
                &(1.0f64 / 3.0).to_string(),
                "2",
                "1",
                "4"
            ]
        );
        assert_eq!(&args[9..18], ["", "", "", "", "", "", "0", "0", "0"]);
        assert_eq!(&args[36..], ["1500", "42", "3600000"]);
        assert_eq!((1.0f64 / 3.0).to_string().parse::<f64>(), Ok(1.0 / 3.0));
    }

    #[test]
    fn an_answer_reads_back_and_a_bad_one_does_not() {
        let view = Value::Array(vec![text("20"), text("-1.5"), text("0.25"), text("1000")]);
        let empty = Value::Array(Vec::new());
        let leased = Value::Array(vec![text("2.5"), text("0"), text("0"), text("0")]);
        let good = Value::Array(vec![
            text("1700000000000.5"),
            Value::Int(0),
            text("2500"),
            Value::Int(3),
            view.clone(),
            empty.clone(),
            empty.clone(),
            empty.clone(),
            leased.clone(),
        ]);
        let answer = answer(good).unwrap();
        assert_eq!(answer.leased, [2.5, 0.0, 0.0, 0.0]);
        assert_eq!(answer.wait, Err(Duration::from_millis(2500)));
        assert_eq!(answer.replicas, 3);
        assert_eq!(
            answer.buckets[0],
            Some(BucketView {
                capacity: 20.0,
                level: -1.5,
                rate: 0.25,
                hold: Duration::from_secs(1),
            })
        );
        assert_eq!(answer.buckets[1..], [None, None, None]);

        for bad in ["inf", "NaN", "-1", "x", ""] {
            let reply = Value::Array(vec![
                text("1"),
                Value::Int(1),
                text(bad),
                Value::Int(1),
                empty.clone(),
                empty.clone(),
                empty.clone(),
                empty.clone(),
                leased.clone(),
            ]);
            assert_eq!(super::answer(reply), None, "{bad}");
        }
        let short = Value::Array(vec![text("1"), Value::Int(1), text("0"), Value::Int(1)]);
        assert_eq!(super::answer(short), None);
        let bad_view = Value::Array(vec![text("20"), text("nan"), text("1"), text("0")]);
        let reply = Value::Array(vec![
            text("1"),
            Value::Int(1),
            text("0"),
            Value::Int(1),
            bad_view,
            empty.clone(),
            empty.clone(),
            empty,
            leased,
        ]);
        assert_eq!(super::answer(reply), None);
        assert_eq!(super::answer(Value::Nil), None);
    }
}
