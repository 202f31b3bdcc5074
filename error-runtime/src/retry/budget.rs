//! `RetryBudget`: a token bucket shared by retriers, so that an outage cannot multiply load.
//! Retries spend tokens and successes refill them, as the AWS SDKs' standard retry mode does.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::store::{BudgetStore, block_on};

/// A token bucket shared across retriers (clone the handle; every clone is the same bucket).
///
/// Each retry spends tokens; when the bucket cannot pay for a retry, the error is returned
/// without retrying, so a provider outage does not turn every caller into a retry storm.
/// Successes refill it. The defaults follow the AWS SDKs' standard retry mode:
///
/// | what | tokens |
/// |---|---|
/// | capacity (and the starting balance) | 500 |
/// | a retry | spends 5 |
/// | a retry after a `timeout` | spends 10 |
/// | a success on the first attempt | refills 1 |
/// | a success after retries | refills what that call spent |
///
/// ```
/// use agent_error::retry::RetryBudget;
///
/// let budget = RetryBudget::new();
/// let shared = budget.clone();
/// assert!(shared.try_spend(RetryBudget::RETRY_COST));
/// assert_eq!(budget.available(), 495);
/// budget.refill(1);
/// assert_eq!(shared.available(), 496);
/// ```
#[derive(Clone, Debug)]
pub struct RetryBudget {
    inner: Arc<Bucket>,
}

#[derive(Debug)]
struct Bucket {
    tokens: AtomicU32,
    capacity: u32,
    retry_cost: u32,
    timeout_cost: u32,
    success_refill: u32,
    /// A bucket kept in a shared store instead, under this key.
    shared: Option<(Arc<dyn BudgetStore>, Box<str>)>,
}

impl RetryBudget {
    /// The default capacity: 500 tokens.
    pub const CAPACITY: u32 = 500;
    /// The default cost of a retry: 5 tokens.
    pub const RETRY_COST: u32 = 5;
    /// The default cost of a retry after a timeout: 10 tokens.
    pub const TIMEOUT_COST: u32 = 10;
    /// The default refill after a success on the first attempt: 1 token.
    pub const SUCCESS_REFILL: u32 = 1;

    /// A full bucket with the default capacity and costs.
    pub fn new() -> Self {
        Self::with_costs(
            Self::CAPACITY,
            Self::RETRY_COST,
            Self::TIMEOUT_COST,
            Self::SUCCESS_REFILL,
        )
    }

    /// A full bucket of `capacity` tokens with the default costs.
    pub fn with_capacity(capacity: u32) -> Self {
        Self::with_costs(
            capacity,
            Self::RETRY_COST,
            Self::TIMEOUT_COST,
            Self::SUCCESS_REFILL,
        )
    }

    /// A full bucket with every number chosen.
    pub fn with_costs(
        capacity: u32,
        retry_cost: u32,
        timeout_cost: u32,
        success_refill: u32,
    ) -> Self {
        RetryBudget {
            inner: Arc::new(Bucket {
                tokens: AtomicU32::new(capacity),
                capacity,
                retry_cost,
                timeout_cost,
                success_refill,
                shared: None,
            }),
        }
    }

    /// The same bucket (capacity and costs), kept in `store` under `key` so that every
    /// replica using that store and key spends from one bucket, fleet-wide. Opt-in: a
    /// spend is then a store operation (a round trip for a remote store). The async
    /// retriers await it ([`try_spend_async`](Self::try_spend_async)); a blocking spend
    /// ([`try_spend`](Self::try_spend)) waits at most the store's
    /// [`wait_limit`](crate::store::WaitLimit::wait_limit), after which the store answers without its server
    /// (as it is set to: its own count, by default). [`available`](Self::available) then
    /// reports the local count only.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use agent_error::recover::{LocalStore, Store};
    /// use agent_error::retry::RetryBudget;
    ///
    /// let store: Arc<dyn Store> = Arc::new(LocalStore::new());
    /// let a = RetryBudget::with_capacity(10).shared_in(store.clone(), "fleet");
    /// let b = RetryBudget::with_capacity(10).shared_in(store, "fleet");
    /// assert!(a.try_spend(5) && b.try_spend(5));
    /// assert!(!a.try_spend(5)); // B spent the other half
    /// ```
    #[must_use]
    pub fn shared_in(self, store: Arc<dyn BudgetStore>, key: &str) -> Self {
        let b = &self.inner;
        RetryBudget {
            inner: Arc::new(Bucket {
                tokens: AtomicU32::new(b.tokens.load(Ordering::Acquire)),
                capacity: b.capacity,
                retry_cost: b.retry_cost,
                timeout_cost: b.timeout_cost,
                success_refill: b.success_refill,
                shared: Some((store, key.into())),
            }),
        }
    }

    /// Tokens left.
    pub fn available(&self) -> u32 {
        self.inner.tokens.load(Ordering::Acquire)
    }

    /// The bucket's capacity.
    pub fn capacity(&self) -> u32 {
        self.inner.capacity
    }

    /// The cost of retrying after an error with code `code`.
    pub fn cost_of(&self, code: &str) -> u32 {
        if code == crate::core::codes::TIMEOUT {
            self.inner.timeout_cost
        } else {
            self.inner.retry_cost
        }
    }

    /// The refill after a success on the first attempt.
    pub fn success_refill(&self) -> u32 {
        self.inner.success_refill
    }

    /// Spends `cost` tokens if there are that many; `false` (and nothing spent) otherwise.
    ///
    /// In a shared store this blocks the thread for the store's answer, at most its
    /// [`wait_limit`](crate::store::WaitLimit::wait_limit): in async code, use
    /// [`try_spend_async`](Self::try_spend_async).
    pub fn try_spend(&self, cost: u32) -> bool {
        if let Some((store, key)) = &self.inner.shared {
            let spend = store.spend(key, cost, self.inner.capacity);
            // A store's future answers by itself once its wait limit has passed; a store
            // that breaks that promise is not obeyed.
            return block_on(spend, store.wait_limit()).unwrap_or(true);
        }
        self.spend_here(cost)
    }

    /// [`try_spend`](Self::try_spend) that awaits a shared store instead of blocking the
    /// thread, as the async retriers do: on a runtime with one thread, a blocking wait
    /// would keep the store from ever answering.
    ///
    /// ```
    /// use agent_error::retry::RetryBudget;
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let budget = RetryBudget::with_capacity(10);
    /// assert!(budget.try_spend_async(10).await);
    /// assert!(!budget.try_spend_async(1).await);
    /// # });
    /// ```
    pub async fn try_spend_async(&self, cost: u32) -> bool {
        match &self.inner.shared {
            Some((store, key)) => store.spend(key, cost, self.inner.capacity).await,
            None => self.spend_here(cost),
        }
    }

    fn spend_here(&self, cost: u32) -> bool {
        self.inner
            .tokens
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| t.checked_sub(cost))
            .is_ok()
    }

    /// Puts `tokens` back, never above the capacity.
    ///
    /// In a shared store this blocks the thread as [`try_spend`](Self::try_spend) does: in
    /// async code, use [`refill_async`](Self::refill_async).
    pub fn refill(&self, tokens: u32) {
        if let Some((store, key)) = &self.inner.shared {
            block_on(
                store.refill(key, tokens, self.inner.capacity),
                store.wait_limit(),
            );
            return;
        }
        self.refill_here(tokens);
    }

    /// [`refill`](Self::refill) that awaits a shared store instead of blocking the thread.
    pub async fn refill_async(&self, tokens: u32) {
        match &self.inner.shared {
            Some((store, key)) => store.refill(key, tokens, self.inner.capacity).await,
            None => self.refill_here(tokens),
        }
    }

    fn refill_here(&self, tokens: u32) {
        let capacity = self.inner.capacity;
        // The closure always returns Some, so the update cannot fail.
        let _ = self
            .inner
            .tokens
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| {
                Some(t.saturating_add(tokens).min(capacity))
            });
    }
}

impl Default for RetryBudget {
    fn default() -> Self {
        Self::new()
    }
}
