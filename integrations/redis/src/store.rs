//! `RedisStore`: the shared [`Store`] on Redis — key layout, the local copy that spares
//! healthy keys a round trip, and what happens when Redis is down or slow.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use agent_error_runtime::recover::{CircuitState, LocalStore};
use agent_error_runtime::store::{
    BreakerRule, BudgetStore, CircuitStore, PaceAnswer, PaceStep, PaceStore, Pause, PauseKind,
    PauseStore, StoreFuture, TrialToken, WaitLimit,
};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::cluster::{ClusterClientBuilder, ClusterConfig};
use redis::cluster_async::ClusterConnection;
use redis::{RedisResult, Script};
use tokio::runtime::Handle;
use tokio::task::JoinHandle;

use crate::{pace, scripts};

/// What a [`RedisStore`] answers while Redis cannot be reached (down, or slower than the
/// [`timeout`](RedisStoreBuilder::timeout)).
///
/// Pacing is the exception: [`PaceStore::pace`] answers `None` whatever this says, and each
/// [`Pacer`](agent_error_runtime::recover::Pacer) goes on alone with its share of the
/// limits it last knew — neither letting every call through nor holding them all back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unavailable {
    /// Serve the state this replica knows (what it read from Redis and what it recorded
    /// itself), kept and updated in the process as a [`LocalStore`] would: the replica
    /// goes on alone, as a single process does. The default.
    #[default]
    Local,
    /// Let everything through: no pause, circuits closed, budgets paying.
    FailOpen,
    /// Hold everything back: every key paused, every circuit open, budgets empty, until
    /// Redis answers again.
    FailClosed,
}

/// A [`Store`](agent_error_runtime::recover::Store) on Redis, shared by every replica that connects to the same server and prefix.
///
/// - **Keys**: `{prefix}:v1:{kind}:{{key}}`, one Redis hash per entity (`kind` is `pause`,
///   `cooldown` (a [`Fallback`](agent_error_runtime::recover::Fallback) candidate's, see
///   [`PauseKind`]), `circuit`, `budget` or `pace`), the entity's name in a Cluster hash
///   tag, so that each lives on one slot; characters `{`, `}` and `%` of a name are
///   percent-encoded, so no name reaches another kind's key. Every key has a TTL: a pause
///   or a cooldown lives until its deadline plus its jitter, a circuit its
///   cooldown plus the [`ttl`](RedisStoreBuilder::ttl), a budget the `ttl` after its last
///   spend, a pacing key until its buckets are full again (at most 25 hours) plus the `ttl`.
/// - **Pacing** ([`PaceStore::pace`], for a [`Pacer`](agent_error_runtime::recover::Pacer)
///   shared through this store): one hash per pacer key holds its buckets in every
///   dimension (requests, tokens, input and output tokens) and when each replica last
///   stepped on it. Each step is one script, a round trip every time: the pacer keeps its
///   own copy and asks only when that copy is stale or short. The script applies the
///   step on the server's clock as the in-process [`LocalStore`] does — reports (the most
///   restrictive level wins once a refill rate is known), configured limits, units spent,
///   then the reservation if its wait is within the step's `max_wait`, and the replica's
///   lease when the call goes at once — and counts the replicas seen on the key in the
///   last 10 seconds (at most 64).
/// - **Redis Cluster**: a store made with [`RedisStore::cluster_builder`] talks to the
///   cluster's nodes, each script going to the node that holds its key (every operation
///   touches one key, so none is refused on a cluster).
/// - **Writes**: each transition is one Lua script on one key (EVALSHA, loaded again when
///   the server answers NOSCRIPT), on the server's clock.
/// - **Reads**: from a local copy at most [`staleness`](RedisStoreBuilder::staleness) old,
///   so that a call on a healthy key makes no round trip; a copy older than that is read
///   again (one round trip). Every write's answer refreshes the copy.
/// - **Values read are checked**: a key of another type, a field that is not a plain
///   integer, or a deadline more than 24 hours ahead (longer than any this store writes:
///   pauses, cooldowns and leases are written at most 24 hours long) is deleted by the
///   script that meets it and counts as absent, with a `tracing` warning. In a pacing key,
///   a bucket with a field that is not a finite number, a capacity not above zero or above
///   10^15, a level beyond its capacity either way, a negative rate or one that would take
///   more than 25 hours to fill the bucket, or a time more than 25 hours ahead is dropped
///   the same way, alone; a bucket no response reported is held to the limit configured
///   in the pacer, whatever capacity is stored. A
///   script error about one key leaves the store up: every other key is still shared.
/// - **Redis down or slow**: each operation waits at most the
///   [`timeout`](RedisStoreBuilder::timeout); after a failure, the store's own breaker
///   stops asking Redis for [`retry_interval`](RedisStoreBuilder::retry_interval) and
///   answers as [`Unavailable`] says (except [`pace`](PaceStore::pace), which then answers
///   `None` whatever it says: the pacer paces alone); one `tracing` warning when it
///   degrades and one info event when Redis answers again. The connection reconnects by itself. Nothing
///   panics; nothing blocks longer than the timeout.
/// - **Blocking APIs on a one-thread runtime** (`CircuitBreaker::call`, `Pacer::try_acquire`
///   on the thread of a `current_thread` tokio runtime, such as a plain `#[tokio::test]`):
///   the runtime cannot reach Redis while its only thread waits, so such a call is answered
///   at once as [`Unavailable`] says, and the store stays up for the async calls: Redis is
///   not the one that failed to answer.
///
/// ```no_run
/// use std::sync::Arc;
/// use agent_error::recover::{CircuitBreaker, Store};
/// use agent_error::redis::RedisStore;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let store: Arc<dyn Store> = Arc::new(RedisStore::builder("redis://127.0.0.1:6379").connect().await?);
/// let breaker = CircuitBreaker::new().store(store);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct RedisStore {
    inner: Arc<Inner>,
}

/// The connection to Redis: one server, or the nodes of a Redis Cluster (each script
/// goes to the node that holds its one key).
#[derive(Clone)]
enum Conn {
    Node(ConnectionManager),
    Cluster(ClusterConnection),
}

struct Inner {
    conn: Conn,
    handle: Handle,
    prefix: String,
    staleness: Duration,
    timeout: Duration,
    ttl: Duration,
    retry_interval: Duration,
    unavailable: Unavailable,
    copies: Mutex<HashMap<String, Copy>>,
    local: LocalStore,
    /// The store's own breaker around Redis.
    down_until: Mutex<Option<Instant>>,
    degraded: AtomicBool,
    round_trips: AtomicU64,
    failures: AtomicU32,
}

/// What this replica last read of a key, with the server's deadlines turned into its own instants.
#[derive(Clone)]
enum Copy {
    Pause {
        read: Instant,
        until: Instant,
        length: Duration,
        code: String,
    },
    Circuit {
        read: Instant,
        failures: u32,
        until: Option<Instant>,
        lease: Option<Instant>,
    },
}

impl Copy {
    fn read(&self) -> Instant {
        match self {
            Copy::Pause { read, .. } | Copy::Circuit { read, .. } => *read,
        }
    }
}

impl fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // No URL: it may carry a password.
        f.debug_struct("RedisStore")
            .field("prefix", &self.inner.prefix)
            .field("staleness", &self.inner.staleness)
            .field("timeout", &self.inner.timeout)
            .field("unavailable", &self.inner.unavailable)
            .field("degraded", &self.is_degraded())
            .finish_non_exhaustive()
    }
}

/// Settings of a [`RedisStore`], from [`RedisStore::builder`].
#[derive(Clone)]
pub struct RedisStoreBuilder {
    /// The server's URL, for a store on one server.
    url: String,
    /// The nodes first asked for the layout of a Redis Cluster; empty for one server.
    cluster: Vec<String>,
    prefix: String,
    staleness: Duration,
    timeout: Duration,
    ttl: Duration,
    retry_interval: Duration,
    unavailable: Unavailable,
}

impl fmt::Debug for RedisStoreBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // No URL: it may carry a password.
        f.debug_struct("RedisStoreBuilder")
            .field("cluster", &!self.cluster.is_empty())
            .field("prefix", &self.prefix)
            .field("staleness", &self.staleness)
            .field("timeout", &self.timeout)
            .field("ttl", &self.ttl)
            .field("retry_interval", &self.retry_interval)
            .field("unavailable", &self.unavailable)
            .finish_non_exhaustive()
    }
}

impl RedisStoreBuilder {
    /// The prefix of every key (`agent-error` by default); the layout's version follows it.
    #[must_use]
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// How old the local copy of a key may be when a call reads it (1 s by default): a
    /// change made by another replica reaches this one within this plus one round trip.
    #[must_use]
    pub fn staleness(mut self, staleness: Duration) -> Self {
        self.staleness = staleness;
        self
    }

    /// The longest one operation waits for Redis (50 ms by default).
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// How long idle keys live in Redis (1 hour by default).
    #[must_use]
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl.max(Duration::from_secs(1));
        self
    }

    /// After Redis failed to answer, how long the store answers without asking it (1 s by
    /// default); then one operation tries again.
    #[must_use]
    pub fn retry_interval(mut self, interval: Duration) -> Self {
        self.retry_interval = interval;
        self
    }

    /// What to answer while Redis cannot be reached ([`Unavailable::Local`] by default).
    #[must_use]
    pub fn when_unavailable(mut self, unavailable: Unavailable) -> Self {
        self.unavailable = unavailable;
        self
    }

    /// Makes the store. It connects lazily and reconnects by itself, so a Redis that is
    /// down now is no error: the store starts degraded. Must run on a tokio runtime, whose
    /// handle the store keeps; an invalid URL or no runtime is an error, and so is a
    /// server that answers, within the timeout, that it is a node of a Redis Cluster when
    /// the store was made with [`RedisStore::builder`] (use
    /// [`RedisStore::cluster_builder`]: one server's connection would take each of the
    /// cluster's `MOVED` answers for Redis down).
    pub async fn connect(self) -> RedisResult<RedisStore> {
        let handle = Handle::try_current().map_err(|_| {
            redis::RedisError::from((
                redis::ErrorKind::Client,
                "RedisStore::connect must run on a tokio runtime",
            ))
        })?;
        let conn = if self.cluster.is_empty() {
            let client = redis::Client::open(self.url.as_str())?;
            let config = ConnectionManagerConfig::new()
                .set_response_timeout(Some(self.timeout))
                .set_connection_timeout(Some(self.timeout))
                .set_number_of_retries(1)
                .set_max_delay(self.retry_interval);
            let conn = ConnectionManager::new_lazy_with_config(client, config)?;
            refuse_a_cluster_node(&conn, self.timeout).await?;
            Conn::Node(conn)
        } else {
            let client = ClusterClientBuilder::new(self.cluster.iter().map(String::as_str))
                .retries(1)
                .max_retry_wait(ms(self.retry_interval))
                .build()?;
            let config = ClusterConfig::new()
                .set_connection_timeout(self.timeout)
                .set_response_timeout(self.timeout);
            Conn::Cluster(client.get_pending_async_connection_with_config(config))
        };
        Ok(RedisStore {
            inner: Arc::new(Inner {
                conn,
                handle,
                prefix: format!("{}:v1", self.prefix),
                staleness: self.staleness,
                timeout: self.timeout,
                ttl: self.ttl,
                retry_interval: self.retry_interval,
                unavailable: self.unavailable,
                copies: Mutex::new(HashMap::new()),
                local: LocalStore::new(),
                down_until: Mutex::new(None),
                degraded: AtomicBool::new(false),
                round_trips: AtomicU64::new(0),
                failures: AtomicU32::new(0),
            }),
        })
    }
}

/// Refuses a server that is a node of a Redis Cluster, for a store made for one server:
/// it would answer each key on another node `MOVED`, and the store would take that for
/// Redis down. A server that does not answer within `timeout` is no error (the store
/// starts degraded and connects later).
async fn refuse_a_cluster_node(conn: &ConnectionManager, timeout: Duration) -> RedisResult<()> {
    let mut conn = conn.clone();
    let info = tokio::time::timeout(
        timeout,
        redis::cmd("INFO")
            .arg("cluster")
            .query_async::<String>(&mut conn),
    )
    .await;
    match info {
        Ok(Ok(info)) if info.lines().any(|l| l.trim() == "cluster_enabled:1") => {
            Err(redis::RedisError::from((
                redis::ErrorKind::Client,
                "the server is a node of a Redis Cluster",
                "connect with RedisStore::cluster_builder and the cluster's nodes".to_owned(),
            )))
        }
        _ => Ok(()),
    }
}

/// A key's name with the characters that would break its hash tag percent-encoded.
fn tag(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '{' => out.push_str("%7B"),
            '}' => out.push_str("%7D"),
            '%' => out.push_str("%25"),
            c => out.push(c),
        }
    }
    out
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The instant of a server deadline, from the server's `now` answered with it.
fn local_instant(read: Instant, now_ms: i64, at_ms: i64) -> Instant {
    let ahead = Duration::from_millis(at_ms.saturating_sub(now_ms).max(0) as u64);
    read + ahead
}

impl RedisStore {
    /// Settings for a store on the server at `url` (`redis://host:port/db`).
    pub fn builder(url: impl Into<String>) -> RedisStoreBuilder {
        RedisStoreBuilder {
            url: url.into(),
            cluster: Vec::new(),
            prefix: "agent-error".to_owned(),
            staleness: Duration::from_secs(1),
            timeout: Duration::from_millis(50),
            ttl: Duration::from_secs(3600),
            retry_interval: Duration::from_secs(1),
            unavailable: Unavailable::Local,
        }
    }

    /// Settings for a store on a Redis Cluster, first reached through `nodes`
    /// (`redis://host:port` each; one that answers is enough, the store learns the others
    /// and follows the cluster as its slots move). Every operation is one script on one
    /// key, and each key's name is a hash tag, so every operation works on a cluster as on
    /// one server.
    ///
    /// ```no_run
    /// use agent_error::redis::RedisStore;
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let store = RedisStore::cluster_builder(["redis://10.0.0.1:6379", "redis://10.0.0.2:6379"])
    ///     .prefix("my-agent")
    ///     .connect()
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn cluster_builder<N: Into<String>>(
        nodes: impl IntoIterator<Item = N>,
    ) -> RedisStoreBuilder {
        RedisStoreBuilder {
            cluster: nodes.into_iter().map(Into::into).collect(),
            ..RedisStore::builder("")
        }
    }

    /// The Redis key of an entity: `{prefix}:v1:{kind}:{{name}}`.
    pub fn key(&self, kind: &str, name: &str) -> String {
        format!("{}:{kind}:{{{}}}", self.inner.prefix, tag(name))
    }

    /// Whether Redis is unreachable now, the state being served as [`Unavailable`] says.
    pub fn is_degraded(&self) -> bool {
        self.inner.degraded.load(Ordering::Acquire)
    }

    /// Round trips to Redis made so far (each operation that asked the server, answered or not).
    pub fn round_trips(&self) -> u64 {
        self.inner.round_trips.load(Ordering::Relaxed)
    }

    /// Runs one script on one key on the runtime (so that any thread may wait for it),
    /// within the timeout. [`Reply::Down`] when Redis did not answer in time or the store's
    /// breaker is open; [`Reply::BadKey`] when the server answered with an error about this
    /// key alone (the store stays up: every other key is still shared).
    fn remote<T>(&self, script: &'static Script, key: String, args: Vec<String>) -> Remote<T>
    where
        T: redis::FromRedisValue + Send + 'static,
    {
        let inner = self.inner.clone();
        let deadline = Instant::now() + inner.timeout;
        if inner.breaker_open() {
            return Remote {
                task: None,
                start: Arc::new(AtomicU8::new(ABANDONED)),
                deadline,
                inner,
            };
        }
        inner.round_trips.fetch_add(1, Ordering::Relaxed);
        let start = Arc::new(AtomicU8::new(WAITING));
        let run = Self::run_script(inner.clone(), script, key, args, deadline);
        let task = self.inner.handle.spawn({
            let start = start.clone();
            async move {
                // A caller that stopped waiting before the task ran has had its answer:
                // nothing is sent for it.
                match start.compare_exchange(WAITING, STARTED, Ordering::AcqRel, Ordering::Acquire)
                {
                    Ok(_) => run.await,
                    Err(_) => Reply::Down,
                }
            }
        });
        Remote {
            task: Some(task),
            start,
            deadline,
            inner,
        }
    }

    /// [`remote`](Self::remote)'s task. One that first runs after its deadline (its caller
    /// blocked the thread the runtime needed, and has had its answer) sends nothing.
    async fn run_script<T: redis::FromRedisValue>(
        inner: Arc<Inner>,
        script: &'static Script,
        key: String,
        args: Vec<String>,
        deadline: Instant,
    ) -> Reply<T> {
        if Instant::now() >= deadline {
            return Reply::Down;
        }
        let mut call = script.prepare_invoke();
        call.key(&key);
        for arg in args {
            call.arg(arg);
        }
        let invoked = async {
            match inner.conn.clone() {
                Conn::Node(mut conn) => call.invoke_async::<redis::Value>(&mut conn).await,
                Conn::Cluster(mut conn) => call.invoke_async::<redis::Value>(&mut conn).await,
            }
        };
        let answer = tokio::time::timeout_at(deadline.into(), invoked).await;
        match answer {
            Ok(Ok(value)) => {
                inner.up();
                inner.read(&key, value)
            }
            Ok(Err(e)) if about_the_key(&e) => {
                inner.up();
                inner.bad_key(&key, &format!("{:?}", e.kind()));
                Reply::BadKey
            }
            Ok(Err(e)) => {
                if matches!(inner.conn, Conn::Node(_)) && e.redirect_node().is_some() {
                    tracing::error!(
                        target: "agent_error::redis",
                        "the server answered MOVED: it is a node of a Redis Cluster, and a store made with RedisStore::builder talks to one server; make it with RedisStore::cluster_builder"
                    );
                }
                inner.down(&format!("{:?}", e.kind()));
                Reply::Down
            }
            Err(_) => {
                inner.down("timeout");
                Reply::Down
            }
        }
    }

    fn copy(&self, key: &str) -> Option<Copy> {
        // While degraded the state is served as `Unavailable` says, not from old copies.
        if self.is_degraded() {
            return None;
        }
        let copies = self.inner.copies.lock().unwrap_or_else(|p| p.into_inner());
        copies
            .get(key)
            .filter(|c| c.read().elapsed() <= self.inner.staleness)
            .cloned()
    }

    fn keep(&self, key: String, copy: Copy) {
        let mut copies = self.inner.copies.lock().unwrap_or_else(|p| p.into_inner());
        if copies.len() >= LocalStore::DEFAULT_CAPACITY && !copies.contains_key(&key) {
            let staleness = self.inner.staleness;
            copies.retain(|_, c| c.read().elapsed() <= staleness);
            if copies.len() >= LocalStore::DEFAULT_CAPACITY {
                copies.clear();
            }
        }
        copies.insert(key, copy);
    }

    /// Keeps a pause answer, mirrors it locally, and turns it into a [`Pause`].
    fn pause_answer(
        &self,
        kind: PauseKind,
        name: &str,
        key: String,
        read: Instant,
        (now, until, set, code): (i64, i64, i64, String),
    ) -> Option<Pause> {
        let until_at = local_instant(read, now, until);
        let length = Duration::from_millis(until.saturating_sub(set).max(0) as u64);
        self.keep(
            key,
            Copy::Pause {
                read,
                until: until_at,
                length,
                code: code.clone(),
            },
        );
        if until == 0 {
            return None;
        }
        let remaining = until_at.saturating_duration_since(Instant::now());
        if !remaining.is_zero() {
            self.inner.local.set_pause_now(kind, name, remaining, &code);
        }
        pause_from(until_at, length, code)
    }

    fn circuit_answer(
        &self,
        key: String,
        read: Instant,
        answer: (i64, i64, i64, i64),
    ) -> CircuitState {
        let (now, failures, until, lease) = answer;
        let copy = Copy::Circuit {
            read,
            failures: u32::try_from(failures).unwrap_or(u32::MAX),
            until: (until != 0).then(|| local_instant(read, now, until)),
            lease: (lease != 0).then(|| local_instant(read, now, lease)),
        };
        let state = circuit_from(&copy);
        self.keep(key, copy);
        state
    }

    fn fallback_pause(&self, kind: PauseKind, name: &str) -> Option<Pause> {
        match self.inner.unavailable {
            Unavailable::Local => self.inner.local.pause_now(kind, name),
            Unavailable::FailOpen => None,
            Unavailable::FailClosed => Some(Pause {
                remaining: self.inner.retry_interval,
                overdue: Duration::ZERO,
                length: self.inner.retry_interval,
                code: "provider_unavailable".to_owned(),
            }),
        }
    }

    fn fallback_circuit(&self, name: &str) -> CircuitState {
        match self.inner.unavailable {
            Unavailable::Local => self.inner.local.circuit_now(name),
            Unavailable::FailOpen => CircuitState::Closed { failures: 0 },
            Unavailable::FailClosed => CircuitState::Open {
                closes_in: self.inner.retry_interval,
            },
        }
    }
}

fn pause_from(until: Instant, length: Duration, code: String) -> Option<Pause> {
    let now = Instant::now();
    let pause = Pause {
        remaining: until.saturating_duration_since(now),
        overdue: now.saturating_duration_since(until),
        length,
        code,
    };
    (pause.overdue <= pause.max_jitter()).then_some(pause)
}

fn circuit_from(copy: &Copy) -> CircuitState {
    let Copy::Circuit {
        failures,
        until,
        lease,
        ..
    } = copy
    else {
        return CircuitState::Closed { failures: 0 };
    };
    let now = Instant::now();
    match until {
        None => CircuitState::Closed {
            failures: *failures,
        },
        Some(_) if lease.is_some_and(|l| now < l) => CircuitState::HalfOpen,
        Some(until) => CircuitState::Open {
            closes_in: until.saturating_duration_since(now),
        },
    }
}

/// What a script's run gave.
enum Reply<T> {
    /// The script's answer.
    Answer(T),
    /// The server answered with an error about this key alone (or an answer that does not
    /// read): the key is treated as absent for this operation.
    BadKey,
    /// Redis did not answer: the state is served as [`Unavailable`] says.
    Down,
}

/// Whether a failed script is this key's problem (the server answered, about the key's
/// value), not the connection's or the server's.
fn about_the_key(e: &redis::RedisError) -> bool {
    matches!(
        e.kind(),
        redis::ErrorKind::Parse | redis::ErrorKind::UnexpectedReturnType
    ) || matches!(e.code(), Some("ERR" | "WRONGTYPE"))
}

impl Inner {
    /// Reads a script's answer: its last element says whether the script repaired the key.
    fn read<T: redis::FromRedisValue>(&self, key: &str, value: redis::Value) -> Reply<T> {
        let redis::Value::Array(mut items) = value else {
            self.bad_key(key, "an answer that is not an array");
            return Reply::BadKey;
        };
        match items.pop() {
            Some(redis::Value::Int(1)) => tracing::warn!(
                target: "agent_error::redis",
                key,
                "a key held a value this library never writes (another type, not an integer, or a deadline too far ahead): it was deleted, and counts as absent"
            ),
            Some(redis::Value::Int(2)) => tracing::warn!(
                target: "agent_error::redis",
                key,
                "a pacing key held a value this library never writes (not a finite number, or a capacity, level, rate or time out of range): that bucket was dropped, and counts as absent"
            ),
            _ => {}
        }
        match T::from_redis_value(redis::Value::Array(items)) {
            Ok(answer) => Reply::Answer(answer),
            Err(_) => {
                self.bad_key(key, "an answer that does not read");
                Reply::BadKey
            }
        }
    }

    fn bad_key(&self, key: &str, why: &str) {
        tracing::warn!(
            target: "agent_error::redis",
            key,
            error = why,
            "a script failed on one key: that key counts as absent, every other is still shared"
        );
    }

    fn breaker_open(&self) -> bool {
        let down = self.down_until.lock().unwrap_or_else(|p| p.into_inner());
        down.is_some_and(|until| Instant::now() < until)
    }

    fn up(&self) {
        self.failures.store(0, Ordering::Relaxed);
        *self.down_until.lock().unwrap_or_else(|p| p.into_inner()) = None;
        if self.degraded.swap(false, Ordering::AcqRel) {
            tracing::info!(
                target: "agent_error::redis",
                prefix = %self.prefix,
                "Redis answers again: shared state is back"
            );
        }
    }

    fn down(&self, why: &str) {
        self.failures.fetch_add(1, Ordering::Relaxed);
        *self.down_until.lock().unwrap_or_else(|p| p.into_inner()) =
            Some(Instant::now() + self.retry_interval);
        if !self.degraded.swap(true, Ordering::AcqRel) {
            tracing::warn!(
                target: "agent_error::redis",
                prefix = %self.prefix,
                error = why,
                fallback = ?self.unavailable,
                "Redis is unreachable: serving resilience state without it"
            );
        }
    }
}

/// The most a deadline written to Redis lies ahead: a pause, a cooldown or a lease longer
/// than this is written this long, and a deadline read further ahead is not obeyed.
const MAX_AHEAD: Duration = Duration::from_millis(scripts::MAX_AHEAD_MS);

/// A script's answer on its way from the runtime, due by its deadline.
///
/// A caller may poll it from a thread the runtime itself needs (a blocking API on a
/// runtime with one thread): the script's task cannot run until that caller lets go. Such
/// a caller gets [`Reply::Down`] at once, and one whose task has not started by the
/// deadline (a runtime too busy to run it) gets it then: the caller is served as
/// [`Unavailable`] says, never let through as if the key had no state. Neither counts
/// against Redis: the store degrades only when Redis itself did not answer in time.
struct Remote<T> {
    /// `None` once answered, or when the store's breaker spared the round trip.
    task: Option<JoinHandle<Reply<T>>>,
    /// Whether the task has begun to run ([`STARTED`]), or will not ([`ABANDONED`]).
    start: Arc<AtomicU8>,
    deadline: Instant,
    inner: Arc<Inner>,
}

/// A [`Remote`]'s task has not run yet.
const WAITING: u8 = 0;
/// It runs, or has run.
const STARTED: u8 = 1;
/// It will not run: its caller has had its answer.
const ABANDONED: u8 = 2;

impl<T> Remote<T> {
    /// Stops the task from running if it has not started: whether it had not.
    fn abandon(&self) -> bool {
        self.start
            .compare_exchange(WAITING, ABANDONED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
            || self.start.load(Ordering::Acquire) == ABANDONED
    }
}

/// Whether this thread waits in a blocking API on a runtime with one thread: the thread
/// the runtime needs to run the script.
fn blocks_its_runtime() -> bool {
    agent_error_runtime::store::in_blocking_call()
        && Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::CurrentThread)
}

impl<T> Future for Remote<T> {
    type Output = Reply<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Reply<T>> {
        let Some(task) = self.task.as_mut() else {
            return Poll::Ready(Reply::Down);
        };
        match Pin::new(task).poll(cx) {
            Poll::Ready(reply) => {
                self.task = None;
                Poll::Ready(reply.unwrap_or(Reply::Down))
            }
            // The task stays: a claim's guard gives back what it may still be granted. It
            // sends nothing once past its deadline.
            Poll::Pending if blocks_its_runtime() && self.abandon() => Poll::Ready(Reply::Down),
            Poll::Pending if Instant::now() >= self.deadline => {
                if !self.abandon() {
                    self.inner.down("timeout");
                }
                Poll::Ready(Reply::Down)
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

/// A trial's claim whose answer nobody has read yet.
struct ClaimInFlight {
    claim: Remote<(i64, i64)>,
    store: RedisStore,
    name: String,
}

impl Drop for ClaimInFlight {
    fn drop(&mut self) {
        let Some(task) = self.claim.task.take() else {
            return;
        };
        let store = self.store.clone();
        let name = std::mem::take(&mut self.name);
        // Bounded: the claim's task ends within the timeout, and so does the release.
        self.store.inner.handle.spawn(async move {
            if let Ok(Reply::Answer((_, token))) = task.await
                && let Ok(token) = u64::try_from(token)
                && token != 0
            {
                store.abandon_trial(&name, TrialToken(token));
            }
        });
    }
}

impl PauseStore for RedisStore {
    fn pause<'a>(&'a self, kind: PauseKind, name: &'a str) -> StoreFuture<'a, Option<Pause>> {
        let key = self.key(kind.as_str(), name);
        if let Some(Copy::Pause {
            until,
            length,
            code,
            ..
        }) = self.copy(&key)
        {
            return Box::pin(std::future::ready(pause_from(until, length, code)));
        }
        let read = Instant::now();
        let remote = self.remote(&scripts::PAUSE_GET, key.clone(), Vec::new());
        Box::pin(async move {
            match remote.await {
                Reply::Answer(answer) => self.pause_answer(kind, name, key, read, answer),
                Reply::BadKey => None,
                Reply::Down => self.fallback_pause(kind, name),
            }
        })
    }

    fn set_pause<'a>(
        &'a self,
        kind: PauseKind,
        name: &'a str,
        wait: Duration,
        code: &'a str,
    ) -> StoreFuture<'a, Pause> {
        let local = self.inner.local.set_pause_now(kind, name, wait, code);
        let wait = wait.min(MAX_AHEAD);
        let key = self.key(kind.as_str(), name);
        let grace = ms(Duration::from_secs(1)) + 1000;
        let read = Instant::now();
        let remote = self.remote(
            &scripts::PAUSE_SET,
            key.clone(),
            vec![
                ms(wait).max(1).to_string(),
                code.to_owned(),
                grace.to_string(),
            ],
        );
        Box::pin(async move {
            match remote.await {
                Reply::Answer(answer) => self
                    .pause_answer(kind, name, key, read, answer)
                    .unwrap_or(local),
                Reply::BadKey => local,
                Reply::Down => match self.inner.unavailable {
                    Unavailable::FailOpen => local,
                    _ => self.fallback_pause(kind, name).unwrap_or(local),
                },
            }
        })
    }
}

impl CircuitStore for RedisStore {
    fn circuit<'a>(&'a self, name: &'a str) -> StoreFuture<'a, CircuitState> {
        let key = self.key("circuit", name);
        if let Some(copy) = self.copy(&key) {
            return Box::pin(std::future::ready(circuit_from(&copy)));
        }
        let read = Instant::now();
        let remote = self.remote(&scripts::CIRCUIT_GET, key.clone(), Vec::new());
        Box::pin(async move {
            match remote.await {
                Reply::Answer(answer) => self.circuit_answer(key, read, answer),
                Reply::BadKey => CircuitState::Closed { failures: 0 },
                Reply::Down => self.fallback_circuit(name),
            }
        })
    }

    fn record_failure<'a>(
        &'a self,
        name: &'a str,
        rule: BreakerRule,
    ) -> StoreFuture<'a, CircuitState> {
        let local = self.inner.local.record_failure_now(name, rule);
        let key = self.key("circuit", name);
        let read = Instant::now();
        let remote = self.remote(
            &scripts::FAILURE,
            key.clone(),
            vec![
                rule.threshold.max(1).to_string(),
                ms(rule.cooldown.min(MAX_AHEAD)).to_string(),
                ms(self.inner.ttl).to_string(),
            ],
        );
        Box::pin(async move {
            match remote.await {
                Reply::Answer(answer) => self.circuit_answer(key, read, answer),
                Reply::BadKey => local,
                Reply::Down => match self.inner.unavailable {
                    Unavailable::Local => local,
                    _ => self.fallback_circuit(name),
                },
            }
        })
    }

    fn record_success<'a>(&'a self, name: &'a str) -> StoreFuture<'a, ()> {
        self.inner.local.record_success_now(name);
        let key = self.key("circuit", name);
        let read = Instant::now();
        let remote = self.remote(&scripts::SUCCESS, key.clone(), Vec::new());
        Box::pin(async move {
            if let Reply::Answer(answer) = remote.await {
                self.circuit_answer(key, read, answer);
            }
        })
    }

    fn claim_trial<'a>(
        &'a self,
        name: &'a str,
        lease: Duration,
    ) -> StoreFuture<'a, Option<TrialToken>> {
        let lease = lease.min(MAX_AHEAD);
        let key = self.key("circuit", name);
        // A caller that stops waiting (a timeout around its call) while the claim runs on
        // the server would leave the trial taken by nobody for the whole lease: the guard
        // gives a granted claim back if its answer is never read.
        let mut claim = ClaimInFlight {
            claim: self.remote(
                &scripts::CLAIM,
                key.clone(),
                vec![ms(lease).max(1).to_string(), ms(self.inner.ttl).to_string()],
            ),
            store: self.clone(),
            name: name.to_owned(),
        };
        Box::pin(async move {
            // An answer read leaves the guard nothing to give back; one that came too late
            // for this caller is given back when it comes.
            let reply = (&mut claim.claim).await;
            match reply {
                Reply::BadKey => None,
                Reply::Answer((_, token)) => {
                    // The copy no longer says what the server does: read it again next time.
                    self.inner
                        .copies
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .remove(&key);
                    u64::try_from(token)
                        .ok()
                        .filter(|t| *t != 0)
                        .map(TrialToken)
                }
                Reply::Down => match self.inner.unavailable {
                    // Local trials carry the top bit, so that Redis never takes them for its own.
                    Unavailable::Local => self
                        .inner
                        .local
                        .claim_trial_now(name, lease)
                        .map(|t| TrialToken(t.0 | 1 << 63)),
                    Unavailable::FailOpen => Some(TrialToken(1 << 63)),
                    Unavailable::FailClosed => None,
                },
            }
        })
    }

    fn finish_trial<'a>(
        &'a self,
        name: &'a str,
        token: TrialToken,
        ok: bool,
        rule: BreakerRule,
    ) -> StoreFuture<'a, ()> {
        if token.0 & 1 << 63 != 0 {
            self.inner
                .local
                .finish_trial_now(name, TrialToken(token.0 & !(1 << 63)), ok, rule);
            return Box::pin(std::future::ready(()));
        }
        let key = self.key("circuit", name);
        let remote = self.remote::<(i64, i64)>(
            &scripts::FINISH,
            key.clone(),
            vec![
                token.0.to_string(),
                if ok { "1" } else { "0" }.to_owned(),
                ms(rule.cooldown.min(MAX_AHEAD)).to_string(),
                ms(self.inner.ttl).to_string(),
            ],
        );
        Box::pin(async move {
            remote.await;
            self.inner
                .copies
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&key);
        })
    }

    fn abandon_trial(&self, name: &str, token: TrialToken) {
        if token.0 & 1 << 63 != 0 {
            self.inner
                .local
                .abandon_trial(name, TrialToken(token.0 & !(1 << 63)));
            return;
        }
        let remote = self.remote::<(i64, i64)>(
            &scripts::FINISH,
            self.key("circuit", name),
            vec![
                token.0.to_string(),
                "-1".to_owned(),
                "0".to_owned(),
                "0".to_owned(),
            ],
        );
        // Nobody waits: `remote` has already started the script on the runtime, and dropping
        // the future that would await it leaves it running. The lease ends the trial anyway
        // if this does not reach Redis.
        drop(remote);
    }
}

impl BudgetStore for RedisStore {
    fn spend<'a>(&'a self, name: &'a str, cost: u32, capacity: u32) -> StoreFuture<'a, bool> {
        let remote = self.remote::<(i64, i64)>(
            &scripts::SPEND,
            self.key("budget", name),
            vec![
                cost.to_string(),
                capacity.to_string(),
                ms(self.inner.ttl).to_string(),
            ],
        );
        Box::pin(async move {
            match remote.await {
                Reply::Answer((_, paid)) => paid == 1,
                Reply::BadKey => self.inner.local.spend_now(name, cost, capacity),
                Reply::Down => match self.inner.unavailable {
                    Unavailable::Local => self.inner.local.spend_now(name, cost, capacity),
                    Unavailable::FailOpen => true,
                    Unavailable::FailClosed => false,
                },
            }
        })
    }

    fn refill<'a>(&'a self, name: &'a str, tokens: u32, capacity: u32) -> StoreFuture<'a, ()> {
        self.inner.local.refill_now(name, tokens, capacity);
        let remote = self.remote::<(i64, i64)>(
            &scripts::REFILL,
            self.key("budget", name),
            vec![tokens.to_string(), capacity.to_string()],
        );
        Box::pin(async move {
            remote.await;
        })
    }
}

impl PaceStore for RedisStore {
    fn pace<'a>(&'a self, name: &'a str, step: PaceStep) -> StoreFuture<'a, Option<PaceAnswer>> {
        let key = self.key("pace", name);
        let remote = self.remote::<redis::Value>(
            &scripts::PACE,
            key.clone(),
            pace::args(&step, self.inner.ttl),
        );
        Box::pin(async move {
            match remote.await {
                Reply::Answer(value) => {
                    let answer = pace::answer(value);
                    if answer.is_none() {
                        self.inner
                            .bad_key(&key, "a pacing answer that does not read");
                    }
                    answer
                }
                Reply::BadKey | Reply::Down => None,
            }
        })
    }
}

impl WaitLimit for RedisStore {
    fn wait_limit(&self) -> Duration {
        // The timeout, and a margin for the runtime to schedule the operation.
        self.inner.timeout + Duration::from_millis(20)
    }
}
