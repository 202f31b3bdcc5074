//! The catalog of codes: every code a type can produce, with its docs, retry behaviour and
//! recovery, for generated documentation, LLM prompts and a golden-file check of the contract.
//!
//! `#[derive(AgentError)]` implements [`Catalog`] for each type; [`catalog!`](crate::catalog!)
//! gathers the entries of the types you name, [`all`] those of every registered type. The
//! renderers write them as Markdown ([`markdown`]), as a compact block for a system prompt
//! ([`prompt`]) or, with `serde`, as JSON; [`check_golden`] compares them with a committed
//! file so that a renamed code or a changed retry flag fails a test until the file is updated
//! on purpose.
//!
//! ```
//! use agent_error::{AgentError, catalog};
//!
//! #[derive(Debug, AgentError)]
//! #[agent(op = "llm.generate")]
//! enum LlmError {
//!     /// The provider is throttling this client.
//!     #[agent(code = "rate_limit", rate_limited, hint = "lower the request rate")]
//!     #[error("provider returned 429")]
//!     RateLimited,
//! }
//!
//! let entries = agent_error::catalog![LlmError];
//! assert_eq!(entries[0].code, "rate_limit");
//! assert!(catalog::markdown(&entries).contains("The provider is throttling this client."));
//! assert!(catalog::prompt(&entries).contains("rate_limit"));
//! ```

use std::collections::BTreeMap;
use std::fmt;

use crate::RetryPolicy;
use crate::core::policy::Jitter;

mod golden;
mod render;

pub use crate::core::code_doc::{Catalog, CodeDoc};
pub use golden::{BLESS_VAR, GoldenMismatch, check_file, check_golden, golden};
pub use render::{markdown, prompt};

impl CodeDoc {
    /// `Type::Variant`, with the type's module path left out.
    pub fn declared_at(&self) -> String {
        let short = self.type_name.rsplit("::").next().unwrap_or(self.type_name);
        if short == self.variant {
            short.to_string()
        } else {
            format!("{short}::{}", self.variant)
        }
    }

    /// The retry behaviour in words: "not retried", or "retried up to 4 attempts, 100ms
    /// doubling to 5s, full jitter; honours Retry-After up to 60s".
    pub fn retry_in_words(&self) -> String {
        if self.retry_from_cause {
            return "as its cause: retried when the cause's classification is, with its policy and recovery; not retried when nothing classifies the cause".to_string();
        }
        if self.retry_from_status {
            return "as its status: rate-limited on 429, retried on 408, 498 and 5xx with the default policy, not retried on any other".to_string();
        }
        if self.retry_from_code {
            return format!("as its code: {}", retry_in_words(&self.policy));
        }
        retry_in_words(&self.policy)
    }
}

/// The retry behaviour of `policy` in words.
fn retry_in_words(policy: &RetryPolicy) -> String {
    if !policy.is_retryable() {
        return "not retried".to_string();
    }
    let growth = if policy.factor() == 2.0 {
        "doubling".to_string()
    } else if policy.factor() == 1.0 {
        "constant".to_string()
    } else {
        format!("growing ×{}", policy.factor())
    };
    let jitter = match policy.jitter() {
        Jitter::None => "no jitter",
        Jitter::Full => "full jitter",
        Jitter::Equal => "equal jitter",
        Jitter::Decorrelated => "decorrelated jitter",
    };
    let delays = if policy.factor() == 1.0 || policy.base_delay() == policy.max_delay() {
        format!("{:?} between attempts", policy.base_delay())
    } else {
        format!(
            "{:?} {growth} to {:?}",
            policy.base_delay(),
            policy.max_delay()
        )
    };
    format!(
        "{}retried up to {} attempts, {delays}, {jitter}; honours Retry-After up to {:?}",
        if policy.is_rate_limited() {
            "rate-limited; "
        } else {
            ""
        },
        policy.max_attempts(),
        policy.max_wait()
    )
}

/// The entries of the given types, in order: `catalog![LlmError, ToolError]`. Works on
/// every platform, registry or not.
///
/// Each type's entries are followed by those of the types its transparent variants wrap
/// (see [`Catalog::collect_codes`]): an `#[error(transparent)] Disabled(#[from] CircuitOpen)`
/// variant lists `TOOL_DISABLED`. An entry met twice (a type named and also wrapped) is
/// listed once.
///
/// ```
/// use agent_error::{recover::CircuitOpen, AgentError};
///
/// #[derive(Debug, AgentError)]
/// #[agent(op = "weather")]
/// enum WeatherError {
///     #[agent(code = "unknown_city", recovery = "replan")]
///     #[error("unknown city")]
///     UnknownCity,
///     #[error(transparent)]
///     Disabled(#[from] CircuitOpen),
/// }
///
/// let codes: Vec<&str> = agent_error::catalog![WeatherError].iter().map(|d| d.code).collect();
/// assert_eq!(codes, ["unknown_city", "TOOL_DISABLED"]);
/// ```
#[macro_export]
macro_rules! catalog {
    ($($ty:ty),* $(,)?) => {{
        let mut entries: ::std::vec::Vec<&'static $crate::catalog::CodeDoc> = ::std::vec::Vec::new();
        $( <$ty as $crate::catalog::Catalog>::collect_codes(&mut entries); )*
        $crate::__private::dedup(entries)
    }};
}

/// The entries of every type registered in the binary: every non-generic derived type (with
/// the `registry` feature), the types given to [`register!`](crate::register), and the
/// runtime's own. Sorted by code, then by where they are declared.
///
/// Link-time registration can miss a type: a generic type that is not `register!`ed, and
/// every type on a target where the `inventory` crate cannot run code before `main`. Use
/// [`catalog!`](crate::catalog!) where the list must be complete.
pub fn all() -> Vec<&'static CodeDoc> {
    let mut entries: Vec<&'static CodeDoc> = crate::core::registry::catalogs()
        .flat_map(|codes| codes.iter())
        .collect();
    entries.sort_by(|a, b| (a.code, a.type_name, a.variant).cmp(&(b.code, b.type_name, b.variant)));
    entries.dedup_by(|a, b| std::ptr::eq(*a, *b));
    entries
}

/// The codes of `entries`, the shared vocabulary ([`codes::ALL`](crate::codes::ALL)) and
/// `unclassified`: every code an error of those types, or a foreign error the runtime
/// classifies, may carry. Sorted, each once.
///
/// ```
/// use agent_error::{catalog, recover::CircuitOpen};
///
/// let codes = catalog::codes_with_vocabulary(&agent_error::catalog![CircuitOpen]);
/// assert!(codes.contains(&"TOOL_DISABLED") && codes.contains(&"rate_limit") && codes.contains(&"unclassified"));
/// ```
pub fn codes_with_vocabulary(entries: &[&CodeDoc]) -> Vec<&'static str> {
    let mut codes: Vec<&'static str> = entries.iter().map(|doc| doc.code).collect();
    codes.extend(crate::codes::ALL);
    codes.push(crate::codes::UNCLASSIFIED);
    codes.sort_unstable();
    codes.dedup();
    codes
}

/// The registered entries with the code `code` (see [`all`]), like `rustc --explain`.
pub fn explain(code: &str) -> Vec<&'static CodeDoc> {
    all().into_iter().filter(|d| d.code == code).collect()
}

/// A code declared by several types that disagree on its retryability or recovery.
#[derive(Clone, Debug, PartialEq)]
pub struct Conflict {
    /// The code.
    pub code: &'static str,
    /// Every declaration of it.
    pub entries: Vec<&'static CodeDoc>,
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is declared differently:", self.code)?;
        for d in &self.entries {
            if d.retry_from_cause {
                write!(
                    f,
                    " {} (retried and recovered as its cause);",
                    d.declared_at()
                )?;
                continue;
            }
            if d.retry_from_status {
                write!(
                    f,
                    " {} (retried and recovered as its status);",
                    d.declared_at()
                )?;
                continue;
            }
            write!(
                f,
                " {} ({}, {}, recovery {});",
                d.declared_at(),
                if d.retryable {
                    "retryable"
                } else {
                    "not retryable"
                },
                if d.rate_limited {
                    "rate-limited"
                } else {
                    "not rate-limited"
                },
                d.recovery
            )?;
        }
        Ok(())
    }
}

/// Codes declared in several entries that disagree on retryability, rate limiting or
/// recovery. Sharing a code across types is normal (`timeout` is everywhere); declaring
/// it with different behaviour is the bug, since callers match on the code.
pub fn conflicts(entries: &[&'static CodeDoc]) -> Vec<Conflict> {
    let mut by_code: BTreeMap<&'static str, Vec<&'static CodeDoc>> = BTreeMap::new();
    for d in entries {
        by_code.entry(d.code).or_default().push(d);
    }
    by_code
        .into_iter()
        .filter(|(_, ds)| {
            ds.iter().any(|d| {
                let behaviour = |d: &CodeDoc| {
                    let from = (d.retry_from_cause, d.retry_from_status);
                    (from, d.retryable, d.rate_limited, d.recovery)
                };
                behaviour(d) != behaviour(ds[0])
            })
        })
        .map(|(code, entries)| Conflict { code, entries })
        .collect()
}

/// Groups entries by code, codes sorted, declarations in the order given.
fn by_code<'a>(entries: &[&'a CodeDoc]) -> BTreeMap<&'a str, Vec<&'a CodeDoc>> {
    let mut map: BTreeMap<&str, Vec<&CodeDoc>> = BTreeMap::new();
    for d in entries {
        map.entry(d.code).or_default().push(d);
    }
    map
}

#[cfg(feature = "serde")]
impl serde::Serialize for CodeDoc {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let p = &self.policy;
        let mut st = s.serialize_struct("CodeDoc", 19)?;
        st.serialize_field("code", self.code)?;
        st.serialize_field("op", &self.op)?;
        st.serialize_field("type_name", self.type_name)?;
        st.serialize_field("variant", self.variant)?;
        st.serialize_field("message", self.message)?;
        st.serialize_field("docs", self.docs)?;
        st.serialize_field("hints", self.hints)?;
        st.serialize_field("retryable", &self.retryable)?;
        st.serialize_field("rate_limited", &self.rate_limited)?;
        st.serialize_field("recovery", self.recovery.as_str())?;
        st.serialize_field("retry_from_cause", &self.retry_from_cause)?;
        // Written only when set, so that entries of the other rules read as before.
        for (key, set) in [
            ("retry_from_status", self.retry_from_status),
            ("retry_from_code", self.retry_from_code),
        ] {
            if set {
                st.serialize_field(key, &true)?;
            } else {
                st.skip_field(key)?;
            }
        }
        st.serialize_field(
            "policy",
            &p.is_retryable().then(|| serde_json_like::Policy {
                max_attempts: p.max_attempts(),
                base_delay_ms: p.base_delay().as_secs_f64() * 1e3,
                max_delay_ms: p.max_delay().as_secs_f64() * 1e3,
                factor: p.factor(),
                jitter: p.jitter().as_str(),
                max_wait_ms: p.max_wait().as_secs_f64() * 1e3,
            }),
        )?;
        st.serialize_field("status", &self.status)?;
        st.serialize_field("url", &self.url)?;
        st.serialize_field("since", &self.since)?;
        st.serialize_field("deprecated", &self.deprecated)?;
        st.end()
    }
}

#[cfg(feature = "serde")]
mod serde_json_like {
    /// A retry policy as JSON: durations in milliseconds.
    #[derive(serde::Serialize)]
    pub struct Policy {
        pub max_attempts: u32,
        pub base_delay_ms: f64,
        pub max_delay_ms: f64,
        pub factor: f64,
        pub jitter: &'static str,
        pub max_wait_ms: f64,
    }
}
