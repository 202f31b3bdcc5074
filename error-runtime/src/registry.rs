//! The link-time registry of derived types, so that a chain walk can recognise them.
//! Each non-generic `#[derive(AgentError)]` type submits one [`Registration`].

use std::error::Error as StdError;

use crate::AgentError;
use crate::catalog::{Catalog, CodeDoc};

/// How the registry recognises one type: a checked downcast to it.
#[doc(hidden)]
#[cfg_attr(not(feature = "registry"), allow(dead_code))]
pub struct Registration {
    cast: for<'a> fn(&'a (dyn StdError + 'static)) -> Option<&'a (dyn AgentError + 'static)>,
    codes: &'static [CodeDoc],
}

impl Registration {
    /// The registration of `T`, with its catalog.
    pub const fn of<T: AgentError + Catalog + 'static>() -> Self {
        Registration {
            cast: cast::<T>,
            codes: T::CODES,
        }
    }
}

fn cast<'a, T: AgentError + 'static>(
    err: &'a (dyn StdError + 'static),
) -> Option<&'a (dyn AgentError + 'static)> {
    // The link's size comes from its vtable without a call; a downcast costs a virtual
    // `type_id` call, so try only the types the link can be.
    let size = std::mem::size_of_val(err);
    if size == std::mem::size_of::<T>()
        && let Some(e) = err.downcast_ref::<T>()
    {
        return Some(e);
    }
    // `Box<T>` and `Arc<T>` are errors whose `source()` skips `T`: look inside them too.
    if size == std::mem::size_of::<usize>() {
        if let Some(e) = err.downcast_ref::<std::sync::Arc<T>>() {
            return Some(&**e);
        }
        if let Some(e) = err.downcast_ref::<Box<T>>() {
            return Some(&**e);
        }
    }
    None
}

#[cfg(feature = "registry")]
inventory::collect!(Registration);

#[cfg(feature = "registry")]
pub(crate) fn classify<'a>(
    link: &'a (dyn StdError + 'static),
) -> Option<&'a (dyn AgentError + 'static)> {
    inventory::iter::<Registration>
        .into_iter()
        .find_map(|r| (r.cast)(link))
}

/// The catalogs of every registered type.
#[cfg(feature = "registry")]
pub(crate) fn catalogs() -> impl Iterator<Item = &'static [CodeDoc]> {
    inventory::iter::<Registration>.into_iter().map(|r| r.codes)
}

#[cfg(not(feature = "registry"))]
pub(crate) fn classify<'a>(
    _link: &'a (dyn StdError + 'static),
) -> Option<&'a (dyn AgentError + 'static)> {
    None
}

/// Registers a concrete type with the chain walk, so [`find`](crate::find) recognises it.
///
/// The derive registers every non-generic type by itself; use this for a concrete
/// instantiation of a generic error type (`MyError<String>`) or for a hand-written
/// [`AgentError`] impl, which must then implement [`Catalog`] too (its codes appear in
/// [`catalog::all`](crate::catalog::all)). Without the `registry` feature it does nothing.
///
/// ```
/// use agent_error::{find, AgentError};
///
/// #[derive(Debug, AgentError)]
/// #[agent(op = "store.get")]
/// enum StoreError<K: std::fmt::Debug + std::fmt::Display + 'static> {
///     #[error("missing key {0}")]
///     NotFound(K),
/// }
///
/// agent_error::register!(StoreError<String>);
///
/// let e = std::io::Error::other(StoreError::NotFound("a".to_string()));
/// assert_eq!(find(&e).map(|e| e.code()), Some("not_found"));
/// ```
#[macro_export]
macro_rules! register {
    ($ty:ty) => {
        $crate::__private::register_type!($ty);
    };
}
