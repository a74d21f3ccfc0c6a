//! A map that keeps its first few entries in a short list, searched in place (the first one
//! inline in its owner), and moves to a hash table once it holds more.
//!
//! For per-flow tables that usually hold one or two entries (a consumer's pending Interests at
//! a low rate): the smallest hash table is a heap block of four buckets with its control bytes
//! in a line of their own, out of cache each time a flow seen once a second is visited again.
//! Nothing may depend on the order of the entries: the map offers no iteration.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::hash::Hash;

/// At most this many entries in the short list; beyond, every entry moves to the hash table,
/// for good (a map that once needed one keeps it: no back-and-forth around the limit).
pub const FEW: usize = 4;

/// See the module documentation. Entries in `few` or in `many`, never both non-empty.
#[derive(Clone, Debug)]
pub struct FewMap<K, V> {
    few: SmallVec<[(K, V); 1]>,
    many: FxHashMap<K, V>,
}

impl<K, V> Default for FewMap<K, V> {
    fn default() -> Self {
        FewMap {
            few: SmallVec::new(),
            many: FxHashMap::default(),
        }
    }
}

impl<K: Eq + Hash + Copy, V> FewMap<K, V> {
    pub fn len(&self) -> usize {
        self.few.len() + self.many.len()
    }

    pub fn is_empty(&self) -> bool {
        self.few.is_empty() && self.many.is_empty()
    }

    #[inline]
    pub fn get(&self, k: &K) -> Option<&V> {
        if self.many.capacity() == 0 {
            return self.few.iter().find(|(q, _)| q == k).map(|(_, v)| v);
        }
        self.many.get(k)
    }

    #[inline]
    pub fn get_mut(&mut self, k: &K) -> Option<&mut V> {
        if self.many.capacity() == 0 {
            return self.few.iter_mut().find(|(q, _)| q == k).map(|(_, v)| v);
        }
        self.many.get_mut(k)
    }

    pub fn contains_key(&self, k: &K) -> bool {
        self.get(k).is_some()
    }

    /// Inserts `v` under `k`; the value it replaces, if any.
    pub fn insert(&mut self, k: K, v: V) -> Option<V> {
        if self.many.capacity() == 0 {
            if let Some(old) = self.get_mut(&k) {
                return Some(std::mem::replace(old, v));
            }
            if self.few.len() < FEW {
                self.few.push((k, v));
                return None;
            }
            self.many.extend(self.few.drain(..));
            self.few = SmallVec::new();
        }
        self.many.insert(k, v)
    }

    pub fn remove(&mut self, k: &K) -> Option<V> {
        if self.many.capacity() == 0 {
            let i = self.few.iter().position(|(q, _)| q == k)?;
            return Some(self.few.swap_remove(i).1);
        }
        self.many.remove(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_as_a_hash_map_below_and_beyond_the_short_list() {
        let mut m: FewMap<u64, u64> = FewMap::default();
        let mut h: FxHashMap<u64, u64> = FxHashMap::default();
        // a deterministic mix of inserts, replacements and removals: over FEW keys first (the
        // short list only), then over 3 * FEW (beyond it)
        let mut x = 7u64;
        for step in 0..2000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let keys = if step < 1000 { FEW } else { 3 * FEW } as u64;
            let k = (x >> 33) % keys;
            match (x >> 20) % 3 {
                0 | 1 => assert_eq!(m.insert(k, step), h.insert(k, step)),
                _ => assert_eq!(m.remove(&k), h.remove(&k)),
            }
            assert_eq!(m.len(), h.len());
            if step < 1000 {
                assert_eq!(m.many.capacity(), 0, "within the short list");
            }
            for q in 0..3 * FEW as u64 {
                assert_eq!(m.get(&q), h.get(&q));
                assert_eq!(m.contains_key(&q), h.contains_key(&q));
            }
        }
        assert!(m.many.capacity() > 0, "went beyond the short list");
        if let Some(v) = m.get_mut(&0) {
            *v = 99;
        }
        assert!(m.get(&0).is_none_or(|v| *v == 99));
    }

    #[test]
    fn a_few_entries_live_in_the_list() {
        let mut m: FewMap<u32, u32> = FewMap::default();
        for k in 0..FEW as u32 {
            m.insert(k, k);
        }
        assert_eq!((m.few.len(), m.many.capacity()), (FEW, 0));
        assert_eq!(m.remove(&1), Some(1));
        assert_eq!(m.get(&3), Some(&3));
        assert!(!m.is_empty());
    }
}
