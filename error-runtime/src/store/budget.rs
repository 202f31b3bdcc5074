//! Retry budgets: tokens that retries spend and successes put back ([`BudgetStore`] says
//! why they exist).

use super::{StoreFuture, WaitLimit};

/// Where a shared [`RetryBudget`](crate::retry::RetryBudget) keeps its tokens.
///
/// Why budgets exist: when a provider goes down, every call fails, and a retrier that
/// retries each failure a few times multiplies the load on the provider by as many attempts
/// just when it can least bear it; across a fleet of replicas, each of them does. A budget
/// caps retries as a share of calls rather than per call: each retry spends a token, each
/// first attempt that succeeds puts part of one back, and when the budget is empty failures
/// are returned at once instead of retried. A [`RetryBudget`](crate::retry::RetryBudget)
/// keeps its tokens in the process, or, shared in a [`BudgetStore`], across the fleet so
/// that the whole fleet retries at most the share the budget allows.
pub trait BudgetStore: WaitLimit {
    /// Spends `cost` tokens of the budget `key` (which holds `capacity` when new) if it
    /// has them; `false` and nothing spent otherwise.
    fn spend<'a>(&'a self, key: &'a str, cost: u32, capacity: u32) -> StoreFuture<'a, bool>;

    /// Puts `tokens` back into the budget `key`, never above `capacity`.
    fn refill<'a>(&'a self, key: &'a str, tokens: u32, capacity: u32) -> StoreFuture<'a, ()>;
}
