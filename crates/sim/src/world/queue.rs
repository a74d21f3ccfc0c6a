//! The loop's event queue: the standard binary heap on small networks, a [`Calendar`] on large
//! ones. Items are unique in the loop (their keys hold a sequence number), so both pop them in
//! the same order: the choice changes speed, never results.

use super::calendar::{second_of, Calendar, Timed};

/// The loop's event queue: the standard binary heap on small networks (fewer instructions:
/// its lines stay in cache), the [`Calendar`] on large ones (a small heap in cache, later
/// events in time buckets).
pub(super) enum Events<T: Timed> {
    Small(std::collections::BinaryHeap<T>),
    Large(Box<Calendar<T>>),
}

impl<T: Timed> Events<T> {
    pub(super) fn new(large: bool) -> Self {
        if large {
            Events::Large(Box::new(Calendar::new()))
        } else {
            Events::Small(Default::default())
        }
    }

    #[inline]
    pub(super) fn push(&mut self, x: T) {
        match self {
            Events::Small(h) => h.push(x),
            Events::Large(q) => q.push(x),
        }
    }

    #[inline]
    pub(super) fn pop(&mut self) -> Option<T> {
        match self {
            Events::Small(h) => h.pop(),
            Events::Large(q) => q.pop(),
        }
    }

    /// The greatest item (the next event).
    #[inline]
    pub(super) fn peek(&mut self) -> Option<T> {
        match self {
            Events::Small(h) => h.peek().copied(),
            Events::Large(q) => q.peek(),
        }
    }

    /// The next item, if known without reorganizing (a prefetching hint).
    #[inline]
    pub(super) fn peek_hint(&self) -> Option<T> {
        match self {
            Events::Small(h) => h.peek().copied(),
            Events::Large(q) => q.peek_hint(),
        }
    }

    /// The item popped after the next one, unless a greater one is pushed in between (a
    /// prefetching hint: None when not known without reorganizing).
    #[inline]
    pub(super) fn peek_second(&self) -> Option<T> {
        match self {
            Events::Small(h) => second_of(h),
            Events::Large(q) => q.peek_second_hint(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both kinds of the loop's queue pop the same items and foresee the same next-but-one
    /// while the large one's current slot holds it.
    #[test]
    fn small_and_large_queues_agree() {
        let mut small = Events::new(false);
        let mut large = Events::new(true);
        let mut x: u64 = 12345;
        let mut now = 0u64;
        let mut hinted = 0;
        for round in 0..30_000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            if (x >> 33) % 4 != 0 {
                // up to 30 ms ahead: a few slots of the calendar
                let t = now + (x >> 40) % 30_000_000;
                let item = (u128::from(u64::MAX - t) << 64) | u128::from(u64::MAX - round);
                small.push(item);
                large.push(item);
            } else {
                let v = small.pop();
                assert_eq!(v, large.pop());
                if let Some(v) = v {
                    now = v.time_ns();
                }
            }
            assert_eq!(small.peek(), large.peek());
            assert_eq!(small.peek_hint(), large.peek_hint());
            if let Some(second) = large.peek_second() {
                assert_eq!(small.peek_second(), Some(second));
                hinted += 1;
            }
        }
        while let Some(v) = small.pop() {
            assert_eq!(large.pop(), Some(v));
        }
        assert_eq!(large.pop(), None);
        assert!(hinted > 10_000);
    }
}
