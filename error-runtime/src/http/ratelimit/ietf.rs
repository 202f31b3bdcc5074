//! The IETF rate-limit fields: `RateLimit` and `RateLimit-Policy`, and the older drafts'
//! `RateLimit` dictionary and separate `RateLimit-Limit`, `-Remaining` and `-Reset`.

use std::time::Duration;

use super::structured::{Bare, Member, Members};
use super::{Dimension, LimitReading, MAX_VALUES, Reader, Value, ahead, count, delta_seconds};

/// Reads the IETF fields into `reader`.
pub(super) fn read(reader: &mut Reader<'_>) {
    // One after the other, so that their members' arrays are not on the stack together.
    policies_and_items(reader);
    separate_fields(reader);
}

/// `RateLimit` (the current list of items, or the older dictionary) and `RateLimit-Policy`.
fn policies_and_items(reader: &mut Reader<'_>) {
    let policies = Field::read(reader, "ratelimit-policy");
    let mut named: [Option<Policy<'_>>; MAX_VALUES] = [None; MAX_VALUES];
    for (slot, member) in named.iter_mut().zip(policies.members()) {
        *slot = Policy::read(reader, member);
    }
    let limits = Field::read(reader, "ratelimit");
    let mut dictionary = Dictionary::default();
    for member in limits.members() {
        match member.value {
            Some(value) => dictionary.add(reader, member.name, value),
            None => item(reader, member, &named),
        }
    }
    if let Some(remaining) = dictionary.remaining {
        let reading = LimitReading::new(dictionary.limit, remaining, dictionary.reset, true, None);
        reader.offer(Dimension::Requests, reading);
    }
}

/// The members of every line of a structured field, at most [`MAX_VALUES`]; none when a
/// line is malformed or not text (the whole field is refused then).
struct Field<'h> {
    members: [Member<'h>; MAX_VALUES],
    len: usize,
}

impl<'h> Field<'h> {
    fn read(reader: &mut Reader<'h>, name: &str) -> Self {
        let mut field = Field {
            members: [Member::EMPTY; MAX_VALUES],
            len: 0,
        };
        let headers = reader.headers;
        for line in headers.get_all(name) {
            let Ok(text) = line.to_str() else {
                reader.refuse();
                field.len = 0;
                return field;
            };
            for member in Members::new(text) {
                let Ok(member) = member else {
                    reader.refuse();
                    field.len = 0;
                    return field;
                };
                let Some(slot) = field.members.get_mut(field.len) else {
                    // Beyond the bound: what was read is kept, the rest is not obeyed.
                    reader.refuse();
                    return field;
                };
                *slot = member;
                field.len += 1;
            }
        }
        field
    }

    fn members(&self) -> &[Member<'h>] {
        self.members.get(..self.len).unwrap_or_default()
    }
}

/// A `RateLimit-Policy` item: its name, quota (`q`), window (`w`), unit (`qu`) and
/// partition key (`pk`).
#[derive(Clone, Copy, Debug)]
struct Policy<'h> {
    name: &'h str,
    quota: Option<u64>,
    window: Option<Duration>,
    /// `None` for a unit that counts something else than requests or tokens.
    unit: Option<Dimension>,
    key: Option<Bare<'h>>,
}

impl<'h> Policy<'h> {
    fn read(reader: &mut Reader<'_>, member: &Member<'h>) -> Option<Self> {
        // Older drafts wrote the quota where the name is now, or a dictionary: neither
        // names a policy that a `RateLimit` item can point to.
        let name = member.name.text().filter(|_| member.value.is_none())?;
        let unit = match member.param("qu") {
            None => Some(Dimension::Requests),
            Some(unit) => match unit.text() {
                Some("requests") => Some(Dimension::Requests),
                Some("tokens") => Some(Dimension::Tokens),
                Some(_) => None,
                None => {
                    reader.refuse();
                    None
                }
            },
        };
        Some(Policy {
            name,
            quota: number(reader, member.param("q")),
            window: number(reader, member.param("w")).map(Duration::from_secs),
            unit,
            key: member.param("pk"),
        })
    }
}

/// A `RateLimit` item (`"name";r=50;t=30`), with the policy of its name; one whose `t` is
/// malformed is dropped.
fn item(reader: &mut Reader<'_>, member: &Member<'_>, policies: &[Option<Policy<'_>>]) {
    let Some(name) = member.name.text() else {
        return;
    };
    let policy = policies.iter().flatten().find(|policy| policy.name == name);
    let (dimension, limit, period) = match policy {
        Some(policy) => {
            if let (Some(key), Some(policy_key)) = (member.param("pk"), policy.key) {
                if key != policy_key {
                    return;
                }
            }
            let Some(dimension) = policy.unit else {
                return;
            };
            (dimension, policy.quota, policy.window)
        }
        None => (Dimension::Requests, None, None),
    };
    let remaining = number(reader, member.param("r"));
    // What remains means nothing without a reset that can be read: a malformed `t`
    // (negative, not an integer) drops the item whole. One too far ahead is absent.
    let reset = match member.param("t") {
        None | Some(Bare::Integer(-1)) => None,
        Some(t @ Bare::Integer(0..)) => seconds(reader, Some(t)),
        Some(_) => {
            reader.refuse();
            return;
        }
    };
    if let Some(remaining) = remaining {
        let reading = LimitReading::new(limit, remaining, reset, true, period);
        reader.offer(dimension, reading);
    }
}

/// The older dictionary form, `RateLimit: limit=100, remaining=50, reset=30`.
#[derive(Default)]
struct Dictionary {
    limit: Option<u64>,
    remaining: Option<u64>,
    reset: Option<Duration>,
}

impl Dictionary {
    fn add(&mut self, reader: &mut Reader<'_>, key: Bare<'_>, value: Bare<'_>) {
        match key.text() {
            Some("limit") => self.limit = min(self.limit, number(reader, Some(value))),
            Some("remaining") => self.remaining = min(self.remaining, number(reader, Some(value))),
            Some("reset") => self.reset = self.reset.max(seconds(reader, Some(value))),
            _ => {}
        }
    }
}

/// `RateLimit-Limit` (`100`, or `100, 100;w=60`: the first number, and its window),
/// `RateLimit-Remaining` and `RateLimit-Reset` (seconds).
fn separate_fields(reader: &mut Reader<'_>) {
    let limits = Field::read(reader, "ratelimit-limit");
    let (mut limit, mut period) = (None, None);
    if let Some(first) = limits.members().first() {
        limit = number(reader, Some(first.name));
        // The window is the first one given for that quota, on the first item or a later one.
        let window = limits
            .members()
            .iter()
            .filter(|member| member.name == first.name)
            .find_map(|member| member.param("w"));
        period = number(reader, window).map(Duration::from_secs);
    }
    let remaining = reader.fold("ratelimit-remaining", true, count, u64::min);
    let reset = reader.fold("ratelimit-reset", true, delta_seconds, Duration::max);
    if let Some(remaining) = remaining {
        let reading = LimitReading::new(limit, remaining, reset, true, period);
        reader.offer(Dimension::Requests, reading);
    }
}

/// A count written as a structured integer; `-1` is unknown; anything else is refused.
fn number(reader: &mut Reader<'_>, value: Option<Bare<'_>>) -> Option<u64> {
    match value? {
        Bare::Integer(-1) => None,
        Bare::Integer(n) if n >= 0 => Some(n.unsigned_abs()),
        _ => {
            reader.refuse();
            None
        }
    }
}

/// A delay in seconds written as a structured integer, obeyed up to the horizon.
fn seconds(reader: &mut Reader<'_>, value: Option<Bare<'_>>) -> Option<Duration> {
    let seconds = number(reader, value)?;
    match ahead(Some(Duration::from_secs(seconds))) {
        Value::Known(delay) => Some(delay),
        Value::Unknown | Value::Refused => {
            reader.refuse();
            None
        }
    }
}

/// The smaller of two counts, either of which may be missing.
fn min(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        _ => a.or(b),
    }
}
