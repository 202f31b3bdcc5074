//! `Pacer`: staying under a provider's limits instead of meeting its 429s — budgets learned
//! from the headers of every response, a configured or adaptive rate where none are sent,
//! shared by a fleet through a [`Store`].

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::store::{
    Bucket, BucketReport, Clock, Dimension, DimensionStep, PaceAnswer, PaceStep, PaceStore,
    SystemClock, Unmetered, nanos,
};

mod adaptive;
mod cost;
mod gate;
mod keys;
#[cfg(feature = "http")]
mod observe;
#[cfg(test)]
mod tests;

pub use cost::Cost;
pub use gate::PaceGate;

use adaptive::Adaptive;
use keys::Keys;

/// A limit the caller knows, for a provider that does not send its own: `amount` units of
/// one [`Dimension`] `per` window, paced as a bucket that refills evenly over the window.
///
/// ```
/// use std::time::Duration;
/// use agent_error::recover::{Dimension, Limit};
///
/// let rpm = Limit::requests(60, Duration::from_secs(60));
/// assert_eq!(rpm.dimension(), Dimension::Requests);
/// let tpm = Limit::tokens(90_000, Duration::from_secs(60));
/// assert_eq!(tpm.amount(), 90_000);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limit {
    dimension: Dimension,
    amount: u64,
    per: Duration,
}

impl Limit {
    /// `amount` units of `dimension` per window `per`.
    pub const fn new(dimension: Dimension, amount: u64, per: Duration) -> Limit {
        Limit {
            dimension,
            amount,
            per,
        }
    }

    /// `amount` requests per window `per`.
    pub const fn requests(amount: u64, per: Duration) -> Limit {
        Limit::new(Dimension::Requests, amount, per)
    }

    /// `amount` tokens (input and output together) per window `per`.
    pub const fn tokens(amount: u64, per: Duration) -> Limit {
        Limit::new(Dimension::Tokens, amount, per)
    }

    /// The dimension limited.
    pub const fn dimension(&self) -> Dimension {
        self.dimension
    }

    /// The units allowed per window.
    pub const fn amount(&self) -> u64 {
        self.amount
    }

    /// The window.
    pub const fn per(&self) -> Duration {
        self.per
    }

    /// The bucket it is paced as: capacity and units per second.
    fn shape(&self) -> Option<(f64, f64)> {
        let secs = self.per.as_secs_f64();
        (self.amount > 0 && secs > 0.0).then(|| (self.amount as f64, self.amount as f64 / secs))
    }
}

/// Paces calls to providers so that they stay under their limits, per key (the caller's
/// name for what one limit covers, such as `openai/acct-1/gpt-4o`) and per
/// [`Dimension`] (requests, tokens, input and output tokens).
///
/// - **Learned from headers.** [`observe`](Self::observe) reads every response's rate-limit
///   headers (OpenAI's and the OpenAI-compatible servers' `x-ratelimit-*`, Anthropic's
///   `anthropic-ratelimit-*`, the IETF `RateLimit-Policy`/`RateLimit` fields and the older
///   `RateLimit-*` and `X-RateLimit-*`, see [`RateLimits`](crate::http::RateLimits)),
///   successful or not. A limit whose `reset` is the time until it is full again (OpenAI,
///   Anthropic) is a token bucket of capacity `limit` refilling at
///   `(limit − remaining) / reset`, less the margin that the headers' rounding needs:
///   `remaining` is rounded down and the reset written in whole milliseconds, so the rate
///   is read as `(limit − remaining − 1) / (reset + 1 ms)` and a paced call never goes
///   before the provider's bucket holds it (at the limit, 2% of the rate of a limit of 50,
///   0.025% of one of 4,000); a window (`r` units until `t`) holds until its reset,
///   then refills evenly over its length, so that waiting calls are spread over the window
///   and never released in a burst at the reset. A window whose quota is not said (an IETF
///   item without a policy) is `r` units now and the next at `t`; one spent with no reset
///   waits the short default. A budget whose refill no response tells
///   (Azure's remaining-only fields, OpenAI's full bucket with a reset of `0s`) is spent,
///   then one call goes as a probe after the short default
///   ([`PROBE_WAIT`](crate::store::PROBE_WAIT), 1 s), the calls behind it one turn a
///   second, until an answer tells the budget again. `retry-after-ms` and `Retry-After`
///   pause the key and come first.
/// - **Configured, or adaptive.** Where a provider sends nothing, a [`Limit`] set for the
///   key paces it, and an adaptive rate falls on each `rate_limit` and climbs back on
///   success (the AWS SDKs' adaptive mode, see [`throttled`](Self::throttled)), so that a
///   provider that only answers 429 is paced too.
/// - **Before a call**, [`acquire`](Self::acquire) waits until every limit of the key allows
///   the call's [`Cost`] (one request and the caller's token estimate), or returns a
///   `rate_limit` error carrying the wait when that is longer than
///   [`max_wait`](Self::max_wait); [`try_acquire`](Self::try_acquire) says how long without
///   waiting. A call with budget left goes at once. [`settle`](Self::settle) tells the real
///   usage afterwards.
/// - **A fleet**: with [`shared_in`](Self::shared_in), the budgets live in a [`PaceStore`]
///   (Redis with the `redis` feature): one bucket per key and dimension, changed by one
///   atomic step; when replicas report different headers the most restrictive wins
///   (less what was reserved in the last minute or two: see the guide's pacing chapter). At
///   each step a replica also leases half its share of what is left, and spends that
///   lease locally, without a round trip, for at most [`staleness`](Self::staleness);
///   past that, or when the lease runs short, it asks the store again (and gives back
///   what it did not spend). Budget leased to another replica is not reservable until that
///   replica's next step; with a staleness of zero no lease is taken. When the store cannot answer, each replica paces
///   alone with its share of the limit it last knew (one warning with the `tracing`
///   feature), and tells the store what it spent meanwhile when it answers again, so that
///   the fleet does not spend twice what the store's buckets refilled during the outage.
///   The time spent asking the store counts against [`max_wait`](Self::max_wait): a call
///   goes within it, store and wait together, or gets the `rate_limit` error.
///
/// Headers come from a peer: a value that is negative, not a number, or a reset more than
/// 25 hours ahead is not obeyed; at most [`max_keys`](Self::max_keys) keys are kept, and a
/// new key costs the same however many are kept.
///
/// A `Pacer` is cheap to clone: clones share their budgets. Configure it before cloning.
///
/// ```
/// use std::time::Duration;
/// use agent_error::recover::{Cost, ManualClock, Pacer};
/// use http::{HeaderMap, HeaderValue};
///
/// let pacer = Pacer::new().with_clock(ManualClock::new()); // time moves only by hand
/// // A response said: 60 requests a minute, none left, full again in 60 s.
/// let mut headers = HeaderMap::new();
/// headers.insert("x-ratelimit-limit-requests", HeaderValue::from_static("60"));
/// headers.insert("x-ratelimit-remaining-requests", HeaderValue::from_static("0"));
/// headers.insert("x-ratelimit-reset-requests", HeaderValue::from_static("1m0s"));
/// pacer.observe("openai/gpt-4o", &headers);
/// // The next request comes back after about a second (and the margin that rounding
/// // needs), not after the minute.
/// let wait = pacer.try_acquire("openai/gpt-4o", Cost::request()).unwrap_err();
/// assert!(wait > Duration::from_secs(1) && wait < Duration::from_millis(1_020));
/// // Another key is not held.
/// assert_eq!(pacer.try_acquire("anthropic/claude", Cost::request()), Ok(()));
/// ```
#[derive(Clone)]
pub struct Pacer {
    config: Arc<Config>,
    state: Arc<State>,
}

#[derive(Clone)]
struct Config {
    clock: Arc<dyn Clock>,
    store: Option<Arc<dyn PaceStore>>,
    max_wait: Duration,
    max_keys: usize,
    staleness: Duration,
    adaptive: bool,
    limits: HashMap<String, [Option<(f64, f64)>; 4]>,
    replica: u64,
    /// Told each wait a reservation asks a call to make.
    on_wait: Option<Arc<OnWait>>,
}

/// A hook told each wait the pacer asks a call to make: the key and the wait.
type OnWait = dyn Fn(&str, Duration) + Send + Sync;

struct State {
    keys: Keys,
    /// Whether a response's implausible field was reported (once).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    warned: AtomicBool,
    /// Whether the store could not answer at the last step (reported once a switch).
    alone: AtomicBool,
}

/// What a pacer knows of one key.
#[derive(Clone, Debug, Default)]
struct KeyState {
    /// Per dimension: the key's buckets (alone), or this replica's copy of the store's.
    buckets: [Option<Bucket>; 4],
    /// Whether a response's headers ever gave a limit: the adaptive rate is then off.
    reported: bool,
    /// Whether the key's configured limits were looked up.
    configured: bool,
    adaptive: Adaptive,
    /// A pause (Retry-After, a spent budget with no reset) ends then, on the clock.
    pause_until: u64,
    /// The next wait for a budget spent with no reset said (1 s, doubling while still spent).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    spent_backoff: Duration,
    /// With a store: what is not told yet, and what may still be spent without asking.
    unsynced: [f64; 4],
    pending: [Option<BucketReport>; 4],
    /// A pause to tell the store: when it ends, on the clock.
    pending_pause: Option<u64>,
    synced_at: Option<u64>,
    allowance: [f64; 4],
    replicas: u32,
    /// Whether the copy was cut to this replica's share when the store stopped answering.
    alone: bool,
    /// Without a store: the share of a header-paced key's refill this replica takes (0 is
    /// all of it), cut on each 429 the headers did not foresee (other replicas spend the
    /// same budget), and grown back on successes; and when it was last cut.
    share: f64,
    cut_at: u64,
    /// The last touch of the key in its shard (see [`keys`]).
    touched: u64,
    /// Per dimension, what was reserved while no bucket of it was known: calls on their
    /// way, which the first report may not count yet (the bucket it makes is short of them).
    unmetered: [Unmetered; 4],
}

impl KeyState {
    /// The share of a header-paced key's refill this replica takes: all of it until a 429
    /// it did not foresee cut it.
    fn taken_share(&self) -> f64 {
        if self.share > 0.0 { self.share } else { 1.0 }
    }
}

impl fmt::Debug for Pacer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pacer")
            .field("max_wait", &self.config.max_wait)
            .field("max_keys", &self.config.max_keys)
            .field("shared", &self.config.store.is_some())
            .field("adaptive", &self.config.adaptive)
            .finish_non_exhaustive()
    }
}

impl Default for Pacer {
    fn default() -> Self {
        Self::new()
    }
}

impl Pacer {
    /// The longest a call waits by default: 60 s.
    pub const DEFAULT_MAX_WAIT: Duration = Duration::from_secs(60);
    /// The keys kept by default: 4,096.
    pub const DEFAULT_MAX_KEYS: usize = 4096;
    /// How long a replica spends from its local copy of a shared budget by default: 250 ms.
    pub const DEFAULT_STALENESS: Duration = Duration::from_millis(250);

    /// A pacer in this process, on the monotonic clock, with the adaptive rate on.
    pub fn new() -> Pacer {
        let replica = crate::core::jitter::JitterSource::from_entropy().next_u64();
        Pacer {
            config: Arc::new(Config {
                clock: Arc::new(SystemClock),
                store: None,
                max_wait: Self::DEFAULT_MAX_WAIT,
                max_keys: Self::DEFAULT_MAX_KEYS,
                staleness: Self::DEFAULT_STALENESS,
                adaptive: true,
                limits: HashMap::new(),
                replica,
                on_wait: None,
            }),
            state: Arc::new(State {
                keys: Keys::new(),
                warned: AtomicBool::new(false),
                alone: AtomicBool::new(false),
            }),
        }
    }

    fn config(&mut self) -> &mut Config {
        Arc::make_mut(&mut self.config)
    }

    /// Shares the budgets through `store`: every pacer on the same store paces the same
    /// keys together (see the type's documentation): its buckets, and the pauses a server
    /// announced.
    #[must_use]
    pub fn shared_in(mut self, store: Arc<dyn PaceStore>) -> Self {
        self.config().store = Some(store);
        self
    }

    /// Calls `hook(key, wait)` each time the pacer asks a call to wait before it goes:
    /// each reservation ([`reserve`](Self::reserve), [`acquire`](Self::acquire), and each
    /// attempt of a retrier it gates) that needs a wait it may make. A reservation that
    /// needs none, or more than it may wait, is not told. For metrics and logs; it runs on
    /// the caller's task, so keep it short. Clones of the pacer share the hook.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use std::time::Duration;
    /// use agent_error::recover::{Cost, Limit, Pacer};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let waits = Arc::new(Mutex::new(Vec::new()));
    /// let seen = waits.clone();
    /// let pacer = Pacer::new()
    ///     .limit("search", Limit::requests(1, Duration::from_secs(1)))
    ///     .on_wait(move |key, wait| seen.lock().unwrap().push((key.to_string(), wait)));
    /// pacer.reserve("search", Cost::request(), Duration::from_secs(5)).await.unwrap();
    /// let wait = pacer.reserve("search", Cost::request(), Duration::from_secs(5)).await.unwrap();
    /// assert!(!wait.is_zero());
    /// assert_eq!(*waits.lock().unwrap(), [("search".to_string(), wait)]);
    /// # }
    /// ```
    #[must_use]
    pub fn on_wait(mut self, hook: impl Fn(&str, Duration) + Send + Sync + 'static) -> Self {
        self.config().on_wait = Some(Arc::new(hook));
        self
    }

    /// The longest [`acquire`](Self::acquire) waits (60 s by default): a call that would
    /// wait longer gets a `rate_limit` error carrying the wait instead.
    #[must_use]
    pub fn max_wait(mut self, limit: Duration) -> Self {
        self.config().max_wait = limit;
        self
    }

    /// Keeps at most `keys` keys (4,096 by default, at least 1). Keys live in up to 16
    /// shards, each under its own lock and holding its part of them, so that a hot key
    /// never waits behind another key's bookkeeping. When a key's shard is full, the first
    /// key with nothing pending among its few least recently used goes, else the least
    /// recently used: room is made in constant time (amortised), so keys named by a
    /// tenant's input cost the same however many come.
    #[must_use]
    pub fn max_keys(mut self, keys: usize) -> Self {
        self.config().max_keys = keys.max(1);
        self
    }

    /// How long a replica spends from its local copy of a shared budget before asking the
    /// store again (250 ms by default).
    #[must_use]
    pub fn staleness(mut self, staleness: Duration) -> Self {
        self.config().staleness = staleness;
        self
    }

    /// Turns the adaptive rate for keys without headers on (the default) or off.
    #[must_use]
    pub fn adaptive(mut self, on: bool) -> Self {
        self.config().adaptive = on;
        self
    }

    /// Paces `key` by `limit` while its responses say nothing of that dimension (a
    /// provider that sends no headers). Several limits of different dimensions may be set.
    ///
    /// ```
    /// use std::time::Duration;
    /// use agent_error::recover::{Cost, Limit, ManualClock, Pacer};
    ///
    /// let pacer = Pacer::new()
    ///     .with_clock(ManualClock::new())
    ///     .limit("gemini/flash", Limit::requests(2, Duration::from_secs(1)));
    /// assert_eq!(pacer.try_acquire("gemini/flash", Cost::request()), Ok(()));
    /// assert_eq!(pacer.try_acquire("gemini/flash", Cost::request()), Ok(()));
    /// assert_eq!(pacer.try_acquire("gemini/flash", Cost::request()), Err(Duration::from_millis(500)));
    /// ```
    #[must_use]
    pub fn limit(mut self, key: impl Into<String>, limit: Limit) -> Self {
        if let Some(shape) = limit.shape() {
            let entry = self.config().limits.entry(key.into()).or_default();
            entry[limit.dimension.index()] = Some(shape);
        }
        self
    }

    /// Reads time from `clock` (a [`ManualClock`](crate::recover::ManualClock) in tests).
    #[must_use]
    pub fn with_clock(mut self, clock: impl Clock + 'static) -> Self {
        self.config().clock = Arc::new(clock);
        self
    }

    /// The longest a call waits ([`max_wait`](Self::max_wait)).
    pub fn wait_limit(&self) -> Duration {
        self.config.max_wait
    }

    /// How long a blocking caller waits for the pacer's store.
    pub(crate) fn store_wait_limit(&self) -> Duration {
        self.config
            .store
            .as_ref()
            .map_or(Duration::ZERO, |store| store.wait_limit())
    }

    fn now(&self) -> u64 {
        nanos(self.config.clock.now())
    }

    /// Runs `f` on `key`'s state, made if new (room made when full).
    fn with_key<T>(&self, key: &str, now: u64, f: impl FnOnce(&mut KeyState) -> T) -> T {
        self.state.keys.with(key, self.config.max_keys, now, f)
    }

    /// `f` of `key`'s state, if it is kept.
    fn read_key<T>(&self, key: &str, f: impl FnOnce(&KeyState) -> T) -> Option<T> {
        self.state.keys.read(key, self.config.max_keys, f)
    }

    /// Tells whether a call of `cost` on `key` may go now, without waiting: `Ok(())` when
    /// it may (its cost is spent), `Err(wait)` with the wait it needs otherwise (nothing
    /// spent).
    ///
    /// With a shared store whose local copy is stale this asks the store, blocking the
    /// thread for at most the store's [`wait_limit`](crate::store::WaitLimit::wait_limit); async code may
    /// prefer [`reserve`](Self::reserve).
    pub fn try_acquire(&self, key: &str, cost: Cost) -> Result<(), Duration> {
        let wait = match &self.config.store {
            None => self.reserve_alone(key, cost, Duration::ZERO),
            // A call within this replica's lease needs no future.
            Some(_) if let Some(local) = self.spend_lease(key, &cost) => local,
            Some(store) => {
                crate::store::block_on(self.reserve(key, cost, Duration::ZERO), store.wait_limit())
                    .unwrap_or_else(|| self.reserve_alone(key, cost, Duration::ZERO))
            }
        };
        wait.map(|_| ())
    }

    /// Reserves a call of `cost` on `key` if the wait it needs is at most `max_wait`:
    /// `Ok(wait)` — the cost is spent and the call may go after `wait` (the caller sleeps
    /// it) — or `Err(needed)` with nothing spent. With a shared store, the time spent
    /// asking it counts: `wait` is at most `max_wait` less that time. Calls reserved one
    /// after another get successive turns, so that waiting calls are spread as the budget
    /// comes back.
    ///
    /// For loops that sleep on their own; [`acquire`](Self::acquire) sleeps for you.
    pub async fn reserve(
        &self,
        key: &str,
        cost: Cost,
        max_wait: Duration,
    ) -> Result<Duration, Duration> {
        let reserved = match &self.config.store {
            None => self.reserve_alone(key, cost, max_wait),
            Some(store) => {
                self.reserve_shared(store.as_ref(), key, cost, max_wait)
                    .await
            }
        };
        if let (Ok(wait), Some(hook)) = (&reserved, &self.config.on_wait)
            && !wait.is_zero()
        {
            hook(key, *wait);
        }
        reserved
    }

    /// Waits until a call of `cost` on `key` may go, with `sleep`; returns the wait. A wait
    /// longer than [`max_wait`](Self::max_wait) is not waited: the error is a `rate_limit`
    /// one (op `pace`) whose `retry_after` is the wait needed.
    pub async fn acquire_with_sleep<F: Future<Output = ()>>(
        &self,
        key: &str,
        cost: Cost,
        sleep: impl FnOnce(Duration) -> F,
    ) -> Result<Duration, crate::Error> {
        match self.reserve(key, cost, self.config.max_wait).await {
            Ok(wait) => {
                if !wait.is_zero() {
                    sleep(wait).await;
                }
                Ok(wait)
            }
            Err(needed) => Err(pace_error(needed)),
        }
    }

    /// [`acquire_with_sleep`](Self::acquire_with_sleep) with tokio's sleep.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// use std::time::Duration;
    /// use agent_error::{AgentError, recover::{Cost, Limit, Pacer}};
    ///
    /// let pacer = Pacer::new()
    ///     .limit("tool/search", Limit::requests(1, Duration::from_secs(3600)))
    ///     .max_wait(Duration::from_secs(5));
    /// assert_eq!(pacer.acquire("tool/search", Cost::request()).await.unwrap(), Duration::ZERO);
    /// // The next one would wait an hour: a rate_limit error says so instead.
    /// let err = pacer.acquire("tool/search", Cost::request()).await.unwrap_err();
    /// assert_eq!(err.code(), "rate_limit");
    /// assert!(err.retry_after().unwrap() > Duration::from_secs(3599));
    /// # }
    /// ```
    #[cfg(feature = "tokio")]
    pub async fn acquire(&self, key: &str, cost: Cost) -> Result<Duration, crate::Error> {
        self.acquire_with_sleep(key, cost, ::tokio::time::sleep)
            .await
    }

    /// Tells the key the real usage of a call reserved with `estimated`: the difference is
    /// spent (or given back, never above a limit). The usage a response reports is a peer's
    /// number: a difference counts at most one bucket, and no bucket falls below minus one
    /// bucket (what one window refills), so that no number holds the key longer than about
    /// two windows; the same holds for a cost larger than the bucket.
    ///
    /// ```
    /// use agent_error::recover::{Cost, Pacer};
    ///
    /// let pacer = Pacer::new();
    /// pacer.try_acquire("openai/gpt-4o", Cost::tokens(2_000)).unwrap();
    /// // The answer used 1,300 tokens in all.
    /// pacer.settle("openai/gpt-4o", Cost::tokens(2_000), Cost::tokens(1_300));
    /// ```
    pub fn settle(&self, key: &str, estimated: Cost, actual: Cost) {
        let now = self.now();
        let (estimated, actual) = (estimated.all_units(), actual.all_units());
        let shared = self.config.store.is_some();
        self.with_key(key, now, |state| {
            let share = state.taken_share();
            for d in 0..4 {
                let delta = actual[d] - estimated[d];
                if delta == 0.0 {
                    continue;
                }
                if let Some(bucket) = &mut state.buckets[d] {
                    bucket.refill_share(now, share);
                    bucket.spend(delta);
                }
                if shared {
                    state.unsynced[d] += delta;
                }
            }
        });
    }

    /// A call on `key` was answered `rate_limit`: the adaptive rate falls, and a
    /// `retry_after` the answer carried pauses the key. What the response's headers say is
    /// read by [`observe`](Self::observe); this is what a caller without them reports.
    pub fn throttled(&self, key: &str, retry_after: Option<Duration>) {
        let now = self.now();
        let adaptive = self.config.adaptive;
        let shared = self.config.store.is_some();
        self.with_key(key, now, |state| {
            if adaptive && !state.reported {
                state.adaptive.throttled(now);
            }
            if state.reported && !shared {
                cut_share(state, now);
            }
            if let Some(wait) = retry_after {
                pause(state, wait, now, shared);
            }
        });
    }

    /// A call on `key` succeeded: the adaptive rate climbs back.
    pub fn succeeded(&self, key: &str) {
        let now = self.now();
        let adaptive = self.config.adaptive;
        self.with_key(key, now, |state| {
            if adaptive {
                state.adaptive.succeeded(now);
            }
            if state.share > 0.0 {
                state.share = (state.share + SHARE_STEP).min(1.0);
            }
        });
    }

    /// Reports a failed call on `key` by its error: a `rate_limit` anywhere in its chain is
    /// [`throttled`](Self::throttled) (with the `retry_after` it carries); anything else
    /// tells nothing about the limits.
    pub fn failed(&self, key: &str, err: &(dyn std::error::Error + 'static)) {
        if let Some(classified) = crate::classify(err)
            && classified.is_rate_limited()
        {
            self.throttled(key, classified.retry_after());
        }
    }

    /// The adaptive rate `key` is held to, in calls a second; `None` while the key has met
    /// no `rate_limit`, or its responses send limits.
    pub fn adaptive_rate(&self, key: &str) -> Option<f64> {
        self.read_key(key, |state| {
            if state.reported {
                return None;
            }
            state.adaptive.rate()
        })?
    }

    /// What is left of `key`'s `dimension` now, as this pacer knows it (with a store: its
    /// copy as of its last step, and the lease it holds); `None` when nothing is known.
    /// Negative while reserved calls wait.
    pub fn remaining(&self, key: &str, dimension: Dimension) -> Option<f64> {
        let now = self.now();
        self.read_key(key, |state| {
            let mut bucket = state.buckets[dimension.index()]?;
            bucket.refill(now);
            // With a store, the lease this replica holds is left too.
            let lease = state.allowance[dimension.index()];
            Some(bucket.level + if lease.is_finite() { lease } else { 0.0 })
        })?
    }

    /// The reservation on this pacer's own buckets (no store, or a store that cannot answer).
    fn reserve_alone(
        &self,
        key: &str,
        cost: Cost,
        max_wait: Duration,
    ) -> Result<Duration, Duration> {
        let now = self.now();
        let units = cost.all_units();
        let adaptive = self.config.adaptive;
        let shared = self.config.store.is_some();
        self.with_key(key, now, |state| {
            if !state.configured {
                configure(state, self.config.limits.get(key), now);
            }
            let wait = reserve_in(state, &units, max_wait, now, adaptive);
            if shared && wait.is_ok() {
                // Spent alone: told when the store answers again.
                tell_later(state, &units);
            }
            wait
        })
    }

    /// A reservation from this replica's lease on a shared key, if the call fits it.
    fn spend_lease(&self, key: &str, cost: &Cost) -> Option<Result<Duration, Duration>> {
        let now = self.now();
        let units = cost.all_units();
        let staleness = nanos(self.config.staleness);
        let adaptive = self.config.adaptive;
        self.with_key(key, now, |state| {
            spend_locally(state, &units, now, staleness, adaptive)
        })
    }

    /// The reservation with a shared store: from the local copy when it is fresh and the
    /// call fits this replica's allowance, else by one step on the store.
    async fn reserve_shared(
        &self,
        store: &dyn PaceStore,
        key: &str,
        cost: Cost,
        max_wait: Duration,
    ) -> Result<Duration, Duration> {
        let now = self.now();
        let asked = now;
        let units = cost.all_units();
        let configured = self.config.limits.get(key).copied();
        let adaptive = self.config.adaptive;
        let staleness = nanos(self.config.staleness);
        let step = self.with_key(key, now, |state| {
            if let Some(local) = spend_locally(state, &units, now, staleness, adaptive) {
                return Err(local);
            }
            let mut step = PaceStep {
                max_wait,
                replica: self.config.replica,
                ..PaceStep::default()
            };
            // Without a staleness a lease could never be spent: it would only hold
            // budget back from the other calls.
            let lease = if staleness == 0 {
                [0.0; 4]
            } else {
                lease_of(state, now)
            };
            for (d, (out, take)) in step.dimensions.iter_mut().zip(units).enumerate() {
                // What the last lease left unspent goes back.
                let unspent = std::mem::take(&mut state.allowance[d]);
                let unspent = if unspent.is_finite() { unspent } else { 0.0 };
                *out = DimensionStep {
                    report: state.pending[d].take(),
                    configured: configured.and_then(|c| c[d]),
                    spent: std::mem::take(&mut state.unsynced[d]) - unspent,
                    take,
                    lease: lease[d],
                };
            }
            // What is left of the pause when it is told (none once it has passed).
            let announce = state
                .pending_pause
                .take()
                .map(|until| Duration::from_nanos(until.saturating_sub(now)))
                .filter(|wait| !wait.is_zero());
            Ok((step, announce))
        });
        let (step, announce) = match step {
            Ok(step) => step,
            Err(local) => return local,
        };
        // Both questions are asked before either answer is awaited: a store whose futures
        // start at once (Redis) answers both in one round trip's time.
        let paused: crate::store::StoreFuture<'_, Option<crate::store::Pause>> = match announce {
            Some(wait) => {
                let set = store.set_pause(
                    crate::store::PauseKind::Pause,
                    key,
                    wait,
                    crate::codes::RATE_LIMIT,
                );
                Box::pin(async move { Some(set.await) })
            }
            None => store.pause(crate::store::PauseKind::Pause, key),
        };
        let sent = step;
        let answer = store.pace(key, step);
        let (paused, answer) = (paused.await, answer.await);
        let now = self.now();
        // The time spent asking the store counts against the longest wait.
        let max_wait = max_wait.saturating_sub(Duration::from_nanos(now.saturating_sub(asked)));
        let Some(answer) = answer else {
            if !self.state.alone.swap(true, Ordering::Relaxed) {
                warn_alone();
            }
            return self.with_key(key, now, |state| {
                // What the step told is told again at the next one.
                for (d, told) in sent.dimensions.iter().enumerate() {
                    state.unsynced[d] += told.spent;
                    if state.pending[d].is_none() {
                        state.pending[d] = told.report;
                    }
                }
                go_alone(state);
                configure(state, configured.as_ref(), now);
                let wait = reserve_in(state, &units, max_wait, now, adaptive);
                if wait.is_ok() {
                    // Spent alone: told when the store answers again.
                    tell_later(state, &units);
                }
                wait
            });
        };
        if self.state.alone.swap(false, Ordering::Relaxed) {
            report_back();
        }
        let pause = paused.map_or(Duration::ZERO, |p| p.wait(0.5));
        self.with_key(key, now, |state| {
            take_answer(state, &answer, now);
            state.pause_until = state.pause_until.max(now.saturating_add(nanos(pause)));
            let adaptive = adaptive && !state.reported;
            let extra = if adaptive {
                pause.max(state.adaptive.need(now))
            } else {
                pause
            };
            match answer.wait {
                Ok(wait) if wait.max(extra) <= max_wait => {
                    if adaptive {
                        state.adaptive.take();
                        state.adaptive.sent(now);
                    }
                    Ok(wait.max(extra))
                }
                Ok(wait) => {
                    // Reserved in the store, but a pause, or the time the store took, is
                    // longer than the call may wait: give it back.
                    tell_later(state, &units.map(|take| -take));
                    Err(wait.max(extra))
                }
                Err(needed) => Err(needed.max(extra)),
            }
        })
    }
}

/// A reservation from this replica's lease on a shared key, when its copy is fresh,
/// nothing is to be told first, nothing holds the key, and the call fits the lease;
/// `None` otherwise.
fn spend_locally(
    state: &mut KeyState,
    units: &[f64; 4],
    now: u64,
    staleness: u64,
    adaptive: bool,
) -> Option<Result<Duration, Duration>> {
    let fresh = state
        .synced_at
        .is_some_and(|at| now.saturating_sub(at) < staleness);
    let fits = units.iter().zip(&state.allowance).all(|(u, a)| u <= a);
    let adaptive = adaptive && !state.reported;
    if !fresh
        || !fits
        || state.pending_pause.is_some()
        || state.pause_until > now
        || (adaptive && !state.adaptive.need(now).is_zero())
    {
        return None;
    }
    for (allowance, take) in state.allowance.iter_mut().zip(units) {
        *allowance -= take;
    }
    if adaptive {
        state.adaptive.take();
        state.adaptive.sent(now);
    }
    Some(Ok(Duration::ZERO))
}

/// What a replica asks to lease at a step, per dimension: half its share of what its copy
/// says is left.
fn lease_of(state: &KeyState, now: u64) -> [f64; 4] {
    let share = 2.0 * f64::from(state.replicas.max(1));
    state.buckets.map(|bucket| {
        bucket.map_or(0.0, |mut b| {
            b.refill(now);
            b.level.max(0.0) / share
        })
    })
}

/// Takes a store's answer as the key's copy: the buckets, the replicas, and the lease this
/// replica may spend before asking again. The lease adds to what the replica holds: steps
/// of concurrent calls may be answered in any order, and every unit leased is either spent
/// or given back at the next step, never dropped (a dropped lease is budget the fleet
/// never uses).
fn take_answer(state: &mut KeyState, answer: &PaceAnswer, now: u64) {
    state.alone = false;
    state.replicas = answer.replicas.max(1);
    state.synced_at = Some(now);
    // While the store knows nothing of the key, every call asks it (the first reports are
    // on their way); once it knows a limit, a dimension it knows nothing of holds nothing back.
    let known = answer.buckets.iter().any(Option::is_some);
    for (d, view) in answer.buckets.iter().enumerate() {
        state.buckets[d] = view.map(|v| Bucket::from_view(&v, now));
        let held = state.allowance[d];
        let held = if held.is_finite() { held } else { 0.0 };
        state.allowance[d] = match state.buckets[d] {
            Some(_) => held + answer.leased[d],
            None if known => f64::INFINITY,
            None => held,
        };
    }
}

/// What a 429 leaves of a replica's share of a header-paced key: 0.7 of it, at most once
/// in [`CUT_EVERY`] (the 429s of one burst are one signal), never below a 64th.
const SHARE_CUT: f64 = 0.7;
const CUT_EVERY: u64 = 100_000_000;
const MIN_SHARE: f64 = 1.0 / 64.0;
/// What a success gives back to the share.
const SHARE_STEP: f64 = 0.01;

/// Cuts the key's share after a 429 its headers did not foresee.
fn cut_share(state: &mut KeyState, now: u64) {
    if state.share > 0.0 && now.saturating_sub(state.cut_at) < CUT_EVERY {
        return;
    }
    state.share = (state.taken_share() * SHARE_CUT).max(MIN_SHARE);
    state.cut_at = now;
}

/// Reports the switch to pacing alone.
fn warn_alone() {
    #[cfg(feature = "tracing")]
    tracing::warn!(
        "the pacer's store did not answer: each replica paces alone with its share of the last known limits"
    );
}

/// Reports the store answering again.
fn report_back() {
    #[cfg(feature = "tracing")]
    tracing::info!("the pacer's store answers again: budgets are shared");
}

/// The error of a call that would wait longer than it may: a `rate_limit` error (op
/// `pace`) whose `retry_after` is the wait needed.
pub(crate) fn pace_error(needed: Duration) -> crate::Error {
    crate::Error::new(
        "pace",
        crate::codes::RATE_LIMIT,
        format!(
            "the provider's budget comes back in {}, longer than this call may wait",
            crate::store::seconds_text(needed)
        ),
    )
    .with_retry_after(needed)
}

/// Gives the key its configured buckets where nothing is known yet (once: a bucket, once
/// there, stays).
fn configure(state: &mut KeyState, configured: Option<&[Option<(f64, f64)>; 4]>, now: u64) {
    state.configured = true;
    let Some(configured) = configured else {
        return;
    };
    for (slot, shape) in state.buckets.iter_mut().zip(configured) {
        if slot.is_none()
            && let Some((capacity, rate)) = shape
        {
            *slot = Some(Bucket::configured(*capacity, *rate, now));
        }
    }
}

/// Reserves `units` on the key's own buckets if the wait is at most `max_wait`.
fn reserve_in(
    state: &mut KeyState,
    units: &[f64; 4],
    max_wait: Duration,
    now: u64,
    adaptive: bool,
) -> Result<Duration, Duration> {
    let mut before = Duration::from_nanos(state.pause_until.saturating_sub(now));
    let adaptive = adaptive && !state.reported && units[Dimension::Requests.index()] > 0.0;
    if adaptive {
        before = before.max(state.adaptive.need(now));
    }
    let share = state.taken_share();
    let wait = crate::store::reserve(&mut state.buckets, units, before, max_wait, now, share)?;
    for ((bucket, unmetered), &take) in state.buckets.iter().zip(&mut state.unmetered).zip(units) {
        if bucket.is_none() {
            unmetered.add(take, now);
        }
    }
    if adaptive {
        state.adaptive.take();
        state.adaptive.sent(now);
    }
    Ok(wait)
}

/// Pauses the key for `wait` from `now` (the later end wins); a shared key tells the
/// store at its next step.
fn pause(state: &mut KeyState, wait: Duration, now: u64, shared: bool) {
    let wait = wait.min(crate::store::MAX_HOLD);
    state.pause_until = state.pause_until.max(now.saturating_add(nanos(wait)));
    if shared {
        // The later end, told with what is left of it at the next step.
        state.pending_pause = Some(state.pause_until);
        state.synced_at = None;
    }
}

/// Adds `units` (negative: given back) to what a replica that shares its budgets tells the
/// store at its next step: what it spent while the store did not answer, so that the fleet
/// does not spend again what the store's buckets refilled meanwhile, or a reservation it
/// did not use.
fn tell_later(state: &mut KeyState, units: &[f64; 4]) {
    for (unsynced, take) in state.unsynced.iter_mut().zip(units) {
        *unsynced += take;
    }
}

/// Cuts the key's copy of the shared budgets to this replica's share, once, when the
/// store stops answering.
fn go_alone(state: &mut KeyState) {
    if state.alone {
        return;
    }
    state.alone = true;
    state.synced_at = None;
    let share = f64::from(state.replicas.max(1));
    for (bucket, lease) in state.buckets.iter_mut().zip(&mut state.allowance) {
        let unspent = std::mem::take(lease);
        if let Some(bucket) = bucket {
            bucket.capacity /= share;
            bucket.rate /= share;
            // Its share of what the fleet had left, and the lease it holds.
            let held = if unspent.is_finite() { unspent } else { 0.0 };
            bucket.level = (bucket.level / share + held).min(bucket.capacity);
        }
    }
}

/// Whether forgetting the key loses nothing: no pause, nothing untold, every bucket full.
fn idle(state: &KeyState, now: u64) -> bool {
    state.pause_until <= now
        && state.pending_pause.is_none()
        && state.unsynced.iter().all(|u| *u == 0.0)
        && state.pending.iter().all(Option::is_none)
        && state.buckets.iter().flatten().all(|b| {
            let mut b = *b;
            b.refill(now);
            b.level >= b.capacity
        })
        && state.adaptive.rate().is_none()
}
