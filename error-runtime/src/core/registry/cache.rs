//! Which registration recognises a link (or, for the chain walk, which wrapper a link is),
//! remembered by the address of the link's `dyn Error` vtable: a fixed table of atomics
//! filled on first sight, so a chain walk costs O(links).

use std::error::Error as StdError;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Slots of one table (a power of two): far more than the distinct error types a program
/// shows a chain walk. Two words a slot, 16 KiB a table on a 64-bit target.
const SLOTS: usize = 1024;

/// Slots looked at for one vtable before giving up: a vtable that finds none free is
/// scanned on every sight, as it was before the cache.
const PROBES: usize = 16;

/// A value slot: not yet written (its key was just claimed).
const PENDING: usize = 0;
/// A value slot: no registration recognises links with this vtable.
const UNKNOWN: usize = 1;
/// A value slot holds `KNOWN + index` of the registration that recognises them.
const KNOWN: usize = 2;

/// A table from vtable addresses to the registration (by its index in the registry's list,
/// or the wrapper by its kind) that recognises links with that vtable, or to "none".
///
/// What a remembered answer rests on. The answer computed for a link (the first
/// registration whose downcast succeeds, or none) depends only on the link's type, and the
/// table keys it by the address of the link's `dyn Error` vtable. rustc promises neither
/// that a type has one vtable nor that two types never share one: codegen units may
/// duplicate a vtable (that costs one slot each, nothing more), and identical vtables may be
/// merged. So:
/// - a known answer is confirmed by its registration's downcast on every hit, and a failed
///   confirmation falls back to the full scan: it rests on nothing but the downcast;
/// - an "unknown" answer cannot be confirmed by a downcast. It is kept with the size and
///   alignment of the link it was computed for (`size_of_val`, `align_of_val`: read through
///   the vtable, so free) and used only for a link of the same layout; a link of another
///   layout is scanned. What remains assumed is that two types with the same layout do not
///   share a vtable (their `type_id` methods return different constants, so merging them
///   would have to merge different code). A wrong "unknown" would make `find` miss a typed
///   link, never return a wrong one.
/// - Vtables are never freed while the program can still reach them (the registry's own
///   link-time lists would dangle first), so an address is not reused by another type.
/// - The address is read in safe code, from what a wide pointer's `Hash` writes; if that
///   does not hold what `metadata_word` checks, the cache is off and every link scanned.
///
pub(crate) struct VtableCache {
    keys: [AtomicUsize; SLOTS],
    values: [AtomicUsize; SLOTS],
    /// The [`layout`] of the link an answer was computed for, written before its value.
    layouts: [AtomicUsize; SLOTS],
}

impl VtableCache {
    /// An empty table.
    pub(crate) const fn new() -> Self {
        VtableCache {
            keys: [const { AtomicUsize::new(0) }; SLOTS],
            values: [const { AtomicUsize::new(PENDING) }; SLOTS],
            layouts: [const { AtomicUsize::new(0) }; SLOTS],
        }
    }

    /// The registration that recognises `link`: `at(index)` confirms a remembered answer and
    /// gives the result; `scan` finds the answer (index and result) the slow way, and is
    /// remembered unless the cache is disabled or full.
    #[inline]
    pub(crate) fn recognise<R>(
        &self,
        link: &(dyn StdError + 'static),
        at: impl Fn(usize) -> Option<R>,
        scan: impl FnOnce() -> Option<(usize, R)>,
    ) -> Option<R> {
        let Some(key) = vtable(link) else {
            return scan().map(|(_, r)| r);
        };
        let layout = layout(link);
        match self.get(key) {
            Some((UNKNOWN, known_layout)) if known_layout == layout => return None,
            // The same vtable for a link of another layout: a merged vtable, trust nothing.
            Some((UNKNOWN, _)) => return scan().map(|(_, r)| r),
            Some((value, _)) if value >= KNOWN => {
                if let Some(r) = at(value - KNOWN) {
                    return Some(r);
                }
                // Not confirmed: trust nothing remembered for this link.
                return scan().map(|(_, r)| r);
            }
            _ => {}
        }
        let found = scan();
        let value = found.as_ref().map_or(UNKNOWN, |(i, _)| KNOWN + i);
        self.insert(key, value, layout);
        found.map(|(_, r)| r)
    }

    /// The value remembered for `key` and the layout it was computed for, or `None` if it
    /// has none yet (or only a pending one).
    fn get(&self, key: usize) -> Option<(usize, usize)> {
        for slot in probes(key) {
            match self.keys[slot].load(Ordering::Acquire) {
                0 => return None,
                k if k == key => {
                    let value = self.values[slot].load(Ordering::Acquire);
                    // Written before the value, so read after it.
                    let layout = self.layouts[slot].load(Ordering::Relaxed);
                    return (value != PENDING).then_some((value, layout));
                }
                _ => {}
            }
        }
        None
    }

    fn insert(&self, key: usize, value: usize, layout: usize) {
        for slot in probes(key) {
            match self.keys[slot].compare_exchange(0, key, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => {
                    self.layouts[slot].store(layout, Ordering::Relaxed);
                    self.values[slot].store(value, Ordering::Release);
                    return;
                }
                // Another thread claimed it for the same vtable and stores the same answer.
                Err(k) if k == key => return,
                Err(_) => {}
            }
        }
    }
}

/// The size and alignment of `link`'s type in one word: the alignment is a power of two,
/// so its log fits the low six bits.
fn layout(link: &(dyn StdError + 'static)) -> usize {
    (size_of_val(link) << 6) | align_of_val(link).trailing_zeros() as usize
}

/// The slots to look at for `key`, in order.
fn probes(key: usize) -> impl Iterator<Item = usize> {
    // Vtables are word-aligned: drop the low bits, then spread the rest (Fibonacci hashing).
    let hash = ((key >> 3) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SLOTS.ilog2());
    (0..PROBES).map(move |i| (hash as usize + i) & (SLOTS - 1))
}

/// The two words of a `*const dyn Error`, its data address and its vtable address, as its
/// `Hash` writes them (two `write_usize`), or `None` if it writes anything else. Stable Rust
/// has no safe accessor for the vtable (`ptr::metadata` is unstable), and `Hash` is the one
/// stable impl that writes it out; which word comes first is not promised, and
/// `metadata_word` finds it at run time. Inlined, this is the two loads a transmute was.
fn words(link: &(dyn StdError + 'static)) -> Option<[usize; 2]> {
    let mut words = Words::default();
    std::ptr::from_ref(link).hash(&mut words);
    (words.written == 2).then_some(words.words)
}

/// A `Hasher` that keeps the words it is given instead of hashing them.
#[derive(Default)]
struct Words {
    words: [usize; 2],
    /// How many words were written; `usize::MAX` once anything but a word was.
    written: usize,
}

impl Hasher for Words {
    #[inline]
    fn write_usize(&mut self, word: usize) {
        if let Some(slot) = self.words.get_mut(self.written) {
            *slot = word;
        }
        self.written = self.written.saturating_add(1);
    }

    #[inline]
    fn write(&mut self, _: &[u8]) {
        self.written = usize::MAX;
    }

    fn finish(&self) -> u64 {
        0
    }
}

/// The address of `link`'s vtable, or `None` when the layout of a wide pointer is not the
/// one `metadata_word` could check (the cache is then disabled and every link scanned).
fn vtable(link: &(dyn StdError + 'static)) -> Option<usize> {
    static WORD: OnceLock<Option<usize>> = OnceLock::new();
    let word = (*WORD.get_or_init(metadata_word))?;
    words(link)
        .map(|words| words[word])
        .filter(|&address| address != 0)
}

/// Which word of a `*const dyn Error` is the vtable: two values of one type share it, and
/// the other word is each value's own address. `None` if that does not hold.
fn metadata_word() -> Option<usize> {
    static PROBE: [Probe; 2] = [Probe(0), Probe(1)];
    let (a, b) = (words(&PROBE[0])?, words(&PROBE[1])?);
    let data = |p: &Probe| std::ptr::from_ref(p).addr();
    (0..2).find(|&word| {
        let other = 1 - word;
        a[word] == b[word]
            && a[word] != 0
            && a[other] == data(&PROBE[0])
            && b[other] == data(&PROBE[1])
    })
}

/// Two distinct values of one error type, to tell the words of a wide pointer apart.
#[derive(Debug)]
struct Probe(#[allow(dead_code)] u8);

impl fmt::Display for Probe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("probe")
    }
}

impl StdError for Probe {}

#[cfg(test)]
mod tests {
    use super::*;

    // Assumes one vtable for `io::Error` in this test binary, which rustc does not promise
    // (and Miri does not keep).
    #[test]
    #[cfg_attr(miri, ignore)]
    fn the_vtable_word_is_found() {
        assert!(metadata_word().is_some());
        let io = std::io::Error::other("x");
        let other = std::io::Error::other("y");
        assert_eq!(vtable(&io), vtable(&other));
        assert_ne!(vtable(&io), vtable(&Probe(0)));
    }

    // Assumes one vtable for `Probe` and for `io::Error` in this test binary.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn answers_are_remembered_and_confirmed() {
        let cache = VtableCache::new();
        let link = Probe(3);
        assert_eq!(
            cache.recognise(&link, |_| Some(0), || Some((7, 1))),
            Some(1)
        );
        // Remembered: the scan does not run, the confirmation does.
        assert_eq!(
            cache.recognise(&link, |i| Some(i + 100), || panic!("scanned")),
            Some(107)
        );
        // A failed confirmation scans again.
        assert_eq!(
            cache.recognise(&link, |_| None::<usize>, || Some((7, 2))),
            Some(2)
        );
        let io = std::io::Error::other("x");
        assert_eq!(
            cache.recognise(&io, |_| Some(0), || None::<(usize, usize)>),
            None
        );
        assert_eq!(
            cache.recognise(&io, |_| Some(0), || panic!("scanned")),
            None
        );
    }

    #[test]
    fn an_unknown_answer_is_used_only_for_a_link_of_its_layout() {
        let cache = VtableCache::new();
        let link = Probe(3);
        let key = vtable(&link).expect("the vtable word");
        // As if another type of another layout had been seen under this vtable first.
        cache.insert(key, UNKNOWN, layout(&link) + (1 << 6));
        assert_eq!(
            cache.recognise(&link, |_| None::<usize>, || Some((0, 9))),
            Some(9)
        );
        // Under its own layout, an unknown answer is trusted.
        let other = VtableCache::new();
        other.insert(key, UNKNOWN, layout(&link));
        assert_eq!(
            other.recognise(&link, |_| None::<usize>, || panic!("scanned")),
            None
        );
    }
}
