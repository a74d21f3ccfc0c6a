//! Forwarding Information Base: name prefix → next hops with costs, longest-prefix match.

use crate::face::FaceId;
use crate::name::{Name, NameId, NameTable};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// One next hop of a FIB entry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NextHop {
    pub face: FaceId,
    /// Routing cost; lower is preferred.
    pub cost: u32,
    /// Share of traffic for the weighted-multipath strategy (default 1; set by schemes such as
    /// PCON or the ndnSieve controller).
    pub weight: f64,
}

/// The next hops of one prefix, kept sorted by (cost, face).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FibEntry {
    pub prefix: NameId,
    pub nexthops: SmallVec<[NextHop; 2]>,
}

/// A FIB keeps its entries in a short list, searched in place, while they are at most this
/// many; beyond, in a table of its own ([`Many`]). Most nodes of a large network hold one route:
/// its entry then lives inside the node (no heap block, no control bytes and bucket to miss in
/// cache; the smallest hash table was a 276-byte block).
pub const FEW: usize = 4;

/// A FIB past [`FEW`] entries indexes them directly by prefix id while the ids are dense enough:
/// at most this many slots per entry (plus [`DENSE_SLACK`]). A router of a simulated network
/// holds a route to (nearly) every prefix the scenario names, so its ids are dense.
pub const DENSE_SLOTS_PER_ENTRY: usize = 4;

/// Slots a direct-indexed FIB may hold beyond [`DENSE_SLOTS_PER_ENTRY`] per entry (the ids of a
/// scenario's ancestors, e.g. `/` and `/prefix`, come before its prefixes).
pub const DENSE_SLACK: usize = 64;

/// One slot of a direct-indexed FIB: the entry of the prefix whose id is the slot's index, or
/// none (no next hops). A cache line each, so a lookup reads one line.
#[derive(Clone, Debug, Default)]
#[repr(align(64))]
struct Slot(FibEntry);

/// The entries of a FIB past [`FEW`] of them (out of line: most nodes never have it).
#[derive(Clone, Debug)]
enum Many {
    /// By prefix id: `slots[id]` holds the entry of `id` (an empty next-hop list for none);
    /// `len` entries in all.
    Dense { slots: Vec<Slot>, len: usize },
    /// Ids too sparse for a direct index (a real-time node's names grow without bound).
    Hash(FxHashMap<NameId, FibEntry>),
}

/// Drops the next hops of `e` that `keep` rejects; returns how many.
fn drop_nexthops(e: &mut FibEntry, keep: &mut impl FnMut(&NextHop) -> bool) -> usize {
    let before = e.nexthops.len();
    e.nexthops.retain(|nh| keep(nh));
    before - e.nexthops.len()
}

/// Slots a direct index of `prefixes` needs (the largest id plus one).
fn span<'a>(prefixes: impl Iterator<Item = &'a NameId>) -> usize {
    prefixes.map(|p| p.0 as usize + 1).max().unwrap_or(0)
}

/// True if `slots` slots for `entries` entries stay within the direct index's density.
fn dense_enough(slots: usize, entries: usize) -> bool {
    slots <= DENSE_SLOTS_PER_ENTRY * entries + DENSE_SLACK
}

impl Many {
    #[inline]
    fn get(&self, prefix: NameId) -> Option<&FibEntry> {
        match self {
            Many::Dense { slots, .. } => slots
                .get(prefix.0 as usize)
                .map(|s| &s.0)
                .filter(|e| !e.nexthops.is_empty()),
            Many::Hash(m) => m.get(&prefix),
        }
    }

    fn get_mut(&mut self, prefix: NameId) -> Option<&mut FibEntry> {
        match self {
            Many::Dense { slots, .. } => slots
                .get_mut(prefix.0 as usize)
                .map(|s| &mut s.0)
                .filter(|e| !e.nexthops.is_empty()),
            Many::Hash(m) => m.get_mut(&prefix),
        }
    }

    fn len(&self) -> usize {
        match self {
            Many::Dense { len, .. } => *len,
            Many::Hash(m) => m.len(),
        }
    }

    /// Every entry, in no particular order.
    fn entries(self) -> Vec<FibEntry> {
        match self {
            Many::Dense { slots, .. } => slots
                .into_iter()
                .map(|s| s.0)
                .filter(|e| !e.nexthops.is_empty())
                .collect(),
            Many::Hash(m) => m.into_values().collect(),
        }
    }

    /// The table for `entries` (prefixes distinct, next-hop lists non-empty) and `with`, a
    /// prefix about to be added: direct-indexed if dense enough, else hashed.
    fn build(entries: Vec<FibEntry>, with: NameId) -> Many {
        let span = span(entries.iter().map(|e| &e.prefix)).max(with.0 as usize + 1);
        if dense_enough(span, entries.len() + 1) {
            let len = entries.len();
            let mut slots = Vec::new();
            slots.resize_with(span, Slot::default);
            for e in entries {
                let i = e.prefix.0 as usize;
                slots[i] = Slot(e);
            }
            Many::Dense { slots, len }
        } else {
            Many::Hash(entries.into_iter().map(|e| (e.prefix, e)).collect())
        }
    }

    /// The entry of `prefix`, created with no next hops (the caller adds one) if absent. The
    /// table may change kind: to a hash when `prefix` lies beyond the direct index's density,
    /// to a direct index when a hashed table reaching a power-of-two count has grown dense
    /// enough (so a table changes kind O(log n) times at most).
    fn entry(&mut self, prefix: NameId) -> &mut FibEntry {
        let i = prefix.0 as usize;
        let rebuild = match self {
            Many::Dense { slots, len } => i >= slots.len() && !dense_enough(i + 1, *len + 1),
            Many::Hash(m) => {
                !m.contains_key(&prefix)
                    && m.len().is_power_of_two()
                    && dense_enough(span(m.keys()).max(i + 1), m.len() + 1)
            }
        };
        if rebuild {
            let entries = std::mem::replace(self, Many::Hash(FxHashMap::default())).entries();
            *self = Many::build(entries, prefix);
        }
        match self {
            Many::Dense { slots, len } => {
                if i >= slots.len() {
                    slots.resize_with(i + 1, Slot::default);
                }
                let e = &mut slots[i].0;
                if e.nexthops.is_empty() {
                    e.prefix = prefix;
                    *len += 1;
                }
                e
            }
            Many::Hash(m) => m.entry(prefix).or_insert_with(|| FibEntry {
                prefix,
                nexthops: SmallVec::new(),
            }),
        }
    }

    /// Removes the entry of `prefix` (its next-hop list just emptied).
    fn remove(&mut self, prefix: NameId) {
        match self {
            Many::Dense { slots, len } => {
                if let Some(s) = slots.get_mut(prefix.0 as usize) {
                    if s.0.nexthops.is_empty() && s.0.prefix == prefix {
                        s.0 = FibEntry::default();
                        *len -= 1;
                    }
                }
            }
            Many::Hash(m) => {
                m.remove(&prefix);
            }
        }
    }

    /// Keeps the next hops `keep` accepts; returns how many were removed.
    fn retain_nexthops(&mut self, mut keep: impl FnMut(&NextHop) -> bool) -> usize {
        let mut removed = 0;
        let mut retain = |e: &mut FibEntry| {
            removed += drop_nexthops(e, &mut keep);
            !e.nexthops.is_empty()
        };
        match self {
            Many::Dense { slots, len } => {
                for s in slots.iter_mut().filter(|s| !s.0.nexthops.is_empty()) {
                    if !retain(&mut s.0) {
                        s.0 = FibEntry::default();
                        *len -= 1;
                    }
                }
            }
            Many::Hash(m) => m.retain(|_, e| retain(e)),
        }
        removed
    }

    fn iter(&self) -> Box<dyn Iterator<Item = &FibEntry> + '_> {
        match self {
            Many::Dense { slots, .. } => Box::new(
                slots
                    .iter()
                    .map(|s| &s.0)
                    .filter(|e| !e.nexthops.is_empty()),
            ),
            Many::Hash(m) => Box::new(m.values()),
        }
    }
}
/// The FIB: the entries a node has, keyed by [`NameId`]. Sparse for a node with few routes, so
/// that its size is the node's routes, not the scenario's names (a consumer's node in a
/// 10 000-prefix scenario holds one). Entries in `few` (at most [`FEW`], the first one inline)
/// until it outgrows them, then in `many` for good.
#[derive(Clone, Debug, Default)]
pub struct Fib {
    few: SmallVec<[FibEntry; 1]>,
    many: Option<Box<Many>>,
}

impl Fib {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or updates the cost of) a next hop for `prefix`.
    pub fn add_nexthop(&mut self, prefix: NameId, face: FaceId, cost: u32) {
        let e = match &mut self.many {
            Some(m) => m.entry(prefix),
            None => match self.few.iter().position(|e| e.prefix == prefix) {
                Some(i) => &mut self.few[i],
                None if self.few.len() < FEW => {
                    self.few.push(FibEntry {
                        prefix,
                        nexthops: SmallVec::new(),
                    });
                    self.few.last_mut().expect("just pushed")
                }
                None => {
                    // the list is full: every entry moves to a table of its own, for good
                    let entries = std::mem::take(&mut self.few).into_vec();
                    self.many
                        .insert(Box::new(Many::build(entries, prefix)))
                        .entry(prefix)
                }
            },
        };
        match e.nexthops.iter_mut().find(|nh| nh.face == face) {
            Some(nh) => nh.cost = cost,
            None => e.nexthops.push(NextHop {
                face,
                cost,
                weight: 1.0,
            }),
        }
        e.nexthops.sort_by_key(|nh| (nh.cost, nh.face));
    }

    /// Removes the next hop `face` of `prefix` (and the entry when it was the last); false if
    /// there was no such next hop.
    pub fn remove_nexthop(&mut self, prefix: NameId, face: FaceId) -> bool {
        let Some(e) = self.get_mut(prefix) else {
            return false;
        };
        let before = e.nexthops.len();
        e.nexthops.retain(|nh| nh.face != face);
        let removed = e.nexthops.len() < before;
        if e.nexthops.is_empty() {
            match &mut self.many {
                Some(m) => m.remove(prefix),
                None => self.few.retain(|e| e.prefix != prefix),
            }
        }
        removed
    }

    /// Removes every next hop on `face` (a face that closed); returns how many.
    pub fn remove_face(&mut self, face: FaceId) -> usize {
        if let Some(m) = &mut self.many {
            return m.retain_nexthops(|nh| nh.face != face);
        }
        let mut keep = |nh: &NextHop| nh.face != face;
        let removed = self
            .few
            .iter_mut()
            .map(|e| drop_nexthops(e, &mut keep))
            .sum();
        self.few.retain(|e| !e.nexthops.is_empty());
        removed
    }

    /// Sets the weighted-multipath share of a next hop; false if there is no such next hop.
    pub fn set_weight(&mut self, prefix: NameId, face: FaceId, weight: f64) -> bool {
        let nh = self
            .get_mut(prefix)
            .and_then(|e| e.nexthops.iter_mut().find(|nh| nh.face == face));
        match nh {
            Some(nh) => {
                nh.weight = weight.max(0.0);
                true
            }
            None => false,
        }
    }

    /// The entry of exactly `prefix`.
    #[inline]
    pub fn get(&self, prefix: NameId) -> Option<&FibEntry> {
        match &self.many {
            Some(m) => m.get(prefix),
            None => self.few.iter().find(|e| e.prefix == prefix),
        }
    }

    fn get_mut(&mut self, prefix: NameId) -> Option<&mut FibEntry> {
        match &mut self.many {
            Some(m) => m.get_mut(prefix),
            None => self.few.iter_mut().find(|e| e.prefix == prefix),
        }
    }

    /// Longest-prefix match of a full name (the sequence component never matches an entry).
    pub fn lpm(&self, names: &NameTable, name: Name) -> Option<&FibEntry> {
        let mut cur = Some(name.base);
        while let Some(id) = cur {
            if let Some(e) = self.get(id) {
                return Some(e);
            }
            cur = names.parent(id);
        }
        None
    }

    /// Prefetch hint ([`crate::prefetch`]): the line a lookup of exactly `prefix` reads first in
    /// a direct-indexed FIB (none otherwise). Changes nothing.
    #[inline]
    pub fn prefetch(&self, prefix: NameId) {
        if let Some(Many::Dense { slots, .. }) = self.many.as_deref() {
            if let Some(s) = slots.get(prefix.0 as usize) {
                crate::prefetch::line(s);
            }
        }
    }

    /// Prefetch hint: the first next hop of exactly `prefix` in a direct-indexed FIB (None
    /// otherwise, or without one) — the face an Interest under it most likely leaves by.
    /// Reads the slot [`Fib::prefetch`] asked for. Changes nothing.
    #[inline]
    pub fn first_hop_hint(&self, prefix: NameId) -> Option<FaceId> {
        match self.many.as_deref() {
            Some(m @ Many::Dense { .. }) => m.get(prefix)?.nexthops.first().map(|h| h.face),
            _ => None,
        }
    }

    /// Every entry, in prefix-id order.
    pub fn iter(&self) -> impl Iterator<Item = &FibEntry> {
        let mut entries: Vec<&FibEntry> = match &self.many {
            Some(m) => m.iter().collect(),
            None => self.few.iter().collect(),
        };
        entries.sort_unstable_by_key(|e| e.prefix);
        entries.into_iter()
    }

    /// Number of entries (prefixes with next hops).
    pub fn len(&self) -> usize {
        self.few.len() + self.many.as_ref().map_or(0, |m| m.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A direct-indexed slot is one cache line (the point of the direct index: one line read
    /// per probe); an entry outgrowing it would double the lines.
    #[test]
    fn a_slot_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<Slot>(), crate::prefetch::LINE);
        assert_eq!(std::mem::align_of::<Slot>(), crate::prefetch::LINE);
    }

    #[test]
    fn longest_prefix_match_and_cost_order() {
        let mut names = NameTable::new();
        let p = names.intern("/p");
        let pa = names.intern("/p/a");
        let q = names.intern("/q");
        let mut fib = Fib::new();
        fib.add_nexthop(NameId::ROOT, FaceId(9), 1);
        fib.add_nexthop(p, FaceId(2), 10);
        fib.add_nexthop(p, FaceId(1), 5);
        let e = fib.lpm(&names, Name::new(pa, 4)).unwrap();
        assert_eq!(e.prefix, p);
        assert_eq!(e.nexthops[0].face, FaceId(1));
        assert_eq!(e.nexthops[1].face, FaceId(2));
        assert_eq!(
            fib.lpm(&names, Name::new(q, 0)).unwrap().prefix,
            NameId::ROOT
        );
        fib.add_nexthop(p, FaceId(2), 1);
        assert_eq!(fib.get(p).unwrap().nexthops[0].face, FaceId(2));
        assert_eq!(fib.get(p).unwrap().nexthops.len(), 2);
    }

    #[test]
    fn next_hops_are_removed_by_prefix_and_by_face() {
        let mut names = NameTable::new();
        let p = names.intern("/p");
        let q = names.intern("/q");
        let mut fib = Fib::new();
        fib.add_nexthop(p, FaceId(1), 0);
        fib.add_nexthop(p, FaceId(2), 0);
        fib.add_nexthop(q, FaceId(2), 0);
        assert!(!fib.remove_nexthop(p, FaceId(7)));
        assert!(fib.remove_nexthop(p, FaceId(1)));
        assert_eq!(fib.get(p).unwrap().nexthops.len(), 1);
        assert_eq!(fib.remove_face(FaceId(2)), 2);
        assert!(fib.is_empty());
        assert!(fib.lpm(&names, Name::new(q, 1)).is_none());
    }

    #[test]
    fn a_fib_outgrowing_its_short_list_keeps_every_entry() {
        let mut names = NameTable::new();
        let ids: Vec<NameId> = (0..2 * FEW)
            .map(|i| names.intern(&format!("/p{i}")))
            .collect();
        let mut fib = Fib::new();
        for (i, &p) in ids.iter().enumerate() {
            fib.add_nexthop(p, FaceId(i as u32), 1);
            fib.add_nexthop(p, FaceId(100), 2);
            assert_eq!(fib.len(), i + 1);
            for (j, &q) in ids[..=i].iter().enumerate() {
                let e = fib.lpm(&names, Name::new(q, 3)).unwrap();
                assert_eq!((e.prefix, e.nexthops[0].face), (q, FaceId(j as u32)));
            }
        }
        assert!(fib.iter().map(|e| e.prefix).eq(ids.iter().copied()));
        assert!(fib.set_weight(ids[FEW], FaceId(100), 0.5));
        assert_eq!(fib.get(ids[FEW]).unwrap().nexthops[1].weight, 0.5);
        assert!(fib.remove_nexthop(ids[0], FaceId(0)));
        assert_eq!(fib.remove_face(FaceId(100)), 2 * FEW);
        assert_eq!(fib.len(), 2 * FEW - 1);
        assert!(fib.get(ids[0]).is_none());
    }
    /// The table's kind (direct index or hash) never shows: a random mix of adds and removes
    /// over ids dense enough for a direct index, then sparse ones, answers every lookup as a
    /// plain map of prefix → next hops does, and the table did take both kinds on the way.
    #[test]
    fn direct_index_and_hash_answer_alike() {
        use std::collections::BTreeMap;
        let mut fib = Fib::new();
        let mut model: BTreeMap<u32, Vec<(u32, u32)>> = BTreeMap::new(); // prefix → (cost, face)
        let (mut x, mut kinds) = (11u64, (false, false));
        for step in 0..6000u32 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // ids below 600, then up to 40 000 (too sparse for 4 slots an entry), then below 600
            let range = if (2000..4000).contains(&step) {
                40_000
            } else {
                600
            };
            let p = (x >> 33) as u32 % range;
            let face = (x >> 20) as u32 % 3;
            if (x >> 10) % 4 == 0 {
                let had = model
                    .get(&p)
                    .is_some_and(|h| h.iter().any(|&(_, f)| f == face));
                assert_eq!(fib.remove_nexthop(NameId(p), FaceId(face)), had);
                if let Some(h) = model.get_mut(&p) {
                    h.retain(|&(_, f)| f != face);
                    if h.is_empty() {
                        model.remove(&p);
                    }
                }
            } else {
                let cost = (x >> 40) as u32 % 5;
                fib.add_nexthop(NameId(p), FaceId(face), cost);
                let h = model.entry(p).or_default();
                h.retain(|&(_, f)| f != face);
                h.push((cost, face));
                h.sort();
            }
            let dense = matches!(fib.many.as_deref(), Some(Many::Dense { .. }));
            kinds.0 |= dense;
            kinds.1 |= matches!(fib.many.as_deref(), Some(Many::Hash(_)));
            assert_eq!(fib.len(), model.len(), "step {step}");
            // the prefetch hint names the face the lookup answers first (direct index only)
            let first = fib.get(NameId(p)).map(|e| e.nexthops[0].face);
            assert_eq!(
                fib.first_hop_hint(NameId(p)),
                first.filter(|_| dense),
                "step {step}"
            );
            for q in [p, p + 1, p.saturating_sub(1), 0, 599, 39_999] {
                let got = fib.get(NameId(q)).map(|e| {
                    assert_eq!(e.prefix, NameId(q));
                    e.nexthops.iter().map(|nh| (nh.cost, nh.face.0)).collect()
                });
                assert_eq!(got, model.get(&q).cloned(), "step {step}, prefix {q}");
            }
        }
        assert_eq!(kinds, (true, true), "both kinds of table were used");
        assert!(fib.iter().map(|e| e.prefix.0).eq(model.keys().copied()));
        let on_face_1 = model.values().flatten().filter(|&&(_, f)| f == 1).count();
        assert_eq!(fib.remove_face(FaceId(1)), on_face_1);
        model.retain(|_, h| h.iter().any(|&(_, f)| f != 1));
        assert_eq!(fib.len(), model.len());
    }
}
