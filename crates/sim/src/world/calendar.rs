//! The large networks' event queue: a calendar of time slots in front of a small heap.
//!
//! With a timer per node, a large network keeps tens of thousands of events pending, most of
//! them far ahead (an edge node's next Interest, a second away). A single heap walks all its
//! levels per pop, the lower ones out of cache. Here only the events of the current time slot
//! sit in a heap (`near`: a few hundred at most, in cache); later ones wait unsorted in the bucket of
//! their slot, and a bucket is poured into the heap when the clock reaches its slot. Pushing is
//! an append; popping touches the small heap; a bucket is read once, front to back.
//!
//! Slots are [`SLOT_NS`] long; the ring holds [`SLOTS`] of them ahead of the current one, and
//! events further ahead wait in `overflow` until the ring comes round to them. Every event in
//! `near` is in the current slot or an earlier one and every other event in a later one, so the
//! heap's greatest (the earliest event) is the queue's: the pops come in exactly the order of a
//! single heap over all items (the items are unique), and the choice changes speed, never
//! results.

use std::collections::BinaryHeap;

/// An item that knows its time (ns), the calendar's slot key. Items order so that the greatest
/// pops first (the loop's events order in reverse: the greatest is the earliest), and an item
/// of an earlier time is always greater than one of a later time.
pub(super) trait Timed: Copy + Ord {
    fn time_ns(&self) -> u64;
}

/// log2 of a slot's length in ns (2^22 ns ≈ 4.2 ms). Longer slots mean fewer buckets (their
/// 24-byte heads stay in cache: 1 024 of them are 24 KiB) but a larger heap of the current
/// slot; at 10 000 pairs (≈ 80 events per ms) 1, 2, 4, 8 and 16 ms slots ran within a few per
/// cent of each other, 4 ms among the fastest (`benches/README.md`, ninth sitting).
const SLOT_SHIFT: u32 = 22;
/// A slot's length in ns.
#[cfg(test)]
const SLOT_NS: u64 = 1 << SLOT_SHIFT;
/// Slots in the ring (≈ 4.3 s ahead of the current one with 4.2 ms slots).
const SLOTS: u64 = 1024;
const WORDS: usize = (SLOTS / 64) as usize;

/// The item a binary heap pops after its greatest: the greater of the root's two children.
pub(super) fn second_of<T: Ord + Copy>(heap: &BinaryHeap<T>) -> Option<T> {
    heap.as_slice().iter().skip(1).take(2).max().copied()
}

/// The slot of time `t` (ns).
fn slot_of(t: u64) -> u64 {
    t >> SLOT_SHIFT
}

/// The event queue of large networks (see the module's documentation).
pub(super) struct Calendar<T: Timed> {
    /// The items of slot `cur` and earlier.
    near: BinaryHeap<T>,
    /// The items of slots `cur + 1 .. cur + SLOTS`, bucket `slot % SLOTS`.
    ring: Vec<Vec<T>>,
    /// One bit per ring bucket: set if it holds items.
    full: [u64; WORDS],
    /// Items of slot `rescan_at` or later (never earlier), waiting for the ring to reach them.
    overflow: Vec<T>,
    /// The current slot.
    cur: u64,
    /// When `cur` reaches this slot, `overflow` is sorted into the ring again.
    rescan_at: u64,
    /// Emptied buckets' buffers, the latest poured last: a bucket that fills again takes one
    /// (in cache, and grown already) instead of growing its own from nothing.
    spare: Vec<Vec<T>>,
}

impl<T: Timed> Calendar<T> {
    pub(super) fn new() -> Self {
        Calendar {
            near: BinaryHeap::new(),
            ring: (0..SLOTS).map(|_| Vec::new()).collect(),
            full: [0; WORDS],
            overflow: Vec::new(),
            cur: 0,
            rescan_at: SLOTS,
            spare: Vec::new(),
        }
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.near.len() + self.ring.iter().map(Vec::len).sum::<usize>() + self.overflow.len()
    }

    /// Files `x` by its slot: the heap, the ring or the overflow.
    #[inline]
    pub(super) fn push(&mut self, x: T) {
        let s = slot_of(x.time_ns());
        if s <= self.cur {
            self.near.push(x);
        } else if s < self.cur + SLOTS {
            let b = (s % SLOTS) as usize;
            let bucket = &mut self.ring[b];
            if bucket.capacity() == 0 {
                if let Some(buf) = self.spare.pop() {
                    *bucket = buf;
                }
            }
            bucket.push(x);
            self.full[b / 64] |= 1 << (b % 64);
        } else {
            self.overflow.push(x);
        }
    }

    /// The greatest item (the earliest event), after moving the clock to the next slot that
    /// holds one if the current slot is used up.
    #[inline]
    pub(super) fn peek(&mut self) -> Option<T> {
        if self.near.is_empty() && !self.refill() {
            return None;
        }
        self.near.peek().copied()
    }

    /// Takes the greatest item.
    #[inline]
    pub(super) fn pop(&mut self) -> Option<T> {
        if self.near.is_empty() && !self.refill() {
            return None;
        }
        self.near.pop()
    }

    /// The greatest item if it is already in the heap (a hint: None when the slot is used up).
    #[inline]
    pub(super) fn peek_hint(&self) -> Option<T> {
        self.near.peek().copied()
    }

    /// The item popped after the next one, if both are in the heap (a hint, as above).
    #[inline]
    pub(super) fn peek_second_hint(&self) -> Option<T> {
        second_of(&self.near)
    }

    /// Moves the clock to the next slot with items and pours them into the (empty) heap; false
    /// if the queue is empty.
    #[cold]
    fn refill(&mut self) -> bool {
        while self.near.is_empty() {
            if self.full.iter().any(|&w| w != 0) {
                let next = self.next_full_slot();
                if next < self.rescan_at {
                    self.cur = next;
                    self.pour(next);
                    continue;
                }
                // the overflow's turn comes first (its items are of slot `rescan_at` or later)
                self.cur = self.rescan_at;
            } else if self.overflow.is_empty() {
                return false;
            } else {
                // nothing in the ring: jump to the overflow's earliest slot
                let first = self.overflow.iter().map(|x| slot_of(x.time_ns())).min();
                self.cur = first.map_or(self.rescan_at, |f| f.max(self.rescan_at));
            }
            self.rescan();
            self.pour(self.cur);
        }
        true
    }

    /// Sorts the overflow's items of the ring's new span (slots up to `cur + SLOTS - 1`) into
    /// the heap and the ring.
    fn rescan(&mut self) {
        self.rescan_at = self.cur + SLOTS;
        let waiting = std::mem::take(&mut self.overflow);
        for x in waiting {
            self.push(x);
        }
    }

    /// Pours bucket `slot` (the current slot) into the heap.
    fn pour(&mut self, slot: u64) {
        let b = (slot % SLOTS) as usize;
        if self.full[b / 64] & (1 << (b % 64)) == 0 {
            return;
        }
        self.full[b / 64] &= !(1 << (b % 64));
        let mut bucket = std::mem::take(&mut self.ring[b]);
        self.near.extend(bucket.drain(..));
        self.spare.push(bucket);
    }

    /// The first slot after `cur` whose bucket holds items (the ring must hold some).
    fn next_full_slot(&self) -> u64 {
        let start = ((self.cur + 1) % SLOTS) as usize;
        // the words from the start's, round the ring and back to it (its low bits last)
        for k in 0..=WORDS {
            let w = (start / 64 + k) % WORDS;
            let mut bits = self.full[w];
            if k == 0 {
                bits &= !0u64 << (start % 64);
            } else if k == WORDS {
                bits &= !(!0u64 << (start % 64));
            }
            if bits != 0 {
                let b = (w * 64 + bits.trailing_zeros() as usize) as u64;
                let ahead = (b + SLOTS - start as u64) % SLOTS;
                return self.cur + 1 + ahead;
            }
        }
        unreachable!("the ring holds items but no bucket is marked")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Test items: the time is the high half, reversed (as the loop's keys are).
    impl Timed for u128 {
        fn time_ns(&self) -> u64 {
            u64::MAX - (*self >> 64) as u64
        }
    }

    /// An item of time `t` with sequence number `seq`, ordered as the loop's events: earlier
    /// first, then lower `seq` first (the key is reversed so that the greatest pops first).
    fn item(t: u64, seq: u64) -> u128 {
        (u128::from(u64::MAX - t) << 64) | u128::from(u64::MAX - seq)
    }

    /// Random pushes (never earlier than the last pop, as in the loop) and pops come out in a
    /// single heap's order, with times spread from the current slot to far past the ring's span
    /// and gaps that empty the ring.
    #[test]
    fn pops_in_a_single_heaps_order() {
        let mut cal = Calendar::<u128>::new();
        let mut heap = BinaryHeap::new();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut now = 0u64;
        let mut seq = 0;
        let span = SLOT_NS * SLOTS;
        let mut checked = 0;
        for round in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let push = if (round / 5_000) % 2 == 0 {
                x % 3 != 0
            } else {
                x % 4 == 0
            };
            if push {
                seq += 1;
                let ahead = match x % 10 {
                    0 => 0,
                    1..=5 => (x >> 8) % (SLOT_NS * 3),
                    6..=8 => (x >> 8) % span,
                    _ => (x >> 8) % (span * 5),
                };
                let it = item(now + ahead, seq);
                cal.push(it);
                heap.push(it);
            } else {
                let (a, b) = (cal.pop(), heap.pop());
                assert_eq!(a, b, "round {round}");
                if let Some(v) = a {
                    now = v.time_ns();
                    checked += 1;
                }
            }
            assert_eq!(cal.len(), heap.len());
            if round % 89 == 0 {
                assert_eq!(cal.peek(), heap.peek().copied(), "round {round}");
            }
        }
        while let Some(v) = heap.pop() {
            assert_eq!(cal.pop(), Some(v));
        }
        assert_eq!(cal.pop(), None);
        assert!(checked > 50_000);
    }

    /// The hints are the heap's: the next item, and the one after it while both are in the
    /// current slot.
    #[test]
    fn hints_foresee_the_next_pops() {
        let mut cal = Calendar::<u128>::new();
        for (t, seq) in [(5, 1), (3, 2), (SLOT_NS * 7, 3), (4, 4)] {
            cal.push(item(t, seq));
        }
        assert_eq!(cal.peek_hint(), Some(item(3, 2)));
        assert_eq!(cal.peek_second_hint(), Some(item(4, 4)));
        assert_eq!(cal.pop(), Some(item(3, 2)));
        assert_eq!(cal.pop(), Some(item(4, 4)));
        assert_eq!(
            cal.peek_second_hint(),
            None,
            "the next-but-one is in a later slot"
        );
        assert_eq!(cal.pop(), Some(item(5, 1)));
        assert_eq!(
            cal.peek_hint(),
            None,
            "slot 7 is not poured before it is asked for"
        );
        assert_eq!(cal.peek(), Some(item(SLOT_NS * 7, 3)));
        assert_eq!(cal.pop(), Some(item(SLOT_NS * 7, 3)));
        assert_eq!(cal.pop(), None);
    }

    /// An item that waited in the overflow comes out before a later item of the same slot
    /// that went to the ring (the overflow is sorted in before that slot is poured).
    #[test]
    fn the_overflow_joins_before_its_slot_is_poured() {
        let mut cal = Calendar::<u128>::new();
        let edge = SLOT_NS * SLOTS; // the first slot past the ring's span at slot 0
        cal.push(item(SLOT_NS + 5, 1));
        cal.push(item(edge + 10, 2)); // slot SLOTS from slot 0: the overflow
        assert_eq!(cal.pop(), Some(item(SLOT_NS + 5, 1))); // the clock is at slot 1
        cal.push(item(edge + 20, 3)); // slot SLOTS from slot 1: the ring
        assert_eq!(cal.pop(), Some(item(edge + 10, 2)));
        assert_eq!(cal.pop(), Some(item(edge + 20, 3)));
        assert_eq!(cal.pop(), None);
    }

    /// An item far past the ring's span, alone, is found by jumping the clock to it; items
    /// pushed then, in the ring and beyond it, still come out in time order.
    #[test]
    fn jumps_to_a_lone_far_item() {
        let mut cal = Calendar::<u128>::new();
        let far = SLOT_NS * SLOTS * 1000 + 17;
        cal.push(item(far, 1));
        assert_eq!(cal.pop(), Some(item(far, 1)));
        cal.push(item(far + SLOT_NS * SLOTS * 3, 2));
        cal.push(item(far + SLOT_NS * 2, 3));
        cal.push(item(far, 4));
        assert_eq!(cal.pop(), Some(item(far, 4)));
        assert_eq!(cal.pop(), Some(item(far + SLOT_NS * 2, 3)));
        assert_eq!(cal.pop(), Some(item(far + SLOT_NS * SLOTS * 3, 2)));
        assert_eq!(cal.pop(), None);
    }
}
