//! A hash map keyed by [`Name`], for the PIT of a router past its short list: small keys probed
//! in place, values that never move, and a lookup a driver can prefetch.
//!
//! Open addressing with linear probing over a key array (16 bytes a key, four to a cache line:
//! a router's keys stay in cache), each key naming its value's place in a slab. A freed place
//! is the next one filled (a LIFO free list), so a new entry is written into lines just used,
//! and values never move when keys do (growth, removal). A name's home key is a function of
//! the name and the capacity alone: a driver that knows which name the next packet carries
//! asks for the key line and, through it, the value's lines ([`NameMap::prefetch`]) before the
//! lookup — with thousands of flows the value is otherwise a cache miss. At most half the keys
//! are used, so a probe almost always ends at the home key or the next. The hash is fixed (no
//! random state); the map offers no iteration, so no output can depend on its order.

use crate::name::Name;
#[cfg(test)]
use crate::name::NameId;

/// The fewest keys a map has once it holds anything.
const MIN_SLOTS: usize = 16;

/// Bits of [`Key::id`] that hold the value's place in the slab (the name's bits are the rest).
const PLACE_BITS: u32 = 30;
const PLACE_MASK: u64 = ((1 << PLACE_BITS) - 1) << 2;

/// A name packed with its value's place (16 bytes): `id` holds the base in its high 32 bits,
/// the place in the slab in the next 30, and in the low 2 bits 0 for a free key, 1 for a bare
/// prefix, 2 for a name with sequence `seq`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Key {
    id: u64,
    seq: u64,
}

impl Key {
    /// The key of `name` (place 0).
    #[inline]
    fn of(name: &Name) -> Key {
        Key {
            id: (name.base.0 as u64) << 32 | (1 + name.seq.is_some() as u64),
            seq: name.seq.unwrap_or(0),
        }
    }

    #[inline]
    fn used(&self) -> bool {
        self.id != 0
    }

    /// Same name (places aside).
    #[inline]
    fn same(&self, k: &Key) -> bool {
        (self.id ^ k.id) & !PLACE_MASK == 0 && self.seq == k.seq
    }

    #[inline]
    fn place(&self) -> usize {
        ((self.id & PLACE_MASK) >> 2) as usize
    }

    #[inline]
    fn at(self, place: usize) -> Key {
        Key {
            id: self.id | (place as u64) << 2,
            seq: self.seq,
        }
    }

    #[cfg(test)]
    fn name(&self) -> Name {
        Name {
            base: NameId((self.id >> 32) as u32),
            seq: (self.id & 3 == 2).then_some(self.seq),
        }
    }

    /// A fixed multiplicative (Fibonacci) hash of the name; the home key is its top bits.
    #[inline]
    fn hash(&self) -> u64 {
        const PHI: u64 = 0x9E37_79B9_7F4A_7C15;
        ((self.id & !PLACE_MASK).wrapping_mul(PHI) ^ self.seq).wrapping_mul(PHI)
    }
}

/// Where a probe for a name ended.
enum Probe {
    /// At this key.
    Found(usize),
    /// At this free key (where the name would go).
    Free(usize),
}

/// See the module documentation.
#[derive(Clone, Debug)]
pub struct NameMap<V> {
    keys: Vec<Key>,
    /// The values, at the places their keys name; `None` at a free place.
    slab: Vec<Option<V>>,
    /// Free places of the slab, the last freed last (the entries held are the slab's places
    /// less these).
    free: Vec<u32>,
    /// 64 − log2(keys) (64 with none): a name's home key is its hash shifted right by this.
    shift: u32,
}

impl<V> Default for NameMap<V> {
    fn default() -> Self {
        NameMap {
            keys: Vec::new(),
            slab: Vec::new(),
            free: Vec::new(),
            shift: 64,
        }
    }
}

impl<V> NameMap<V> {
    pub fn len(&self) -> usize {
        self.slab.len() - self.free.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keys allocated (0 until the first insert; never shrinks).
    pub fn capacity(&self) -> usize {
        self.keys.len()
    }

    #[inline]
    fn mask(&self) -> usize {
        self.keys.len().wrapping_sub(1)
    }

    /// The home key of `k`'s name (the map has keys: callers check).
    #[inline]
    fn home(&self, k: &Key) -> usize {
        (k.hash() >> self.shift) as usize
    }

    /// Follows `k`'s path from its home key (the map has keys: callers check).
    #[inline]
    fn probe(&self, k: &Key) -> Probe {
        let mut i = self.home(k);
        loop {
            let q = &self.keys[i];
            if q.same(k) {
                return Probe::Found(i);
            }
            if !q.used() {
                return Probe::Free(i);
            }
            i = (i + 1) & self.mask();
        }
    }

    /// The key of `name`, if held.
    #[inline]
    fn find(&self, name: &Name) -> Option<usize> {
        if self.is_empty() {
            return None;
        }
        match self.probe(&Key::of(name)) {
            Probe::Found(i) => Some(i),
            Probe::Free(_) => None,
        }
    }

    #[inline]
    pub fn get(&self, name: &Name) -> Option<&V> {
        let i = self.find(name)?;
        self.slab[self.keys[i].place()].as_ref()
    }

    #[inline]
    pub fn get_mut(&mut self, name: &Name) -> Option<&mut V> {
        let i = self.find(name)?;
        let place = self.keys[i].place();
        self.slab[place].as_mut()
    }

    /// The value of `name`, inserted with `fresh()` if absent.
    pub fn get_or_insert_with(&mut self, name: Name, fresh: impl FnOnce() -> V) -> &mut V {
        let k = Key::of(&name);
        let mut at = None;
        if !self.keys.is_empty() {
            match self.probe(&k) {
                Probe::Found(i) => {
                    let place = self.keys[i].place();
                    return self.slab[place].as_mut().expect("a used key has a value");
                }
                Probe::Free(i) => at = Some(i),
            }
        }
        if 2 * (self.len() + 1) > self.keys.len() {
            self.grow();
            at = None;
        }
        let i = match at {
            Some(i) => i,
            None => match self.probe(&k) {
                Probe::Free(i) => i,
                Probe::Found(_) => unreachable!("an absent name"),
            },
        };
        let place = match self.free.pop() {
            Some(p) => p as usize,
            None => {
                assert!(
                    self.slab.len() < 1 << PLACE_BITS,
                    "NameMap: too many entries"
                );
                self.slab.push(None);
                self.slab.len() - 1
            }
        };
        // the value first: a panicking `fresh` then leaves no key without a value
        let value = fresh();
        self.keys[i] = k.at(place);
        self.slab[place].insert(value)
    }

    /// Doubles the keys (or makes the first ones) and places every key again (values stay).
    fn grow(&mut self) {
        let slots = (2 * self.keys.len()).max(MIN_SLOTS);
        let keys = std::mem::replace(&mut self.keys, vec![Key::default(); slots]);
        self.shift = 64 - slots.trailing_zeros();
        for k in keys.into_iter().filter(Key::used) {
            let mut i = self.home(&k);
            while self.keys[i].used() {
                i = (i + 1) & self.mask();
            }
            self.keys[i] = k;
        }
    }

    /// Takes the key of `name` out; its value's place (now free), if it was held.
    fn take(&mut self, name: &Name) -> Option<usize> {
        let mut hole = self.find(name)?;
        let place = self.keys[hole].place();
        self.keys[hole] = Key::default();
        self.free.push(place as u32);
        // backward shift: move up each later key of the run whose home is not between the hole
        // and its position (cyclically), so that every key stays reachable from its home
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
                hole = j;
            }
        }
        Some(place)
    }

    pub fn remove(&mut self, name: &Name) -> Option<V> {
        let place = self.take(name)?;
        self.slab[place].take()
    }

    /// Removes the entry of `name`, dropped in place (no copy out); false if there was none.
    pub fn discard(&mut self, name: &Name) -> bool {
        match self.take(name) {
            Some(place) => {
                self.slab[place] = None;
                true
            }
            None => false,
        }
    }

    /// Prefetch hint ([`crate::prefetch`]) well before a lookup of `name`: its home key's line
    /// alone (reads no key: the line may still be on its way). Changes nothing.
    #[inline]
    pub fn prefetch_key(&self, name: &Name) {
        if let Some(q) = self.home_key(&Key::of(name)) {
            crate::prefetch::line(q);
        }
    }

    /// The key a lookup of `k` reads first (None while the map has no keys): what the
    /// prefetch hints ask for.
    #[inline]
    fn home_key(&self, k: &Key) -> Option<&Key> {
        (!self.keys.is_empty()).then(|| &self.keys[self.home(k)])
    }

    /// Prefetch hint ([`crate::prefetch`]) before a lookup of `name`: its home key's line and,
    /// when that key holds the name (the common case), the value's lines; else the place a new
    /// value would take. Reads the home key (a small array, mostly in cache); changes nothing.
    #[inline]
    pub fn prefetch(&self, name: &Name) {
        let k = Key::of(name);
        let Some(q) = self.home_key(&k) else {
            return;
        };
        crate::prefetch::line(q);
        let place = match q.same(&k) {
            true => q.place(),
            false => match self.free.last() {
                Some(&p) => p as usize,
                None => return,
            },
        };
        if let Some(v) = self.slab.get(place) {
            crate::prefetch::span(v, std::mem::size_of::<Option<V>>());
        }
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
        let (mut x, mut peak) = (3u64, 0);
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
                let want = h.remove(&name);
                if x & 1 == 0 {
                    assert_eq!(m.remove(&name), want, "step {step}");
                } else {
                    assert_eq!(m.discard(&name), want.is_some(), "step {step}");
                }
            } else {
                let v = m.get_or_insert_with(name, || step);
                assert_eq!(*v, *h.entry(name).or_insert(step), "step {step}");
                *v += 1;
                *h.get_mut(&name).unwrap() += 1;
            }
            assert_eq!(m.len(), h.len());
            assert!(2 * m.len() <= m.capacity().max(1), "load at most one half");
            peak = peak.max(m.len());
            // freed places are filled first: the slab never outgrows the most ever held
            assert_eq!((m.slab.len(), m.slab.len() - m.free.len()), (peak, m.len()));
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

    /// Inserts `names` into a new map and asserts that at least 70 % of them sit at their home
    /// key (where the prefetch hints look).
    fn assert_most_sit_at_home(names: &[Name]) {
        let mut m: NameMap<u32> = NameMap::default();
        for (i, n) in names.iter().enumerate() {
            *m.get_or_insert_with(*n, || 0) = i as u32;
        }
        let at_home = names
            .iter()
            .filter(|n| m.home_key(&Key::of(n)).is_some_and(|q| q.same(&Key::of(n))))
            .count();
        assert!(
            at_home * 10 >= names.len() * 7,
            "{at_home} of {} at home",
            names.len()
        );
    }

    /// The prefetch hints ask for the key a lookup finds the name at: at a load of at most one
    /// half, most names sit at their home key (a wrong line would only cost misses: same
    /// results, lost speed — no output test could catch it).
    #[test]
    fn the_hinted_key_is_where_most_names_sit() {
        let names: Vec<Name> = (0..500).map(|s| Name::new(NameId(3), 7 * s)).collect();
        assert_most_sit_at_home(&names);
        assert!(NameMap::<u32>::default()
            .home_key(&Key::of(&names[0]))
            .is_none());
    }

    /// A hub's PIT holds the names of thousands of prefixes with a few sequence numbers each (at
    /// 10 000 pairs, /p1 … /p10000 with their next few Interests): the hash must spread the
    /// prefixes as well as the sequence numbers, or their keys pile up in long runs (same
    /// results, lost speed — no output test could catch it).
    #[test]
    fn names_of_many_prefixes_sit_mostly_at_home() {
        let names: Vec<Name> = (1..=3000u32)
            .flat_map(|p| (0..3).map(move |s| Name::new(NameId(p), s)))
            .collect();
        assert_most_sit_at_home(&names);
    }

    /// A run that wraps past the last key: removing its first key must leave a key sitting at
    /// its own home in the wrapped part where it is.
    #[test]
    fn removal_in_a_run_that_wraps_keeps_every_key_reachable() {
        let home = |n: &Name| (Key::of(n).hash() >> (64 - 4)) as usize; // 16 keys
        let find = |h: usize| {
            (0..10_000u64)
                .map(|s| Name::new(NameId(7), s))
                .find(|n| home(n) == h)
                .unwrap()
        };
        let (a, b, c) = (find(14), find(15), find(0));
        let mut m: NameMap<u32> = NameMap::default();
        for (i, n) in [a, b, c].into_iter().enumerate() {
            *m.get_or_insert_with(n, || 0) = i as u32;
        }
        assert_eq!(m.capacity(), 16);
        assert_eq!(m.remove(&a), Some(0));
        assert_eq!(m.get(&b), Some(&1));
        assert_eq!(m.get(&c), Some(&2));
    }
}
