//! The codes this process knows, the only `error.type` values a metric carries: a code read
//! from a peer that no catalog here lists is `_OTHER`, so that no peer can grow the series.

use std::collections::HashSet;
use std::sync::OnceLock;

use agent_error_runtime::{catalog, codes, display};

/// The `error.type` of an error nothing classifies, or whose code this process does not
/// know, as the conventions name an unknown type.
pub const OTHER: &str = "_OTHER";

/// The most bytes of a code this process does not know, as a span keeps it.
const MAX_PEER_CODE_BYTES: usize = 64;

/// The codes of every type registered in this process (derived types, the runtime's own),
/// the shared vocabulary and `unclassified`: read once, at the first lookup. Registration
/// happens before `main`, so the set is complete by then.
fn registered() -> &'static HashSet<&'static str> {
    static REGISTERED: OnceLock<HashSet<&'static str>> = OnceLock::new();
    REGISTERED.get_or_init(|| {
        catalog::codes_with_vocabulary(&catalog::all())
            .into_iter()
            .collect()
    })
}

/// The known codes: the registered ones, and those a [`Telemetry`](crate::Telemetry) was
/// told of besides.
#[derive(Clone, Debug, Default)]
pub(crate) struct Known {
    added: HashSet<Box<str>>,
}

impl Known {
    /// Adds `codes`; one outside the grammar of codes is never written, and is left out.
    pub(crate) fn add<I>(&mut self, codes: I)
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        for code in codes {
            let code = code.as_ref();
            if codes::is_valid_code(code) && !registered().contains(code) {
                self.added.insert(code.into());
            }
        }
    }

    fn contains(&self, code: &str) -> bool {
        registered().contains(code) || self.added.contains(code)
    }

    /// The `error.type` of `code`: itself when this process knows it, `unclassified` when it
    /// breaks the grammar of codes, else [`OTHER`].
    pub(crate) fn error_type<'a>(&self, code: &'a str) -> &'a str {
        let code = codes::public_code(code);
        if self.contains(code) { code } else { OTHER }
    }

    /// A code this process does not know, as a span may keep it: folded to one line and
    /// capped at 64 bytes; `None` for a known code.
    pub(crate) fn peer_code(&self, code: &str) -> Option<String> {
        (!self.contains(code)).then(|| display::one_line(code, MAX_PEER_CODE_BYTES))
    }
}
