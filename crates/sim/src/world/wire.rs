//! Packets on the wire: one store for every link, each link direction a FIFO threaded through
//! it.
//!
//! A link never reorders, so a direction's packets form a queue; keeping them in one shared
//! store with a LIFO free list (instead of a `VecDeque` per direction) means a packet is written
//! into a slot freed moments ago — in cache — and the store's size is the packets in flight, not
//! links × the most each ever held. With tens of thousands of access links that spares two
//! cache misses per hop (the push and the pop of a cold per-link buffer).

use ndncc_core::{Instant, Packet};

const NONE: u32 = u32::MAX;

struct Slot {
    arrive: Instant,
    packet: Packet,
    next: u32,
}

/// The packets of one link direction, oldest first (indices into [`Wire`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Fifo {
    head: u32,
    tail: u32,
}

impl Default for Fifo {
    fn default() -> Self {
        Fifo {
            head: NONE,
            tail: NONE,
        }
    }
}

impl Fifo {
    pub(super) fn is_empty(&self) -> bool {
        self.head == NONE
    }
}

/// Every packet in flight.
#[derive(Default)]
pub(super) struct Wire {
    slots: Vec<Slot>,
    free: Vec<u32>,
}

impl Wire {
    /// Appends `packet`, arriving at `arrive`, to `q`.
    pub(super) fn push(&mut self, q: &mut Fifo, arrive: Instant, packet: Packet) {
        let slot = Slot {
            arrive,
            packet,
            next: NONE,
        };
        let i = match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = slot;
                i
            }
            None => {
                self.slots.push(slot);
                (self.slots.len() - 1) as u32
            }
        };
        if q.tail == NONE {
            q.head = i;
        } else {
            self.slots[q.tail as usize].next = i;
        }
        q.tail = i;
    }

    /// Removes the oldest packet of `q`.
    pub(super) fn pop(&mut self, q: &mut Fifo) -> Option<Packet> {
        if q.head == NONE {
            return None;
        }
        let i = q.head;
        let slot = &self.slots[i as usize];
        q.head = slot.next;
        if q.head == NONE {
            q.tail = NONE;
        }
        let packet = slot.packet;
        self.free.push(i);
        Some(packet)
    }

    /// Prefetch hint ([`ndncc_core::prefetch`]): the slot of the oldest packet of `q`.
    #[inline]
    pub(super) fn prefetch_front(&self, q: &Fifo) {
        if let Some(s) = self.slots.get(q.head as usize) {
            ndncc_core::prefetch::line(s);
        }
    }

    /// The oldest packet of `q` (for prefetch hints: what its arrival will look up).
    pub(super) fn front_packet(&self, q: &Fifo) -> Option<&Packet> {
        self.slots.get(q.head as usize).map(|s| &s.packet)
    }

    /// When the oldest packet of `q` arrives.
    pub(super) fn front(&self, q: &Fifo) -> Option<Instant> {
        (q.head != NONE).then(|| self.slots[q.head as usize].arrive)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndncc_core::name::Name;
    use ndncc_core::{Duration, Interest, NameId};

    fn packet(seq: u64) -> Packet {
        Packet::Interest(Interest::new(Name::new(NameId(1), seq), 0, Duration(1), 40))
    }

    fn seq(p: Packet) -> u64 {
        match p {
            Packet::Interest(i) => i.name.seq.unwrap(),
            _ => unreachable!(),
        }
    }

    #[test]
    fn each_fifo_keeps_its_order_and_slots_are_reused() {
        let mut wire = Wire::default();
        let (mut a, mut b) = (Fifo::default(), Fifo::default());
        for i in 0..5 {
            wire.push(&mut a, Instant(i), packet(i));
            wire.push(&mut b, Instant(100 + i), packet(100 + i));
        }
        assert_eq!(wire.front(&a), Some(Instant(0)));
        for i in 0..5 {
            assert_eq!(seq(wire.pop(&mut a).unwrap()), i);
        }
        assert!(a.is_empty() && wire.pop(&mut a).is_none() && wire.front(&a).is_none());
        wire.push(&mut a, Instant(9), packet(9)); // reuses a freed slot
        assert_eq!(wire.slots.len(), 10);
        for i in 0..5 {
            assert_eq!(seq(wire.pop(&mut b).unwrap()), 100 + i);
        }
        assert_eq!(seq(wire.pop(&mut a).unwrap()), 9);
        assert!(a.is_empty() && b.is_empty());
    }
}
