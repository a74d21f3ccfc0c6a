//! Per-face user-space link emulation of the outgoing direction: the core's transmit queue
//! (drop-tail, `queue_packets`) is drained at the face's bandwidth, and each packet then spends
//! the propagation delay in flight before it is written to the socket. Without a bandwidth the
//! queue drains as fast as packets come; without a delay they are written at once.

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

    /// Puts a packet on the link at `now`.
    pub fn send(&mut self, now: Instant, bytes: Vec<u8>) {
        let start = now.max(self.busy_until);
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

    #[test]
    fn bandwidth_serializes_and_delay_holds() {
        let cfg = LinkConfig {
            bandwidth_mbps: Some(8.0),
            delay_ms: 10.0,
            queue_packets: 10,
        };
        let mut l = Link::new(&cfg);
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

    #[test]
    fn no_emulation_writes_at_once() {
        let mut l = Link::new(&LinkConfig::default());
        l.send(Instant(5), vec![1]);
        assert!(l.free(Instant(5)));
        assert_eq!(l.arrived(Instant(5)), Some(vec![1]));
    }
}
