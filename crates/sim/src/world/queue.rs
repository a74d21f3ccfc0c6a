//! The event queue: a 4-ary heap laid out so that a node's four children share a cache line.
//!
//! A drop-in for the standard `BinaryHeap` (a max-heap: `pop` returns the greatest item; the
//! loop's events order in reverse, so the greatest is the earliest). With tens of thousands of
//! pending events (a timer per node) a binary heap is 15 levels deep and a pop walks them all,
//! the lower ones out of cache; four children to a 64-byte line halve the depth and make each
//! level one line. Items are unique in the loop (their keys hold a sequence number), so any
//! correct heap pops them in the same order: the choice changes speed, never results.

/// Items to a cache line (16-byte items).
const ARITY: usize = 4;

/// One cache line of items.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line<T>([T; ARITY]);

/// A max-heap of `Copy` items, four children per node. Item `i` sits at position `i + 3` of
/// the line array, so that the children of `i`, `4i + 1 ..= 4i + 4`, fill line `i + 1`
/// exactly (with 16-byte items). Slots past the last item hold `floor`, an item less than any
/// pushed: a node's children are then always four, compared without a length check.
pub(super) struct Queue<T: Copy + Ord> {
    lines: Vec<Line<T>>,
    len: usize,
    floor: T,
}

impl<T: Copy + Ord> Queue<T> {
    /// An empty queue for items greater than `floor`.
    pub(super) fn new(floor: T) -> Self {
        Queue {
            lines: Vec::new(),
            len: 0,
            floor,
        }
    }

    #[inline(always)]
    fn get(&self, i: usize) -> T {
        let p = i + ARITY - 1;
        self.lines[p / ARITY].0[p % ARITY]
    }

    #[inline(always)]
    fn set(&mut self, i: usize, x: T) {
        let p = i + ARITY - 1;
        self.lines[p / ARITY].0[p % ARITY] = x;
    }

    /// The greatest of the four children of `i` (`floor` where there are none), with its slot
    /// in their line (line `i + 1`); None when that line was never filled.
    #[inline(always)]
    fn greatest_child(&self, i: usize) -> Option<(usize, T)> {
        let c = &self.lines.get(i + 1)?.0;
        let (a, ia) = if c[1] > c[0] { (c[1], 1) } else { (c[0], 0) };
        let (b, ib) = if c[3] > c[2] { (c[3], 3) } else { (c[2], 2) };
        let (m, im) = if b > a { (b, ib) } else { (a, ia) };
        Some((im, m))
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.len
    }

    /// The greatest item.
    #[inline]
    pub(super) fn peek(&self) -> Option<T> {
        (self.len > 0).then(|| self.get(0))
    }

    /// The greatest of the root's children: the item `pop` returns after the next one, unless
    /// an item greater than it is pushed in between.
    #[inline]
    pub(super) fn peek_second(&self) -> Option<T> {
        let (_, m) = self.greatest_child(0)?;
        (m != self.floor).then_some(m)
    }

    // never inlined: the small networks' path through [`Events`] stays as short as the
    // standard heap's alone
    #[inline(never)]
    pub(super) fn push(&mut self, x: T) {
        debug_assert!(x > self.floor, "an item not above the queue's floor");
        let i = self.len;
        self.len += 1;
        if self.lines.len() * ARITY < self.len + ARITY - 1 {
            self.lines.push(Line([self.floor; ARITY]));
        }
        // sift up: move smaller parents down into the hole
        let mut hole = i;
        while hole > 0 {
            let parent = (hole - 1) / ARITY;
            let p = self.get(parent);
            if x <= p {
                break;
            }
            self.set(hole, p);
            hole = parent;
        }
        self.set(hole, x);
    }

    // never inlined: the small networks' path through [`Events`] stays as short as the
    // standard heap's alone
    #[inline(never)]
    pub(super) fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let top = self.lines[0].0[ARITY - 1];
        self.len -= 1;
        let n = self.len;
        let p = n + ARITY - 1;
        let x = std::mem::replace(&mut self.lines[p / ARITY].0[p % ARITY], self.floor);
        // sift down: move the greatest child up into the hole while it beats `x` (past the
        // last item the children are `floor`, never greater); the hole is item `hole`, at
        // slot `slot` of line `line`
        if n == 0 {
            return Some(top);
        }
        let (mut hole, mut line, mut slot) = (0, 0, ARITY - 1);
        while ARITY * hole + 1 < n {
            // the grandchildren's four lines (contiguous), asked for before the children are
            // compared: the next level's line is then on its way while this one is read
            // (below the top levels the heap is out of cache)
            let g = ARITY * hole + 2;
            if g < self.lines.len() {
                let first = self.lines[g..].as_ptr();
                for k in 0..ARITY {
                    // past the array's end only when its last lines are not all in use: a hint
                    // to an address never read
                    ndncc_core::prefetch::line(first.wrapping_add(k));
                }
            }
            let Some((im, m)) = self.greatest_child(hole) else {
                break;
            };
            if m <= x {
                break;
            }
            self.lines[line].0[slot] = m;
            (line, slot) = (hole + 1, im);
            hole = ARITY * hole + 1 + im;
        }
        self.lines[line].0[slot] = x;
        Some(top)
    }
}

/// The loop's event queue: the standard binary heap on small networks (fewer instructions:
/// its lines stay in cache), the 4-ary [`Queue`] on large ones (fewer lines, prefetched).
pub(super) enum Events<T: Copy + Ord> {
    Small(std::collections::BinaryHeap<T>),
    Large(Queue<T>),
}

impl<T: Copy + Ord> Events<T> {
    pub(super) fn new(large: bool, floor: T) -> Self {
        if large {
            Events::Large(Queue::new(floor))
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

    #[inline]
    pub(super) fn peek(&self) -> Option<T> {
        match self {
            Events::Small(h) => h.peek().copied(),
            Events::Large(q) => q.peek(),
        }
    }

    /// The item popped after the next one, unless a greater one is pushed in between.
    #[inline]
    pub(super) fn peek_second(&self) -> Option<T> {
        match self {
            Events::Small(h) => h.as_slice().iter().skip(1).take(2).max().copied(),
            Events::Large(q) => q.peek_second(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BinaryHeap;

    /// Random pushes and pops (unique items, as in the loop) pop in the standard heap's order,
    /// through growth, emptying and refilling.
    #[test]
    fn pops_in_the_standard_heaps_order() {
        let mut q = Queue::<u128>::new(0);
        let mut std = BinaryHeap::new();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut seq = 0u128;
        for round in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // phases of net growth and of net draining
            let push = if (round / 2_000) % 2 == 0 {
                x % 3 != 0
            } else {
                x % 3 == 0
            };
            if push {
                seq += 1;
                let item = (u128::from(x % 1_000) << 64) | seq; // above the floor, 0
                q.push(item);
                std.push(item);
            } else {
                assert_eq!(q.pop(), std.pop());
            }
            assert_eq!(q.len(), std.len());
            assert_eq!(q.peek(), std.peek().copied());
            if round % 97 == 0 {
                let mut rest = std.clone();
                rest.pop();
                assert_eq!(q.peek_second(), rest.peek().copied(), "round {round}");
            }
        }
        while let Some(v) = std.pop() {
            assert_eq!(q.pop(), Some(v));
        }
        assert_eq!(q.pop(), None);
        assert_eq!(q.peek(), None);
    }

    /// Both kinds of the loop's queue pop the same items and foresee the same next-but-one.
    #[test]
    fn small_and_large_queues_agree() {
        let mut small = Events::new(false, 0u128);
        let mut large = Events::new(true, 0u128);
        let mut x: u64 = 12345;
        for round in 0..3_000u128 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            if (x >> 33) % 4 != 0 {
                let item = (u128::from((x >> 40) % 500) << 64) | (round + 1);
                small.push(item);
                large.push(item);
            } else {
                assert_eq!(small.pop(), large.pop());
            }
            assert_eq!(small.peek(), large.peek());
            assert_eq!(small.peek_second(), large.peek_second());
        }
        while let Some(v) = small.pop() {
            assert_eq!(large.pop(), Some(v));
        }
        assert_eq!(large.pop(), None);
    }
}
