//! Spare buffers, per thread: a buffer that empties goes back here and the next one needed
//! comes from here, most recently returned first.
//!
//! Why: with tens of thousands of flows each face sees a packet about once a second, so a
//! buffer a face (or node) kept for itself is out of cache every time it is used again. A
//! buffer handed back when it empties and taken again by whichever face queues next was in use
//! moments ago: still in cache. The allocator would do the same (its free lists are LIFO) at
//! ≈ 100 instructions per allocation and release; a pool is a push and a pop.
//!
//! Only empty buffers are kept, at most [`KEEP`] of each kind; a buffer's contents never cross
//! from one owner to another, so results cannot depend on the pool.

use crate::face::FaceId;
use crate::name::Name;
use crate::packet::Packet;
use crate::table::pit::PitEntry;
use crate::time::Instant;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;

/// Turns the hand-back of emptied buffers on or off for this thread (see [`pooling`]).
pub fn set_pooling(on: bool) {
    POOLING.with(|p| p.set(on));
}

/// True when emptied buffers go back to this thread's pools (else their owners keep them, as a
/// node or face did before the pools). Per thread, like the pools, and a matter of speed only:
/// no buffer's contents ever cross owners, so results are the same either way. A pool costs
/// ≈ 100 instructions per packet hop (thread-local access, moving the buffer) and pays only
/// when the network's per-flow state outgrows the caches; the simulator sets it when it builds
/// a network, from the network's size (`world/build.rs`), on the thread that then runs it.
#[inline]
pub fn pooling() -> bool {
    POOLING.with(Cell::get)
}

/// The most spare buffers of one kind kept per thread (beyond: freed).
pub const KEEP: usize = 64;

/// A face's transmit queue: (instant it joined, packet).
pub type Queue = VecDeque<(Instant, Packet)>;
/// A node's packets for its apps (`FwCore::app_out`): (app face, packet).
pub type AppOut = Vec<(FaceId, Packet)>;
/// Packets an app hands to its node during one call.
pub type Packets = Vec<Packet>;

/// A PIT's short list of entries ([`crate::table::pit::FEW`] at most; the table of a PIT with
/// more is its own, never pooled).
pub type PitTable = Vec<(Name, PitEntry)>;

thread_local! {
    static POOLING: Cell<bool> = const { Cell::new(true) };
    static PIT_TABLES: RefCell<Vec<PitTable>> = const { RefCell::new(Vec::new()) };
    static QUEUES: RefCell<Vec<Queue>> = const { RefCell::new(Vec::new()) };
    static APP_OUTS: RefCell<Vec<AppOut>> = const { RefCell::new(Vec::new()) };
    static PACKETS: RefCell<Vec<Packets>> = const { RefCell::new(Vec::new()) };
}

type Pool<T> = std::thread::LocalKey<RefCell<Vec<T>>>;

/// The most recently returned buffer of `pool`, if any.
fn take<T>(pool: &'static Pool<T>) -> Option<T> {
    pool.with(|p| p.borrow_mut().pop())
}

/// Keeps `v` in `pool` when `keep` (the caller's "empty, with room") and the pool is not full;
/// else drops it.
fn give<T>(pool: &'static Pool<T>, v: T, keep: bool) {
    if keep {
        pool.with(|p| {
            let mut p = p.borrow_mut();
            if p.len() < KEEP {
                p.push(v);
            }
        });
    }
}

/// An empty PIT list, the most recently returned one if any (else one with no capacity: the
/// first insert allocates it).
pub fn take_pit_table() -> PitTable {
    take(&PIT_TABLES).unwrap_or_default()
}

/// Hands an emptied PIT's list `t` to the pool when pooling is on and `t` is empty, with room
/// (else `t` stays where it is, with its PIT; dropped when the pool is full). A list never
/// outgrows [`crate::table::pit::FEW`] entries, so no size cap is needed. Nothing iterates a
/// PIT, so a reused list cannot show in any result.
pub fn give_pit_table(t: &mut PitTable) {
    if t.is_empty() && t.capacity() > 0 && pooling() {
        give(&PIT_TABLES, std::mem::take(t), true);
    }
}

/// An empty `app_out` list with room, the most recently returned one if any.
pub fn take_app_out() -> AppOut {
    take(&APP_OUTS).unwrap_or_else(|| Vec::with_capacity(4))
}

/// Hands back an `app_out` list (kept only when empty, with room, and the pool not full).
pub fn give_app_out(v: AppOut) {
    let keep = v.is_empty() && v.capacity() > 0;
    give(&APP_OUTS, v, keep);
}

/// An empty packet list with room, the most recently returned one if any.
pub fn take_packets() -> Packets {
    take(&PACKETS).unwrap_or_else(|| Vec::with_capacity(4))
}

/// Hands back a packet list (kept only when empty, with room, and the pool not full).
pub fn give_packets(v: Packets) {
    let keep = v.is_empty() && v.capacity() > 0;
    give(&PACKETS, v, keep);
}

/// An empty transmit queue with room for at least one packet, the most recently returned one
/// if any.
pub fn take_queue() -> Queue {
    take(&QUEUES).unwrap_or_else(|| VecDeque::with_capacity(4))
}

/// Hands back an empty transmit queue (one with packets, or without room, is just dropped).
pub fn give_queue(q: Queue) {
    let keep = q.is_empty() && q.capacity() > 0;
    give(&QUEUES, q, keep);
}

/// Spare PIT tables held by this thread now (for tests).
pub fn spare_pit_tables() -> usize {
    PIT_TABLES.with(|p| p.borrow().len())
}

/// Spare queues held by this thread now (for tests).
pub fn spare_queues() -> usize {
    QUEUES.with(|p| p.borrow().len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::name::{Name, NameId};
    use crate::packet::Interest;
    use crate::time::Duration;

    #[test]
    fn a_returned_queue_is_the_next_one_taken_and_never_carries_packets() {
        let before = spare_queues();
        let mut q = take_queue();
        assert!(q.is_empty() && q.capacity() > 0);
        let p = Packet::Interest(Interest::new(
            Name::new(NameId(1), 0),
            0,
            Duration::from_secs(1),
            40,
        ));
        q.push_back((Instant(1), p));
        give_queue(q); // not empty: dropped, not kept
        assert_eq!(spare_queues(), before.saturating_sub(1));
        let q = VecDeque::with_capacity(16);
        let cap = q.capacity();
        give_queue(q);
        assert_eq!(take_queue().capacity(), cap); // the last returned comes back first
        for _ in 0..2 * KEEP {
            give_queue(VecDeque::with_capacity(1));
        }
        assert_eq!(spare_queues(), KEEP);
        give_queue(VecDeque::new()); // no room: not worth keeping
        assert_eq!(spare_queues(), KEEP);
    }

    #[test]
    fn lists_come_back_empty_and_last_returned_first() {
        let mut v = take_packets();
        assert!(v.is_empty() && v.capacity() > 0);
        v.push(Packet::Interest(Interest::new(
            Name::new(NameId(1), 0),
            0,
            Duration::from_secs(1),
            40,
        )));
        give_packets(v); // not empty: dropped
        assert!(take_packets().is_empty());
        give_packets(Vec::with_capacity(33));
        assert_eq!(take_packets().capacity(), 33);
        let mut a = take_app_out();
        assert!(a.is_empty() && a.capacity() > 0);
        a.reserve(100);
        let cap = a.capacity();
        give_app_out(a);
        assert_eq!(take_app_out().capacity(), cap);
    }
}
