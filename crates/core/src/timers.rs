//! A timer queue for deadlines that mostly arrive in order.
//!
//! Deadlines of one kind (PIT expiries, Interest timeouts) are usually pushed in nondecreasing
//! order, because they are "now + a constant". Those go to a FIFO; the rare earlier ones go to
//! a binary heap. Popping takes the smaller of the two fronts (ties: the full key decides, then
//! the FIFO), so the order is exactly that of a single priority queue keyed by `(time, item)`
//! whenever items pushed at equal times arrive in increasing order — and the common case costs
//! O(1) instead of O(log n). The earliest entry is also kept beside the two, so that asking
//! when the next deadline is (after every event, on every node) reads no buffer — with tens of
//! thousands of nodes those buffers are out of cache.

use crate::time::Instant;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

#[derive(Clone, Debug)]
pub struct TimerQueue<T: Ord + Copy> {
    /// The earliest (time, item): what `peek` returns.
    first: Option<(Instant, T)>,
    fifo: VecDeque<(Instant, T)>,
    heap: BinaryHeap<Reverse<(Instant, T)>>,
}

impl<T: Ord + Copy> Default for TimerQueue<T> {
    fn default() -> Self {
        TimerQueue {
            first: None,
            fifo: VecDeque::new(),
            heap: BinaryHeap::new(),
        }
    }
}

impl<T: Ord + Copy> TimerQueue<T> {
    pub fn push(&mut self, at: Instant, item: T) {
        match self.fifo.back() {
            Some(&(t, i)) if (at, item) < (t, i) => self.heap.push(Reverse((at, item))),
            _ => self.fifo.push_back((at, item)),
        }
        if self.first.is_none_or(|f| (at, item) < f) {
            self.first = Some((at, item));
        }
    }

    /// The earliest (time, item).
    #[inline]
    pub fn peek(&self) -> Option<(Instant, T)> {
        self.first
    }

    /// The earliest of the two fronts (the buffers' view of `first`).
    fn front(&self) -> Option<(Instant, T)> {
        if self.heap.is_empty() {
            return self.fifo.front().copied(); // the common case: every deadline in order
        }
        let f = self.fifo.front().copied();
        let h = self.heap.peek().map(|Reverse(x)| *x);
        match (f, h) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    pub fn pop(&mut self) -> Option<(Instant, T)> {
        let f = self.fifo.front().copied();
        let h = self.heap.peek().map(|Reverse(x)| *x);
        let popped = match (f, h) {
            (Some(a), Some(b)) if b < a => self.heap.pop().map(|Reverse(x)| x),
            (Some(_), _) => self.fifo.pop_front(),
            (None, Some(_)) => self.heap.pop().map(|Reverse(x)| x),
            (None, None) => None,
        };
        self.first = self.front();
        popped
    }

    pub fn len(&self) -> usize {
        self.fifo.len() + self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T: Ord + Copy> TimerQueue<T> {
    /// Prefetch hint ([`crate::prefetch`]): the lines the next push and pop touch (the FIFO's
    /// two ends, the heap's root). Changes nothing.
    #[inline]
    pub fn prefetch(&self) {
        use crate::prefetch::line;
        if let Some(b) = self.fifo.back() {
            line(b);
            line((b as *const (Instant, T)).wrapping_add(1));
        }
        if let Some(f) = self.fifo.front() {
            line(f);
        }
        if let Some(h) = self.heap.as_slice().first() {
            line(h);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peek_sees_an_earlier_deadline_pushed_after_a_later_one() {
        // the earliest entry is kept inline: a push before it must replace it
        let mut q = TimerQueue::default();
        q.push(Instant(10), 1u32);
        q.push(Instant(5), 2);
        assert_eq!(q.peek(), Some((Instant(5), 2)));
        q.push(Instant(7), 3);
        assert_eq!(q.peek(), Some((Instant(5), 2)));
        assert_eq!(q.pop(), Some((Instant(5), 2)));
        assert_eq!(q.peek(), Some((Instant(7), 3)));
        assert_eq!(q.pop(), Some((Instant(7), 3)));
        assert_eq!(q.peek(), Some((Instant(10), 1)));
        assert_eq!(q.pop(), Some((Instant(10), 1)));
        assert_eq!((q.peek(), q.pop()), (None, None));
    }

    #[test]
    fn pops_in_key_order_like_a_heap() {
        let mut q = TimerQueue::default();
        let mut h = BinaryHeap::new();
        let mut x: u64 = 12345;
        for i in 0..2000u32 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // mostly increasing, sometimes earlier
            let t = if x % 7 == 0 {
                i as u64 / 2
            } else {
                i as u64 * 3
            };
            q.push(Instant(t), i);
            h.push(Reverse((Instant(t), i)));
        }
        while let Some(Reverse(e)) = h.pop() {
            assert_eq!(q.peek(), Some(e));
            assert_eq!(q.pop(), Some(e));
        }
        assert!(q.is_empty());
    }
}
