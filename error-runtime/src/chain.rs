//! Walking an error's chain by hand: [`links`] visits every link, the error hidden inside an
//! `io::Error` included, and stops after [`MAX_LINKS`]; [`ErrorChain`] is what the retrier,
//! `Fallback` and `decide` accept as an operation's error (any `Error`, a boxed one, or an
//! `anyhow::Error`). [`find`](crate::find), [`classify`](crate::classify),
//! [`is_retryable`](crate::is_retryable) and [`has_code`](crate::has_code) walk it the same way.

pub use crate::core::chain::{ErrorChain, Links, MAX_LINKS, links, markers};
