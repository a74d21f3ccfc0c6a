//! The bytes the core model does not carry, kept beside it within bounds.
//!
//! The core forwarder moves packet *descriptions* (name, nonce, sizes, extension fields); a
//! real forwarder must send the very bytes it received (a Data's signature covers them). The
//! daemon keeps, keyed the way the core identifies packets:
//!
//! * Interests by (name, nonce), until their lifetime ends;
//! * Data by name, for `data_hold`;
//! * the PitToken a downstream face put on an Interest, by (name, face), until the Interest's
//!   lifetime ends (echoed on the Data or Nack sent back on that face, whatever its length).
//!
//! Each map holds at most `max` entries: the oldest goes first. A packet the core sends whose
//! bytes are gone is dropped and counted (`missing`).

use ndncc_core::face::FaceId;
use ndncc_core::name::Name;
use ndncc_core::time::Instant;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use std::hash::Hash;

/// A map whose entries expire, at most `max` of them (oldest evicted first).
#[derive(Debug)]
pub struct Expiring<K, V> {
    map: FxHashMap<K, (V, Instant, u64)>,
    order: VecDeque<(K, u64)>,
    max: usize,
    next: u64,
    /// Entries evicted before they expired (the bound was reached).
    pub evicted: u64,
}

impl<K: Hash + Eq + Copy, V> Expiring<K, V> {
    pub fn new(max: usize) -> Self {
        Expiring {
            map: FxHashMap::default(),
            order: VecDeque::new(),
            max: max.max(1),
            next: 0,
            evicted: 0,
        }
    }

    /// Inserts or replaces `k` until `expiry`.
    pub fn insert(&mut self, k: K, v: V, expiry: Instant) {
        let stamp = self.next;
        self.next += 1;
        self.map.insert(k, (v, expiry, stamp));
        self.order.push_back((k, stamp));
        while self.map.len() > self.max {
            self.pop_oldest();
        }
        // stale order records of replaced or removed keys: once the queue passes twice the
        // bound, drop every stale record (never a live entry); at most `max` records stay, so
        // the compaction costs O(1) per insert, amortised
        if self.order.len() > 2 * self.max {
            let map = &self.map;
            self.order
                .retain(|(k, stamp)| map.get(k).is_some_and(|e| e.2 == *stamp));
        }
    }

    /// Evicts the oldest live entry (counted); stale order records on the way are dropped.
    fn pop_oldest(&mut self) {
        while let Some((k, stamp)) = self.order.pop_front() {
            if self.map.get(&k).is_some_and(|e| e.2 == stamp) {
                self.map.remove(&k);
                self.evicted += 1;
                return;
            }
        }
    }

    pub fn get(&self, k: &K) -> Option<&V> {
        self.map.get(k).map(|e| &e.0)
    }

    pub fn remove(&mut self, k: &K) -> Option<V> {
        self.map.remove(k).map(|e| e.0)
    }

    /// Drops the entries expired at `now` (order records are trimmed as they surface).
    pub fn sweep(&mut self, now: Instant) {
        self.map.retain(|_, e| e.1 > now);
        while let Some((k, stamp)) = self.order.front() {
            if self.map.get(k).is_some_and(|e| e.2 == *stamp) {
                break;
            }
            self.order.pop_front();
        }
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Bytes of the values (their capacity).
    pub fn value_bytes(&self) -> usize
    where
        V: AsRef<[u8]>,
    {
        self.map.values().map(|e| e.0.as_ref().len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// The wire store of one daemon.
#[derive(Debug)]
pub struct WireStore {
    pub interests: Expiring<(Name, u32), Vec<u8>>,
    pub data: Expiring<Name, Vec<u8>>,
    pub tokens: Expiring<(Name, FaceId), Vec<u8>>,
    /// Packets the core sent whose bytes were no longer kept.
    pub missing: u64,
}

impl WireStore {
    pub fn new(max: usize) -> Self {
        WireStore {
            interests: Expiring::new(max),
            data: Expiring::new(max),
            tokens: Expiring::new(max),
            missing: 0,
        }
    }

    pub fn sweep(&mut self, now: Instant) {
        self.interests.sweep(now);
        self.data.sweep(now);
        self.tokens.sweep(now);
    }

    /// Bytes held (values only), for the memory figures.
    pub fn bytes(&self) -> usize {
        self.interests.value_bytes() + self.data.value_bytes() + self.tokens.value_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_oldest_first_and_expiring() {
        let mut m: Expiring<u32, u32> = Expiring::new(3);
        for k in 0..5 {
            m.insert(k, k * 10, Instant(100 + u64::from(k)));
        }
        assert_eq!(m.len(), 3);
        assert_eq!(m.evicted, 2);
        assert_eq!(m.get(&0), None);
        assert_eq!(m.get(&4), Some(&40));
        // a replaced key is not evicted by its stale order record
        m.insert(2, 21, Instant(200));
        m.insert(5, 50, Instant(200));
        assert_eq!(m.get(&2), Some(&21));
        assert_eq!(m.get(&3), None);
        m.sweep(Instant(150));
        assert_eq!(m.len(), 2);
        assert!(m.order.len() <= 6);
        for k in 0..1000 {
            m.insert(7, k, Instant(300));
        }
        assert!(
            m.order.len() <= 6,
            "replacing one key keeps the queue bounded"
        );
    }

    #[test]
    fn trimming_stale_records_never_drops_a_live_entry() {
        let mut m: Expiring<u32, u32> = Expiring::new(2);
        m.insert(1, 10, Instant(100));
        // replacing key 2 piles stale order records behind key 1's live one
        for v in 0..10 {
            m.insert(2, v, Instant(100));
        }
        assert_eq!(
            m.get(&1),
            Some(&10),
            "the oldest live entry survives the trim"
        );
        assert_eq!(m.get(&2), Some(&9));
        assert_eq!(m.evicted, 0);
        assert!(m.order.len() <= 4, "{}", m.order.len());
        // a removed key leaves a stale record too: it is trimmed, not mistaken for a live one
        m.remove(&1);
        for v in 0..10 {
            m.insert(3, v, Instant(100));
        }
        assert_eq!((m.len(), m.evicted), (2, 0));
        // past the bound, the oldest live entry goes, and is counted
        m.insert(4, 40, Instant(100));
        assert_eq!(m.get(&2), None);
        assert_eq!((m.len(), m.evicted), (2, 1));
    }
}
