//! The link-time registry: the classified types a chain walk recognises, and the classifiers
//! of foreign errors. The runtime's own entries and the user's are collected the same way.

pub(crate) mod cache;

use std::any::TypeId;
use std::error::Error as StdError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{OnceLock, RwLock};

use crate::AgentError;
use crate::core::classify::Classification;
use crate::core::code_doc::{Catalog, CodeDoc};
use cache::VtableCache;

/// A registration's checked downcast of a link to its classified type.
type Cast = for<'a> fn(&'a (dyn StdError + 'static)) -> Option<&'a (dyn AgentError + 'static)>;

/// How the registry recognises one classified type: a checked downcast to it.
#[doc(hidden)]
pub struct Registration {
    cast: Cast,
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

    /// The registration of `T`, whose codes are known only at run time (no catalog entries).
    pub const fn uncatalogued<T: AgentError + 'static>() -> Self {
        Registration {
            cast: cast::<T>,
            codes: &[],
        }
    }
}

fn cast<'a, T: AgentError + 'static>(
    err: &'a (dyn StdError + 'static),
) -> Option<&'a (dyn AgentError + 'static)> {
    // The link's size comes from its vtable without a call; a downcast costs a virtual
    // `type_id` call, so try only the types the link can be.
    let size = std::mem::size_of_val(err);
    if size == std::mem::size_of::<T>() {
        if let Some(e) = err.downcast_ref::<T>() {
            return Some(e);
        }
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

/// Who wrote a classifier: the user's run before the runtime's own.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Origin {
    /// `classifier!` in the user's code.
    User,
    /// A classifier of the runtime (`std::io::Error`, reqwest, tokio).
    Builtin,
}

/// A classifier of one foreign error type, as `classifier!` registers it.
#[doc(hidden)]
pub struct ClassifierRegistration {
    classify: fn(&(dyn StdError + 'static)) -> Option<Classification>,
    type_id: fn() -> TypeId,
    is: fn(&(dyn StdError + 'static)) -> bool,
    origin: Origin,
}

impl ClassifierRegistration {
    /// A classifier of links of type `T`: `classify` downcasts, and returns `None` for a
    /// link that is not a `T` (the registry may ask it about any link).
    pub const fn of<T: StdError + 'static>(
        classify: fn(&(dyn StdError + 'static)) -> Option<Classification>,
        origin: Origin,
    ) -> Self {
        ClassifierRegistration {
            classify,
            type_id: TypeId::of::<T>,
            is: is::<T>,
            origin,
        }
    }
}

fn is<T: StdError + 'static>(link: &(dyn StdError + 'static)) -> bool {
    link.is::<T>()
}

inventory::collect!(Registration);
inventory::collect!(ClassifierRegistration);

/// The registry's link-time lists, collected once into vectors so that a remembered index
/// reaches its entry directly.
struct Lists {
    /// Every registered type, in `inventory`'s order (the scan's order).
    typed: Vec<&'static Registration>,
    /// Every link-time classifier, grouped by the type it classifies; within a group the
    /// user's before the runtime's own.
    classifiers: Vec<&'static ClassifierRegistration>,
    /// Where each group of `classifiers` starts and ends.
    groups: Vec<(usize, usize)>,
}

#[inline]
fn lists() -> &'static Lists {
    static LISTS: OnceLock<Lists> = OnceLock::new();
    LISTS.get_or_init(|| {
        let typed = inventory::iter::<Registration>.into_iter().collect();
        let mut classifiers: Vec<&'static ClassifierRegistration> =
            inventory::iter::<ClassifierRegistration>
                .into_iter()
                .collect();
        // Stable: two classifiers of one type and origin keep their order.
        classifiers.sort_by_key(|c| ((c.type_id)(), c.origin));
        let mut groups: Vec<(usize, usize)> = Vec::new();
        for (i, c) in classifiers.iter().enumerate() {
            match groups.last_mut() {
                Some((start, end)) if (classifiers[*start].type_id)() == (c.type_id)() => {
                    *end = i + 1
                }
                _ => groups.push((i, i + 1)),
            }
        }
        Lists {
            typed,
            classifiers,
            groups,
        }
    })
}

impl Lists {
    /// The classifiers of the group `g` if they classify `link`'s type.
    fn group_for(
        &self,
        g: usize,
        link: &(dyn StdError + 'static),
    ) -> Option<&[&'static ClassifierRegistration]> {
        let (start, end) = self.groups[g];
        (self.classifiers[start].is)(link).then(|| &self.classifiers[start..end])
    }
}

static TYPED: VtableCache = VtableCache::new();
static FOREIGN: VtableCache = VtableCache::new();

/// The link itself as a classified type, if its type is registered.
pub(crate) fn typed<'a>(
    link: &'a (dyn StdError + 'static),
) -> Option<&'a (dyn AgentError + 'static)> {
    let lists = lists();
    let at = |i: usize| (lists.typed[i].cast)(link);
    TYPED.recognise(link, at, || {
        (0..lists.typed.len()).find_map(|i| at(i).map(|found| (i, found)))
    })
}

/// A classifier added at run time with [`register_classifier`].
type Added = Box<dyn Fn(&(dyn StdError + 'static)) -> Option<crate::Error> + Send + Sync>;

static ADDED: RwLock<Vec<Added>> = RwLock::new(Vec::new());

/// Whether `ADDED` holds anything: most programs add nothing, and skip its lock.
static ANY_ADDED: AtomicBool = AtomicBool::new(false);

/// The classification of a foreign link: classifiers added at run time first, in the order
/// they were added, then the user's link-time ones, then the runtime's own.
pub(crate) fn foreign(link: &(dyn StdError + 'static)) -> Option<Classification> {
    if let Some(e) = added(link) {
        return Some(Classification::Built(e));
    }
    let lists = lists();
    let group = FOREIGN.recognise(
        link,
        |g| lists.group_for(g, link),
        || (0..lists.groups.len()).find_map(|g| lists.group_for(g, link).map(|group| (g, group))),
    )?;
    group.iter().find_map(|c| (c.classify)(link))
}

/// The first answer of the classifiers added at run time.
fn added(link: &(dyn StdError + 'static)) -> Option<crate::Error> {
    if !ANY_ADDED.load(Ordering::Acquire) {
        return None;
    }
    let added = ADDED.read().ok()?;
    added.iter().find_map(|classify| classify(link))
}

/// Adds a classifier for the foreign error type `T` at run time, for targets where
/// link-time registration ([`classifier!`](crate::classifier!)) cannot run, or for a
/// classifier that is chosen at start-up. It runs before every link-time classifier;
/// classifiers added this way run in the order they were added.
///
/// ```
/// use agent_error::{classify, codes, AgentError};
///
/// #[derive(Debug)]
/// struct PoolTimeout;
/// impl std::fmt::Display for PoolTimeout {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { f.write_str("pool timed out after 30s") }
/// }
/// impl std::error::Error for PoolTimeout {}
///
/// agent_error::register_classifier(|_: &PoolTimeout| {
///     Some(agent_error::Error::new("db.pool", codes::TIMEOUT, "the connection pool timed out"))
/// });
/// let c = classify(&PoolTimeout).unwrap();
/// assert_eq!(c.code(), "timeout");
/// assert!(c.is_retryable());
/// assert_eq!(c.message(), "the connection pool timed out");
/// ```
pub fn register_classifier<T: StdError + 'static>(
    classify: impl Fn(&T) -> Option<crate::Error> + Send + Sync + 'static,
) {
    let added: Added = Box::new(move |link| link.downcast_ref::<T>().and_then(&classify));
    // A poisoned lock only means another registration panicked; the list is still whole.
    let mut list = ADDED
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    list.push(added);
    ANY_ADDED.store(true, Ordering::Release);
}

/// The catalogs of every registered type.
pub(crate) fn catalogs() -> impl Iterator<Item = &'static [CodeDoc]> {
    inventory::iter::<Registration>.into_iter().map(|r| r.codes)
}
