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

/// The FIB: the entries a node has, keyed by [`NameId`]. Sparse, so that its size is the node's
/// routes, not the scenario's names (a consumer's node in a 10 000-prefix scenario holds one).
#[derive(Clone, Debug, Default)]
pub struct Fib {
    entries: FxHashMap<NameId, FibEntry>,
}

impl Fib {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or updates the cost of) a next hop for `prefix`.
    pub fn add_nexthop(&mut self, prefix: NameId, face: FaceId, cost: u32) {
        let e = self.entries.entry(prefix).or_insert_with(|| FibEntry {
            prefix,
            nexthops: SmallVec::new(),
        });
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
        let Some(e) = self.entries.get_mut(&prefix) else {
            return false;
        };
        let before = e.nexthops.len();
        e.nexthops.retain(|nh| nh.face != face);
        let removed = e.nexthops.len() < before;
        if e.nexthops.is_empty() {
            self.entries.remove(&prefix);
        }
        removed
    }

    /// Removes every next hop on `face` (a face that closed); returns how many.
    pub fn remove_face(&mut self, face: FaceId) -> usize {
        let mut removed = 0;
        for e in self.entries.values_mut() {
            let before = e.nexthops.len();
            e.nexthops.retain(|nh| nh.face != face);
            removed += before - e.nexthops.len();
        }
        self.entries.retain(|_, e| !e.nexthops.is_empty());
        removed
    }

    /// Sets the weighted-multipath share of a next hop; false if there is no such next hop.
    pub fn set_weight(&mut self, prefix: NameId, face: FaceId, weight: f64) -> bool {
        let nh = self
            .entries
            .get_mut(&prefix)
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
    pub fn get(&self, prefix: NameId) -> Option<&FibEntry> {
        self.entries.get(&prefix)
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
        let mut entries: Vec<&FibEntry> = self.entries.values().collect();
        entries.sort_unstable_by_key(|e| e.prefix);
        entries.into_iter()
    }

    /// Number of entries (prefixes with next hops).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
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
}
