//! Renderings for people: a user-facing message with hints, and the whole chain for logs
//! with each link printed once.
//!
//! [`for_user`] is the public summary and one `  - hint` line per hint; [`chain`] writes every
//! link of a chain for logs, a classified link by its message so that a cause is not
//! repeated; [`public_chain`] writes only what may cross a trust boundary (classified links'
//! public messages); [`public`] is one error's public message.
//!
//! ```
//! use agent_error::{AgentError, display};
//!
//! #[derive(Debug, AgentError)]
//! #[agent(op = "fs.read", code = "not_found", hint = "check the path")]
//! #[error("no such file")]
//! struct Missing {
//!     source: std::io::Error,
//! }
//!
//! let e = Missing { source: std::io::Error::other("/srv/data/a.txt: ENOENT") };
//! assert_eq!(display::for_user(&e), "no such file\n  - check the path");
//! assert_eq!(display::chain(&e).to_string(), "fs.read [not_found]: no such file: /srv/data/a.txt: ENOENT");
//! assert_eq!(display::public_chain(&e).to_string(), "fs.read [not_found]: no such file");
//! ```

use std::error::Error as StdError;
use std::fmt;

use crate::AgentError;
use crate::core::codes::{public_code, public_op};
use crate::core::summary::push_summary;
pub use crate::core::summary::{Public, public};

/// The message for the person using the product: the summary (the public message on one
/// line), then `  - HINT` per hint, one a line. Redacted fields and foreign causes stay out.
///
/// ```
/// use agent_error::{display, Error};
///
/// let e = Error::new("llm.generate", "auth_error", "the API key was rejected")
///     .with_source(std::io::Error::other("sk-live-123 invalid"))
///     .with_hint("set OPENAI_API_KEY");
/// assert_eq!(display::for_user(&e), "the API key was rejected\n  - set OPENAI_API_KEY");
/// ```
pub fn for_user(e: &dyn AgentError) -> String {
    let mut out = String::new();
    push_summary(&mut out, e);
    crate::core::summary::push_hints(&mut out, "\n  - ", e);
    out
}

/// The whole chain of `err` for the operator, each link once.
///
/// A derived error's Display already ends with its cause, and `source()` returns that cause
/// too, so printing every link's Display (as anyhow's `{:#}` does) repeats it. Here a link
/// that is an [`AgentError`] prints `op [code]: message` and leaves its cause to the next
/// link; an `std::io::Error` or `Arc<dyn Error>` that only wraps another error is not
/// printed twice. A foreign link that a classifier knows (see [`classify`](crate::classify))
/// prints `op [code]: ` before its own text; any other foreign link prints its own text.
///
/// This is the operator's full text: `#[redact]` fields are redacted, but foreign errors'
/// text (paths, hosts, SQL) is kept. For logs that leave the process, use [`public_chain`].
///
/// `{}` joins the links with `: ` on one line; `{:#}` puts each cause on its own line after
/// `caused by: `. For an `anyhow::Error`, pass `err.as_ref()`.
///
/// ```
/// use agent_error::{display, Error};
///
/// let inner = Error::new("http.get", "timeout", "no answer in 10s")
///     .with_source(std::io::Error::other("connection reset"));
/// let outer = Error::new("llm.generate", "provider_unavailable", "all retries failed").with_source(inner);
/// assert_eq!(outer.to_string(), "llm.generate [provider_unavailable]: all retries failed: http.get [timeout]: no answer in 10s: connection reset");
/// assert_eq!(display::chain(&outer).to_string(), outer.to_string());
///
/// let err = anyhow::Error::new(outer).context("answering the user");
/// assert_eq!(format!("{:#}", err), "answering the user: llm.generate [provider_unavailable]: all retries failed: http.get [timeout]: no answer in 10s: connection reset: http.get [timeout]: no answer in 10s: connection reset: connection reset");
/// assert_eq!(
///     display::chain(err.as_ref()).to_string(),
///     "answering the user: llm.generate [provider_unavailable]: all retries failed: http.get [timeout]: no answer in 10s: connection reset",
/// );
///
/// let refused = anyhow::Error::new(std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "10.0.0.7:443 refused"))
///     .context("calling the model");
/// assert_eq!(display::chain(refused.as_ref()).to_string(), "calling the model: io [provider_unavailable]: 10.0.0.7:443 refused");
/// ```
pub fn chain<'a>(err: &'a (dyn StdError + 'static)) -> Chain<'a> {
    Chain { err, public: false }
}

/// The chain of `err` as it may leave the process (logs, traces): each classified link
/// once as `op [code]: public message`, where `#[redact]` fields read `[redacted]` and a
/// classified foreign link shows its classifier's fixed text; foreign links that no
/// classifier knows are left out (their text may carry paths, hosts or SQL). A chain with
/// no classified link reads `unclassified error`.
///
/// ```
/// use agent_error::{display, Error};
///
/// let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "10.0.0.7:443 refused");
/// let err = anyhow::Error::new(Error::new("llm.generate", "provider_unavailable", "all retries failed").with_source(io))
///     .context("while reading /home/alice/notes.txt");
/// assert_eq!(
///     display::public_chain(err.as_ref()).to_string(),
///     "llm.generate [provider_unavailable]: all retries failed: io [provider_unavailable]: connection refused",
/// );
/// assert_eq!(display::public_chain(&std::io::Error::other("secret")).to_string(), "unclassified error");
/// ```
pub fn public_chain<'a>(err: &'a (dyn StdError + 'static)) -> Chain<'a> {
    Chain { err, public: true }
}

/// The text of a chain with no classified link, in [`public_chain`].
pub const UNCLASSIFIED_CHAIN: &str = "unclassified error";

/// The Display of an error chain returned by [`chain`] and [`public_chain`].
#[derive(Clone, Copy)]
pub struct Chain<'a> {
    err: &'a (dyn StdError + 'static),
    public: bool,
}

impl fmt::Debug for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let separator = if f.alternate() { "\ncaused by: " } else { ": " };
        let mut first = true;
        let mut links = crate::links(self.err);
        while let Some(link) = links.next() {
            let classified = crate::core::classify::classify_link(link);
            // An io::Error that wraps another error displays as it, and that error is the
            // next link: print the pair once, classified by the io::Error's kind when the
            // inner error has no classification of its own.
            if let Some(io) = link.downcast_ref::<std::io::Error>()
                && let Some(inner) = io.get_ref()
            {
                let inner: &(dyn StdError + 'static) = inner;
                if classified.is_none() || crate::core::classify::classify_link(inner).is_some() {
                    continue;
                }
                links.next();
            }
            if self.public && classified.is_none() {
                continue;
            }
            if !first {
                f.write_str(separator)?;
            }
            first = false;
            match classified {
                Some(e) => {
                    if self.public {
                        let (op, code) = (e.op(), e.code());
                        crate::core::agent::write_head(f, public_op(op), public_code(code))?;
                    } else {
                        crate::core::agent::write_head(f, e.op(), e.code())?;
                    }
                    if self.public {
                        e.fmt_public_message(f)?;
                    } else if e.is_foreign() {
                        write!(f, "{link}")?;
                    } else {
                        e.fmt_message(f)?;
                    }
                }
                // `write!` so that the caller's flags (`#`, width) do not reach a foreign link.
                None => write!(f, "{link}")?,
            }
        }
        if first && self.public {
            f.write_str(UNCLASSIFIED_CHAIN)?;
        }
        Ok(())
    }
}
