//! [`LocalStore`]: every concept's state in one process, bounded in memory.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::bucket::{self, Bucket, Unmetered};
use super::pause::max_jitter_of;
use super::{
    BreakerRule, BudgetStore, CircuitState, CircuitStore, Clock, PaceAnswer, PaceStep, PaceStore,
    Pause, PauseKind, PauseStore, StoreFuture, SystemClock, TrialToken, WaitLimit, nanos,
};

/// The in-process [`Store`]: what `Fallback`, `CircuitBreaker` and the retrier keep
/// without a shared store, as a value that several of them (or several tasks) can share.
///
/// Every answer is immediate. Memory is bounded: at most [`capacity`](Self::capacity) keys
/// of each kind (pauses, cooldowns, circuits, budgets, pacing keys; 4,096 by default);
/// when full, entries that carry nothing any more go first, then any, down to 15/16 of the
/// capacity (a new key costs the same however many busy keys are kept).
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use agent_error::recover::{LocalStore, Store};
/// use agent_error::store::PauseKind;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store: Arc<dyn Store> = Arc::new(LocalStore::new());
/// let key = "openai/acct-1/gpt-4o";
/// store.set_pause(PauseKind::Pause, key, Duration::from_secs(30), "rate_limit").await;
/// store.set_pause(PauseKind::Pause, key, Duration::from_secs(10), "rate_limit").await;
/// let pause = store.pause(PauseKind::Pause, key).await.unwrap();
/// assert!(pause.remaining > Duration::from_secs(29)); // the later deadline won
/// # });
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
    cooldowns: HashMap<String, LocalPause>,
    circuits: HashMap<String, LocalCircuit>,
    budgets: HashMap<String, u32>,
    paces: HashMap<String, PaceEntry>,
}

impl Entries {
    /// The pauses of `kind`: each kind a map of its own, so that no key reaches another's.
    fn of_kind(&mut self, kind: PauseKind) -> &mut HashMap<String, LocalPause> {
        match kind {
            PauseKind::Pause => &mut self.pauses,
            PauseKind::Cooldown => &mut self.cooldowns,
        }
    }
}

/// A key's pacing buckets, and the replicas that stepped on it lately (id, when).
#[derive(Default)]
struct PaceEntry {
    buckets: [Option<Bucket>; 4],
    unmetered: [Unmetered; 4],
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

    /// An empty store reading time from `clock` (a [`ManualClock`](crate::recover::ManualClock) in tests).
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

    /// The pause of `kind` on `key` now (no future to poll).
    pub fn pause_now(&self, kind: PauseKind, key: &str) -> Option<Pause> {
        let now = self.now();
        let mut entries = self.entries();
        let p = entries.of_kind(kind).get(key)?;
        to_pause(p, now)
    }

    /// Sets a pause of `kind` now (no future to poll); the later deadline wins.
    pub fn set_pause_now(&self, kind: PauseKind, key: &str, wait: Duration, code: &str) -> Pause {
        let now = self.now();
        let until = now.saturating_add(nanos(wait));
        let mut entries = self.entries();
        let pauses = entries.of_kind(kind);
        make_room(pauses, key, self.capacity, |p| p.ends() <= now);
        let entry = pauses.entry(key.to_owned()).or_insert_with(|| LocalPause {
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
        let mut answer = bucket::apply(&mut entry.buckets, &mut entry.unmetered, step, now);
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

/// Frees a place for `key` in a full map: entries that `idle` calls empty first, then any,
/// down to 15/16 of the capacity, so that the scan runs at most once every sixteenth of
/// the capacity's new keys (keys may come from a tenant's input: a map full of busy keys
/// costs O(1) amortised a new key, not a scan each).
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
    let keep = capacity - capacity.div_ceil(16);
    if map.len() > keep {
        let extra: Vec<String> = map.keys().take(map.len() - keep).cloned().collect();
        for k in extra {
            map.remove(&k);
        }
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

impl PauseStore for LocalStore {
    fn pause<'a>(&'a self, kind: PauseKind, key: &'a str) -> StoreFuture<'a, Option<Pause>> {
        Box::pin(std::future::ready(self.pause_now(kind, key)))
    }

    fn set_pause<'a>(
        &'a self,
        kind: PauseKind,
        key: &'a str,
        wait: Duration,
        code: &'a str,
    ) -> StoreFuture<'a, Pause> {
        Box::pin(std::future::ready(
            self.set_pause_now(kind, key, wait, code),
        ))
    }
}

impl CircuitStore for LocalStore {
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
}

impl BudgetStore for LocalStore {
    fn spend<'a>(&'a self, key: &'a str, cost: u32, capacity: u32) -> StoreFuture<'a, bool> {
        Box::pin(std::future::ready(self.spend_now(key, cost, capacity)))
    }

    fn refill<'a>(&'a self, key: &'a str, tokens: u32, capacity: u32) -> StoreFuture<'a, ()> {
        self.refill_now(key, tokens, capacity);
        Box::pin(std::future::ready(()))
    }
}

impl PaceStore for LocalStore {
    fn pace<'a>(&'a self, key: &'a str, step: PaceStep) -> StoreFuture<'a, Option<PaceAnswer>> {
        Box::pin(std::future::ready(Some(self.pace_now(key, &step))))
    }
}

/// Answers at once.
impl WaitLimit for LocalStore {}

/// Every concept's state in one store: what [`LocalStore`] and a shared store implement,
/// and what a value that keeps several kinds of state (or a user who hands one store to
/// every value) names. Implemented for any type that implements the four concept traits;
/// an `Arc<dyn Store>` is taken wherever one concept's store is (trait upcasting).
///
/// ```
/// use std::sync::Arc;
/// use agent_error::recover::{CircuitBreaker, LocalStore, Store};
///
/// let store: Arc<dyn Store> = Arc::new(LocalStore::new());
/// let breaker = CircuitBreaker::new().store(store.clone());
/// # let _ = breaker;
/// ```
pub trait Store: PauseStore + CircuitStore + BudgetStore + PaceStore {}

impl<T: PauseStore + CircuitStore + BudgetStore + PaceStore + ?Sized> Store for T {}
