//! The strategies compared, each written as its own documentation recommends.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use agent_error::redis::RedisStore;
use agent_error_farm::Kind;

pub mod backon;
pub mod litellm;
pub mod middleware;
pub mod none;
pub mod ours;
pub mod sdk;

/// What a replica is given: the providers' base URLs, and the fleet's shared store, if the
/// replicas share one.
#[derive(Clone)]
pub struct Env {
    /// Each provider's base URL (`…/v1`).
    pub urls: HashMap<Kind, String>,
    /// The fleet's Redis store, in a fleet run (only strategies that can share state use it).
    pub redis: Option<Arc<RedisStore>>,
}

impl Env {
    /// The base URL of `kind`.
    pub fn url(&self, kind: Kind) -> &str {
        &self.urls[&kind]
    }
}

/// One model call of an agent loop.
#[derive(Clone, Copy)]
pub struct Call<'a> {
    /// The provider the loop calls first.
    pub primary: Kind,
    /// The API key.
    pub key: &'a str,
    /// The last user message.
    pub prompt: &'a str,
}

/// The providers a call may go to, in order: the loop's first, then Anthropic. Every
/// strategy that falls back follows it (no retry does not; async-openai cannot: its client
/// is bound to one base URL and speaks only OpenAI's protocol).
pub fn fallback_order(primary: Kind) -> [Kind; 2] {
    [primary, Kind::Anthropic]
}

/// What the user sees of one call: the text of the answer on screen, and the answers a
/// strategy started over after text was shown, marked as a new attempt (the screen
/// cleared, the text shown again from its start).
#[derive(Clone, Debug, Default)]
pub struct Screen {
    /// The text on screen, in the order it was shown since the last new attempt.
    pub text: String,
    /// New attempts that replaced text already shown.
    pub restarts: u32,
    /// Bytes of text shown and then withdrawn by those new attempts.
    pub withdrawn: usize,
}

impl Screen {
    /// Shows a piece of text after what is on screen.
    pub fn show(&mut self, text: &str) {
        self.text.push_str(text);
    }

    /// Starts a new answer: what is on screen is withdrawn (counted) and the screen cleared.
    pub fn new_attempt(&mut self) {
        if !self.text.is_empty() {
            self.restarts += 1;
            self.withdrawn += self.text.len();
            self.text.clear();
        }
    }
}

/// What a call's text is shown through.
pub type Show<'a> = &'a mut Screen;

/// A boxed future of a call.
pub type CallFuture<'a> = Pin<Box<dyn Future<Output = Result<(), String>> + Send + 'a>>;

/// One replica of an agent service running a strategy.
pub trait Replica: Send + Sync {
    /// Makes `call`, showing its text as it arrives; `Ok` when the strategy takes the answer
    /// as complete.
    fn call<'a>(&'a self, call: Call<'a>, show: Show<'a>) -> CallFuture<'a>;
}

/// A strategy: how a replica is made.
pub trait Strategy: Send + Sync {
    /// Its name in the table.
    fn name(&self) -> &'static str;
    /// The documentation or code it follows.
    fn follows(&self) -> &'static str;
    /// A replica of an agent service using it.
    fn replica(&self, env: &Env) -> Box<dyn Replica>;
    /// Whether it runs as a fleet too (four replicas).
    fn fleet(&self) -> bool {
        true
    }
    /// Readies what its next `runs` runs need, before they start.
    fn prepare(&self, runs: usize) {
        let _ = runs;
    }
    /// Whether its runs of the seeds may run at once.
    fn seeds_at_once(&self) -> bool {
        true
    }
}

/// Every strategy, in the table's order.
pub fn all() -> Vec<Box<dyn Strategy>> {
    vec![
        Box::new(none::NoRetry),
        Box::new(sdk::Sdk),
        Box::new(middleware::Middleware),
        Box::new(backon::Backon),
        Box::new(ours::Library),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_attempt_withdraws_what_was_shown() {
        let mut screen = Screen::default();
        screen.new_attempt();
        assert_eq!((screen.restarts, screen.withdrawn), (0, 0));
        screen.show("The agent");
        screen.show(" reads");
        screen.new_attempt();
        screen.show("The agent reads a file.");
        assert_eq!(screen.text, "The agent reads a file.");
        assert_eq!((screen.restarts, screen.withdrawn), (1, 15));
    }
}
