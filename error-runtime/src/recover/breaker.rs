//! `CircuitBreaker`: a key (a tool's name) that keeps failing is disabled for a cooldown,
//! then one trial call closes or reopens it. Atomics per key, a short lock for the map.

use std::borrow::Cow;
use std::collections::HashMap;
use std::error::Error as StdError;
use std::fmt;
use std::future::Future;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use crate::catalog::{Catalog, CodeDoc};
use crate::chain::ErrorChain;
use crate::store::{
    BreakerRule, CircuitState, CircuitStore, Clock, SystemClock, TrialToken, block_on, nanos,
    seconds_text,
};
use crate::{AgentError, Recovery, RetryPolicy};

/// The code of [`CircuitOpen`], as `tool::ToolError::ToolDisabled` has it.
pub const TOOL_DISABLED: &str = "TOOL_DISABLED";

/// Disables a key (a tool's name, an endpoint) after consecutive failures.
///
/// Each key is a circuit:
/// - **closed**: calls run; after [`threshold`](Self::threshold) failures in a row (5 by
///   default) it opens;
/// - **open**: calls fail fast with [`CircuitOpen`] (code `TOOL_DISABLED`, recovery
///   `replan`, a hint that says when it may close) without running, until the
///   [`cooldown`](Self::cooldown) (60 s by default) has passed;
/// - **half-open**: the first call after the cooldown is the one trial; every other call
///   fails fast while it runs, even from many threads at once. Its success closes the
///   circuit, its failure opens it for another cooldown, and a trial dropped unfinished (a
///   panic, a cancelled future) lets the next call be the trial.
///
/// Thread-safe, with no background thread: time is read from the [`Clock`] when a call
/// fails or meets an open circuit. A circuit's state is two atomics; the map of keys is
/// behind a read-write lock taken briefly, for writing only when a key fails for the first
/// time. A call on a key that has never failed adds nothing.
///
/// Memory is bounded: at most [`capacity`](Self::capacity) keys (1,024 by default) are
/// tracked. When a key must be added to a full map, the keys that carry nothing (closed,
/// no failure in a row) are dropped first; if none can, the key whose last failure is the
/// oldest goes, so that a flood of new keys can forget one old failing key but never
/// grows the map. Keys are hashed with a fast non-cryptographic hash (a closed call is a
/// few tens of nanoseconds); since only failing keys are added and the map is capped,
/// crafted colliding keys cost at most a scan of `capacity` entries.
///
/// ```
/// use std::time::Duration;
/// use agent_error::recover::{CircuitBreaker, CircuitOpen, ManualClock};
/// use agent_error::{codes, AgentError, Error, Recovery};
///
/// let clock = ManualClock::new();
/// let breaker = CircuitBreaker::new().threshold(2).clock(clock.clone());
/// let fetch = || Err::<(), _>(Box::<dyn std::error::Error + Send + Sync>::from(
///     Error::new("fetch", codes::TOOL_FAILED, "HTTP 500 from example.com"),
/// ));
/// assert!(breaker.call("fetch", fetch).is_err());
/// assert!(breaker.call("fetch", fetch).is_err()); // the second failure in a row opens it
///
/// let err = breaker.call("fetch", || -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
///     unreachable!("an open circuit does not run the call")
/// }).unwrap_err();
/// let open = err.downcast_ref::<CircuitOpen>().unwrap();
/// assert_eq!(open.to_string(), "fetch [TOOL_DISABLED]: disabled by the circuit breaker after 2 consecutive errors");
/// assert_eq!(open.recovery(), Recovery::Replan);
/// assert_eq!(open.hints(), ["this tool is disabled for 60s more, then one trial call may enable it; reach the goal another way"]);
///
/// clock.advance(Duration::from_secs(60));
/// assert_eq!(breaker.call("fetch", || Ok::<_, Box<dyn std::error::Error + Send + Sync>>(7)).unwrap(), 7);
/// ```
pub struct CircuitBreaker {
    threshold: u32,
    cooldown: Duration,
    capacity: usize,
    clock: Arc<dyn Clock>,
    circuits: RwLock<HashMap<Box<str>, Arc<Circuit>, BuildHasherDefault<KeyHasher>>>,
    /// How many keys the map holds, read without the lock: 0 lets every call through.
    tracked: AtomicUsize,
    /// A shared store, when the circuits live there instead of in `circuits`.
    store: Option<Arc<dyn CircuitStore>>,
    trial_lease: Duration,
    /// Which errors count as the tool's failures; `None`: [`tool_is_failing`].
    counts: Option<Arc<Counts>>,
    /// Told each change of a circuit's state this breaker makes.
    on_transition: Option<Arc<OnTransition>>,
}

/// A hook told each change of a circuit's state: the key and the state it moved to.
type OnTransition = dyn Fn(&str, CircuitState) + Send + Sync;

/// A predicate that says whether an error counts as a failure of the tool.
type Counts = dyn Fn(&(dyn StdError + 'static)) -> bool + Send + Sync;

/// The default of [`CircuitBreaker::counts`]: whether `err` says that the tool itself is
/// failing, and not that the call was wrong.
fn tool_is_failing(err: &(dyn StdError + 'static)) -> bool {
    match crate::classify(err) {
        None => true,
        Some(c) => c.is_retryable() || matches!(c.code(), crate::codes::TOOL_FAILED | "INTERNAL"),
    }
}

/// FxHash (rustc's): a multiply and a rotate a word, enough for short tool names.
#[derive(Default)]
struct KeyHasher(u64);

impl KeyHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl fmt::Debug for CircuitBreaker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CircuitBreaker")
            .field("threshold", &self.threshold)
            .field("cooldown", &self.cooldown)
            .field("capacity", &self.capacity)
            .finish_non_exhaustive()
    }
}

impl Default for CircuitBreaker {
    fn default() -> Self {
        Self::new()
    }
}

/// One key's circuit: the failures in a row, and the state with the end of its cooldown.
#[derive(Debug)]
struct Circuit {
    failures: AtomicU32,
    /// `until << 2 | tag`: the tag is [`CLOSED`], [`OPEN`] or [`HALF_OPEN`]; `until` is
    /// when an open circuit lets a trial through, in the clock's nanoseconds.
    state: AtomicU64,
    /// When the last failure happened, for eviction.
    last_failure: AtomicU64,
}

const CLOSED: u64 = 0;
const OPEN: u64 = 1;
const HALF_OPEN: u64 = 2;
const TAG: u64 = 0b11;

const fn pack(until: u64, tag: u64) -> u64 {
    let until = if until > u64::MAX >> 2 {
        u64::MAX >> 2
    } else {
        until
    };
    (until << 2) | tag
}

const fn until_of(state: u64) -> u64 {
    state >> 2
}

impl Circuit {
    fn new() -> Self {
        Circuit {
            failures: AtomicU32::new(0),
            state: AtomicU64::new(pack(0, CLOSED)),
            last_failure: AtomicU64::new(0),
        }
    }

    fn carries_nothing(&self) -> bool {
        self.state.load(Ordering::Acquire) & TAG == CLOSED
            && self.failures.load(Ordering::Relaxed) == 0
    }
}

impl CircuitBreaker {
    /// The default failures in a row that open a circuit: 5.
    pub const DEFAULT_THRESHOLD: u32 = 5;
    /// The default time a circuit stays open before its trial call: 60 s.
    pub const DEFAULT_COOLDOWN: Duration = Duration::from_secs(60);
    /// The default number of keys tracked at most: 1,024.
    pub const DEFAULT_CAPACITY: usize = 1024;
    /// The default lease of a trial call in a shared [`CircuitStore`](crate::store::CircuitStore): 30 s.
    pub const DEFAULT_TRIAL_LEASE: Duration = Duration::from_secs(30);

    /// A breaker with the defaults, on the real monotonic clock.
    pub fn new() -> Self {
        CircuitBreaker {
            threshold: Self::DEFAULT_THRESHOLD,
            cooldown: Self::DEFAULT_COOLDOWN,
            capacity: Self::DEFAULT_CAPACITY,
            clock: Arc::new(SystemClock),
            circuits: RwLock::new(HashMap::default()),
            tracked: AtomicUsize::new(0),
            store: None,
            trial_lease: Self::DEFAULT_TRIAL_LEASE,
            counts: None,
            on_transition: None,
        }
    }

    /// Opens a circuit after `failures` failures in a row (at least 1).
    #[must_use]
    pub fn threshold(mut self, failures: u32) -> Self {
        self.threshold = failures.max(1);
        self
    }

    /// Keeps an open circuit open for `cooldown` before its trial call.
    #[must_use]
    pub fn cooldown(mut self, cooldown: Duration) -> Self {
        self.cooldown = cooldown;
        self
    }

    /// Tracks at most `keys` keys (at least 1).
    #[must_use]
    pub fn capacity(mut self, keys: usize) -> Self {
        self.capacity = keys.max(1);
        self
    }

    /// Reads time from `clock`: a [`ManualClock`](super::ManualClock) in tests, or any
    /// `Fn() -> Instant`. The type stays `CircuitBreaker`.
    #[must_use]
    pub fn clock(mut self, clock: impl Clock + 'static) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// Keeps the circuits in `store`, shared with every breaker (in this process or another
    /// replica) that uses the same store: failures in a row, when a circuit opened, and the
    /// one trial call after the cooldown, fleet-wide. The breaker's [`clock`](Self::clock)
    /// and [`capacity`](Self::capacity) then no longer apply: the store keeps its own time.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use agent_error::recover::{CircuitBreaker, CircuitState, LocalStore, Store};
    ///
    /// let store: Arc<dyn Store> = Arc::new(LocalStore::new());
    /// let a = CircuitBreaker::new().threshold(1).store(store.clone());
    /// let b = CircuitBreaker::new().threshold(1).store(store);
    /// let failed = a.call("search", || Err::<(), Box<dyn std::error::Error + Send + Sync>>("HTTP 500".into()));
    /// assert!(failed.is_err());
    /// // The other breaker knows: its call does not run.
    /// assert!(matches!(b.state("search"), CircuitState::Open { .. }));
    /// assert!(b.call("search", || Ok::<_, Box<dyn std::error::Error + Send + Sync>>(1)).is_err());
    /// ```
    #[must_use]
    pub fn store(mut self, store: Arc<dyn CircuitStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// Calls `hook(key, state)` each time this breaker moves a circuit: to
    /// `Open { closes_in }` when failures in a row reach the threshold or a trial fails
    /// (`closes_in` is the cooldown; zero when a trial was dropped without a result), to
    /// `HalfOpen` when it lets the trial through, to `Closed { failures: 0 }` when the trial
    /// succeeds. For metrics and logs; it runs on the caller's thread, so keep it short.
    ///
    /// With a shared [`store`](Self::store), it hears the moves this breaker's own calls
    /// make: another replica's failure that opens a circuit is that replica's to tell.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use agent_error::recover::{CircuitBreaker, CircuitState};
    ///
    /// let moves = Arc::new(Mutex::new(Vec::new()));
    /// let seen = moves.clone();
    /// let breaker = CircuitBreaker::new()
    ///     .threshold(1)
    ///     .on_transition(move |key, state| seen.lock().unwrap().push((key.to_string(), state)));
    /// breaker.acquire("search").unwrap().failure();
    /// assert!(matches!(moves.lock().unwrap()[..], [(ref key, CircuitState::Open { .. })] if key == "search"));
    /// ```
    #[must_use]
    pub fn on_transition(
        mut self,
        hook: impl Fn(&str, CircuitState) + Send + Sync + 'static,
    ) -> Self {
        self.on_transition = Some(Arc::new(hook));
        self
    }

    /// Tells the [`on_transition`](Self::on_transition) hook, if any, that `key` moved to `state`.
    fn moved(&self, key: &str, state: CircuitState) {
        if let Some(hook) = &self.on_transition {
            hook(key, state);
        }
    }

    /// How long a trial call holds its permit in a shared store (30 s by default): if its
    /// replica dies during the trial, another may make one after this.
    #[must_use]
    pub fn trial_lease(mut self, lease: Duration) -> Self {
        self.trial_lease = lease;
        self
    }

    /// Counts as failures the errors for which `counts(err)` is true, instead of the
    /// default (see [`call`](Self::call)): `|_| true` counts every `Err`.
    ///
    /// ```
    /// use agent_error::recover::{CircuitBreaker, CircuitState};
    /// use agent_error::{codes, has_code, Error};
    ///
    /// // Rate limits are the provider's answer, not the tool failing: do not count them.
    /// let breaker = CircuitBreaker::new()
    ///     .threshold(1)
    ///     .counts(|e| !has_code(e, codes::RATE_LIMIT));
    /// let _ = breaker.try_call("search", || Err::<(), _>(Error::new("search", codes::RATE_LIMIT, "429")));
    /// assert_eq!(breaker.state("search"), CircuitState::Closed { failures: 0 });
    /// ```
    #[must_use]
    pub fn counts(
        mut self,
        counts: impl Fn(&(dyn StdError + 'static)) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.counts = Some(Arc::new(counts));
        self
    }

    /// Whether a call's `result` counts as a failure of the tool.
    fn failed<T, E: ErrorChain<M>, M>(&self, result: &Result<T, E>) -> bool {
        result
            .as_ref()
            .is_err_and(|e| self.is_failure(e.error_chain()))
    }

    /// Whether `err` counts as a failure of the tool.
    fn is_failure(&self, err: &(dyn StdError + 'static)) -> bool {
        match &self.counts {
            Some(counts) => counts(err),
            None => tool_is_failing(err),
        }
    }

    /// The state a result that moves a circuit moves it to: closed by a trial that
    /// succeeded, open for the cooldown by a failure (a trial's, or the one that reached
    /// the threshold).
    fn state_after(&self, ok: bool) -> CircuitState {
        if ok {
            CircuitState::Closed { failures: 0 }
        } else {
            CircuitState::Open {
                closes_in: self.cooldown,
            }
        }
    }

    fn rule(&self) -> BreakerRule {
        BreakerRule {
            threshold: self.threshold,
            cooldown: self.cooldown,
        }
    }

    /// Admission through the shared store: `Ok(None)` closed (with the failures in a row
    /// known), `Ok(Some(token))` as the fleet's one trial.
    async fn admit_shared(
        &self,
        store: &dyn CircuitStore,
        key: &str,
    ) -> Result<(u32, Option<TrialToken>), CircuitOpen> {
        let open = |closes_in| CircuitOpen {
            key: Cow::Owned(key.to_owned()),
            failures: self.threshold,
            closes_in,
        };
        match store.circuit(key).await {
            CircuitState::Closed { failures } => Ok((failures, None)),
            CircuitState::HalfOpen => Err(open(None)),
            CircuitState::Open { closes_in } if !closes_in.is_zero() => Err(open(Some(closes_in))),
            CircuitState::Open { .. } => match store.claim_trial(key, self.trial_lease).await {
                Some(token) => {
                    self.moved(key, CircuitState::HalfOpen);
                    Ok((0, Some(token)))
                }
                None => Err(open(None)),
            },
        }
    }

    /// Records a call's result in the shared store.
    async fn record_shared(
        &self,
        store: &dyn CircuitStore,
        key: &str,
        failures: u32,
        trial: Option<TrialToken>,
        ok: bool,
    ) {
        match (trial, ok) {
            (Some(token), ok) => {
                store.finish_trial(key, token, ok, self.rule()).await;
                self.moved(key, self.state_after(ok));
            }
            (None, true) if failures == 0 => {}
            (None, true) => store.record_success(key).await,
            (None, false) => {
                let after = store.record_failure(key, self.rule()).await;
                // Admitted while closed: a failure that leaves it open is the one that opened it.
                if matches!(after, CircuitState::Open { .. }) {
                    self.moved(key, after);
                }
            }
        }
    }

    /// Runs `op` unless `key`'s circuit is open, and counts its result. An open circuit
    /// returns [`CircuitOpen`] converted into `E` without running `op`
    /// (`Box<dyn Error + Send + Sync>` and `anyhow::Error` convert as they are; give a
    /// derived enum an `#[error(transparent)] Disabled(#[from] CircuitOpen)` variant). To keep
    /// the tool's own error type unchanged, use [`try_call`](Self::try_call).
    ///
    /// An `Err` counts as a failure when it says that the tool itself is failing, by its
    /// [`classify`](crate::classify)cation: unclassified, retryable (a timeout, an
    /// unavailable service, a rate limit, an I/O error), `tool_failed`, or `INTERNAL` (a bug
    /// in the tool). The caller's mistakes (invalid input or arguments, not found, a denied
    /// permission, a bad key: errors that are not retryable) are not the tool's failures:
    /// the tool answered, so they count as a success, and a model that keeps mistyping a
    /// city cannot disable the tool for every other caller. [`counts`](Self::counts) sets
    /// another rule.
    ///
    /// ```
    /// use agent_error::recover::{CircuitBreaker, CircuitState};
    /// use agent_error::{codes, Error};
    ///
    /// let breaker = CircuitBreaker::new().threshold(1);
    /// let typo = || Err::<(), _>(Error::new("weather", codes::INVALID_INPUT, "unknown city"));
    /// assert!(breaker.try_call("weather", typo).is_err());
    /// assert_eq!(breaker.state("weather"), CircuitState::Closed { failures: 0 });
    /// let down = || Err::<(), _>(Error::new("weather", codes::PROVIDER_UNAVAILABLE, "HTTP 503"));
    /// assert!(breaker.try_call("weather", down).is_err());
    /// assert!(matches!(breaker.state("weather"), CircuitState::Open { .. }));
    /// ```
    #[inline]
    pub fn call<T, E, M>(&self, key: &str, op: impl FnOnce() -> Result<T, E>) -> Result<T, E>
    where
        E: From<CircuitOpen> + ErrorChain<M>,
    {
        self.try_call(key, op).map_err(CallError::into_error)
    }

    /// [`call`](Self::call) that leaves the tool's error type alone: `Err(CallError::Open)`
    /// when the circuit is open and `op` did not run, `Err(CallError::Tool(e))` with the
    /// tool's own error, unchanged, when it ran and failed. No `From<CircuitOpen>` needed.
    ///
    /// ```
    /// use agent_error::recover::{CallError, CircuitBreaker};
    /// use agent_error::AgentError;
    ///
    /// #[derive(Debug, AgentError)]
    /// #[agent(op = "weather")]
    /// enum WeatherError {
    ///     #[agent(code = "service_down", retryable)]
    ///     #[error("weather service unavailable")]
    ///     Down,
    /// }
    ///
    /// let breaker = CircuitBreaker::new().threshold(1);
    /// match breaker.try_call("weather", || Err::<(), _>(WeatherError::Down)) {
    ///     Err(CallError::Tool(WeatherError::Down)) => {} // the tool's own error, as it was
    ///     other => panic!("{other:?}"),
    /// }
    /// match breaker.try_call("weather", || Ok::<_, WeatherError>(21)) {
    ///     Err(CallError::Open(open)) => assert_eq!(open.op(), "weather"),
    ///     other => panic!("{other:?}"),
    /// }
    /// ```
    #[inline]
    pub fn try_call<T, E, M>(
        &self,
        key: &str,
        op: impl FnOnce() -> Result<T, E>,
    ) -> Result<T, CallError<E>>
    where
        E: ErrorChain<M>,
    {
        let permit = self.acquire(key).map_err(CallError::Open)?;
        let result = op();
        let failed = self.failed(&result);
        permit.record(!failed);
        result.map_err(CallError::Tool)
    }

    /// [`call`](Self::call) for a future: awaits it unless `key`'s circuit is open. A
    /// trial future dropped before it completes lets the next call be the trial.
    pub async fn call_async<T, E, M, F>(&self, key: &str, op: F) -> Result<T, E>
    where
        E: From<CircuitOpen> + ErrorChain<M>,
        F: Future<Output = Result<T, E>>,
    {
        self.try_call_async(key, op)
            .await
            .map_err(CallError::into_error)
    }

    /// [`try_call`](Self::try_call) for a future: awaits it unless `key`'s circuit is open.
    pub async fn try_call_async<T, E, M, F>(&self, key: &str, op: F) -> Result<T, CallError<E>>
    where
        E: ErrorChain<M>,
        F: Future<Output = Result<T, E>>,
    {
        if let Some(store) = &self.store {
            let (failures, trial) = self
                .admit_shared(&**store, key)
                .await
                .map_err(CallError::Open)?;
            // Nothing is held across the call: a trial is a token with a lease.
            let guard = TrialGuard {
                store: &**store,
                key,
                trial,
            };
            let result = op.await;
            let trial = guard.disarm();
            let failed = self.failed(&result);
            self.record_shared(&**store, key, failures, trial, !failed)
                .await;
            return result.map_err(CallError::Tool);
        }
        let permit = self.acquire(key).map_err(CallError::Open)?;
        let result = op.await;
        let failed = self.failed(&result);
        permit.record(!failed);
        result.map_err(CallError::Tool)
    }

    /// Asks to make one call on `key`: a [`Permit`] to report its result with, or
    /// [`CircuitOpen`] when the circuit is open (or half-open with its trial running).
    ///
    /// ```
    /// use agent_error::recover::{CircuitBreaker, CircuitState};
    ///
    /// let breaker = CircuitBreaker::new().threshold(1);
    /// breaker.acquire("search").unwrap().failure();
    /// assert!(matches!(breaker.state("search"), CircuitState::Open { .. }));
    /// assert!(breaker.acquire("search").is_err());
    /// ```
    #[inline]
    pub fn acquire<'b>(&'b self, key: &'b str) -> Result<Permit<'b>, CircuitOpen> {
        if let Some(store) = &self.store {
            let limit = store.wait_limit();
            // A store answers by itself once its wait limit has passed (its local state,
            // or as it is set to); one that breaks that promise is not obeyed.
            let (failures, token) =
                block_on(self.admit_shared(&**store, key), limit).unwrap_or(Ok((0, None)))?;
            return Ok(Permit {
                breaker: self,
                key,
                circuit: None,
                trial: token.is_some(),
                done: false,
                shared: Some((failures, token)),
            });
        }
        let (circuit, trial) = if self.tracked.load(Ordering::Acquire) == 0 {
            (None, false)
        } else {
            self.look_up(key).map_err(|open| *open)?
        };
        Ok(Permit {
            breaker: self,
            key,
            circuit,
            trial,
            done: false,
            shared: None,
        })
    }

    /// Admits a call on a key the map may hold: the circuit to record on, and whether the
    /// call is the trial.
    #[inline(never)]
    fn look_up(&self, key: &str) -> Result<(Option<Arc<Circuit>>, bool), Box<CircuitOpen>> {
        let map = self.circuits.read().unwrap_or_else(|p| p.into_inner());
        let Some(c) = map.get(key) else {
            return Ok((None, false));
        };
        let trial = self.admit(key, c).map_err(Box::new)?;
        // A closed circuit with no failure in a row has nothing to record on a success, and
        // a failure finds it again: no reference is kept.
        let keep = trial || c.failures.load(Ordering::Relaxed) != 0;
        Ok((keep.then(|| c.clone()), trial))
    }

    /// The state of `key`'s circuit now.
    pub fn state(&self, key: &str) -> CircuitState {
        if let Some(store) = &self.store {
            return block_on(store.circuit(key), store.wait_limit())
                .unwrap_or(CircuitState::Closed { failures: 0 });
        }
        let Some(circuit) = self.find(key) else {
            return CircuitState::Closed { failures: 0 };
        };
        let state = circuit.state.load(Ordering::Acquire);
        match state & TAG {
            OPEN => CircuitState::Open {
                closes_in: Duration::from_nanos(until_of(state)).saturating_sub(self.clock.now()),
            },
            HALF_OPEN => CircuitState::HalfOpen,
            _ => CircuitState::Closed {
                failures: circuit.failures.load(Ordering::Relaxed),
            },
        }
    }

    /// How many keys are tracked now (at most [`capacity`](Self::capacity)).
    pub fn tracked(&self) -> usize {
        self.tracked.load(Ordering::Acquire)
    }

    fn find(&self, key: &str) -> Option<Arc<Circuit>> {
        let map = self.circuits.read().unwrap_or_else(|p| p.into_inner());
        map.get(key).cloned()
    }

    /// Lets a call through a known circuit: `Ok(false)` closed, `Ok(true)` as the trial.
    fn admit(&self, key: &str, circuit: &Circuit) -> Result<bool, CircuitOpen> {
        loop {
            let state = circuit.state.load(Ordering::Acquire);
            match state & TAG {
                CLOSED => return Ok(false),
                OPEN => {
                    let now = nanos(self.clock.now());
                    let until = until_of(state);
                    if now < until {
                        return Err(self.open_error(key, circuit, Some(until - now)));
                    }
                    // Exactly one caller wins the exchange and makes the trial.
                    if circuit
                        .state
                        .compare_exchange(
                            state,
                            pack(until, HALF_OPEN),
                            Ordering::AcqRel,
                            Ordering::Acquire,
                        )
                        .is_ok()
                    {
                        self.moved(key, CircuitState::HalfOpen);
                        return Ok(true);
                    }
                }
                _ => return Err(self.open_error(key, circuit, None)),
            }
        }
    }

    fn open_error(&self, key: &str, circuit: &Circuit, closes_in: Option<u64>) -> CircuitOpen {
        CircuitOpen {
            key: Cow::Owned(key.to_owned()),
            failures: circuit.failures.load(Ordering::Relaxed),
            closes_in: closes_in.map(Duration::from_nanos),
        }
    }

    /// The circuit of `key`, added if it is not tracked yet.
    fn find_or_add(&self, key: &str) -> Arc<Circuit> {
        if let Some(circuit) = self.find(key) {
            return circuit;
        }
        let mut map = self.circuits.write().unwrap_or_else(|p| p.into_inner());
        if let Some(circuit) = map.get(key) {
            return circuit.clone();
        }
        if map.len() >= self.capacity {
            map.retain(|_, c| !c.carries_nothing());
        }
        if map.len() >= self.capacity {
            let oldest = map
                .iter()
                .min_by_key(|(_, c)| c.last_failure.load(Ordering::Relaxed))
                .map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                map.remove(&oldest);
            }
        }
        let circuit = Arc::new(Circuit::new());
        map.insert(key.into(), circuit.clone());
        self.tracked.store(map.len(), Ordering::Release);
        circuit
    }

    #[inline]
    fn record(&self, key: &str, circuit: Option<&Arc<Circuit>>, trial: bool, ok: bool) {
        if ok && circuit.is_none() {
            return;
        }
        self.record_slow(key, circuit, trial, ok);
    }

    #[inline(never)]
    fn record_slow(&self, key: &str, circuit: Option<&Arc<Circuit>>, trial: bool, ok: bool) {
        if ok {
            if let Some(c) = circuit {
                if trial {
                    c.failures.store(0, Ordering::Relaxed);
                    c.state.store(pack(0, CLOSED), Ordering::Release);
                    self.moved(key, self.state_after(true));
                } else if c.failures.load(Ordering::Relaxed) != 0 {
                    c.failures.store(0, Ordering::Relaxed);
                }
            }
            return;
        }
        let added;
        let c = match circuit {
            Some(c) => c,
            None => {
                added = self.find_or_add(key);
                &added
            }
        };
        let now = nanos(self.clock.now());
        c.last_failure.store(now, Ordering::Relaxed);
        let failures = c.failures.fetch_add(1, Ordering::Relaxed).saturating_add(1);
        let reopen = pack(now.saturating_add(nanos(self.cooldown)), OPEN);
        if trial {
            c.state.store(reopen, Ordering::Release);
            self.moved(key, self.state_after(false));
            return;
        }
        let state = c.state.load(Ordering::Acquire);
        // Only a closed circuit opens here; one that is already open or on trial keeps its state.
        if failures >= self.threshold
            && state & TAG == CLOSED
            && c.state
                .compare_exchange(state, reopen, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        {
            self.moved(key, self.state_after(false));
        }
    }

    /// A trial that ended without a result: the next call may be the trial at once.
    fn abandon(&self, key: &str, circuit: &Circuit) {
        let now = nanos(self.clock.now());
        circuit.state.store(pack(now, OPEN), Ordering::Release);
        self.moved(
            key,
            CircuitState::Open {
                closes_in: Duration::ZERO,
            },
        );
    }
}

/// Gives a shared trial up when an async call is dropped before it reports.
struct TrialGuard<'s> {
    store: &'s dyn CircuitStore,
    key: &'s str,
    trial: Option<TrialToken>,
}

impl TrialGuard<'_> {
    fn disarm(mut self) -> Option<TrialToken> {
        self.trial.take()
    }
}

impl Drop for TrialGuard<'_> {
    fn drop(&mut self) {
        if let Some(token) = self.trial.take() {
            self.store.abandon_trial(self.key, token);
        }
    }
}

/// Leave to make one call on a key, from [`CircuitBreaker::acquire`]. Report how it went
/// with [`success`](Permit::success) or [`failure`](Permit::failure); a permit dropped
/// without either counts as neither (a trial's turn goes to the next call).
#[must_use = "report the call's result with success() or failure()"]
pub struct Permit<'b> {
    breaker: &'b CircuitBreaker,
    key: &'b str,
    circuit: Option<Arc<Circuit>>,
    trial: bool,
    done: bool,
    /// With a shared store: the failures in a row at admission, and the trial's token.
    shared: Option<(u32, Option<TrialToken>)>,
}

impl fmt::Debug for Permit<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Permit")
            .field("key", &self.key)
            .field("trial", &self.trial)
            .finish_non_exhaustive()
    }
}

impl Permit<'_> {
    /// Whether this call is the trial of a circuit that was open.
    pub fn is_trial(&self) -> bool {
        self.trial
    }

    /// The call succeeded: the failures in a row start again from zero, and a trial closes
    /// the circuit.
    pub fn success(self) {
        self.record(true);
    }

    /// The call failed: one more failure in a row, which may open the circuit; a trial
    /// reopens it for another cooldown.
    pub fn failure(self) {
        self.record(false);
    }

    #[inline]
    fn record(mut self, ok: bool) {
        self.done = true;
        if let (Some((failures, token)), Some(store)) = (self.shared, &self.breaker.store) {
            let record = self
                .breaker
                .record_shared(&**store, self.key, failures, token, ok);
            if block_on(record, store.wait_limit()).is_none()
                && let Some(token) = token
            {
                store.abandon_trial(self.key, token);
            }
            return;
        }
        self.breaker
            .record(self.key, self.circuit.as_ref(), self.trial, ok);
    }
}

impl Drop for Permit<'_> {
    #[inline]
    fn drop(&mut self) {
        if !self.done
            && let (Some((_, Some(token))), Some(store)) = (self.shared, &self.breaker.store)
        {
            store.abandon_trial(self.key, token);
            return;
        }
        if !self.done
            && self.trial
            && let Some(circuit) = &self.circuit
        {
            self.breaker.abandon(self.key, circuit);
        }
    }
}

/// Why a [`CircuitBreaker::try_call`] did not give a value: the circuit was open and the
/// tool did not run, or the tool ran and returned its own error, unchanged.
#[derive(Debug)]
pub enum CallError<E> {
    /// The circuit is open: the tool was not called. Code `TOOL_DISABLED`, recovery
    /// `replan`, the breaker's key as its op.
    Open(CircuitOpen),
    /// The tool ran and failed: its own error.
    Tool(E),
}

impl<E> CallError<E> {
    /// The tool's own error, when it ran.
    pub fn into_tool(self) -> Option<E> {
        match self {
            CallError::Tool(e) => Some(e),
            CallError::Open(_) => None,
        }
    }

    /// The breaker's refusal, when the tool did not run.
    pub fn open(&self) -> Option<&CircuitOpen> {
        match self {
            CallError::Open(open) => Some(open),
            CallError::Tool(_) => None,
        }
    }

    /// One error type for both: the refusal converted into `E`.
    pub fn into_error(self) -> E
    where
        E: From<CircuitOpen>,
    {
        match self {
            CallError::Open(open) => E::from(open),
            CallError::Tool(e) => e,
        }
    }
}

impl<E: fmt::Display> fmt::Display for CallError<E> {
    /// The refusal's text, or the tool's error's own.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Open(open) => fmt::Display::fmt(open, f),
            CallError::Tool(e) => fmt::Display::fmt(e, f),
        }
    }
}

/// The error of a call that an open [`CircuitBreaker`] did not run: code `TOOL_DISABLED`,
/// recovery `replan`, not retryable, the key as its op, and a hint that says when the
/// circuit may close.
///
/// A runtime type (the facade's `tool::ToolError::ToolDisabled` has the same code and
/// recovery), registered with the chain walk like the runtime's other errors, so
/// [`classify`](crate::classify) finds it behind `Box<dyn Error>` or `anyhow::Error`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CircuitOpen {
    key: Cow<'static, str>,
    failures: u32,
    closes_in: Option<Duration>,
}

impl CircuitOpen {
    /// The key (a tool's name) whose circuit is open.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The failures in a row that opened it.
    pub fn failures(&self) -> u32 {
        self.failures
    }

    /// How long until a trial call is let through; `None` while a trial is running.
    pub fn closes_in(&self) -> Option<Duration> {
        self.closes_in
    }
}

const MESSAGE: &str = "disabled by the circuit breaker after {failures} consecutive errors";
const HINT: &str = "this tool is disabled for a while; reach the goal another way";

impl fmt::Display for CircuitOpen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::core::agent::write_head(f, &self.key, TOOL_DISABLED)?;
        self.fmt_message(f)
    }
}

impl StdError for CircuitOpen {}

impl AgentError for CircuitOpen {
    fn code(&self) -> &str {
        TOOL_DISABLED
    }

    fn op(&self) -> &str {
        &self.key
    }

    fn fmt_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "disabled by the circuit breaker after {} consecutive errors",
            self.failures
        )
    }

    fn fmt_public_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_message(f)
    }

    fn retry_policy(&self) -> RetryPolicy {
        RetryPolicy::NEVER
    }

    fn hints(&self) -> Vec<Cow<'static, str>> {
        let hint = match self.closes_in {
            Some(d) => format!(
                "this tool is disabled for {} more, then one trial call may enable it; reach the goal another way",
                seconds_text(d)
            ),
            None => "this tool is disabled until a trial call running now succeeds; reach the goal another way".to_owned(),
        };
        vec![Cow::Owned(hint)]
    }

    fn recovery(&self) -> Recovery {
        Recovery::Replan
    }
}

impl Catalog for CircuitOpen {
    const CODES: &'static [CodeDoc] = &[CodeDoc::new(
        TOOL_DISABLED,
        "agent_error::recover::CircuitOpen",
        "CircuitOpen",
        RetryPolicy::NEVER,
        Recovery::Replan,
    )
    .with_message(MESSAGE)
    .with_docs("A circuit breaker disabled the tool after consecutive failures; it fails fast until a cooldown passes and a trial call succeeds.")
    .with_hints(&[HINT])];
}

inventory::submit! { crate::core::registry::Registration::of::<CircuitOpen>() }
