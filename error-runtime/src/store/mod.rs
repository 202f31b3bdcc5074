//! `Store`: where the resilience state that a fleet of replicas must share is kept —
//! cooldowns and server-announced pauses, circuit breakers, retry budgets — with
//! `LocalStore`, the in-process one, and the `Clock` it reads. Below `retry` and `recover`,
//! which both keep such state; its public names are `recover::`'s.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

mod bucket;
mod clock;

pub(crate) use bucket::{Bucket, reserve};
pub use bucket::{
    BucketReport, BucketView, Dimension, DimensionStep, MAX_HOLD, PaceAnswer, PaceStep,
};
pub use clock::{Clock, ManualClock, SystemClock};
pub(crate) use clock::{nanos, seconds_text};

/// The future a [`Store`] operation returns: boxed, so that the trait stays object safe.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A pause (or cooldown) on a key, as a [`Store`] knows it: how long until its deadline,
/// how long it lasts in all, and the code that caused it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pause {
    /// How long until the deadline; zero once it has passed.
    pub remaining: Duration,
    /// How long ago the deadline passed; zero before it.
    pub overdue: Duration,
    /// How long the pause lasts in all, from when it was set.
    pub length: Duration,
    /// The code of the error that set it (`rate_limit`, `provider_unavailable`, …).
    pub code: String,
}

impl Pause {
    /// The most a replica adds after the deadline so that a fleet does not wake at one
    /// instant: a fifth of the pause, at most one second.
    pub fn max_jitter(&self) -> Duration {
        max_jitter_of(self.length)
    }

    /// How long to wait from now: until the deadline plus `fraction` (0 to 1) of
    /// [`max_jitter`](Self::max_jitter) — jitter is only ever added after the deadline, so
    /// that replicas drawing different fractions wake at different instants after it.
    pub fn wait(&self, fraction: f64) -> Duration {
        let fraction = if fraction.is_finite() {
            fraction.clamp(0.0, 1.0)
        } else {
            0.0
        };
        self.remaining
            .saturating_add(self.max_jitter().mul_f64(fraction))
            .saturating_sub(self.overdue)
    }
}

/// The right to make the one trial call of a half-open circuit, fleet-wide: a token the
/// trial's result is reported with. It expires by itself after its lease, so that a
/// replica that dies during the trial does not keep the circuit half-open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TrialToken(pub u64);

/// When a circuit breaker opens and for how long, as a [`Store`] applies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BreakerRule {
    /// Failures in a row that open the circuit.
    pub threshold: u32,
    /// How long it stays open before one trial call.
    pub cooldown: Duration,
}

/// The state that [`Fallback`](crate::recover::Fallback) (cooldowns), [`CircuitBreaker`](crate::recover::CircuitBreaker)
/// (per-key circuits) and the [`Retrier`](crate::retry::Retrier) (server-announced pauses,
/// and opt-in its budget) keep, behind one object-safe trait: [`LocalStore`] in one
/// process, a shared store (such as the Redis one of the `redis` feature) across a fleet.
///
/// Every method takes a key that names one entity: a fallback candidate, a tool, a pause
/// key such as `openai/acct-1/gpt-4o`, a budget. Pauses, circuits and budgets live in
/// separate name spaces, so one key can name a tool's circuit and its pause.
///
/// Operations are async where a store must talk to a server, and return a [`StoreFuture`];
/// an in-process store answers at once. A store decides itself what to do when it cannot
/// reach its server (serve its local copy, fail open, fail closed); its futures always
/// complete, within the time [`wait_limit`](Self::wait_limit) gives. A future polled
/// once that time has passed answers as the store does without its server, even when
/// what it waited for could not run meanwhile: a blocking caller on the thread of a
/// one-thread async runtime keeps the runtime from reaching the server, and must still
/// get the state the store serves then.
///
/// No method holds anything across the caller's own call: a trial is a token with a lease,
/// not a lock.
pub trait Store: Send + Sync + fmt::Debug {
    /// The pause on `key` in force, if any (including one whose deadline passed less than
    /// its jitter ago, with `remaining` zero).
    fn pause<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Pause>>;

    /// Pauses `key` for `wait` from now because of an error with code `code`; when a later
    /// deadline is already set it stays (the later deadline wins). Returns the pause in force.
    fn set_pause<'a>(
        &'a self,
        key: &'a str,
        wait: Duration,
        code: &'a str,
    ) -> StoreFuture<'a, Pause>;

    /// The state of `key`'s circuit. An open circuit whose cooldown has passed, or a
    /// half-open one whose trial's lease expired, is `Open { closes_in: 0 }`: a trial may
    /// be claimed.
    fn circuit<'a>(&'a self, key: &'a str) -> StoreFuture<'a, CircuitState>;

    /// Counts one more failure in a row on `key`'s closed circuit, opening it at the
    /// rule's threshold. Returns the state after.
    fn record_failure<'a>(
        &'a self,
        key: &'a str,
        rule: BreakerRule,
    ) -> StoreFuture<'a, CircuitState>;

    /// A call on `key`'s closed circuit succeeded: its failures in a row go back to zero.
    fn record_success<'a>(&'a self, key: &'a str) -> StoreFuture<'a, ()>;

    /// Claims the one trial call of `key`'s circuit, whose cooldown has passed: a token
    /// valid for `lease`, or `None` when the circuit is closed, still cooling down, or
    /// another caller (anywhere in the fleet) holds the trial.
    fn claim_trial<'a>(
        &'a self,
        key: &'a str,
        lease: Duration,
    ) -> StoreFuture<'a, Option<TrialToken>>;

    /// Reports the trial's result with its token: success closes the circuit, failure
    /// opens it for the rule's cooldown. A token that expired or was replaced changes nothing.
    fn finish_trial<'a>(
        &'a self,
        key: &'a str,
        token: TrialToken,
        ok: bool,
        rule: BreakerRule,
    ) -> StoreFuture<'a, ()>;

    /// Gives the trial up without a result (the call was dropped): the next caller may
    /// claim it. Best effort and non-blocking; the lease ends it anyway.
    fn abandon_trial(&self, key: &str, token: TrialToken);

    /// Spends `cost` tokens of the budget `key` (which holds `capacity` when new) if it
    /// has them; `false` and nothing spent otherwise.
    fn spend<'a>(&'a self, key: &'a str, cost: u32, capacity: u32) -> StoreFuture<'a, bool>;

    /// Puts `tokens` back into the budget `key`, never above `capacity`.
    fn refill<'a>(&'a self, key: &'a str, tokens: u32, capacity: u32) -> StoreFuture<'a, ()>;

    /// Applies one pacing step to `key`'s buckets atomically (see [`PaceStep`]): what a
    /// [`Pacer`](crate::recover::Pacer) that shares its budgets through this store sends when
    /// its local copy is stale or short. `None` when the store does not keep budgets for
    /// pacers (the default), or cannot reach its server: the pacer then paces alone, with
    /// its share of the limit it last knew.
    fn pace<'a>(&'a self, key: &'a str, step: PaceStep) -> StoreFuture<'a, Option<PaceAnswer>> {
        let _ = (key, step);
        Box::pin(std::future::ready(None))
    }

    /// The longest a blocking caller waits for one operation; it then polls the future
    /// once more, and the store answers without its server. Zero for a store that answers
    /// at once.
    fn wait_limit(&self) -> Duration {
        Duration::ZERO
    }
}

/// The in-process [`Store`]: what `Fallback`, `CircuitBreaker` and the retrier keep
/// without a shared store, as a value that several of them (or several tasks) can share.
///
/// Every answer is immediate. Memory is bounded: at most [`capacity`](Self::capacity) keys
/// of each kind (4,096 by default); when full, entries that carry nothing any more go
/// first, then the oldest.
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use agent_error::recover::{LocalStore, Store};
///
/// # futures_lite_block_on(async {
/// let store: Arc<dyn Store> = Arc::new(LocalStore::new());
/// store.set_pause("openai/acct-1/gpt-4o", Duration::from_secs(30), "rate_limit").await;
/// store.set_pause("openai/acct-1/gpt-4o", Duration::from_secs(10), "rate_limit").await;
/// let pause = store.pause("openai/acct-1/gpt-4o").await.unwrap();
/// assert!(pause.remaining > Duration::from_secs(29)); // the later deadline won
/// # });
/// # fn futures_lite_block_on(f: impl std::future::Future<Output = ()>) {
/// #     agent_error::recover::block_on(f, std::time::Duration::ZERO);
/// # }
/// ```
pub struct LocalStore {
    clock: Arc<dyn Clock>,
    capacity: usize,
    state: Mutex<Entries>,
    tokens: AtomicU64,
}

#[derive(Default)]
struct Entries {
    pauses: HashMap<String, LocalPause>,
    circuits: HashMap<String, LocalCircuit>,
    budgets: HashMap<String, u32>,
    paces: HashMap<String, PaceEntry>,
}

/// A key's pacing buckets, and the replicas that stepped on it lately (id, when).
#[derive(Default)]
struct PaceEntry {
    buckets: [Option<Bucket>; 4],
    replicas: Vec<(u64, u64)>,
}

/// How long a replica counts as sharing a key after its last step.
const REPLICA_SEEN: u64 = 10_000_000_000;
/// The most replicas counted per key.
const MAX_REPLICAS: usize = 64;

#[derive(Clone)]
struct LocalPause {
    /// Deadline and start, in the clock's nanoseconds.
    until: u64,
    set_at: u64,
    code: String,
}

impl LocalPause {
    /// When the pause stops being in force: its deadline plus the most jitter after it.
    fn ends(&self) -> u64 {
        let length = Duration::from_nanos(self.until.saturating_sub(self.set_at));
        self.until.saturating_add(nanos(max_jitter_of(length)))
    }
}

/// [`Pause::max_jitter`] of a pause `length` long.
fn max_jitter_of(length: Duration) -> Duration {
    (length / 5).min(Duration::from_secs(1))
}

#[derive(Clone, Default)]
struct LocalCircuit {
    failures: u32,
    /// When an open circuit lets a trial through, in the clock's nanoseconds; 0 closed.
    until: u64,
    /// The trial running: its token and the end of its lease.
    trial: Option<(u64, u64)>,
}

impl fmt::Debug for LocalStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalStore")
            .field("capacity", &self.capacity)
            .finish_non_exhaustive()
    }
}

impl Default for LocalStore {
    fn default() -> Self {
        Self::new()
    }
}

impl LocalStore {
    /// The default number of keys of each kind kept at most: 4,096.
    pub const DEFAULT_CAPACITY: usize = 4096;

    /// An empty store on the real monotonic clock.
    pub fn new() -> Self {
        Self::with_clock(SystemClock)
    }

    /// An empty store reading time from `clock` (a [`ManualClock`](ManualClock) in tests).
    pub fn with_clock(clock: impl Clock + 'static) -> Self {
        LocalStore {
            clock: Arc::new(clock),
            capacity: Self::DEFAULT_CAPACITY,
            state: Mutex::new(Entries::default()),
            tokens: AtomicU64::new(1),
        }
    }

    /// Keeps at most `keys` keys of each kind (at least 1).
    #[must_use]
    pub fn capacity(mut self, keys: usize) -> Self {
        self.capacity = keys.max(1);
        self
    }

    fn now(&self) -> u64 {
        nanos(self.clock.now())
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The pause on `key` now (no future to poll).
    pub fn pause_now(&self, key: &str) -> Option<Pause> {
        let now = self.now();
        let entries = self.entries();
        let p = entries.pauses.get(key)?;
        to_pause(p, now)
    }

    /// Sets a pause now (no future to poll); the later deadline wins.
    pub fn set_pause_now(&self, key: &str, wait: Duration, code: &str) -> Pause {
        let now = self.now();
        let until = now.saturating_add(nanos(wait));
        let mut entries = self.entries();
        let capacity = self.capacity;
        make_room(&mut entries.pauses, key, capacity, |p| p.ends() <= now);
        let entry = entries
            .pauses
            .entry(key.to_owned())
            .or_insert_with(|| LocalPause {
                until: 0,
                set_at: now,
                code: String::new(),
            });
        if until > entry.until {
            *entry = LocalPause {
                until,
                set_at: now,
                code: code.to_owned(),
            };
        }
        to_pause(entry, now).unwrap_or(Pause {
            remaining: Duration::ZERO,
            overdue: Duration::ZERO,
            length: wait,
            code: code.to_owned(),
        })
    }

    /// The state of `key`'s circuit now (no future to poll).
    pub fn circuit_now(&self, key: &str) -> CircuitState {
        let now = self.now();
        let entries = self.entries();
        match entries.circuits.get(key) {
            Some(c) => circuit_state(c, now),
            None => CircuitState::Closed { failures: 0 },
        }
    }

    /// Records a failure now (no future to poll).
    pub fn record_failure_now(&self, key: &str, rule: BreakerRule) -> CircuitState {
        let now = self.now();
        let mut entries = self.entries();
        let capacity = self.capacity;
        make_room(&mut entries.circuits, key, capacity, |c| {
            c.failures == 0 && c.until == 0
        });
        let c = entries.circuits.entry(key.to_owned()).or_default();
        c.failures = c.failures.saturating_add(1);
        if c.until == 0 && c.failures >= rule.threshold.max(1) {
            c.until = now.saturating_add(nanos(rule.cooldown)).max(1);
        }
        circuit_state(c, now)
    }

    /// Records a success now (no future to poll).
    pub fn record_success_now(&self, key: &str) {
        let mut entries = self.entries();
        if let Some(c) = entries.circuits.get_mut(key)
            && c.until == 0
        {
            c.failures = 0;
        }
    }

    /// Claims the trial now (no future to poll).
    pub fn claim_trial_now(&self, key: &str, lease: Duration) -> Option<TrialToken> {
        let now = self.now();
        let mut entries = self.entries();
        let c = entries.circuits.get_mut(key)?;
        if c.until == 0 || now < c.until {
            return None;
        }
        if let Some((_, lease_end)) = c.trial
            && now < lease_end
        {
            return None;
        }
        let token = self.tokens.fetch_add(1, Ordering::Relaxed);
        c.trial = Some((token, now.saturating_add(nanos(lease))));
        Some(TrialToken(token))
    }

    /// Reports a trial now (no future to poll).
    pub fn finish_trial_now(&self, key: &str, token: TrialToken, ok: bool, rule: BreakerRule) {
        let now = self.now();
        let mut entries = self.entries();
        let Some(c) = entries.circuits.get_mut(key) else {
            return;
        };
        if c.trial.map(|(t, _)| t) != Some(token.0) {
            return;
        }
        c.trial = None;
        if ok {
            c.failures = 0;
            c.until = 0;
        } else {
            c.failures = c.failures.saturating_add(1);
            c.until = now.saturating_add(nanos(rule.cooldown)).max(1);
        }
    }

    /// Spends from a budget now (no future to poll).
    pub fn spend_now(&self, key: &str, cost: u32, capacity: u32) -> bool {
        let mut entries = self.entries();
        let keys = self.capacity;
        make_room(&mut entries.budgets, key, keys, |_| true);
        let tokens = entries.budgets.entry(key.to_owned()).or_insert(capacity);
        match tokens.checked_sub(cost) {
            Some(left) => {
                *tokens = left;
                true
            }
            None => false,
        }
    }

    /// Applies a pacing step now (no future to poll).
    pub fn pace_now(&self, key: &str, step: &PaceStep) -> PaceAnswer {
        let now = self.now();
        let mut entries = self.entries();
        let capacity = self.capacity;
        make_room(&mut entries.paces, key, capacity, |entry| {
            entry.buckets.iter().flatten().all(|b| {
                let mut b = *b;
                b.refill(now);
                b.level >= b.capacity
            })
        });
        let entry = entries.paces.entry(key.to_owned()).or_default();
        entry
            .replicas
            .retain(|(id, seen)| *id != step.replica && now.saturating_sub(*seen) < REPLICA_SEEN);
        entry.replicas.truncate(MAX_REPLICAS - 1);
        entry.replicas.push((step.replica, now));
        let mut answer = bucket::apply(&mut entry.buckets, step, now);
        answer.replicas = u32::try_from(entry.replicas.len()).unwrap_or(u32::MAX);
        answer
    }

    /// Refills a budget now (no future to poll).
    pub fn refill_now(&self, key: &str, tokens: u32, capacity: u32) {
        let mut entries = self.entries();
        if let Some(t) = entries.budgets.get_mut(key) {
            *t = t.saturating_add(tokens).min(capacity);
        }
    }
}

/// Frees a place for `key` in a full map: entries that `idle` calls empty first, then any one.
fn make_room<V>(
    map: &mut HashMap<String, V>,
    key: &str,
    capacity: usize,
    idle: impl Fn(&V) -> bool,
) {
    if map.len() < capacity || map.contains_key(key) {
        return;
    }
    map.retain(|_, v| !idle(v));
    if map.len() >= capacity
        && let Some(k) = map.keys().next().cloned()
    {
        map.remove(&k);
    }
}

fn to_pause(p: &LocalPause, now: u64) -> Option<Pause> {
    (now < p.ends()).then(|| Pause {
        remaining: Duration::from_nanos(p.until.saturating_sub(now)),
        overdue: Duration::from_nanos(now.saturating_sub(p.until)),
        length: Duration::from_nanos(p.until.saturating_sub(p.set_at)),
        code: p.code.clone(),
    })
}

fn circuit_state(c: &LocalCircuit, now: u64) -> CircuitState {
    if c.until == 0 {
        return CircuitState::Closed {
            failures: c.failures,
        };
    }
    if let Some((_, lease_end)) = c.trial
        && now < lease_end
    {
        return CircuitState::HalfOpen;
    }
    CircuitState::Open {
        closes_in: Duration::from_nanos(c.until.saturating_sub(now)),
    }
}

impl Store for LocalStore {
    fn pause<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Pause>> {
        Box::pin(std::future::ready(self.pause_now(key)))
    }

    fn set_pause<'a>(
        &'a self,
        key: &'a str,
        wait: Duration,
        code: &'a str,
    ) -> StoreFuture<'a, Pause> {
        Box::pin(std::future::ready(self.set_pause_now(key, wait, code)))
    }

    fn circuit<'a>(&'a self, key: &'a str) -> StoreFuture<'a, CircuitState> {
        Box::pin(std::future::ready(self.circuit_now(key)))
    }

    fn record_failure<'a>(
        &'a self,
        key: &'a str,
        rule: BreakerRule,
    ) -> StoreFuture<'a, CircuitState> {
        Box::pin(std::future::ready(self.record_failure_now(key, rule)))
    }

    fn record_success<'a>(&'a self, key: &'a str) -> StoreFuture<'a, ()> {
        self.record_success_now(key);
        Box::pin(std::future::ready(()))
    }

    fn claim_trial<'a>(
        &'a self,
        key: &'a str,
        lease: Duration,
    ) -> StoreFuture<'a, Option<TrialToken>> {
        Box::pin(std::future::ready(self.claim_trial_now(key, lease)))
    }

    fn finish_trial<'a>(
        &'a self,
        key: &'a str,
        token: TrialToken,
        ok: bool,
        rule: BreakerRule,
    ) -> StoreFuture<'a, ()> {
        self.finish_trial_now(key, token, ok, rule);
        Box::pin(std::future::ready(()))
    }

    fn abandon_trial(&self, key: &str, token: TrialToken) {
        let mut entries = self.entries();
        if let Some(c) = entries.circuits.get_mut(key)
            && c.trial.map(|(t, _)| t) == Some(token.0)
        {
            c.trial = None;
        }
    }

    fn spend<'a>(&'a self, key: &'a str, cost: u32, capacity: u32) -> StoreFuture<'a, bool> {
        Box::pin(std::future::ready(self.spend_now(key, cost, capacity)))
    }

    fn refill<'a>(&'a self, key: &'a str, tokens: u32, capacity: u32) -> StoreFuture<'a, ()> {
        self.refill_now(key, tokens, capacity);
        Box::pin(std::future::ready(()))
    }

    fn pace<'a>(&'a self, key: &'a str, step: PaceStep) -> StoreFuture<'a, Option<PaceAnswer>> {
        Box::pin(std::future::ready(Some(self.pace_now(key, &step))))
    }
}

/// Runs a store's future to completion on this thread, for the blocking APIs: it waits at
/// most `limit` once the future has stopped answering at once (an in-process store's
/// futures are ready at the first poll), polls it once more when the limit has passed,
/// and gives up with `None` only if it is still pending then.
///
/// On a thread that must itself drive the future (a one-thread async runtime's own
/// thread) the limit always passes, and a [`Store`] then answers without its server (see
/// [`Store::wait_limit`]). The async APIs await instead, and never call this.
pub fn block_on<F: Future>(future: F, limit: Duration) -> Option<F::Output> {
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    let started = Instant::now();
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return Some(out);
        }
        let left = limit.saturating_sub(started.elapsed());
        if left.is_zero() {
            return None;
        }
        std::thread::park_timeout(left);
    }
}

/// The state of one key's circuit, as [`CircuitBreaker::state`](crate::recover::CircuitBreaker::state) reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CircuitState {
    /// Calls run; `failures` is how many failed in a row.
    Closed {
        /// Failures in a row.
        failures: u32,
    },
    /// Calls fail fast; the next call after `closes_in` is the trial.
    Open {
        /// How long until a trial call is let through.
        closes_in: Duration,
    },
    /// The one trial call is running; other calls fail fast.
    HalfOpen,
}
