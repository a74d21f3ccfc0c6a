//! A hash map keyed by [`Name`] whose slots a caller can find without reading the map: the PIT
//! of a router past its short list.
//!
//! Open addressing with linear probing over two parallel arrays: the keys (16 bytes each, four
//! to a cache line, small enough to stay in cache on a busy router) and the values (a PIT entry,
//! 200 bytes). A name's home slot is a function of the name and the capacity alone, so a driver
//! that knows which name the next packet carries can prefetch both the key line and the value
//! lines ([`NameMap::prefetch`]) before the lookup: with thousands of flows each lookup is
//! otherwise a cache miss on a bucket (a standard hash table finds its bucket only after reading
//! its control bytes). At most half the slots are used, so a lookup almost always ends in the
//! home slot or the next. The hash is fixed (no random state); the map offers no iteration, so
//! no output can depend on its order.

use crate::name::Name;
#[cfg(test)]
use crate::name::NameId;

/// The fewest slots a map has once it holds anything.
const MIN_SLOTS: usize = 16;

/// A name packed for the key array (16 bytes, where an `Option<(Name, …)>` key would take 24):
/// `id` is the base shifted left by 2 with the low bits 0 for a free slot, 1 for a bare prefix,
/// 2 for a name with sequence `seq`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Key {
    id: u64,
    seq: u64,
}

impl Key {
    #[inline]
    fn of(name: &Name) -> Key {
        Key {
            id: (name.base.0 as u64) << 2 | (1 + name.seq.is_some() as u64),
            seq: name.seq.unwrap_or(0),
        }
    }

    #[inline]
    fn used(&self) -> bool {
        self.id != 0
    }

    #[cfg(test)]
    fn name(&self) -> Name {
        Name {
            base: NameId((self.id >> 2) as u32),
            seq: (self.id & 3 == 2).then_some(self.seq),
        }
    }

    /// A fixed multiplicative (Fibonacci) hash; the home slot is its top bits.
    #[inline]
    fn hash(&self) -> u64 {
        const PHI: u64 = 0x9E37_79B9_7F4A_7C15;
        (self.id.wrapping_mul(PHI) ^ self.seq).wrapping_mul(PHI)
    }
}

/// Where a probe for a key ended.
enum Probe {
    Found(usize),
    /// The first free slot on the key's path (where it would go).
    Free(usize),
}

/// See the module documentation.
#[derive(Clone, Debug)]
pub struct NameMap<V> {
    keys: Vec<Key>,
    vals: Vec<Option<V>>,
    len: usize,
    /// 64 − log2(slots) (64 with none): a key's home slot is its hash shifted right by this.
    shift: u32,
}

impl<V> Default for NameMap<V> {
    fn default() -> Self {
        NameMap {
            keys: Vec::new(),
            vals: Vec::new(),
            len: 0,
            shift: 64,
        }
    }
}

impl<V> NameMap<V> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Slots allocated (0 until the first insert; never shrinks).
    pub fn capacity(&self) -> usize {
        self.keys.len()
    }

    #[inline]
    fn mask(&self) -> usize {
        self.keys.len().wrapping_sub(1)
    }

    /// The home slot of `k` (the map has slots: callers check).
    #[inline]
    fn home(&self, k: &Key) -> usize {
        (k.hash() >> self.shift) as usize
    }

    /// Follows `k`'s path from its home slot (the map has slots: callers check).
    #[inline]
    fn probe(&self, k: &Key) -> Probe {
        let mut i = self.home(k);
        loop {
            let q = &self.keys[i];
            if *q == *k {
                return Probe::Found(i);
            }
            if !q.used() {
                return Probe::Free(i);
            }
            i = (i + 1) & self.mask();
        }
    }

    /// The slot holding `k`, if any.
    #[inline]
    fn find(&self, k: &Key) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        match self.probe(k) {
            Probe::Found(i) => Some(i),
            Probe::Free(_) => None,
        }
    }

    #[inline]
    pub fn get(&self, name: &Name) -> Option<&V> {
        let i = self.find(&Key::of(name))?;
        self.vals[i].as_ref()
    }

    #[inline]
    pub fn get_mut(&mut self, name: &Name) -> Option<&mut V> {
        let i = self.find(&Key::of(name))?;
        self.vals[i].as_mut()
    }

    /// The value of `name`, inserted with `fresh()` if absent.
    pub fn get_or_insert_with(&mut self, name: Name, fresh: impl FnOnce() -> V) -> &mut V {
        let k = Key::of(&name);
        let mut at = match self.keys.is_empty() {
            true => None,
            false => match self.probe(&k) {
                Probe::Found(i) => {
                    return self.vals[i].as_mut().expect("a used slot holds a value");
                }
                Probe::Free(i) => Some(i),
            },
        };
        if 2 * (self.len + 1) > self.keys.len() {
            self.grow();
            at = None;
        }
        let i = match at {
            Some(i) => i,
            None => match self.probe(&k) {
                Probe::Free(i) => i,
                Probe::Found(_) => unreachable!("an absent key"),
            },
        };
        self.keys[i] = k;
        self.len += 1;
        self.vals[i].insert(fresh())
    }

    /// Doubles the slots (or makes the first ones) and places every entry again.
    fn grow(&mut self) {
        let slots = (2 * self.keys.len()).max(MIN_SLOTS);
        let keys = std::mem::replace(&mut self.keys, vec![Key::default(); slots]);
        let mut vals = std::mem::take(&mut self.vals);
        self.vals.resize_with(slots, || None);
        self.shift = 64 - slots.trailing_zeros();
        for (k, v) in keys.into_iter().zip(vals.iter_mut()) {
            if k.used() {
                let mut i = self.home(&k);
                while self.keys[i].used() {
                    i = (i + 1) & self.mask();
                }
                self.keys[i] = k;
                self.vals[i] = v.take();
            }
        }
    }

    pub fn remove(&mut self, name: &Name) -> Option<V> {
        let mut hole = self.find(&Key::of(name))?;
        let v = self.vals[hole].take();
        self.keys[hole] = Key::default();
        self.len -= 1;
        // backward shift: move up each later key of the run whose home is not between the hole
        // and its slot (cyclically), so that every key stays reachable from its home
        let mut j = hole;
        loop {
            j = (j + 1) & self.mask();
            if !self.keys[j].used() {
                break;
            }
            let home = self.home(&self.keys[j]);
            let stays = if hole <= j {
                hole < home && home <= j
            } else {
                hole < home || home <= j
            };
            if !stays {
                self.keys[hole] = std::mem::take(&mut self.keys[j]);
                self.vals[hole] = self.vals[j].take();
                hole = j;
            }
        }
        v
    }

    /// Prefetch hint ([`crate::prefetch`]): the key line and the value lines a lookup of `name`
    /// reads when the name sits in its home slot (or would be inserted there). Changes nothing.
    #[inline]
    pub fn prefetch(&self, name: &Name) {
        if self.keys.is_empty() {
            return;
        }
        let i = self.home(&Key::of(name));
        crate::prefetch::line(&self.keys[i]);
        crate::prefetch::span(&self.vals[i], std::mem::size_of::<Option<V>>());
    }

    /// Every name held, in no particular order (tests).
    #[cfg(test)]
    fn names(&self) -> Vec<Name> {
        self.keys
            .iter()
            .filter(|k| k.used())
            .map(Key::name)
            .collect()
    }
}

impl<V> Extend<(Name, V)> for NameMap<V> {
    fn extend<I: IntoIterator<Item = (Name, V)>>(&mut self, entries: I) {
        for (name, v) in entries {
            let mut v = Some(v);
            let slot = self.get_or_insert_with(name, || v.take().expect("called once"));
            if let Some(v) = v {
                *slot = v; // the name was there: replaced, as a map's insert does
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustc_hash::FxHashMap;

    /// Behaves as a hash map through a random mix of inserts and removals, many names sharing
    /// a home slot's neighbourhood (the same base, consecutive sequence numbers), the table
    /// growing, and names without a sequence, with sequence 0 and with the largest one.
    #[test]
    fn behaves_as_a_hash_map() {
        let mut m: NameMap<u64> = NameMap::default();
        let mut h: FxHashMap<Name, u64> = FxHashMap::default();
        let mut x = 3u64;
        for step in 0..20_000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let base = NameId((x >> 60) as u32 % 5);
            let seq = match (x >> 8) % 16 {
                0 => None,
                1 => Some(u64::MAX),
                2 => Some(0),
                r => Some(((x >> 33) % 300) + r),
            };
            let name = Name { base, seq };
            if (x >> 40) % 5 < 2 && step > 100 {
                assert_eq!(m.remove(&name), h.remove(&name), "step {step}");
            } else {
                let v = m.get_or_insert_with(name, || step);
                assert_eq!(*v, *h.entry(name).or_insert(step), "step {step}");
                *v += 1;
                *h.get_mut(&name).unwrap() += 1;
            }
            assert_eq!(m.len(), h.len());
            assert!(2 * m.len <= m.capacity().max(1), "load at most one half");
            if step % 97 == 0 {
                for (n, v) in &h {
                    assert_eq!(m.get(n), Some(v), "step {step}: {n:?}");
                }
                let mut names = m.names();
                names.sort();
                let mut want: Vec<Name> = h.keys().copied().collect();
                want.sort();
                assert_eq!(names, want);
            }
            let probe = Name::new(base, (x >> 20) % 400);
            assert_eq!(m.get(&probe), h.get(&probe));
            if let Some(v) = m.get_mut(&probe) {
                *v += 7;
                *h.get_mut(&probe).unwrap() += 7;
            }
        }
        assert!(m.capacity() >= 256, "grew: {}", m.capacity());
    }

    #[test]
    fn extend_moves_entries_in() {
        let mut m: NameMap<u32> = NameMap::default();
        m.extend((0..40).map(|s| (Name::new(NameId(2), s), s as u32)));
        assert_eq!(m.len(), 40);
        assert!((0..40).all(|s| m.get(&Name::new(NameId(2), s)) == Some(&(s as u32))));
        assert_eq!(m.get(&Name::prefix(NameId(2))), None);
        m.prefetch(&Name::new(NameId(2), 3)); // a hint: nothing to see
        assert_eq!(m.remove(&Name::new(NameId(2), 39)), Some(39));
        assert_eq!(m.remove(&Name::new(NameId(2), 39)), None);
    }
}
