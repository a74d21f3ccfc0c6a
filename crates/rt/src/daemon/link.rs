//! Per-face user-space link emulation of the outgoing direction: the core's transmit queue
//! (drop-tail, `queue`: packets or bytes) is drained at the face's bandwidth, and each packet then spends
//! the propagation delay in flight before it is written to the socket. Without a bandwidth the
//! queue drains as fast as packets come; without a delay they are written at once.
//!
//! The transmitter is work-conserving on the emulated clock, not on the daemon's wake-ups: a
//! packet that was waiting when the previous one finished serializing starts at that instant
//! (`busy_until`), even when the poll loop wakes up late. Starting it at the late wake-up
//! instead would lose the overshoot of every packet, and a saturated 10 Mbit/s link would carry
//! a fraction of its rate on a busy machine (`ndncc emulate` on seed 002's linear topology,
//! with and without this rule: docs/emulate/README.md). The link counts the packets it saw
//! waiting while it was busy (packets enter the core's queue only while the daemon runs, so a
//! packet seen at one wake-up has waited since then): every one of them starts back to back
//! when its predecessor ends, however many serialization times the next wake-up is late.

use super::config::LinkConfig;
use ndncc_core::time::{BitRate, Duration, Instant};
use std::collections::VecDeque;

#[derive(Debug)]
pub struct Link {
    bandwidth: Option<BitRate>,
    delay: Duration,
    /// When the emulated transmitter is free again.
    busy_until: Instant,
    /// Serialized packets in propagation, with the instant each reaches the socket.
    in_flight: VecDeque<(Instant, Vec<u8>)>,
    /// How many packets at the head of the queue were seen waiting while the transmitter was
    /// busy: each starts when the one before it ends.
    backlog: usize,
}

impl Link {
    pub fn new(cfg: &LinkConfig) -> Self {
        Link {
            bandwidth: cfg
                .bandwidth_mbps
                .map(|m| BitRate((m * 1e6).round().max(1.0) as u64)),
            delay: Duration::from_secs_f64(cfg.delay_ms / 1e3),
            busy_until: Instant::ZERO,
            in_flight: VecDeque::new(),
            backlog: 0,
        }
    }

    /// True when the transmitter may take the next packet off the queue at `now`.
    pub fn free(&self, now: Instant) -> bool {
        self.busy_until <= now
    }

    /// When the transmitter is free again (None: it is free).
    pub fn free_at(&self, now: Instant) -> Option<Instant> {
        (self.busy_until > now).then_some(self.busy_until)
    }

    /// Tells the link how many packets wait in its queue at `now`. Packets seen waiting while
    /// the transmitter is busy start as soon as it is free, one after the other, however late
    /// the next wake-up; an earlier sighting of the head of the queue is kept (those packets
    /// have waited since then).
    pub fn queue_seen(&mut self, now: Instant, waiting: usize) {
        if waiting == 0 {
            self.backlog = 0;
        } else if self.backlog > 0 {
            self.backlog = self.backlog.min(waiting); // the queue may have dropped some
        } else if self.busy_until > now {
            self.backlog = waiting;
        }
    }

    /// Puts a packet on the link at `now`: it starts when the previous one ended if it was
    /// seen waiting for it ([`Link::queue_seen`]), else now.
    pub fn send(&mut self, now: Instant, bytes: Vec<u8>) {
        let start = if self.backlog > 0 {
            self.backlog -= 1;
            self.busy_until
        } else {
            now.max(self.busy_until)
        };
        let tx = self.bandwidth.map_or(Duration::ZERO, |b| {
            b.serialization(u32::try_from(bytes.len()).unwrap_or(u32::MAX))
        });
        self.busy_until = start + tx;
        self.in_flight
            .push_back((self.busy_until + self.delay, bytes));
    }

    /// The next packet that has reached the far end by `now`.
    pub fn arrived(&mut self, now: Instant) -> Option<Vec<u8>> {
        match self.in_flight.front() {
            Some((t, _)) if *t <= now => self.in_flight.pop_front().map(|(_, b)| b),
            _ => None,
        }
    }

    /// When the next packet in flight arrives.
    pub fn next_arrival(&self) -> Option<Instant> {
        self.in_flight.front().map(|(t, _)| *t)
    }

    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A link of 8 Mbit/s (1 000 B serialize in 1 ms) with `delay_ms` of propagation.
    fn link_8mbps(delay_ms: f64) -> Link {
        Link::new(&LinkConfig {
            bandwidth_mbps: Some(8.0),
            delay_ms,
            queue: ndncc_core::face::QueueLimit::Packets(10),
        })
    }

    #[test]
    fn bandwidth_serializes_and_delay_holds() {
        let mut l = link_8mbps(10.0);
        let t0 = Instant(0);
        assert!(l.free(t0));
        l.send(t0, vec![0; 1000]); // 8000 bits at 8 Mbit/s: 1 ms
        assert!(!l.free(t0));
        assert_eq!(l.free_at(t0), Some(Instant(1_000_000)));
        l.send(t0, vec![0; 1000]); // queued behind: leaves at 2 ms
        assert_eq!(l.next_arrival(), Some(Instant(11_000_000)));
        assert!(l.arrived(Instant(10_999_999)).is_none());
        assert!(l.arrived(Instant(11_000_000)).is_some());
        assert!(l.arrived(Instant(11_999_999)).is_none());
        assert!(l.arrived(Instant(12_000_000)).is_some());
    }

    /// A late wake-up does not cost capacity: the packet that waited starts when the one
    /// before it ended; a packet that arrived after the link went idle starts when it is sent.
    #[test]
    fn a_late_wake_up_keeps_the_rate() {
        let mut l = link_8mbps(0.0);
        l.send(Instant(0), vec![0; 1000]); // busy until 1 ms
        l.queue_seen(Instant(500_000), 1); // the next one waits

        // the loop wakes 300 µs late: the packet still leaves at 1 ms, ends at 2 ms
        let late = Instant(1_300_000);
        assert!(l.free(late));
        l.send(late, vec![0; 1000]);
        assert_eq!(l.free_at(late), Some(Instant(2_000_000)));
        // nothing waited: a packet sent at 5 ms starts at 5 ms
        l.queue_seen(Instant(2_000_000), 0);
        l.send(Instant(5_000_000), vec![0; 1000]);
        assert_eq!(l.free_at(Instant(5_000_000)), Some(Instant(6_000_000)));
        // a packet seen only after the link went free starts when it is sent
        l.queue_seen(Instant(7_000_000), 1);
        l.send(Instant(7_200_000), vec![0; 1000]);
        assert_eq!(l.free_at(Instant(7_200_000)), Some(Instant(8_200_000)));
    }

    /// Every packet seen waiting catches up, not only the first: three packets behind a busy
    /// transmitter and a wake-up 3.5 serialization times late still leave back to back.
    #[test]
    fn every_waiting_packet_catches_up_after_a_late_wake_up() {
        let mut l = link_8mbps(0.0);
        l.send(Instant(0), vec![0; 1000]); // busy until 1 ms
        l.queue_seen(Instant(500_000), 3);
        // the late wake-up finds a fourth packet, queued at that wake-up: it starts there
        let late = Instant(4_500_000);
        for (queued, end) in [
            (4, 2_000_000),
            (3, 3_000_000),
            (2, 4_000_000),
            (1, 5_500_000),
        ] {
            l.queue_seen(late, queued); // the daemon looks again before each packet
            assert!(l.free(late));
            l.send(late, vec![0; 1000]);
            assert_eq!(l.busy_until, Instant(end));
        }
    }

    /// Packets the queue dropped after they were seen do not lend their catch-up to a packet
    /// that came later.
    #[test]
    fn dropped_waiting_packets_leave_the_count() {
        let mut l = link_8mbps(0.0);
        l.send(Instant(0), vec![0; 1000]); // busy until 1 ms
        l.queue_seen(Instant(500_000), 3);
        l.queue_seen(Instant(600_000), 1); // two of them dropped by the queue
        let late = Instant(4_500_000);
        l.queue_seen(late, 1);
        l.send(late, vec![0; 1000]); // the one left catches up: 1 → 2 ms
        assert_eq!(l.busy_until, Instant(2_000_000));
        l.queue_seen(late, 1); // queued at the late wake-up: starts there
        l.send(late, vec![0; 1000]);
        assert_eq!(l.busy_until, Instant(5_500_000));
    }

    #[test]
    fn no_emulation_writes_at_once() {
        let mut l = Link::new(&LinkConfig::default());
        l.send(Instant(5), vec![1]);
        assert!(l.free(Instant(5)));
        assert_eq!(l.arrived(Instant(5)), Some(vec![1]));
    }
}
