//! Content Store: an LRU cache of Data packets with a capacity in packets (0 = off, the default
//! in every seed experiment).
//!
//! Recency is tracked with a stamp per entry and a queue of (name, stamp) pairs; stale queue
//! pairs are skipped at eviction and the queue is compacted when it grows past 4× capacity.

use crate::name::Name;
use crate::packet::Data;
use crate::time::Instant;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
struct CsEntry {
    data: Data,
    stale_at: Instant,
    stamp: u64,
}

#[derive(Clone, Debug, Default)]
pub struct ContentStore {
    capacity: usize,
    entries: FxHashMap<Name, CsEntry>,
    order: VecDeque<(Name, u64)>,
    clock: u64,
    pub hits: u64,
    pub misses: u64,
}

impl ContentStore {
    pub fn new(capacity: usize) -> Self {
        ContentStore {
            capacity,
            ..Default::default()
        }
    }

    pub fn enabled(&self) -> bool {
        self.capacity > 0
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Records a use of `name` and returns its new stamp. Compaction keeps the pair just
    /// pushed (its entry's stamp is updated by the caller afterwards) and every live pair.
    fn touch(&mut self, name: Name) -> u64 {
        self.clock += 1;
        let stamp = self.clock;
        self.order.push_back((name, stamp));
        if self.order.len() > 4 * self.capacity.max(1) {
            let entries = &self.entries;
            self.order
                .retain(|(n, s)| *s == stamp || entries.get(n).is_some_and(|e| e.stamp == *s));
        }
        stamp
    }

    /// Looks up an exact name; `must_be_fresh` rejects stale Data. Counts hits and misses.
    pub fn lookup(&mut self, name: Name, must_be_fresh: bool, now: Instant) -> Option<Data> {
        if !self.enabled() {
            return None;
        }
        let usable = match self.entries.get(&name) {
            Some(e) => !must_be_fresh || now < e.stale_at,
            None => false,
        };
        if !usable {
            self.misses += 1;
            return None;
        }
        self.hits += 1;
        let stamp = self.touch(name);
        let e = self.entries.get_mut(&name).expect("present");
        e.stamp = stamp;
        Some(e.data)
    }

    /// Stores a Data, evicting the least recently used entry when full.
    pub fn insert(&mut self, data: Data, now: Instant) {
        if !self.enabled() {
            return;
        }
        let stale_at = now + data.freshness;
        if self.entries.contains_key(&data.name) {
            let stamp = self.touch(data.name);
            self.entries.insert(
                data.name,
                CsEntry {
                    data,
                    stale_at,
                    stamp,
                },
            );
            return;
        }
        while self.entries.len() >= self.capacity {
            let Some((n, s)) = self.order.pop_front() else {
                break;
            };
            if self.entries.get(&n).is_some_and(|e| e.stamp == s) {
                self.entries.remove(&n);
            }
        }
        let stamp = self.touch(data.name);
        self.entries.insert(
            data.name,
            CsEntry {
                data,
                stale_at,
                stamp,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::name::NameId;
    use crate::packet::DataExt;
    use crate::time::Duration;

    fn data(seq: u64) -> Data {
        Data {
            name: Name::new(NameId(1), seq),
            payload: 100,
            size: 100,
            freshness: Duration::from_secs(1),
            created: Instant::ZERO,
            ext: DataExt::default(),
        }
    }

    #[test]
    fn lru_evicts_least_recently_used() {
        let mut cs = ContentStore::new(2);
        let t = Instant::ZERO;
        cs.insert(data(1), t);
        cs.insert(data(2), t);
        assert!(cs.lookup(data(1).name, false, t).is_some()); // 1 is now most recent
        cs.insert(data(3), t); // evicts 2
        assert!(cs.lookup(data(2).name, false, t).is_none());
        assert!(cs.lookup(data(1).name, false, t).is_some());
        assert!(cs.lookup(data(3).name, false, t).is_some());
        assert_eq!(cs.len(), 2);
        assert_eq!((cs.hits, cs.misses), (3, 1));
    }

    #[test]
    fn must_be_fresh_rejects_stale_and_off_store_is_inert() {
        let mut cs = ContentStore::new(4);
        cs.insert(data(1), Instant::ZERO);
        assert!(cs
            .lookup(data(1).name, true, Instant(2_000_000_000))
            .is_none());
        assert!(cs
            .lookup(data(1).name, false, Instant(2_000_000_000))
            .is_some());
        let mut off = ContentStore::new(0);
        off.insert(data(1), Instant::ZERO);
        assert!(off.lookup(data(1).name, false, Instant::ZERO).is_none());
        assert_eq!(off.misses, 0);
    }

    #[test]
    fn compaction_never_loses_an_entry_so_capacity_holds() {
        for lookups in 0..8 {
            let mut cs = ContentStore::new(1);
            cs.insert(data(0), Instant::ZERO);
            for _ in 0..lookups {
                cs.lookup(data(0).name, false, Instant::ZERO);
            }
            for i in 1..100 {
                cs.insert(data(i), Instant::ZERO);
                assert_eq!(cs.len(), 1, "{lookups} lookups, insert {i}");
            }
        }
    }

    #[test]
    fn many_touches_keep_queue_bounded() {
        let mut cs = ContentStore::new(3);
        for i in 0..3 {
            cs.insert(data(i), Instant::ZERO);
        }
        for _ in 0..1000 {
            cs.lookup(data(0).name, false, Instant::ZERO);
        }
        assert!(cs.order.len() <= 12);
        cs.insert(data(9), Instant::ZERO);
        assert!(cs.lookup(data(0).name, false, Instant::ZERO).is_some());
    }
}
