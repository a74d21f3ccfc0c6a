//! Faces: a node's attachment to a link (net face) or to a local application (app face).
//!
//! A net face owns the node's outgoing transmit queue for its link (drop-tail, capacity in
//! packets or bytes; a router module may act as a queue discipline at enqueue and dequeue). The
//! queue remembers when each packet joined it (sojourn times) and counts its occupancy per
//! packet type (Interest / Data / Nack, packets and bytes).
//! The driver pulls packets off the transmit queue when its link is free
//! ([`crate::node::Node::poll_transmit`]), so "out" counters count packets handed to the link.

use crate::packet::{Packet, PacketType};
use crate::time::{BitRate, Duration, Instant};
use std::collections::VecDeque;

/// A face's index within its node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FaceId(pub u32);

impl FaceId {
    /// The id ndnSIM 2.8 would show: its rate traces number a node's net faces from 257 in
    /// link order, then its app faces (1, 2 and 256 are NFD's internal faces, which ndncc does
    /// not have).
    pub fn ndnsim_id(self) -> u32 {
        257 + self.0
    }
}

/// What a face is attached to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaceKind {
    /// A link to node `peer` (driver's link index `link`).
    Net { peer: u32, link: u32 },
    /// A local application (index into the node's apps).
    App { app: u32 },
}

/// Drop-tail capacity of a transmit queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

/// Cumulative per-face counters (the driver samples and differences them). `repr(C)`: in
/// [`Face`], the sent packets' counters share a cache line with the queue's maxima (what a
/// packet leaving by the face touches), and the received packets' share the next with the
/// satisfied PIT records' (what a Data satisfying a record on the face touches: the in-record's
/// face sends it, the out-record's received it); the rarer counters fill the last.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct FaceCounters {
    /// Packets sent (handed to the link or delivered to the app), by [`PacketType`] index
    /// (Interest, Data, Nack).
    pub out_pkts: [u64; 3],
    pub out_bytes: [u64; 3],
    /// Packets received, by type.
    pub in_pkts: [u64; 3],
    pub in_bytes: [u64; 3],
    /// PIT in-records on this face satisfied by Data.
    pub in_satisfied: u64,
    /// PIT out-records on this face satisfied by Data.
    pub out_satisfied: u64,
    /// PIT in-records / out-records on this face that expired.
    pub in_timed_out: u64,
    pub out_timed_out: u64,
    /// Transmit-queue overflows.
    pub drops: u64,
    pub drop_bytes: u64,
    /// Data marked (congestion mark set) on the way out of this face.
    pub marks: u64,
}

impl FaceCounters {
    pub fn count_in(&mut self, p: &Packet) {
        let k = p.kind() as usize;
        self.in_pkts[k] += 1;
        self.in_bytes[k] += p.size() as u64;
    }
    pub fn count_out(&mut self, p: &Packet) {
        let k = p.kind() as usize;
        self.out_pkts[k] += 1;
        self.out_bytes[k] += p.size() as u64;
    }
    pub fn out_of(&self, t: PacketType) -> u64 {
        self.out_pkts[t as usize]
    }
    pub fn in_of(&self, t: PacketType) -> u64 {
        self.in_pkts[t as usize]
    }
}

/// One face.
///
/// Laid out by hand (`repr(C)`, aligned to a 64-byte cache line, 320 bytes): the kind, limit
/// and queue in the first line, the queue's bytes, occupancy and longest length in the second,
/// its other maxima and the counters of sent packets in the third, of received packets and
/// satisfied PIT records in the fourth ([`Face::prefetch_send`] and [`Face::prefetch_recv`]
/// name them). A packet passing a face of
/// a node seldom visited (tens of thousands of flows) then costs one miss per line it needs,
/// never two for a field straddling lines.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Face {
    pub id: FaceId,
    pub kind: FaceKind,
    limit: QueueLimit,
    /// Waiting packets with the instant each joined the queue.
    queue: VecDeque<(Instant, Packet)>,
    queue_bytes: u64,
    /// Waiting packets and bytes by [`PacketType`] index.
    occupancy: [(u64, u64); 3],
    /// Largest transmit-queue length over the whole run.
    pub max_pkts: u64,
    /// Largest transmit-queue length (packets) since the driver last reset it.
    pub window_max_pkts: u64,
    /// Largest transmit-queue length (bytes) over the whole run.
    pub max_bytes: u64,
    pub counters: FaceCounters,
    /// The link's bandwidth (net faces whose driver knows it).
    pub bandwidth: Option<BitRate>,
}

impl Face {
    pub fn new(id: FaceId, kind: FaceKind, limit: QueueLimit) -> Self {
        Face {
            id,
            kind,
            bandwidth: None,
            limit,
            queue: VecDeque::new(),
            queue_bytes: 0,
            occupancy: [(0, 0); 3],
            counters: FaceCounters::default(),
            window_max_pkts: 0,
            max_pkts: 0,
            max_bytes: 0,
        }
    }

    pub fn is_app(&self) -> bool {
        matches!(self.kind, FaceKind::App { .. })
    }

    /// Packets waiting in the transmit queue (not counting one being serialized).
    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }

    /// Bytes waiting in the transmit queue.
    pub fn queue_bytes(&self) -> u64 {
        self.queue_bytes
    }

    pub fn limit(&self) -> QueueLimit {
        self.limit
    }

    /// Waiting (packets, bytes) of one packet type.
    pub fn occupancy(&self, t: PacketType) -> (u64, u64) {
        self.occupancy[t as usize]
    }

    /// How long the head of the queue has waited, at `now`.
    pub fn head_sojourn(&self, now: Instant) -> Option<Duration> {
        self.queue.front().map(|(t, _)| now.saturating_since(*t))
    }

    /// Counts a packet a queue discipline dropped before it joined the queue.
    pub fn count_drop(&mut self, p: &Packet) {
        self.counters.drops += 1;
        self.counters.drop_bytes += p.size() as u64;
    }

    /// Appends to the transmit queue at `now`; on overflow counts a drop and returns false.
    /// Closes the face: the queue is emptied and admits nothing more.
    pub fn close(&mut self) {
        self.limit = QueueLimit::Packets(0);
        self.queue.clear();
        self.queue_bytes = 0;
        self.occupancy = [(0, 0); 3];
    }

    /// True once [`Face::close`] was called.
    pub fn is_closed(&self) -> bool {
        self.limit == QueueLimit::Packets(0)
    }

    pub fn enqueue(&mut self, now: Instant, p: Packet) -> bool {
        let size = p.size() as u64;
        let full = match self.limit {
            QueueLimit::Packets(n) => self.queue.len() >= n as usize,
            QueueLimit::Bytes(b) => self.queue_bytes + size > b,
        };
        if full {
            self.count_drop(&p);
            return false;
        }
        let occ = &mut self.occupancy[p.kind() as usize];
        occ.0 += 1;
        occ.1 += size;
        if self.queue.capacity() == 0 {
            self.queue = crate::spare::take_queue(); // one used moments ago (see `spare`)
        }
        self.queue.push_back((now, p));
        self.queue_bytes += size;
        let len = self.queue.len() as u64;
        self.window_max_pkts = self.window_max_pkts.max(len);
        self.max_pkts = self.max_pkts.max(len);
        self.max_bytes = self.max_bytes.max(self.queue_bytes);
        true
    }

    /// Takes the head of the transmit queue at `now` and counts it as sent; with the time it
    /// waited.
    pub fn dequeue(&mut self, now: Instant) -> Option<(Packet, Duration)> {
        let (joined, p) = self.queue.pop_front()?;
        if self.queue.is_empty() && crate::spare::pooling() {
            // an idle face keeps no buffer: the next face to queue takes this one, in cache
            crate::spare::give_queue(std::mem::take(&mut self.queue));
        }
        let size = p.size() as u64;
        self.queue_bytes -= size;
        let occ = &mut self.occupancy[p.kind() as usize];
        occ.0 -= 1;
        occ.1 -= size;
        self.counters.count_out(&p);
        Some((p, now.saturating_since(joined)))
    }
}

/// Prefetch hints ([`crate::prefetch`]): the lines of a face a packet passing it touches.
/// They change nothing.
impl Face {
    /// Bytes from the face's start through the sent packets' counters: the kind, limit, queue
    /// and its counts and maxima (lines 1–3).
    const SEND_BYTES: usize =
        std::mem::offset_of!(Face, counters) + std::mem::offset_of!(FaceCounters, in_pkts);

    /// What queueing a packet on this face (or handing one to its app) touches: the first
    /// three lines.
    #[inline]
    pub fn prefetch_send(&self) {
        crate::prefetch::span(self, Self::SEND_BYTES);
    }

    /// What a packet arriving on this face, or a Data satisfying a PIT record on it, touches:
    /// the received packets' and satisfied records' counters (the fourth line).
    #[inline]
    pub fn prefetch_recv(&self) {
        crate::prefetch::line(&self.counters.in_pkts);
    }

    /// Both of the above: every line a packet leaving or arriving by this face touches.
    #[inline]
    pub fn prefetch_whole(&self) {
        self.prefetch_send();
        self.prefetch_recv();
    }

    /// What sending from this face touches: [`Face::prefetch_send`]'s lines and the queue's
    /// head.
    #[inline]
    pub fn prefetch_out(&self) {
        self.prefetch_send();
        if let Some(h) = self.queue.front() {
            crate::prefetch::line(h);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::name::{Name, NameId};

    /// The lines the prefetch hints name hold what a packet touches (a field moved out of them
    /// would only cost misses: same results, lost speed — no output test could catch it).
    #[test]
    fn hot_fields_sit_in_the_lines_prefetched() {
        use std::mem::offset_of;
        let line = |off: usize| off / crate::prefetch::LINE;
        let c = offset_of!(Face, counters);
        assert_eq!(std::mem::size_of::<Face>(), 320);
        for off in [
            offset_of!(Face, kind),
            offset_of!(Face, limit),
            offset_of!(Face, queue),
        ] {
            assert_eq!(line(off), 0);
        }
        let send_end = c + offset_of!(FaceCounters, out_bytes) + 24 - 1;
        assert_eq!(line(Face::SEND_BYTES - 1), line(send_end));
        assert!(line(offset_of!(Face, max_bytes)) < 3 && line(offset_of!(Face, occupancy)) < 3);
        let recv = line(c + offset_of!(FaceCounters, in_pkts));
        assert_eq!(recv, 3);
        for f in [
            offset_of!(FaceCounters, in_bytes) + 16,
            offset_of!(FaceCounters, in_satisfied),
            offset_of!(FaceCounters, out_satisfied),
        ] {
            assert_eq!(line(c + f), recv);
        }
    }
    use crate::packet::Interest;

    fn interest(size: u32) -> Packet {
        Packet::Interest(Interest::new(
            Name::new(NameId(1), 0),
            0,
            Duration::from_secs(4),
            size,
        ))
    }

    #[test]
    fn drop_tail_in_packets_and_bytes() {
        let mut f = Face::new(
            FaceId(0),
            FaceKind::Net { peer: 1, link: 0 },
            QueueLimit::Packets(2),
        );
        let t = Instant(5);
        assert!(f.enqueue(t, interest(40)));
        assert!(f.enqueue(t, interest(40)));
        assert!(!f.enqueue(t, interest(40)));
        assert_eq!((f.counters.drops, f.counters.drop_bytes), (1, 40));
        assert_eq!(f.occupancy(PacketType::Interest), (2, 80));
        assert_eq!(f.head_sojourn(Instant(8)), Some(Duration(3)));
        let (_, waited) = f.dequeue(Instant(9)).unwrap();
        assert_eq!(waited, Duration(4));
        assert_eq!(f.counters.out_of(PacketType::Interest), 1);
        assert_eq!(f.occupancy(PacketType::Interest), (1, 40));
        assert_eq!(f.occupancy(PacketType::Data), (0, 0));
        let mut g = Face::new(
            FaceId(0),
            FaceKind::Net { peer: 1, link: 0 },
            QueueLimit::Bytes(100),
        );
        assert!(g.enqueue(t, interest(60)));
        assert!(!g.enqueue(t, interest(41)));
        assert!(g.enqueue(t, interest(40)));
        assert_eq!(g.queue_bytes(), 100);
        assert_eq!(g.max_pkts, 2);
    }
}
