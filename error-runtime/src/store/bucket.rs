//! Pacing buckets: what a provider's limit looks like to a pacer (a capacity, a refill
//! rate, what is left), and the one step a [`PaceStore`] applies to a key's buckets.

use std::time::Duration;

use super::{PauseStore, StoreFuture, nanos};

/// Where a [`Pacer`](crate::recover::Pacer) that shares its budgets keeps its buckets, and
/// the pauses a server announced (so a pacing store is a [`PauseStore`] too).
pub trait PaceStore: PauseStore {
    /// Applies one pacing step to `key`'s buckets atomically (see [`PaceStep`]): what a
    /// pacer that shares its budgets through this store sends when its local copy is stale
    /// or short. `None` when the store does not keep budgets for pacers (the default), or
    /// cannot reach its server: the pacer then paces alone, with its share of the limit it
    /// last knew.
    fn pace<'a>(&'a self, key: &'a str, step: PaceStep) -> StoreFuture<'a, Option<PaceAnswer>> {
        let _ = (key, step);
        Box::pin(std::future::ready(None))
    }
}

/// One kind of limit a provider counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dimension {
    /// Requests.
    Requests,
    /// Tokens, input and output together.
    Tokens,
    /// Input (prompt) tokens, where a provider counts them apart (Anthropic).
    InputTokens,
    /// Output (completion) tokens, where a provider counts them apart (Anthropic).
    OutputTokens,
}

impl Dimension {
    /// Every dimension, in the order of their indexes.
    pub const ALL: [Dimension; 4] = [
        Dimension::Requests,
        Dimension::Tokens,
        Dimension::InputTokens,
        Dimension::OutputTokens,
    ];

    /// `"requests"`, `"tokens"`, `"input_tokens"` or `"output_tokens"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Dimension::Requests => "requests",
            Dimension::Tokens => "tokens",
            Dimension::InputTokens => "input_tokens",
            Dimension::OutputTokens => "output_tokens",
        }
    }

    /// The dimension's place in [`ALL`](Self::ALL), and in the arrays of a [`PaceStep`].
    pub const fn index(self) -> usize {
        match self {
            Dimension::Requests => 0,
            Dimension::Tokens => 1,
            Dimension::InputTokens => 2,
            Dimension::OutputTokens => 3,
        }
    }
}

/// What one response said about one limit, as a bucket: how much it holds, what is left
/// now, how fast it refills, and how long nothing comes back (a window that resets later).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BucketReport {
    /// The limit.
    pub capacity: f64,
    /// What is left now.
    pub level: f64,
    /// Units coming back per second; zero when the response does not tell (the rate known
    /// before is kept; with none known, what is left is spent, then calls go as probes,
    /// see [`PROBE_WAIT`]).
    pub rate: f64,
    /// How long nothing comes back: a window's time until it resets; zero for a bucket
    /// that refills all the time.
    pub hold: Duration,
}

impl BucketReport {
    /// Whether every number is finite and in range: a capacity above zero and at most
    /// [`MAX_UNITS`], a level and a rate not negative, a hold of at most 25 hours. A store
    /// ignores a report that is not.
    pub fn is_plausible(&self) -> bool {
        self.capacity > 0.0
            && self.capacity <= MAX_UNITS
            && self.level.is_finite()
            && self.level >= 0.0
            && self.rate.is_finite()
            && self.rate >= 0.0
            && self.hold <= MAX_HOLD
    }
}

/// The most units a bucket holds: 10^15, far above any provider's limit (a billion tokens
/// a minute is 10^9), and small enough that every count below it is a whole number in an
/// `f64`. A report or a stored bucket whose capacity is larger is not obeyed.
pub const MAX_UNITS: f64 = 1e15;

/// The longest hold or wait a bucket keeps: 25 hours, the longest a provider's window
/// (a day) plausibly lasts.
pub const MAX_HOLD: Duration = Duration::from_secs(25 * 3600);

/// The short default: how long a budget that is spent, and whose refill no response told,
/// waits before one call goes as a probe (its answer tells the budget again). Calls
/// waiting behind a probe take one turn each this far apart.
pub const PROBE_WAIT: Duration = Duration::from_secs(1);

/// What a pacer asks of one dimension of a key in a [`PaceStep`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DimensionStep {
    /// The latest response's report, if one came since the last step.
    pub report: Option<BucketReport>,
    /// A configured limit (capacity, units per second), used while no report is known.
    pub configured: Option<(f64, f64)>,
    /// Units spent (or, negative, given back) by this replica since its last step.
    pub spent: f64,
    /// Units to reserve now.
    pub take: f64,
    /// Units to take as well when they are there now and the call goes at once: the
    /// replica's lease, which it spends without asking again (what it does not spend it
    /// gives back as a negative `spent` at its next step).
    pub lease: f64,
}

impl DimensionStep {
    /// The configured limit, if a store obeys it: a capacity above zero and at most
    /// [`MAX_UNITS`], a finite rate (a negative one counts as zero). A store ignores one
    /// that is not, as it ignores a report that is not plausible.
    pub fn configured_limit(&self) -> Option<(f64, f64)> {
        self.configured
            .filter(|&(capacity, rate)| capacity > 0.0 && capacity <= MAX_UNITS && rate.is_finite())
            .map(|(capacity, rate)| (capacity, rate.max(0.0)))
    }
}

/// One atomic step on a key's buckets, as a pacer sends it to a shared [`Store`](crate::recover::Store):
/// apply the reports, count what was spent meanwhile, then reserve `take` in every
/// dimension if the wait that needs is at most `max_wait`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PaceStep {
    /// Per dimension, at [`Dimension::index`].
    pub dimensions: [DimensionStep; 4],
    /// The longest wait a reservation may need.
    pub max_wait: Duration,
    /// The replica asking, so that a store can count the replicas sharing the key.
    pub replica: u64,
}

/// A key's bucket in one dimension after a [`PaceStep`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BucketView {
    /// The limit.
    pub capacity: f64,
    /// What is left now, after the step's reservation; negative while reservations wait
    /// for units to come back, as low as [`floor_of`] the capacity and rate.
    pub level: f64,
    /// Units coming back per second (zero: unknown).
    pub rate: f64,
    /// How long nothing comes back yet; with no known rate, until the next probe's turn
    /// (see [`PROBE_WAIT`]).
    pub hold: Duration,
}

/// What a store answers to a [`PaceStep`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaceAnswer {
    /// `Ok(wait)`: reserved, the call may go after `wait`; `Err(needed)`: not reserved,
    /// the wait it needs is longer than the step's `max_wait`.
    pub wait: Result<Duration, Duration>,
    /// The buckets after the step, per dimension (`None`: nothing known).
    pub buckets: [Option<BucketView>; 4],
    /// How many replicas have paced this key lately (at least 1): a replica that must go
    /// on alone takes its share of the limit.
    pub replicas: u32,
    /// The units leased per dimension (at most each step's `lease`, none unless the call
    /// goes at once).
    pub leased: [f64; 4],
}

/// One dimension's bucket, on a clock of nanoseconds: the arithmetic every store and the
/// pacer's own copy share.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Bucket {
    pub(crate) capacity: f64,
    pub(crate) rate: f64,
    pub(crate) level: f64,
    /// When `level` was true, and before when nothing comes back (with no known rate, the
    /// next probe's turn).
    pub(crate) at: u64,
    pub(crate) hold_until: u64,
    /// Whether the bucket comes from a response (not a configured limit).
    pub(crate) reported: bool,
    /// Units reserved since `recent_at` (at most the capacity), and in the interval before
    /// it: the calls a response may not count yet.
    pub(crate) recent: f64,
    pub(crate) before: f64,
    /// When the interval of `recent` began.
    pub(crate) recent_at: u64,
}

/// The lowest level a bucket of `capacity` refilling at `rate` units a second may hold
/// (see [`BucketView::level`]): minus a [`MAX_HOLD`] of refill and one bucket. What a store
/// that keeps buckets in its own form refuses below, as a value no reservation could make.
pub fn floor_of(capacity: f64, rate: f64) -> f64 {
    -(capacity + rate.max(0.0) * MAX_HOLD.as_secs_f64())
}

/// How long a reservation counts as a call on its way, which a response written meanwhile
/// may not count yet: between one and two of these. A report's count is believed less what
/// was reserved in that time, and no less: an older deficit is in the provider's count.
pub const IN_FLIGHT: Duration = Duration::from_secs(60);

const NANOS: f64 = 1e9;

impl Bucket {
    /// A full bucket of a configured limit.
    pub(crate) fn configured(capacity: f64, rate: f64, now: u64) -> Bucket {
        Bucket {
            capacity,
            rate,
            level: capacity,
            at: now,
            hold_until: 0,
            reported: false,
            recent: 0.0,
            before: 0.0,
            recent_at: now,
        }
    }

    /// Brings `level` to `now`: what came back since, never above the capacity.
    pub(crate) fn refill(&mut self, now: u64) {
        self.refill_share(now, 1.0);
    }

    /// [`refill`](Self::refill) at `share` (0 to 1) of the rate: what comes back to one
    /// replica of several that pace alone.
    pub(crate) fn refill_share(&mut self, now: u64, share: f64) {
        let from = self.at.max(self.hold_until);
        if now > from && self.rate > 0.0 {
            let back = share * self.rate * (now - from) as f64 / NANOS;
            self.level = (self.level + back).min(self.capacity);
        }
        self.at = self.at.max(now);
    }

    /// Takes a report in: the limit and its refill from the newest report, what is left
    /// from the most restrictive of the report and what is known (units reserved since the
    /// response was written are not in its count), but never less than the report less
    /// what was reserved in the last minute or two ([`IN_FLIGHT`]): an older deficit (a
    /// peer's usage, a refill rate read from an older report, a limit that changed) is in
    /// the provider's count already, and a response saying the budget is back lifts it. A
    /// bucket that has never refilled at a known rate, given a report that does not tell
    /// one either, takes the report's level as it is (nothing else brings its budget
    /// back), and its first probe's turn is the report's hold (a window's reset), or with
    /// none [`PROBE_WAIT`] from now.
    pub(crate) fn report(&mut self, report: &BucketReport, now: u64) {
        if !report.is_plausible() {
            return;
        }
        self.refill(now);
        let level = report.level.min(report.capacity);
        self.level = if self.reported && (self.rate > 0.0 || report.rate > 0.0) {
            self.level.min(level).max(level - self.in_flight(now))
        } else {
            level
        };
        self.capacity = report.capacity;
        if report.rate > 0.0 {
            self.rate = report.rate;
        }
        let hold = if self.rate <= 0.0 && report.hold.is_zero() {
            PROBE_WAIT
        } else {
            report.hold
        };
        self.hold_until = now.saturating_add(nanos(hold));
        self.reported = true;
    }

    /// How long until `take` units are there at `share` (0 to 1) of the rate; zero when
    /// they are. A take above the capacity waits for a full bucket. With no refill known,
    /// what is left is spent, then a call waits for the next probe's turn, the end of the
    /// hold (at once when that turn passed unused). Not capped: a wait past [`MAX_HOLD`]
    /// (a queue that deep, a refill that slow) is refused by every reservation, however
    /// long the call may wait, and a refill too long for a duration is [`Duration::MAX`].
    pub(crate) fn need_share(&self, take: f64, now: u64, share: f64) -> Duration {
        if !self.short_of(take) {
            return Duration::ZERO;
        }
        let hold = Duration::from_nanos(self.hold_until.saturating_sub(now));
        let rate = self.rate * share;
        if rate <= 0.0 {
            return hold;
        }
        let take = take.min(self.capacity);
        let refill = (take - self.level) / rate;
        hold.saturating_add(Duration::try_from_secs_f64(refill).unwrap_or(Duration::MAX))
    }

    /// Whether `take` units (at most the capacity) are more than what is left.
    fn short_of(&self, take: f64) -> bool {
        let take = take.min(self.capacity);
        take > 0.0 && self.level < take
    }

    /// Whether a reservation of `take` units is a probe: a bucket with no known refill,
    /// short of them.
    fn probes(&self, take: f64) -> bool {
        self.rate <= 0.0 && self.short_of(take)
    }

    /// Counts `units` reserved now for calls on their way.
    fn reserved(&mut self, units: f64, now: u64) {
        self.roll(now);
        if units.is_finite() && units > 0.0 {
            self.recent = (self.recent + units).min(self.capacity);
        }
    }

    /// What was reserved in the last one or two [`IN_FLIGHT`] intervals.
    fn in_flight(&mut self, now: u64) -> f64 {
        self.roll(now);
        self.recent + self.before
    }

    /// Starts a new interval of reservations when the current one is over.
    fn roll(&mut self, now: u64) {
        let interval = nanos(IN_FLIGHT);
        let passed = now.saturating_sub(self.recent_at);
        if passed >= interval {
            self.before = if passed >= 2 * interval {
                0.0
            } else {
                self.recent
            };
            self.recent = 0.0;
            self.recent_at = now;
        }
    }

    /// Spends `units` (negative: gives them back, never above the capacity). A spend is a
    /// peer's number at times (a response's usage): it counts at most one bucket either way,
    /// and it never takes the level below minus one bucket, what one window refills, so
    /// that no number locks the key for longer than about two windows. A level that
    /// reservations took lower stays where they took it: they are calls on their way.
    pub(crate) fn spend(&mut self, units: f64) {
        if units.is_finite() {
            let units = units.clamp(-self.capacity, self.capacity);
            let level = self.level - units;
            self.level = if units > 0.0 {
                level.max(self.level.min(-self.capacity))
            } else {
                level.min(self.capacity)
            };
        }
    }

    /// Takes `units` (at most the capacity) for a reservation. Every reservation counts:
    /// the level falls by each one, as far as the waits that reservations may be granted
    /// reach (never below [`floor`](Self::floor)), so that the wait of the next grows with
    /// every reservation ahead of it.
    fn take(&mut self, units: f64) {
        if units.is_finite() && units > 0.0 {
            self.level = (self.level - units.min(self.capacity)).max(self.floor());
        }
    }

    /// The lowest level a bucket may hold: what reservations granted a wait of at most
    /// [`MAX_HOLD`] can owe (a hold's worth of refill), and one bucket more (a probe's
    /// turn, a peer's spend). A stored level below it is one no reservation could make.
    pub(crate) fn floor(&self) -> f64 {
        floor_of(self.capacity, self.rate)
    }

    /// The bucket as a store shows it.
    pub(crate) fn view(&self, now: u64) -> BucketView {
        BucketView {
            capacity: self.capacity,
            level: self.level,
            rate: self.rate,
            hold: Duration::from_nanos(self.hold_until.saturating_sub(now)),
        }
    }

    /// A bucket copied from a store's view, on this clock.
    pub(crate) fn from_view(view: &BucketView, now: u64) -> Bucket {
        Bucket {
            capacity: view.capacity,
            rate: view.rate,
            level: view.level,
            at: now,
            hold_until: now.saturating_add(nanos(view.hold.min(MAX_HOLD))),
            reported: true,
            recent: 0.0,
            before: 0.0,
            recent_at: now,
        }
    }
}

/// Reserves `takes` (units per dimension) on `buckets` at `share` (0 to 1) of their
/// refill, if the longest wait they need, or `before` (a pause, another limit) when longer,
/// is at most `max_wait` and at most [`MAX_HOLD`]: `Ok(wait)` with the units spent,
/// `Err(needed)` with nothing spent (a need past [`MAX_HOLD`] told as [`MAX_HOLD`]).
/// A probe (a bucket with no known refill, short of its take) sets the next probe's turn
/// [`PROBE_WAIT`] after its own. The one reservation of a store's step and of a pacer's own
/// buckets.
pub(crate) fn reserve(
    buckets: &mut [Option<Bucket>; 4],
    takes: &[f64; 4],
    before: Duration,
    max_wait: Duration,
    now: u64,
    share: f64,
) -> Result<Duration, Duration> {
    let mut need = before;
    for (slot, &take) in buckets.iter_mut().zip(takes) {
        if let Some(bucket) = slot
            && take > 0.0
        {
            bucket.refill_share(now, share);
            need = need.max(bucket.need_share(take, now, share));
        }
    }
    if need > max_wait.min(MAX_HOLD) {
        return Err(need.min(MAX_HOLD));
    }
    let next_probe = now
        .saturating_add(nanos(need.saturating_add(PROBE_WAIT)))
        .min(now.saturating_add(nanos(MAX_HOLD)));
    for (slot, &take) in buckets.iter_mut().zip(takes) {
        if let Some(bucket) = slot {
            if bucket.probes(take) {
                bucket.hold_until = next_probe;
            }
            bucket.take(take);
            bucket.reserved(take, now);
        }
    }
    Ok(need)
}

/// Units reserved in one dimension of a key while its store knew no limit of it (no
/// bucket): calls on their way, which the report that first tells the limit may not count
/// yet. Kept for one [`IN_FLIGHT`] interval from the first of them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Unmetered {
    units: f64,
    since: u64,
}

impl Unmetered {
    /// Counts `units` reserved now with no bucket to reserve them from.
    pub(crate) fn add(&mut self, units: f64, now: u64) {
        if !(units.is_finite() && units > 0.0) {
            return;
        }
        if self.units <= 0.0 || now.saturating_sub(self.since) >= nanos(IN_FLIGHT) {
            *self = Unmetered {
                units: 0.0,
                since: now,
            };
        }
        self.units = (self.units + units).min(MAX_UNITS);
    }

    /// The units counted lately, and none kept after.
    pub(crate) fn take(&mut self, now: u64) -> f64 {
        let units = if now.saturating_sub(self.since) < nanos(IN_FLIGHT) {
            self.units
        } else {
            0.0
        };
        *self = Unmetered::default();
        units
    }
}

impl Bucket {
    /// A bucket just made (by a first report or a configured limit) counts what was
    /// reserved before it, while no limit was known: at most its capacity less those units
    /// is left, and they are calls on their way that a later report may not count yet.
    pub(crate) fn made_after(&mut self, unmetered: f64, now: u64) {
        if unmetered > 0.0 {
            self.level = self
                .level
                .min(self.capacity - unmetered)
                .max(-self.capacity);
            self.reserved(unmetered, now);
        }
    }
}

/// Applies `step` to a key's buckets at `now`: what a store does atomically. `unmetered`
/// counts, per dimension, what was reserved while the store knew no limit of it: the
/// first limit known is short of it (the calls that went in the first round trip of a
/// fleet, before any response told the budget, are not spent twice).
pub(crate) fn apply(
    buckets: &mut [Option<Bucket>; 4],
    unmetered: &mut [Unmetered; 4],
    step: &PaceStep,
    now: u64,
) -> PaceAnswer {
    for ((slot, d), unmetered) in buckets
        .iter_mut()
        .zip(&step.dimensions)
        .zip(unmetered.iter_mut())
    {
        let known = slot.is_some();
        if let Some((capacity, rate)) = d.configured_limit() {
            match slot {
                None => *slot = Some(Bucket::configured(capacity, rate, now)),
                // No response has reported the bucket: the limit configured is the one in
                // force.
                Some(bucket) if !bucket.reported => {
                    bucket.refill(now);
                    bucket.capacity = capacity;
                    bucket.rate = rate;
                    bucket.level = bucket.level.min(capacity);
                }
                Some(_) => {}
            }
        }
        if let Some(report) = &d.report
            && report.is_plausible()
        {
            slot.get_or_insert_with(Bucket::default).report(report, now);
        }
        if let Some(bucket) = slot {
            if !known {
                bucket.made_after(unmetered.take(now), now);
            }
            bucket.refill(now);
            bucket.spend(d.spent);
        }
    }
    let takes = step.dimensions.map(|d| d.take);
    let wait = reserve(buckets, &takes, Duration::ZERO, step.max_wait, now, 1.0);
    if wait.is_ok() {
        for ((slot, take), unmetered) in buckets.iter().zip(takes).zip(unmetered.iter_mut()) {
            if slot.is_none() {
                unmetered.add(take, now);
            }
        }
    }
    let mut leased = [0.0; 4];
    if wait == Ok(Duration::ZERO) {
        for ((slot, d), leased) in buckets.iter_mut().zip(&step.dimensions).zip(&mut leased) {
            if let Some(bucket) = slot
                && d.lease.is_finite()
                && d.lease > 0.0
            {
                *leased = d.lease.min(bucket.level.max(0.0));
                bucket.take(*leased);
                bucket.reserved(*leased, now);
            }
        }
    }
    PaceAnswer {
        wait,
        buckets: buckets.map(|b| b.map(|b| b.view(now))),
        replicas: 1,
        leased,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    fn report(capacity: f64, level: f64, rate: f64) -> BucketReport {
        BucketReport {
            capacity,
            level,
            rate,
            hold: Duration::ZERO,
        }
    }

    #[test]
    fn an_empty_bucket_gives_the_next_unit_after_one_refill_interval() {
        let mut b = Bucket::default();
        // 60 a minute, none left: one comes back every second.
        b.report(&report(60.0, 0.0, 1.0), 0);
        assert_eq!(b.need_share(1.0, 0, 1.0), Duration::from_secs(1));
        b.spend(1.0);
        assert_eq!(b.need_share(1.0, 0, 1.0), Duration::from_secs(2));
        b.refill(2 * S);
        assert!((b.level - 1.0).abs() < 1e-9);
    }

    #[test]
    fn a_window_holds_until_its_reset_then_refills_gradually() {
        let mut b = Bucket::default();
        let window = BucketReport {
            capacity: 100.0,
            level: 0.0,
            rate: 100.0 / 60.0,
            hold: Duration::from_secs(30),
        };
        b.report(&window, 0);
        let first = b.need_share(1.0, 0, 1.0);
        assert_eq!(first, Duration::from_millis(30_600));
        b.spend(1.0);
        assert_eq!(b.need_share(1.0, 0, 1.0), Duration::from_millis(31_200));
        b.refill(29 * S);
        assert!((b.level + 1.0).abs() < 1e-9, "no refill before the reset");
    }

    #[test]
    fn the_most_restrictive_report_wins_while_reserved_calls_may_be_on_their_way() {
        let mut b = Bucket::default();
        b.report(&report(100.0, 50.0, 10.0), 0);
        let mut buckets = [Some(b), None, None, None];
        let takes = [10.0, 0.0, 0.0, 0.0];
        assert_eq!(
            reserve(&mut buckets, &takes, Duration::ZERO, Duration::ZERO, 0, 1.0),
            Ok(Duration::ZERO)
        );
        let mut b = buckets[0].unwrap();
        assert_eq!(b.level, 40.0);
        // A response written before the 10 reserved units arrived.
        b.report(&report(100.0, 45.0, 10.0), 0);
        assert_eq!(b.level, 40.0);
        // A higher count lifts what is known, less what may still be on its way.
        b.report(&report(100.0, 80.0, 10.0), 0);
        assert_eq!(b.level, 70.0);
        // A lower one always wins.
        b.report(&report(100.0, 20.0, 10.0), 0);
        assert_eq!(b.level, 20.0);
        // Two minutes on, nothing reserved since: a response saying the budget is back
        // is taken as it is, whatever an older refill rate says.
        b.rate = 1e-6;
        b.report(&report(100.0, 90.0, 0.0), 2 * 60 * S + 1);
        assert_eq!(b.level, 90.0);
    }

    #[test]
    fn a_report_that_first_tells_the_refill_counts_what_was_reserved_since_the_last() {
        let mut b = Bucket::default();
        // 239 of 240 left: no refill to read yet (what is missing is the rounding).
        b.report(&report(240.0, 239.0, 0.0), 0);
        let mut buckets = [Some(b), None, None, None];
        let one = [1.0, 0.0, 0.0, 0.0];
        for _ in 0..30 {
            assert_eq!(
                reserve(&mut buckets, &one, Duration::ZERO, Duration::ZERO, 0, 1.0),
                Ok(Duration::ZERO)
            );
        }
        let mut b = buckets[0].unwrap();
        assert_eq!(b.level, 209.0);
        // A response written before the 30 arrived, the first to tell the refill: it does
        // not give them back.
        b.report(&report(240.0, 235.0, 4.0), 0);
        assert_eq!(b.level, 209.0);
        assert_eq!(b.rate, 4.0);
    }

    #[test]
    fn the_first_limit_known_is_short_of_what_went_before_it() {
        let mut buckets = [None; 4];
        let mut unmetered = [Unmetered::default(); 4];
        let mut step = PaceStep::default();
        step.dimensions[0].take = 1.0;
        // Thirty calls before any response told the limit: nothing holds them.
        for _ in 0..30 {
            let answer = apply(&mut buckets, &mut unmetered, &step, 0);
            assert_eq!(answer.wait, Ok(Duration::ZERO));
            assert_eq!(answer.buckets[0], None);
        }
        // The first report was written when 10 of them had arrived: 230 of 240 left, of
        // which the 20 others are spent, and on their way.
        step.dimensions[0].report = Some(report(240.0, 230.0, 4.0));
        step.dimensions[0].take = 0.0;
        let answer = apply(&mut buckets, &mut unmetered, &step, 0);
        assert_eq!(answer.buckets[0].map(|b| b.level), Some(210.0));
        assert_eq!(unmetered[0], Unmetered::default());
        // A later report that still misses them does not give them back.
        step.dimensions[0].report = Some(report(240.0, 225.0, 4.0));
        let answer = apply(&mut buckets, &mut unmetered, &step, 0);
        assert_eq!(answer.buckets[0].map(|b| b.level), Some(210.0));
        // Units older than the interval of calls on their way are not counted.
        let mut late = [None; 4];
        let mut old = [Unmetered::default(); 4];
        step.dimensions[0].report = None;
        step.dimensions[0].take = 1.0;
        apply(&mut late, &mut old, &step, 0);
        step.dimensions[0].report = Some(report(240.0, 230.0, 4.0));
        step.dimensions[0].take = 0.0;
        let answer = apply(&mut late, &mut old, &step, 2 * nanos(IN_FLIGHT));
        assert_eq!(answer.buckets[0].map(|b| b.level), Some(230.0));
    }

    #[test]
    fn implausible_reports_change_nothing() {
        let mut b = Bucket::default();
        b.report(&report(100.0, 50.0, 10.0), 0);
        for bad in [
            report(f64::NAN, 1.0, 1.0),
            report(100.0, -1.0, 1.0),
            report(100.0, 1.0, f64::INFINITY),
            report(0.0, 0.0, 1.0),
        ] {
            b.report(&bad, 0);
        }
        assert_eq!(b.level, 50.0);
        assert_eq!(b.capacity, 100.0);
    }

    #[test]
    fn a_bucket_with_no_known_rate_is_spent_then_lets_one_probe_through_a_second() {
        // Five left, no refill said (Azure sends only what remains).
        let mut buckets = [Some(Bucket::default()), None, None, None];
        buckets[0]
            .as_mut()
            .unwrap()
            .report(&report(5.0, 5.0, 0.0), 0);
        let one = [1.0, 0.0, 0.0, 0.0];
        let long = Duration::from_secs(60);
        let waits: Vec<_> = (0..8)
            .map(|_| reserve(&mut buckets, &one, Duration::ZERO, long, 0, 1.0))
            .collect();
        let s = Duration::from_secs;
        let now = Ok(Duration::ZERO);
        assert_eq!(
            waits,
            [now, now, now, now, now, Ok(s(1)), Ok(s(2)), Ok(s(3))]
        );
        // A call that may not wait is told the next probe's turn, and spends nothing.
        let level = buckets[0].unwrap().level;
        assert_eq!(
            reserve(&mut buckets, &one, Duration::ZERO, Duration::ZERO, 0, 1.0),
            Err(s(4))
        );
        assert_eq!(buckets[0].unwrap().level, level);
        // Long after the probes, a turn that passed unused is taken at once, and the next
        // is the short default later.
        let late = |buckets: &mut [Option<Bucket>; 4]| {
            reserve(buckets, &one, Duration::ZERO, long, 100 * S, 1.0)
        };
        assert_eq!(late(&mut buckets), Ok(Duration::ZERO));
        assert_eq!(late(&mut buckets), Ok(s(1)));
    }

    #[test]
    fn a_step_reserves_only_within_its_max_wait() {
        let mut buckets = [None; 4];
        let mut step = PaceStep::default();
        step.dimensions[0].report = Some(report(10.0, 0.0, 1.0));
        step.dimensions[0].take = 1.0;
        step.max_wait = Duration::from_millis(500);
        let mut unmetered = [Unmetered::default(); 4];
        let answer = apply(&mut buckets, &mut unmetered, &step, 0);
        assert_eq!(answer.wait, Err(Duration::from_secs(1)));
        assert_eq!(buckets[0].unwrap().level, 0.0);
        step.dimensions[0].report = None;
        step.max_wait = Duration::from_secs(5);
        assert_eq!(
            apply(&mut buckets, &mut unmetered, &step, 0).wait,
            Ok(Duration::from_secs(1))
        );
        assert_eq!(buckets[0].unwrap().level, -1.0);
    }
}
