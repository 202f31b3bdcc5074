//! `Fallback`: an ordered list of candidates (models, endpoints) tried in turn; a rate-limited
//! candidate is skipped for a cooldown. Every failure on the way is kept.

use std::borrow::Cow;
use std::error::Error as StdError;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use crate::chain::ErrorChain;
use crate::pace::{Cost, PaceGate, Pacer};
use crate::retry::{Gate, HandBack, MakeAttempt, Retrier, Stop};
use crate::store::{Clock, PauseKind, PauseStore, SystemClock, block_on, nanos, seconds_text};
use crate::{AgentError, Recovery, RetryPolicy, codes};

/// A boxed error: the default error type of [`FallbackError`] and [`Failure`].
pub type BoxError = Box<dyn StdError + Send + Sync + 'static>;

/// An ordered list of candidates (models, endpoints, anything), each call answered by the
/// first healthy one.
///
/// A call tries the candidates in order, skipping those in cooldown, each under the
/// [`Retrier`] (so under its errors' own retry policies). After a candidate fails:
/// - an error that is rate-limited, whose recovery is `fallback`, or that says the
///   candidate's budget is spent (`budget_exhausted`: another provider or account may have
///   budget), puts the candidate in cooldown (60 s by default, or the server's `retry_after` when longer, up to
///   [`MAX_SERVER_COOLDOWN`](Fallback::MAX_SERVER_COOLDOWN), an hour) and moves on to
///   the next candidate. While another healthy candidate follows, such an error is not
///   retried on this one ([`Stop::HandedBack`]); the last healthy candidate is retried as its
///   policy says;
/// - a permanent error (unclassified, or not retryable) stops: the next candidate would be
///   given the same bad request;
/// - a retryable error the retrier gave up on (attempts exhausted, budget, deadline) moves on
///   to the next candidate, without cooldown.
///
/// The answer names the candidate that answered and keeps every failure on the way, each
/// with the operation's own error; when none answers, [`FallbackError`] lists them all and
/// gives the last error back as it was returned (no boxing, no downcast, no `Send + Sync`
/// needed).
///
/// A cooldown means "prefer another candidate", not "never call it". When no healthy
/// candidate answered (or none was healthy), a call tries the candidates in cooldown before
/// it gives up, the one whose cooldown ends first first, each under the retrier (so a
/// server's `Retry-After` and a pacer still hold it back): two providers that each have a
/// short bad patch within a cooldown must not stop every call for the rest of it. A
/// candidate in cooldown that answers is healthy again; one that fails cools down anew.
/// A candidate cooling down for a spent budget (`budget_exhausted`, here or in the shared
/// store) is the exception: it would only fail again, so it is not tried until its cooldown
/// ends, and its failure never stands for a call that failed elsewhere (see
/// [`FallbackError`]).
///
/// Only an attempt that began after a cooldown was set ends it when it answers. An answer
/// to an older attempt (one made while the candidate was healthy, by a call that was still
/// waiting when another call's 429 put the candidate in cooldown) says nothing of the
/// candidate since: the cooldown stays, and the next call goes elsewhere.
///
/// Cooldowns are shared by every call (the type is `Sync`) and read from a [`Clock`]:
/// [`SystemClock`] by default, a [`ManualClock`](super::ManualClock) or any
/// `Fn() -> Instant` in tests. The clock is not part of the type: a function written for
/// `&Fallback<&str>` takes one with a test clock too.
///
/// ```
/// use std::time::Duration;
/// use agent_error::recover::{Fallback, ManualClock};
/// use agent_error::{codes, Error};
///
/// let clock = ManualClock::new();
/// let models = Fallback::new(["gpt-4o", "claude-sonnet"]).clock(clock.clone());
/// let call = |model: &&str, _attempt: u32| match *model {
///     "gpt-4o" => Err(Error::new("llm.generate", codes::RATE_LIMIT, "provider returned 429")),
///     _ => Ok(format!("answer from {model}")),
/// };
///
/// let answer = models.run_with_sleep(call, |_| {}).unwrap();
/// assert_eq!(answer.value, "answer from claude-sonnet");
/// assert_eq!(answer.name(), "claude-sonnet");
/// assert_eq!(answer.failures.len(), 1); // the 429, not retried: another model was there
/// assert_eq!(models.cooling_for(0), Some(Duration::from_secs(60)));
///
/// // In cooldown, gpt-4o is not called at all.
/// let answer = models.run_with_sleep(call, |_| {}).unwrap();
/// assert!(answer.failures.is_empty());
///
/// // With every candidate cooling down, the one back first is tried all the same.
/// let only = Fallback::new(["gpt-4o"]).clock(clock.clone());
/// let flaky = |fail: bool| move |_: &&str, _: u32| if fail {
///     Err(Error::new("llm.generate", codes::RATE_LIMIT, "provider returned 429"))
/// } else {
///     Ok("answer")
/// };
/// assert!(only.run_with_sleep(flaky(true), |_| {}).is_err());
/// assert!(only.cooling_for(0).is_some());
/// assert_eq!(only.run_with_sleep(flaky(false), |_| {}).unwrap().value, "answer");
/// assert_eq!(only.cooling_for(0), None);
/// ```
pub struct Fallback<C> {
    candidates: Vec<Candidate<C>>,
    retrier: Retrier,
    clock: Arc<dyn Clock>,
    /// A shared store of cooldowns, keyed by the candidates' names.
    store: Option<Arc<dyn PauseStore>>,
    /// This value's own place (0 to 1) in the jitter after a shared cooldown's deadline.
    jitter: f64,
    /// The pacer each candidate's calls acquire from, keyed by the candidate's name.
    pacer: Option<(Pacer, Cost)>,
    /// Called after each candidate that fails.
    on_fallback: Option<Arc<OnFallback>>,
}

/// The hook a [`Fallback`] calls after each candidate that fails: the failure classified,
/// and the candidate's name.
pub type OnFallback = dyn Fn(&dyn AgentError, &str) + Send + Sync;

struct Candidate<C> {
    value: C,
    name: Arc<str>,
    cooldown: Duration,
    /// The end of the cooldown in the clock's nanoseconds; 0 when it never started. Each
    /// cooldown set has a deadline of its own (see [`Candidate::cool_until`]).
    until: AtomicU64,
    /// Whether its cooldown is for a spent budget: then it is no last resort (see
    /// [`Call::next`]) until the cooldown ends.
    spent: AtomicBool,
}

impl<C> Candidate<C> {
    /// Cools the candidate down until `until`, in the clock's nanoseconds. The deadline
    /// always changes, even when a clock that stands still gives the same instant twice:
    /// an answer to an attempt that began before tells the cooldown from the one it began
    /// under by its deadline.
    fn cool_until(&self, until: u64) {
        let until = until.max(1);
        let _ = self
            .until
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |current| {
                Some(if current == until {
                    until.saturating_add(1)
                } else {
                    until
                })
            });
    }

    /// Notes in `began` the cooldown in force (its deadline, 0 for none) as an attempt on
    /// the candidate begins.
    fn mark_attempt(&self, began: &AtomicU64) {
        began.store(self.until.load(Ordering::Relaxed), Ordering::Relaxed);
    }

    /// The candidate answered an attempt that began under the cooldown `began` (from
    /// [`mark_attempt`](Self::mark_attempt)): that cooldown ends, if it is still the one in
    /// force. One set after the attempt began (another call's 429 while this one waited)
    /// stays: the answer is older than the failure that set it.
    fn answered(&self, began: u64) {
        // Read first: most answers come from a healthy candidate, and need no write.
        if began != 0
            && self.until.load(Ordering::Relaxed) == began
            && self
                .until
                .compare_exchange(began, 0, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            self.spent.store(false, Ordering::Relaxed);
        }
    }
}

impl<C> fmt::Debug for Fallback<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.candidates.iter().map(|c| &*c.name).collect();
        f.debug_struct("Fallback")
            .field("candidates", &names)
            .field("retrier", &self.retrier)
            .finish_non_exhaustive()
    }
}

impl<C: fmt::Display> Fallback<C> {
    /// Candidates in order of preference, each named by its `Display`.
    pub fn new(candidates: impl IntoIterator<Item = C>) -> Self {
        Self::named(candidates.into_iter().map(|c| (c.to_string(), c)))
    }
}

impl<C> Fallback<C> {
    /// The default cooldown of a candidate that was rate-limited or asked for a fallback: 60 s.
    pub const DEFAULT_COOLDOWN: Duration = Duration::from_secs(60);

    /// The longest cooldown a server's `retry_after` can set on a candidate: one hour. A
    /// peer that answers `Retry-After: 99999999999999999999` cools the candidate for an
    /// hour, not for centuries; a cooldown you set yourself is not bounded.
    pub const MAX_SERVER_COOLDOWN: Duration = Duration::from_secs(60 * 60);

    /// Candidates in order of preference, each with its name (any `C`: clients, closures).
    pub fn named<N: Into<Arc<str>>>(candidates: impl IntoIterator<Item = (N, C)>) -> Self {
        Fallback {
            candidates: candidates
                .into_iter()
                .map(|(name, value)| Candidate {
                    value,
                    name: name.into(),
                    cooldown: Self::DEFAULT_COOLDOWN,
                    until: AtomicU64::new(0),
                    spent: AtomicBool::new(false),
                })
                .collect(),
            retrier: Retrier::new(),
            clock: Arc::new(SystemClock),
            store: None,
            jitter: crate::core::jitter::JitterSource::from_entropy().next_fraction(),
            pacer: None,
            on_fallback: None,
        }
    }

    /// Calls `hook(error, candidate)` after each candidate that fails with a classified
    /// error, before the call moves on to the next candidate or ends: a streamed call and a
    /// unary one alike, so that a 429 handing a call to another provider leaves a trace.
    /// [`trace::on_fallback`](crate::trace::on_fallback) (feature `tracing`) logs it.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use agent_error::recover::Fallback;
    /// use agent_error::{codes, AgentError, Error};
    ///
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let log = seen.clone();
    /// let models = Fallback::new(["gpt-4o", "claude-sonnet"]).on_fallback(move |e, candidate| {
    ///     log.lock().unwrap().push(format!("{candidate}: {}", e.code()));
    /// });
    /// let call = |model: &&str, _: u32| match *model {
    ///     "gpt-4o" => Err(Error::new("llm.generate", codes::RATE_LIMIT, "provider returned 429")),
    ///     _ => Ok(()),
    /// };
    /// models.run_with_sleep(call, |_| {}).unwrap();
    /// assert_eq!(*seen.lock().unwrap(), ["gpt-4o: rate_limit"]);
    /// ```
    #[must_use]
    pub fn on_fallback(
        mut self,
        hook: impl Fn(&dyn AgentError, &str) + Send + Sync + 'static,
    ) -> Self {
        self.on_fallback = Some(Arc::new(hook));
        self
    }

    /// Sets every candidate's cooldown.
    #[must_use]
    pub fn cooldown(mut self, cooldown: Duration) -> Self {
        for c in &mut self.candidates {
            c.cooldown = cooldown;
        }
        self
    }

    /// Sets the cooldown of the candidate at `index` (no effect if there is none).
    #[must_use]
    pub fn cooldown_of(mut self, index: usize, cooldown: Duration) -> Self {
        if let Some(c) = self.candidates.get_mut(index) {
            c.cooldown = cooldown;
        }
        self
    }

    /// The retrier each candidate is tried under (`Retrier::new()` by default). A
    /// [`Retrier`] is cheap to clone: pass a clone and keep the one you configured; they
    /// share the budget and the hook.
    #[must_use]
    pub fn retrier(mut self, retrier: Retrier) -> Self {
        self.retrier = retrier;
        self
    }

    /// Reads time from `clock`: a [`ManualClock`](super::ManualClock) in tests, or any
    /// `Fn() -> Instant`. The type stays `Fallback<C>`.
    #[must_use]
    pub fn clock(mut self, clock: impl Clock + 'static) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// Shares the cooldowns through `store`, keyed by the candidates' names as
    /// [`PauseKind::Cooldown`]: a candidate that one replica put in cooldown is
    /// skipped by every replica using the same store until the deadline (the later one,
    /// when two replicas set it), plus this value's own positive jitter so that the fleet
    /// does not come back to it at one instant. The local cooldowns
    /// ([`cooling_for`](Self::cooling_for)) are still kept.
    ///
    /// A cooldown lives in a name space of its own, apart from every pause in the store
    /// whatever its key: a server's `Retry-After` that a [`pacer`](Self::pacer) keyed by
    /// the candidate's name shares, or a pause under a key a user spelled
    /// `cooldown:gpt-4o`, never cools the candidate, nor does its cooldown pause them. A
    /// pause is waited out, a cooldown only says "prefer another candidate", and a
    /// candidate in cooldown is still tried at once when no other answered.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use agent_error::recover::{Fallback, LocalStore, Store};
    /// use agent_error::{codes, Error};
    ///
    /// let store: Arc<dyn Store> = Arc::new(LocalStore::new());
    /// let replica_a = Fallback::new(["gpt-4o", "claude-sonnet"]).store(store.clone());
    /// let replica_b = Fallback::new(["gpt-4o", "claude-sonnet"]).store(store);
    /// let call = |model: &&'static str, _| match *model {
    ///     "gpt-4o" => Err(Error::new("llm.generate", codes::RATE_LIMIT, "provider returned 429")),
    ///     _ => Ok(*model),
    /// };
    /// assert_eq!(replica_a.run_with_sleep(call, |_| {}).unwrap().failures.len(), 1);
    /// // Replica B does not call gpt-4o at all: A's cooldown is shared.
    /// let answer = replica_b.run_with_sleep(call, |_| {}).unwrap();
    /// assert_eq!((answer.value, answer.failures.len(), answer.skipped.as_slice()), ("claude-sonnet", 0, &[0][..]));
    /// ```
    #[must_use]
    pub fn store(mut self, store: Arc<dyn PauseStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// Paces each candidate's calls with `pacer`, keyed by the candidate's name, each
    /// attempt costing `cost` (in place of the retrier's own pacer, whose key names one
    /// provider). A candidate whose budget is short while another one after it is ready is
    /// passed over at once for this call, without a cooldown (the pacer remembers its
    /// budget); the last one ready waits as the pacer says, within the retrier's caps.
    ///
    /// ```
    /// use std::time::Duration;
    /// use agent_error::recover::{Cost, Fallback, Limit, Pacer};
    ///
    /// let pacer = Pacer::new().limit("gpt-4o", Limit::requests(1, Duration::from_secs(60)));
    /// let models = Fallback::new(["gpt-4o", "claude-sonnet"]).pacer(pacer, Cost::request());
    /// let call = |model: &&'static str, _| Ok::<_, agent_error::Error>(*model);
    /// assert_eq!(models.run_with_sleep(call, |_| {}).unwrap().value, "gpt-4o");
    /// // gpt-4o's budget is spent for a minute: the next call goes to claude-sonnet.
    /// let answer = models.run_with_sleep(call, |_| {}).unwrap();
    /// assert_eq!(answer.value, "claude-sonnet");
    /// assert_eq!(models.cooling_for(0), None);
    /// ```
    #[must_use]
    pub fn pacer(mut self, pacer: Pacer, cost: Cost) -> Self {
        self.pacer = Some((pacer, cost));
        self
    }

    /// The pacing of a call on candidate `index`: `Err(())` when the candidate is passed
    /// over for this call (its budget is short now and a later one is ready), else the
    /// pacing of its attempts, if any. With a later candidate ready, the first attempt's
    /// turn is reserved here, with no wait.
    async fn pace_on<E>(
        &self,
        index: usize,
        call: &Call<'_, C, E>,
    ) -> Result<Option<PaceGate>, ()> {
        let Some((pacer, cost)) = self.pacer.as_ref() else {
            return Ok(None);
        };
        let key = &self.candidates[index].name;
        let hold_back = call.hand_back().is_some();
        if hold_back && pacer.reserve(key, *cost, Duration::ZERO).await.is_err() {
            return Err(());
        }
        Ok(Some(PaceGate::for_candidate(
            pacer,
            key.clone(),
            *cost,
            hold_back,
        )))
    }

    /// What the shared store says of each candidate: how long to keep skipping it, and
    /// whether for a spent budget.
    async fn shared_cooldowns(&self, store: &dyn PauseStore) -> Vec<Option<Shared>> {
        let mut waits = Vec::with_capacity(self.candidates.len());
        for c in &self.candidates {
            let wait = store
                .pause(PauseKind::Cooldown, &c.name)
                .await
                .map(|p| Shared {
                    wait: p.wait(self.jitter),
                    spent: p.code == codes::BUDGET_EXHAUSTED,
                })
                .filter(|shared| !shared.wait.is_zero());
            waits.push(wait);
        }
        waits
    }

    /// Writes the cooldown a call just set into the shared store.
    async fn share_cooldown(
        &self,
        store: &dyn PauseStore,
        shared: Option<(usize, Duration, String)>,
    ) {
        if let Some((index, cooldown, code)) = shared {
            store
                .set_pause(
                    PauseKind::Cooldown,
                    &self.candidates[index].name,
                    cooldown,
                    &code,
                )
                .await;
        }
    }

    /// How many candidates there are.
    pub fn len(&self) -> usize {
        self.candidates.len()
    }

    /// Whether there is no candidate.
    pub fn is_empty(&self) -> bool {
        self.candidates.is_empty()
    }

    /// The candidate at `index`.
    pub fn candidate(&self, index: usize) -> Option<&C> {
        self.candidates.get(index).map(|c| &c.value)
    }

    /// The name of the candidate at `index`.
    pub fn name(&self, index: usize) -> Option<&str> {
        self.candidates.get(index).map(|c| &*c.name)
    }

    /// How long the candidate at `index` stays in cooldown; `None` when it is healthy.
    pub fn cooling_for(&self, index: usize) -> Option<Duration> {
        let until = self.candidates.get(index)?.until.load(Ordering::Relaxed);
        let now = nanos(self.clock.now());
        (now < until).then(|| Duration::from_nanos(until - now))
    }

    /// Ends every cooldown.
    pub fn reset(&self) {
        for c in &self.candidates {
            c.until.store(0, Ordering::Relaxed);
            c.spent.store(false, Ordering::Relaxed);
        }
    }

    /// Calls `op(candidate, attempt)` on the first healthy candidate, and on the next ones as
    /// the failures say (see [`Fallback`]), sleeping the thread between retries.
    ///
    /// The error is the operation's own, as [`Retrier::run`] gives it back: when no
    /// candidate answers, [`FallbackError::into_last`] is the last error unchanged, and
    /// [`failures`](FallbackError::failures) lists every one, typed.
    ///
    /// ```
    /// use agent_error::recover::Fallback;
    /// use agent_error::AgentError;
    ///
    /// #[derive(Debug, AgentError)]
    /// #[agent(op = "llm.generate")]
    /// enum LlmError {
    ///     #[agent(rate_limited)]
    ///     #[error("provider returned 429")]
    ///     RateLimit,
    ///     #[agent(code = "auth_error")]
    ///     #[error("invalid api key")]
    ///     BadKey,
    /// }
    ///
    /// let models = Fallback::new(["gpt-4o", "claude-sonnet"]);
    /// let err = models
    ///     .run(|model: &&str, _| match *model {
    ///         "gpt-4o" => Err::<(), _>(LlmError::RateLimit),
    ///         _ => Err(LlmError::BadKey),
    ///     })
    ///     .unwrap_err();
    /// assert!(matches!(err.failures()[0].error, LlmError::RateLimit));
    /// assert!(matches!(err.into_last(), Some(LlmError::BadKey)));
    /// ```
    pub fn run<T, E, M>(
        &self,
        op: impl FnMut(&C, u32) -> Result<T, E>,
    ) -> Result<Answer<T, E>, FallbackError<E>>
    where
        E: ErrorChain<M>,
    {
        self.run_with_sleep(op, std::thread::sleep)
    }

    /// [`run`](Self::run) with a sleep of the caller's (a fake one in tests).
    pub fn run_with_sleep<T, E, M>(
        &self,
        mut op: impl FnMut(&C, u32) -> Result<T, E>,
        mut sleep: impl FnMut(Duration),
    ) -> Result<Answer<T, E>, FallbackError<E>>
    where
        E: ErrorChain<M>,
    {
        let mut call = Call::new(self);
        if let Some(store) = &self.store {
            call.shared =
                block_on(self.shared_cooldowns(&**store), store.wait_limit()).unwrap_or_default();
        }
        while let Some(index) = call.next() {
            let limit = self
                .pacer
                .as_ref()
                .map_or(Duration::ZERO, |(p, _)| p.store_wait_limit());
            let Ok(pace) = block_on(self.pace_on(index, &call), limit).unwrap_or(Ok(None)) else {
                call.skipped.push(index);
                continue;
            };
            let candidate = &self.candidates[index];
            let began = AtomicU64::new(0);
            let outcome = self.retrier.run_blocking(
                |attempt| {
                    candidate.mark_attempt(&began);
                    op(&candidate.value, attempt)
                },
                &mut sleep,
                call.hand_back(),
                pace.as_ref().map(|pace| pace as &dyn Gate),
            );
            let answer = call.after(index, outcome, began.into_inner());
            if let Some(store) = &self.store {
                let shared = call.to_share.take();
                block_on(self.share_cooldown(&**store, shared), store.wait_limit());
            }
            if let Some(answer) = answer {
                return Ok(answer);
            }
        }
        Err(call.error())
    }

    /// Calls `op(candidate, attempt)` as [`run`](Self::run) does, awaiting `sleep(delay)`
    /// between retries (with the `tokio` feature, pass
    /// [`tokio_sleep`](crate::retry::tokio_sleep)).
    ///
    /// `op` is an async closure, and its future may borrow the candidate: no clone at the
    /// call site.
    ///
    /// ```
    /// use agent_error::recover::Fallback;
    /// use agent_error::{codes, Error};
    ///
    /// struct Client { model: String }
    ///
    /// impl Client {
    ///     async fn generate(&self, prompt: &str) -> Result<String, Error> {
    ///         match self.model.as_str() {
    ///             "gpt-4o" => Err(Error::new("llm.generate", codes::RATE_LIMIT, "provider returned 429")),
    ///             model => Ok(format!("{model}: {prompt}")),
    ///         }
    ///     }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let clients = Fallback::named([
    ///     ("gpt-4o", Client { model: "gpt-4o".into() }),
    ///     ("claude-sonnet", Client { model: "claude-sonnet".into() }),
    /// ]);
    /// let answer = clients
    ///     .run_async(async |client: &Client, _attempt| client.generate("hi").await, |_| async {})
    ///     .await
    ///     .unwrap();
    /// assert_eq!((answer.name(), answer.value.as_str()), ("claude-sonnet", "claude-sonnet: hi"));
    /// # }
    /// ```
    pub async fn run_async<T, E, M, F, S, SFut>(
        &self,
        mut op: F,
        mut sleep: S,
    ) -> Result<Answer<T, E>, FallbackError<E>>
    where
        E: ErrorChain<M>,
        F: AsyncFnMut(&C, u32) -> Result<T, E>,
        S: FnMut(Duration) -> SFut,
        SFut: Future<Output = ()>,
    {
        let mut call = Call::new(self);
        if let Some(store) = &self.store {
            call.shared = self.shared_cooldowns(&**store).await;
        }
        while let Some(index) = call.next() {
            let Ok(pace) = self.pace_on(index, &call).await else {
                call.skipped.push(index);
                continue;
            };
            let began = AtomicU64::new(0);
            let on_candidate = OnCandidate {
                op: &mut op,
                candidate: &self.candidates[index],
                began: &began,
            };
            let outcome = self
                .retrier
                .run_async_with(
                    on_candidate,
                    &mut sleep,
                    call.hand_back(),
                    pace.as_ref().map(|pace| pace as &dyn Gate),
                )
                .await;
            let answer = call.after(index, outcome, began.into_inner());
            if let Some(store) = &self.store {
                let shared = call.to_share.take();
                self.share_cooldown(&**store, shared).await;
            }
            if let Some(answer) = answer {
                return Ok(answer);
            }
        }
        Err(call.error())
    }
}

/// Streams over the candidates.
#[cfg(feature = "stream")]
mod stream;

#[cfg(test)]
mod concurrent;

#[cfg(test)]
mod apart;

/// A fallback's operation on one candidate, for the retrier's async loop: each attempt's
/// future borrows the operation and the candidate.
struct OnCandidate<'c, F, C> {
    op: &'c mut F,
    candidate: &'c Candidate<C>,
    /// The cooldown in force as the latest attempt began.
    began: &'c AtomicU64,
}

impl<T, E, F, C> MakeAttempt<T, E> for OnCandidate<'_, F, C>
where
    F: AsyncFnMut(&C, u32) -> Result<T, E>,
{
    fn attempt(&mut self, attempt: u32) -> impl Future<Output = Result<T, E>> {
        self.candidate.mark_attempt(self.began);
        (self.op)(&self.candidate.value, attempt)
    }
}

/// Whether a stream's failure moves a chain over streams on to the next candidate.
#[cfg(feature = "stream")]
fn continues_elsewhere(err: &(dyn StdError + 'static)) -> bool {
    err.downcast_ref::<crate::stream::StreamError>()
        .is_some_and(stream::moves_on_after_output)
}

#[cfg(not(feature = "stream"))]
fn continues_elsewhere(_: &(dyn StdError + 'static)) -> bool {
    false
}

/// Whether a failure asks for another candidate: rate-limited, recovery `fallback`, or this
/// candidate's budget spent (which is not retried, and escalates when no candidate is left).
fn asks_for_another(e: &dyn AgentError) -> bool {
    e.is_rate_limited() || e.recovery() == Recovery::Fallback || e.code() == codes::BUDGET_EXHAUSTED
}

/// A cooldown read from the shared store.
#[derive(Clone, Copy, Debug)]
struct Shared {
    /// How long the candidate stays skipped.
    wait: Duration,
    /// Whether for a spent budget.
    spent: bool,
}

/// One call through the candidates: where it is, and the failures so far.
struct Call<'f, C, E> {
    fallback: &'f Fallback<C>,
    /// The next candidate to consider.
    at: usize,
    failures: Vec<Failure<E>>,
    skipped: Vec<usize>,
    stopped: bool,
    /// With a shared store: how long each candidate stays skipped, read when the call began.
    shared: Vec<Option<Shared>>,
    /// A cooldown to write into the shared store: the candidate, its length, the code.
    to_share: Option<(usize, Duration, String)>,
    /// Whether a failure after output (recovery `continue`) moves on to the next candidate,
    /// as it does for streams.
    continue_elsewhere: bool,
    /// The candidates this call skipped for their cooldown; once the healthy ones are done,
    /// those still to try, the one back first last.
    cooling_skipped: Vec<usize>,
    /// Whether the healthy candidates are done and those in cooldown are being tried.
    last_resort: bool,
}

impl<'f, C, E> Call<'f, C, E> {
    fn new(fallback: &'f Fallback<C>) -> Self {
        Call {
            fallback,
            at: 0,
            failures: Vec::new(),
            skipped: Vec::new(),
            stopped: false,
            shared: Vec::new(),
            to_share: None,
            continue_elsewhere: false,
            cooling_skipped: Vec::new(),
            last_resort: false,
        }
    }

    fn healthy(&self, index: usize) -> bool {
        let until = self.fallback.candidates[index]
            .until
            .load(Ordering::Relaxed);
        let shared = self.shared.get(index).is_some_and(Option::is_some);
        // A candidate that never cooled down needs no look at the clock.
        !shared && (until == 0 || nanos(self.fallback.clock.now()) >= until)
    }

    /// The next healthy candidate, skipping those in cooldown; once no healthy one is left
    /// (or none was healthy), those skipped for their cooldown, the one back first first.
    fn next(&mut self) -> Option<usize> {
        if self.stopped {
            return None;
        }
        while self.at < self.fallback.candidates.len() {
            let index = self.at;
            self.at += 1;
            if self.healthy(index) {
                return Some(index);
            }
            self.skipped.push(index);
            self.cooling_skipped.push(index);
        }
        // A cooldown says "prefer another", and no other answered: the call is failing
        // otherwise. Each candidate in cooldown is tried once more, under the retrier (a
        // server's `Retry-After` and a pacer still hold it back), before the call gives up.
        if !self.last_resort {
            self.last_resort = true;
            let mut waiting = std::mem::take(&mut self.cooling_skipped);
            // A candidate whose budget is spent would only fail again, and its failure
            // would stand for the call's: it waits for its cooldown to end.
            waiting.retain(|&i| !self.spent(i));
            // Popped from the end: the one whose cooldown ends first, first.
            waiting.sort_by_key(|&i| std::cmp::Reverse(self.cooling(i)));
            self.cooling_skipped = waiting;
        }
        let index = self.cooling_skipped.pop()?;
        self.skipped.retain(|&i| i != index);
        Some(index)
    }

    /// How long candidate `index` stays in cooldown, here or in the shared store; `None`
    /// when it is in none.
    fn cooling(&self, index: usize) -> Option<Duration> {
        let shared = self.shared.get(index).copied().flatten();
        self.fallback
            .cooling_for(index)
            .max(shared.map(|shared| shared.wait))
    }

    /// Whether candidate `index` is cooling down for a spent budget, here or in the shared
    /// store.
    fn spent(&self, index: usize) -> bool {
        let shared = self.shared.get(index).copied().flatten();
        let here = self.fallback.cooling_for(index).is_some()
            && self.fallback.candidates[index]
                .spent
                .load(Ordering::Relaxed);
        here || shared.is_some_and(|shared| shared.spent)
    }

    /// The retrier's hand-back: while a healthy candidate follows, a failure that asks for
    /// another one goes back at once.
    fn hand_back(&self) -> Option<HandBack<'static>> {
        let later = (self.at..self.fallback.candidates.len()).any(|i| self.healthy(i));
        later.then_some(&asks_for_another)
    }

    /// What the run on candidate `index` ends in: the answer, or its failure noted (and a
    /// cooldown set where it asks for another candidate). `began` is the cooldown in force
    /// as its last attempt began (see [`Candidate::answered`]).
    fn after<T, M>(
        &mut self,
        index: usize,
        outcome: crate::retry::Outcome<T, E>,
        began: u64,
    ) -> Option<Answer<T, E>>
    where
        E: ErrorChain<M>,
    {
        let candidate = &self.fallback.candidates[index];
        let error = match outcome.result {
            Ok(value) => {
                // A candidate that answers is healthy again (it was tried while cooling),
                // unless it cooled down after the attempt began.
                candidate.answered(began);
                return Some(Answer {
                    value,
                    candidate: index,
                    name: candidate.name.clone(),
                    attempts: outcome.attempts,
                    failures: std::mem::take(&mut self.failures),
                    skipped: std::mem::take(&mut self.skipped),
                });
            }
            Err(e) => e,
        };
        // A failure that asks for another candidate cools this one down; a stream that
        // broke after it spoke moves on to continue elsewhere, without a cooldown (a cut
        // connection says nothing of the next call).
        let (another, elsewhere, retry_after, code, spent) =
            match crate::classify(error.error_chain()) {
                Some(c) => {
                    let code = self.fallback.store.as_ref().map(|_| c.code().to_owned());
                    let elsewhere =
                        self.continue_elsewhere && continues_elsewhere(error.error_chain());
                    let spent = c.code() == codes::BUDGET_EXHAUSTED;
                    if let Some(hook) = &self.fallback.on_fallback {
                        hook(&*c, &candidate.name);
                    }
                    (
                        asks_for_another(&*c),
                        elsewhere,
                        c.retry_after(),
                        code,
                        spent,
                    )
                }
                None => (false, false, None, None, false),
            };
        // Held back before its first attempt (a pacer, a shared pause): passed over for
        // this call only; what holds it back remembers.
        let held_back =
            self.fallback.pacer.is_some() && outcome.stop == Stop::Paused && outcome.attempts == 0;
        if elsewhere && !another {
            // Moves on, no cooldown.
        } else if another && !held_back {
            let asked = retry_after
                .unwrap_or_default()
                .min(Fallback::<C>::MAX_SERVER_COOLDOWN);
            let cooldown = candidate.cooldown.max(asked);
            candidate.spent.store(spent, Ordering::Relaxed);
            candidate.cool_until(nanos(self.fallback.clock.now()).saturating_add(nanos(cooldown)));
            if let Some(code) = code {
                self.to_share = Some((index, cooldown, code));
            }
        } else if outcome.stop == Stop::Permanent {
            self.stopped = true;
        }
        self.failures.push(Failure {
            candidate: index,
            name: candidate.name.clone(),
            error,
            attempts: outcome.attempts,
            stop: outcome.stop,
        });
        None
    }

    fn error<M>(self) -> FallbackError<E>
    where
        E: ErrorChain<M>,
    {
        let chain: fn(&E) -> &(dyn StdError + 'static) = <E as ErrorChain<M>>::error_chain;
        let deciding = if self.stopped {
            self.failures.len().checked_sub(1)
        } else {
            most_actionable(self.failures.iter().map(|f| chain(&f.error)))
        };
        let class = match deciding {
            Some(at) => Class::of(chain(&self.failures[at].error)),
            None => {
                let count = self.fallback.candidates.len();
                let wait = (0..count)
                    .filter_map(|i| self.cooling(i))
                    .min()
                    .unwrap_or_default();
                Class::none_called(match count {
                    0 => NoneCalled::NoCandidate,
                    _ if (0..count).all(|i| self.spent(i)) => NoneCalled::Spent(wait),
                    _ => NoneCalled::Cooling(wait),
                })
            }
        };
        FallbackError {
            failures: self.failures,
            deciding: deciding.unwrap_or_default(),
            skipped: self.skipped,
            class: Box::new(class),
            chain,
        }
    }
}

/// The failure that stands for a call that ran out of candidates: the most actionable for
/// whoever reads it. A stream that delivered output first (recovery `continue`: the reader
/// has text to continue from), then a failure that is retried (a transient fault of a
/// candidate that could serve again), then any other; the latest among equals. A candidate
/// whose budget is spent never hides an overload or a stream that spoke before it.
fn most_actionable<'e>(
    failures: impl Iterator<Item = &'e (dyn StdError + 'static)>,
) -> Option<usize> {
    let rank = |error: &(dyn StdError + 'static)| match crate::classify(error) {
        Some(c) if c.recovery() == Recovery::Continue => 2,
        Some(c) if c.is_retryable() => 1,
        _ => 0,
    };
    failures
        .enumerate()
        .max_by_key(|&(at, error)| (rank(error), at))
        .map(|(at, _)| at)
}

/// What answered a [`Fallback`] call, and what failed before it.
#[derive(Debug)]
#[non_exhaustive]
pub struct Answer<T, E = BoxError> {
    /// The answer.
    pub value: T,
    /// The index of the candidate that answered.
    pub candidate: usize,
    /// Its name.
    pub name: Arc<str>,
    /// The attempts it took on that candidate.
    pub attempts: u32,
    /// Every failure on the way, in order.
    pub failures: Vec<Failure<E>>,
    /// The candidates skipped because they were cooling down.
    pub skipped: Vec<usize>,
}

impl<T, E> Answer<T, E> {
    /// The name of the candidate that answered.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// How one candidate failed during a [`Fallback`] call.
#[derive(Debug)]
#[non_exhaustive]
pub struct Failure<E = BoxError> {
    /// The index of the candidate.
    pub candidate: usize,
    /// Its name.
    pub name: Arc<str>,
    /// The last error it gave, as the operation returned it.
    pub error: E,
    /// The attempts made on it.
    pub attempts: u32,
    /// How its retrier stopped.
    pub stop: Stop,
}

/// No candidate of a [`Fallback`] answered: every failure on the way, in order, each with
/// the operation's own error `E`.
///
/// [`into_last`](Self::into_last) gives the last error back unchanged, as
/// [`Retrier::run`] does; [`failures`](Self::failures) lists them all, typed.
///
/// It is classified by its [deciding](Self::deciding) failure: code, op, retry policy,
/// hints and recovery are that failure's classification (an unclassified one gives the
/// code [`codes::UNCLASSIFIED`], not retryable, recovery `abort`). The deciding failure is
/// the last one when it stopped the call (a permanent error); when the call ran out of
/// candidates, it is the most actionable: a stream that delivered output (recovery
/// `continue`), then a fault that is retried, then any other, the latest among equals. So a
/// candidate whose budget is spent, tried after the serving one was overloaded, does not
/// turn a call worth retrying into one that pages a person.
///
/// When no candidate was called, it says why: with no candidate at all,
/// `provider_unavailable`, not retried, recovery `abort`; with every candidate cooling down
/// for a spent budget (such a candidate is no last resort until its cooldown ends),
/// `budget_exhausted`, recovery `escalate`. (Candidates cooling down for other reasons are
/// tried before a call gives up.)
///
/// Its `source()` is the deciding failure's error (or, when none was called, why), so a
/// chain walk ([`classify`](crate::classify), `?` into `anyhow`) classifies it the same way
/// whatever `E` is. Its message names the other failures, `name: chain` each (the chain as
/// [`display::chain`](crate::display::chain) writes it), then the deciding candidate's
/// name: `display::chain` of this error shows them all, the deciding one last, through the
/// source. When the deciding failure is not the last, the message says so ("3 candidates
/// failed, the one that decides last: …").
///
/// ```
/// use agent_error::recover::Fallback;
/// use agent_error::{codes, display, AgentError, Error};
///
/// let models = Fallback::new(["a", "b"]);
/// let err = models.run_with_sleep(|model: &&str, _| Err::<(), _>(match *model {
///     "a" => Error::new("llm.generate", codes::RATE_LIMIT, "provider returned 429"),
///     _ => Error::new("llm.generate", codes::AUTH, "invalid api key"),
/// }), |_| {}).unwrap_err();
/// assert_eq!(err.failures().len(), 2);
/// assert_eq!(err.code(), "auth_error"); // the last failure's
/// assert_eq!(
///     display::chain(&err).to_string(),
///     "llm.generate [auth_error]: 2 candidates failed: a: llm.generate [rate_limit]: provider returned 429; then b: llm.generate [auth_error]: invalid api key",
/// );
/// assert_eq!(err.into_last().unwrap().code(), "auth_error");
/// ```
pub struct FallbackError<E = BoxError> {
    failures: Vec<Failure<E>>,
    /// The failure that classifies the error (see [`FallbackError::deciding`]); 0 when none.
    deciding: usize,
    skipped: Vec<usize>,
    // Boxed so that `Result<Answer<T>, FallbackError>` stays small.
    class: Box<Class>,
    /// How to walk an `E` (an `Error`, a boxed one, an `anyhow::Error`): taken from the
    /// `ErrorChain` impl when the error was made, so that no impl below needs its marker.
    chain: fn(&E) -> &(dyn StdError + 'static),
}

/// The classification a [`FallbackError`] takes from its last failure, kept as owned values.
/// When no candidate was called, it is also the error's source, with its own message.
#[derive(Debug)]
struct Class {
    code: Cow<'static, str>,
    op: Cow<'static, str>,
    policy: RetryPolicy,
    hints: Vec<Cow<'static, str>>,
    recovery: Recovery,
    /// Why no candidate was called, when none was.
    none_called: Option<NoneCalled>,
}

/// Why a [`Fallback`] call called no candidate.
#[derive(Clone, Copy, Debug)]
enum NoneCalled {
    /// There is no candidate.
    NoCandidate,
    /// Every candidate is cooling down: how long until the first is tried again.
    Cooling(Duration),
    /// Every candidate is cooling down for a spent budget: how long until the first is
    /// tried again.
    Spent(Duration),
}

impl Class {
    fn of(last: &(dyn StdError + 'static)) -> Self {
        match crate::classify(last) {
            Some(c) => Class {
                code: Cow::Owned(c.code().to_owned()),
                op: Cow::Owned(c.op().to_owned()),
                policy: c.retry_policy(),
                hints: c.hints(),
                recovery: c.recovery(),
                none_called: None,
            },
            None => Class {
                code: Cow::Borrowed(codes::UNCLASSIFIED),
                op: Cow::Borrowed("recover.fallback"),
                policy: RetryPolicy::NEVER,
                hints: Vec::new(),
                recovery: Recovery::Abort,
                none_called: None,
            },
        }
    }

    fn none_called(why: NoneCalled) -> Self {
        let (code, policy, recovery, hint) = match why {
            NoneCalled::NoCandidate => (
                codes::PROVIDER_UNAVAILABLE,
                RetryPolicy::NEVER,
                Recovery::Abort,
                Cow::Borrowed("add a candidate to the fallback"),
            ),
            NoneCalled::Cooling(wait) => (
                codes::PROVIDER_UNAVAILABLE,
                codes::default_policy(codes::PROVIDER_UNAVAILABLE).with_retry_after(Some(wait)),
                Recovery::Retry,
                Cow::Owned(format!(
                    "every candidate is cooling down after failures; try again in {}",
                    seconds_text(wait)
                )),
            ),
            NoneCalled::Spent(wait) => (
                codes::BUDGET_EXHAUSTED,
                RetryPolicy::NEVER,
                Recovery::Escalate,
                Cow::Owned(format!(
                    "every candidate's budget is spent: add credit or a candidate; the first is tried again in {}",
                    seconds_text(wait)
                )),
            ),
        };
        Class {
            code: Cow::Borrowed(code),
            op: Cow::Borrowed("recover.fallback"),
            policy,
            hints: vec![hint],
            recovery,
            none_called: Some(why),
        }
    }
}

/// The message of a call that called no candidate.
impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::core::agent::write_head(f, &self.op, &self.code)?;
        self.fmt_message(f)
    }
}

impl StdError for Class {}

impl AgentError for Class {
    fn code(&self) -> &str {
        &self.code
    }

    fn op(&self) -> &str {
        &self.op
    }

    fn fmt_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.none_called {
            Some(NoneCalled::Cooling(wait)) => write!(
                f,
                "every candidate is cooling down; the first is tried again in {}",
                seconds_text(wait)
            ),
            Some(NoneCalled::Spent(wait)) => write!(
                f,
                "every candidate's budget is spent; the first is tried again in {}",
                seconds_text(wait)
            ),
            _ => f.write_str("no candidate to call"),
        }
    }

    fn fmt_public_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_message(f)
    }

    fn retry_policy(&self) -> RetryPolicy {
        self.policy
    }

    fn hints(&self) -> Vec<Cow<'static, str>> {
        self.hints.clone()
    }

    fn recovery(&self) -> Recovery {
        self.recovery
    }
}

impl<E> FallbackError<E> {
    /// Every failure, in the order the candidates were tried; empty when none was called.
    pub fn failures(&self) -> &[Failure<E>] {
        &self.failures
    }

    /// The failures, taken out.
    pub fn into_failures(self) -> Vec<Failure<E>> {
        self.failures
    }

    /// The candidates skipped because they were cooling down.
    pub fn skipped(&self) -> &[usize] {
        &self.skipped
    }

    /// The last failure.
    pub fn last(&self) -> Option<&Failure<E>> {
        self.failures.last()
    }

    /// The last error, as the operation returned it; `None` when no candidate was called
    /// (all cooling down, or none at all).
    pub fn into_last(self) -> Option<E> {
        self.failures.into_iter().next_back().map(|f| f.error)
    }

    /// The failure that classifies this error: the last one, unless the call ran out of
    /// candidates and an earlier failure is more actionable (a stream that delivered
    /// output, or a fault that is retried, over a candidate whose budget is spent); `None`
    /// when no candidate was called.
    pub fn deciding(&self) -> Option<&Failure<E>> {
        self.failures.get(self.deciding)
    }

    /// The error of the failure that classifies this error (see
    /// [`deciding`](Self::deciding)), as the operation returned it.
    pub fn into_deciding(self) -> Option<E> {
        let at = self.deciding;
        self.failures.into_iter().nth(at).map(|f| f.error)
    }

    fn write_message(&self, f: &mut fmt::Formatter<'_>, public: bool) -> fmt::Result {
        let Some(deciding) = self.deciding() else {
            return f.write_str("no candidate was called");
        };
        let n = self.failures.len();
        let in_order = self.deciding + 1 == n;
        let plural = if n == 1 { "" } else { "s" };
        match in_order {
            true => write!(f, "{n} candidate{plural} failed: ")?,
            false => write!(f, "{n} candidates failed, the one that decides last: ")?,
        }
        let others = self
            .failures
            .iter()
            .enumerate()
            .filter(|&(at, _)| at != self.deciding);
        for (_, failure) in others {
            let err = (self.chain)(&failure.error);
            let chain = if public {
                crate::display::public_chain(err)
            } else {
                crate::display::chain(err)
            };
            let then = if in_order { "then" } else { "and" };
            write!(f, "{}: {chain}; {then} ", failure.name)?;
        }
        // The deciding failure's error is the source: a chain walk writes it next.
        f.write_str(&deciding.name)
    }
}

impl<E> fmt::Debug for FallbackError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let failures: Vec<(&str, Stop, String)> = self
            .failures
            .iter()
            .map(|failure| {
                let chain = crate::display::chain((self.chain)(&failure.error)).to_string();
                (&*failure.name, failure.stop, chain)
            })
            .collect();
        f.debug_struct("FallbackError")
            .field("code", &self.class.code)
            .field("failures", &failures)
            .field("skipped", &self.skipped)
            .finish()
    }
}

impl<E> fmt::Display for FallbackError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::core::agent::write_head(f, &self.class.op, &self.class.code)?;
        self.write_message(f, false)
    }
}

impl<E> StdError for FallbackError<E> {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self.deciding() {
            Some(deciding) => Some((self.chain)(&deciding.error)),
            None => Some(&*self.class),
        }
    }
}

impl<E> AgentError for FallbackError<E> {
    fn code(&self) -> &str {
        &self.class.code
    }

    fn op(&self) -> &str {
        &self.class.op
    }

    fn fmt_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_message(f, false)
    }

    fn fmt_public_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_message(f, true)
    }

    fn retry_policy(&self) -> RetryPolicy {
        self.class.policy
    }

    fn hints(&self) -> Vec<Cow<'static, str>> {
        self.class.hints.clone()
    }

    fn recovery(&self) -> Recovery {
        self.class.recovery
    }
}

inventory::submit! { crate::core::registry::Registration::uncatalogued::<FallbackError>() }
inventory::submit! { crate::core::registry::Registration::uncatalogued::<Class>() }
