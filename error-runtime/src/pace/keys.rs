//! The keys a pacer keeps: a bounded map of what it knows per key, in shards under their own
//! locks, so that a hot key never waits behind another key's bookkeeping.
//!
//! Keys may come from a tenant's input, so making room costs O(1) amortised, never a scan:
//! each shard keeps its keys in the order they were last queued (a key touched since it was
//! queued goes to the back again when it reaches the front, the CLOCK approximation of least
//! recently used), and forgets the first idle key among the few oldest, else the oldest.

use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasher;
use std::sync::{Arc, Mutex, MutexGuard};

use super::KeyState;

/// The shards of a pacer with room for at least as many keys.
const SHARDS: usize = 16;

/// How many of a full shard's oldest keys are looked at for an idle one to forget.
const IDLE_LOOKUP: usize = 8;

/// The keys, in shards chosen by a hash of the key with a per-pacer random seed (a tenant
/// cannot aim its keys at one shard).
pub(super) struct Keys {
    hasher: std::collections::hash_map::RandomState,
    shards: [Mutex<Shard>; SHARDS],
}

/// One shard: its keys' states, and their order for forgetting.
#[derive(Default)]
struct Shard {
    states: HashMap<Arc<str>, KeyState>,
    /// Every key once, with the touch it was queued at, oldest first.
    order: VecDeque<(Arc<str>, u64)>,
    /// Counts the touches, to order them.
    touches: u64,
    /// How many queued keys making room has looked at, in all.
    #[cfg(test)]
    looked_at: u64,
}

impl Keys {
    pub(super) fn new() -> Keys {
        Keys {
            hasher: std::collections::hash_map::RandomState::new(),
            shards: std::array::from_fn(|_| Mutex::new(Shard::default())),
        }
    }

    /// Runs `f` on `key`'s state, made if new (room made first when its shard is full);
    /// at most `max_keys` keys are kept in all.
    pub(super) fn with<T>(
        &self,
        key: &str,
        max_keys: usize,
        now: u64,
        f: impl FnOnce(&mut KeyState) -> T,
    ) -> T {
        let (mut shard, room) = self.shard(key, max_keys);
        f(shard.get_or_make(key, room, now))
    }

    /// `f` of `key`'s state, if it is kept (not touched: reading is not a use).
    pub(super) fn read<T>(
        &self,
        key: &str,
        max_keys: usize,
        f: impl FnOnce(&KeyState) -> T,
    ) -> Option<T> {
        let (shard, _) = self.shard(key, max_keys);
        shard.states.get(key).map(f)
    }

    /// How many keys are kept.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.shards.iter().map(|s| lock(s).states.len()).sum()
    }

    /// `key`'s shard, locked, and how many keys it may hold: as many shards are used as
    /// leave room for at least one key each, and their rooms add up to at most `max_keys`.
    fn shard(&self, key: &str, max_keys: usize) -> (MutexGuard<'_, Shard>, usize) {
        let max_keys = max_keys.max(1);
        let used = SHARDS.min(prev_power_of_two(max_keys));
        // The low bits of a SipHash with a random seed; `used` is a power of two.
        let index = (self.hasher.hash_one(key) as usize) & (used - 1);
        (lock(&self.shards[index]), max_keys / used)
    }
}

impl Shard {
    /// `key`'s state, touched; made if new, room made first when `room` keys are held.
    fn get_or_make(&mut self, key: &str, room: usize, now: u64) -> &mut KeyState {
        self.touches += 1;
        let touch = self.touches;
        // Looked up twice when new: a key's first call only.
        if self.states.contains_key(key) {
            let state = self.states.get_mut(key).expect("a key just found");
            state.touched = touch;
            return state;
        }
        self.make_room(room, now);
        let key: Arc<str> = Arc::from(key);
        self.order.push_back((key.clone(), touch));
        let state = self.states.entry(key).or_default();
        state.touched = touch;
        state
    }

    /// Forgets keys until one more fits in `room`: among the oldest few not touched since
    /// they were queued the first idle one (nothing pending: forgetting it loses nothing),
    /// else the oldest. Keys touched since they were queued go to the back again; each such
    /// move pays for a touch, so that the cost is O(1) amortised.
    fn make_room(&mut self, room: usize, now: u64) {
        while self.states.len() >= room.max(1) {
            let mut oldest: Vec<Arc<str>> = Vec::new();
            let mut forgotten = false;
            while let Some((key, queued)) = self.order.pop_front() {
                #[cfg(test)]
                {
                    self.looked_at += 1;
                }
                let Some(state) = self.states.get(&key) else {
                    continue;
                };
                if state.touched != queued {
                    let touched = state.touched;
                    self.order.push_back((key, touched));
                    continue;
                }
                if super::idle(state, now) {
                    self.states.remove(&key);
                    forgotten = true;
                    break;
                }
                oldest.push(key);
                if oldest.len() == IDLE_LOOKUP {
                    break;
                }
            }
            // None idle among the oldest: the oldest goes; the others keep their places.
            let mut oldest = oldest.into_iter();
            if !forgotten && let Some(key) = oldest.next() {
                self.states.remove(&key);
            }
            for key in oldest.rev() {
                let touched = self.states.get(&key).map_or(0, |s| s.touched);
                self.order.push_front((key, touched));
            }
            if self.order.is_empty() {
                // Nothing queued is left to forget (cannot happen: every key is queued).
                self.states.clear();
            }
        }
    }
}

/// The largest power of two at most `n` (`n` at least 1).
fn prev_power_of_two(n: usize) -> usize {
    1 << (usize::BITS - 1 - n.leading_zeros())
}

fn lock(shard: &Mutex<Shard>) -> MutexGuard<'_, Shard> {
    shard.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(shard: &Shard) -> Vec<&str> {
        let mut keys: Vec<&str> = shard.states.keys().map(|k| &**k).collect();
        keys.sort_unstable();
        keys
    }

    /// A key that holds something: a pause until `until`, in a shard of `room` keys.
    fn pause(shard: &mut Shard, key: &str, until: u64, room: usize) {
        shard.get_or_make(key, room, 0).pause_until = until;
    }

    #[test]
    fn a_full_shard_forgets_an_idle_key_first_then_the_least_recently_used() {
        let mut shard = Shard::default();
        pause(&mut shard, "a", 100, 3);
        shard.get_or_make("idle", 3, 0);
        pause(&mut shard, "c", 100, 3);
        // "idle" holds nothing: it goes before the older "a".
        pause(&mut shard, "d", 100, 3);
        assert_eq!(held(&shard), ["a", "c", "d"]);
        // Then the least recently used: "a" was touched since "c" was made.
        shard.get_or_make("a", 3, 0);
        pause(&mut shard, "e", 100, 3);
        assert_eq!(held(&shard), ["a", "d", "e"]);
        pause(&mut shard, "f", 100, 3);
        assert_eq!(held(&shard), ["a", "e", "f"]);
        // Every key is queued once.
        assert_eq!(shard.order.len(), shard.states.len());
    }

    /// Making room never scans the shard: however many keys it holds, busy ones (none idle)
    /// and ones touched since they were queued included, each new key looks at a few.
    #[test]
    fn a_new_key_looks_at_a_few_keys_however_many_are_kept() {
        for room in [64, 4096] {
            let mut shard = Shard::default();
            for i in 0..room {
                pause(&mut shard, &format!("kept-{i}"), 100, room);
            }
            // Half of them touched again: they go to the back when they reach the front.
            for i in (0..room).step_by(2) {
                shard.get_or_make(&format!("kept-{i}"), room, 0);
            }
            shard.looked_at = 0;
            let new_keys = 10_000;
            for i in 0..new_keys {
                pause(&mut shard, &format!("new-{i}"), 100, room);
            }
            let per_key = shard.looked_at as f64 / new_keys as f64;
            assert!(
                per_key <= 2.0 * IDLE_LOOKUP as f64,
                "{room}: {per_key} a key"
            );
            assert_eq!(shard.states.len(), room);
        }
    }

    #[test]
    fn at_most_max_keys_are_kept_in_all_and_each_shard_has_room() {
        for max_keys in [1, 2, 3, 8, 100, 4096] {
            let keys = Keys::new();
            for i in 0..(3 * max_keys + 64) {
                keys.with(&format!("key-{i}"), max_keys, 0, |state| {
                    state.pause_until = 1
                });
            }
            assert!(keys.len() <= max_keys, "{max_keys}: {}", keys.len());
            assert!(keys.len() >= max_keys / 2, "{max_keys}: {}", keys.len());
        }
        assert_eq!(prev_power_of_two(1), 1);
        assert_eq!(prev_power_of_two(4095), 2048);
    }
}
