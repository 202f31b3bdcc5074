//! `RetryBudget`: a token bucket shared by retriers, so that an outage cannot multiply load.
//! Retries spend tokens and successes refill them, as the AWS SDKs' standard retry mode does.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

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
    pub fn try_spend(&self, cost: u32) -> bool {
        self.inner
            .tokens
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| t.checked_sub(cost))
            .is_ok()
    }

    /// Puts `tokens` back, never above the capacity.
    pub fn refill(&self, tokens: u32) {
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
