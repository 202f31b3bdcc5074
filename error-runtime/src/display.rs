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
use std::fmt::{self, Write as _};

use crate::AgentError;
use crate::core::agent::Message;
use crate::core::codes::{public_code, public_op};
pub use crate::core::summary::{
    ELLIPSIS, MAX_HINT_BYTES, MAX_HINTS, MAX_SUMMARY_BYTES, Public, one_line, public,
};
use crate::core::summary::{OneLine, push_summary};

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
/// A derived type is known as an [`AgentError`] anywhere in a chain through the `registry`
/// feature (on by default). Without it, only the runtime's own types are: a derived link
/// then prints its Display, its cause included, like any foreign link, and its cause is
/// printed again after it.
///
/// This is the operator's text, as the errors' own Display shows it: `#[redact]` fields
/// read `[redacted]`, but foreign errors' text (paths, hosts, SQL) is kept; each link is
/// folded onto one line (line breaks become spaces, control and bidirectional characters
/// go), so that no link can forge a log line. For logs that leave the process, use
/// [`public_chain`]; for the values of `#[redact]` fields too, [`unredacted`].
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
/// // Display: one head a line. The chain: each link with its own head, once.
/// assert_eq!(outer.to_string(), "llm.generate [provider_unavailable]: all retries failed: no answer in 10s: connection reset");
/// assert_eq!(display::chain(&outer).to_string(), "llm.generate [provider_unavailable]: all retries failed: http.get [timeout]: no answer in 10s: connection reset");
///
/// let err = anyhow::Error::new(outer).context("answering the user");
/// assert_eq!(format!("{:#}", err), "answering the user: llm.generate [provider_unavailable]: all retries failed: no answer in 10s: connection reset: http.get [timeout]: no answer in 10s: connection reset: connection reset");
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
    Chain {
        err,
        mode: Mode::Operator,
    }
}

/// The whole chain of `err` as [`chain`] writes it, but with the values of `#[redact]`
/// fields: the one way, with [`AgentError::fmt_message`] and [`Unredact::unredacted`], to
/// see them. Call it on purpose, where the text stays with the operator (a debugger, a
/// local crash report); logs leave the process.
///
/// ```
/// use agent_error::{display, AgentError};
///
/// #[derive(Debug, AgentError)]
/// #[agent(op = "llm.generate", code = "auth_error")]
/// #[error("key {key} rejected")]
/// struct KeyRejected { #[redact] key: String }
///
/// let e = KeyRejected { key: "sk-live-123".into() };
/// assert_eq!(e.to_string(), "llm.generate [auth_error]: key [redacted] rejected");
/// assert_eq!(display::unredacted(&e).to_string(), "llm.generate [auth_error]: key sk-live-123 rejected");
/// ```
pub fn unredacted<'a>(err: &'a (dyn StdError + 'static)) -> Chain<'a> {
    Chain {
        err,
        mode: Mode::Unredacted,
    }
}

/// `err.unredacted()`: the error's whole chain with the values of `#[redact]` fields, as
/// [`unredacted`] writes it. Display, `{:?}`, [`chain`] and every public rendering write
/// `[redacted]` in their place.
///
/// ```
/// use agent_error::{display::Unredact, AgentError};
///
/// #[derive(Debug, AgentError)]
/// #[agent(op = "db.connect", code = "auth_error")]
/// #[error("password {password} rejected")]
/// struct Rejected { #[redact] password: String }
///
/// let e = Rejected { password: "hunter2".into() };
/// assert_eq!(format!("{e}"), "db.connect [auth_error]: password [redacted] rejected");
/// assert_eq!(format!("{}", e.unredacted()), "db.connect [auth_error]: password hunter2 rejected");
/// ```
pub trait Unredact {
    /// The whole chain with the values of `#[redact]` fields (see [`unredacted`]).
    fn unredacted(&self) -> Chain<'_>;
}

impl<E: StdError + 'static> Unredact for E {
    fn unredacted(&self) -> Chain<'_> {
        unredacted(self)
    }
}

impl Unredact for dyn StdError + 'static {
    fn unredacted(&self) -> Chain<'_> {
        unredacted(self)
    }
}

impl Unredact for dyn StdError + Send + Sync + 'static {
    fn unredacted(&self) -> Chain<'_> {
        unredacted(self)
    }
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
    Chain {
        err,
        mode: Mode::Public,
    }
}

/// The text of a chain with no classified link, in [`public_chain`].
pub const UNCLASSIFIED_CHAIN: &str = "unclassified error";

/// The Display of an error chain returned by [`chain`], [`public_chain`] and [`unredacted`].
#[derive(Clone, Copy)]
pub struct Chain<'a> {
    err: &'a (dyn StdError + 'static),
    mode: Mode,
}

/// Which text of each link a [`Chain`] shows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Public messages of classified links, the text of the others.
    Operator,
    /// Public messages of classified links, nothing of the others.
    Public,
    /// Full messages of typed links (`#[redact]` values included), the text of the others.
    Unredacted,
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
        let mut links = crate::chain::links(self.err);
        while let Some(link) = links.next() {
            let classified = crate::core::classify::classify_link(link);
            // An io::Error that wraps another error displays as it, and that error is the
            // next link: print the pair once, classified by the io::Error's kind when the
            // inner error has no classification of its own.
            if let Some(inner) = link
                .downcast_ref::<std::io::Error>()
                .and_then(|io| io.get_ref())
            {
                let inner: &(dyn StdError + 'static) = inner;
                if classified.is_none() || crate::core::classify::classify_link(inner).is_some() {
                    continue;
                }
                links.next();
            }
            let public = self.mode == Mode::Public;
            if public && classified.is_none() {
                continue;
            }
            if !first {
                f.write_str(separator)?;
            }
            first = false;
            match classified {
                Some(e) => {
                    if public {
                        let (op, code) = (e.op(), e.code());
                        crate::core::agent::write_head(f, public_op(op), public_code(code))?;
                    } else {
                        crate::core::agent::write_head(f, e.op(), e.code())?;
                    }
                    if public {
                        write!(f, "{}", crate::display::public(&*e))?;
                    } else if e.is_foreign() {
                        write!(OneLine::new(f, usize::MAX), "{link}")?;
                    } else if self.mode == Mode::Unredacted {
                        write!(OneLine::new(f, usize::MAX), "{}", Message(&*e))?;
                    } else {
                        write!(OneLine::new(f, usize::MAX), "{}", RedactedMessage(&*e))?;
                    }
                }
                // Through `OneLine`, so that the caller's flags (`#`, width) do not reach a
                // foreign link, and its line breaks cannot forge a log line.
                None => write!(OneLine::new(f, usize::MAX), "{link}")?,
            }
        }
        if first && self.mode == Mode::Public {
            f.write_str(UNCLASSIFIED_CHAIN)?;
        }
        Ok(())
    }
}

/// A link's message as [`AgentError::fmt_redacted_message`] writes it, unfolded.
struct RedactedMessage<'a>(&'a dyn AgentError);

impl fmt::Display for RedactedMessage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt_redacted_message(f)
    }
}
