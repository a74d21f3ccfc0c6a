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
/// many; beyond, in a hash table. Most nodes of a large network hold one route: its entry then
/// lives inside the node (no heap block, no control bytes and bucket to miss in cache; the
/// smallest hash table was a 276-byte block).
pub const FEW: usize = 4;

/// The FIB: the entries a node has, keyed by [`NameId`]. Sparse, so that its size is the node's
/// routes, not the scenario's names (a consumer's node in a 10 000-prefix scenario holds one).
/// Entries in `few` (at most [`FEW`], the first one inline) or in `many`, never both.
#[derive(Clone, Debug, Default)]
pub struct Fib {
    few: SmallVec<[FibEntry; 1]>,
    many: FxHashMap<NameId, FibEntry>,
}

impl Fib {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or updates the cost of) a next hop for `prefix`.
    pub fn add_nexthop(&mut self, prefix: NameId, face: FaceId, cost: u32) {
        let fresh = || FibEntry {
            prefix,
            nexthops: SmallVec::new(),
        };
        let e = if self.many.is_empty() {
            match self.few.iter().position(|e| e.prefix == prefix) {
                Some(i) => &mut self.few[i],
                None if self.few.len() < FEW => {
                    self.few.push(fresh());
                    self.few.last_mut().expect("just pushed")
                }
                None => {
                    // the list is full: every entry moves to the hash table
                    self.many.extend(self.few.drain(..).map(|e| (e.prefix, e)));
                    self.few = SmallVec::new();
                    self.many.entry(prefix).or_insert_with(fresh)
                }
            }
        } else {
            self.many.entry(prefix).or_insert_with(fresh)
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
            self.few.retain(|e| e.prefix != prefix);
            self.many.remove(&prefix);
        }
        removed
    }

    /// Removes every next hop on `face` (a face that closed); returns how many.
    pub fn remove_face(&mut self, face: FaceId) -> usize {
        let mut removed = 0;
        for e in self.few.iter_mut().chain(self.many.values_mut()) {
            let before = e.nexthops.len();
            e.nexthops.retain(|nh| nh.face != face);
            removed += before - e.nexthops.len();
        }
        self.few.retain(|e| !e.nexthops.is_empty());
        self.many.retain(|_, e| !e.nexthops.is_empty());
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
        if self.many.is_empty() {
            return self.few.iter().find(|e| e.prefix == prefix);
        }
        self.many.get(&prefix)
    }

    fn get_mut(&mut self, prefix: NameId) -> Option<&mut FibEntry> {
        if self.many.is_empty() {
            return self.few.iter_mut().find(|e| e.prefix == prefix);
        }
        self.many.get_mut(&prefix)
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

    /// Every entry, in prefix-id order.
    pub fn iter(&self) -> impl Iterator<Item = &FibEntry> {
        let mut entries: Vec<&FibEntry> = self.few.iter().chain(self.many.values()).collect();
        entries.sort_unstable_by_key(|e| e.prefix);
        entries.into_iter()
    }

    /// Number of entries (prefixes with next hops).
    pub fn len(&self) -> usize {
        self.few.len() + self.many.len()
    }

    pub fn is_empty(&self) -> bool {
        self.few.is_empty() && self.many.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
