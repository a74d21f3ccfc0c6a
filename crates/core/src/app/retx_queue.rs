//! The consumer's re-send queue: sequence numbers waiting to be sent again, each with its
//! state, in one of two orders ([`RetxOrder`]), found by sequence number too. Every operation
//! is O(log n) in the numbers waiting.

use std::collections::BTreeMap;

/// Which waiting number goes next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetxOrder {
    /// The oldest: the first pushed at the back, unless a number was pushed at the front
    /// since (the last pushed at the front goes first).
    Oldest,
    /// The smallest sequence number (ndnSIM's consumers keep them in an ordered set); where
    /// it was pushed does not matter.
    Smallest,
}

/// Sequence numbers waiting for a re-send. A number waits at most once: pushing one that
/// waits already replaces it (the consumer never does; a number is either in flight or
/// here).
#[derive(Clone, Debug)]
pub struct RetxQueue<T> {
    order: RetxOrder,
    /// By sequence number: (place in the `Oldest` order, state).
    items: BTreeMap<u64, (i64, T)>,
    /// `Oldest` only: place → sequence number (empty in the `Smallest` order).
    by_place: BTreeMap<i64, u64>,
    /// The place of the next push at the front (one below the first) and at the back.
    front: i64,
    back: i64,
}

impl<T> RetxQueue<T> {
    pub fn new(order: RetxOrder) -> Self {
        RetxQueue {
            order,
            items: BTreeMap::new(),
            by_place: BTreeMap::new(),
            front: -1,
            back: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn contains(&self, seq: u64) -> bool {
        self.items.contains_key(&seq)
    }

    /// Queues `seq` after every number waiting.
    pub fn push_back(&mut self, seq: u64, item: T) {
        let place = self.back;
        self.back += 1;
        self.insert(place, seq, item);
    }

    /// Queues `seq` before every number waiting (in the `Oldest` order).
    pub fn push_front(&mut self, seq: u64, item: T) {
        let place = self.front;
        self.front -= 1;
        self.insert(place, seq, item);
    }

    fn insert(&mut self, place: i64, seq: u64, item: T) {
        let old = self.items.insert(seq, (place, item));
        debug_assert!(old.is_none(), "{seq} was waiting already");
        if self.order == RetxOrder::Oldest {
            if let Some((old_place, _)) = old {
                self.by_place.remove(&old_place);
            }
            self.by_place.insert(place, seq);
        }
    }

    /// Takes the next number, in the queue's order.
    pub fn pop(&mut self) -> Option<(u64, T)> {
        match self.order {
            RetxOrder::Oldest => {
                let (_, seq) = self.by_place.pop_first()?;
                let (_, item) = self.items.remove(&seq).expect("indexed");
                Some((seq, item))
            }
            RetxOrder::Smallest => self.items.pop_first().map(|(seq, (_, item))| (seq, item)),
        }
    }

    /// Takes `seq` out, wherever it waits.
    pub fn remove(&mut self, seq: u64) -> Option<T> {
        let (place, item) = self.items.remove(&seq)?;
        if self.order == RetxOrder::Oldest {
            self.by_place.remove(&place);
        }
        Some(item)
    }

    /// The state of `seq`, if it waits.
    pub fn get_mut(&mut self, seq: u64) -> Option<&mut T> {
        self.items.get_mut(&seq).map(|(_, item)| item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(q: &mut RetxQueue<char>) -> Vec<(u64, char)> {
        std::iter::from_fn(|| q.pop()).collect()
    }

    /// A queue in `order` after pushing 7, 3, 9 at the back, 5 and 8 at the front, 1 at the
    /// back.
    fn pushed(order: RetxOrder) -> RetxQueue<char> {
        let mut q = RetxQueue::new(order);
        for (seq, c) in [(7, 'a'), (3, 'b'), (9, 'c')] {
            q.push_back(seq, c);
        }
        q.push_front(5, 'd');
        q.push_front(8, 'e');
        q.push_back(1, 'f');
        q
    }

    /// Numbers pushed together keep the order they were pushed in (not their numbers'); a
    /// push at the front goes before them all, the last such push first — the order of the
    /// double-ended queue this replaces.
    #[test]
    fn oldest_keeps_the_order_of_pushes_for_ties() {
        let mut q = pushed(RetxOrder::Oldest);
        assert_eq!(q.len(), 6);
        assert_eq!(
            drain(&mut q),
            [(8, 'e'), (5, 'd'), (7, 'a'), (3, 'b'), (9, 'c'), (1, 'f')]
        );
        assert!(q.is_empty());
    }

    /// The smallest number first, wherever and whenever it was pushed.
    #[test]
    fn smallest_ignores_where_a_number_was_pushed() {
        let mut q = pushed(RetxOrder::Smallest);
        assert_eq!(
            drain(&mut q),
            [(1, 'f'), (3, 'b'), (5, 'd'), (7, 'a'), (8, 'e'), (9, 'c')]
        );
    }

    /// Taking a number out of the middle, or changing its state, leaves the others' order.
    #[test]
    fn a_number_taken_out_or_changed_leaves_the_order() {
        for order in [RetxOrder::Oldest, RetxOrder::Smallest] {
            let mut q = RetxQueue::new(order);
            for (seq, c) in [(4, 'a'), (2, 'b'), (6, 'c'), (1, 'd')] {
                q.push_back(seq, c);
            }
            assert_eq!(q.remove(2), Some('b'));
            assert_eq!(q.remove(2), None);
            assert!(!q.contains(2) && q.contains(6));
            *q.get_mut(6).expect("waits") = 'C';
            assert_eq!(q.get_mut(5), None);
            let want: &[(u64, char)] = match order {
                RetxOrder::Oldest => &[(4, 'a'), (6, 'C'), (1, 'd')],
                RetxOrder::Smallest => &[(1, 'd'), (4, 'a'), (6, 'C')],
            };
            assert_eq!(drain(&mut q), want, "{order:?}");
        }
    }
}
