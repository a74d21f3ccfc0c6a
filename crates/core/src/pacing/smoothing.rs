//! tick(Δ) + smoothing (seed 000 §V.A, seed 002 §IV.A).
//!
//! As [`Tick`], and also, whenever the consumer receives a Data or a Nack (a packet-receive
//! interrupt, which needs no timer), every owed Interest leaves right after the packet is
//! processed. Under a steady flow, arrivals are frequent, so releases are nearly as smooth as
//! with the ideal engine.

use super::{SendingEngine, Tick};
use crate::time::{Duration, Instant, PacketRate};

#[derive(Clone, Debug)]
pub struct Smoothing {
    pub tick: Tick,
}

impl Smoothing {
    pub fn new(interval: Duration) -> Self {
        Smoothing {
            tick: Tick::new(interval),
        }
    }
}

impl SendingEngine for Smoothing {
    fn start(&mut self, now: Instant, rate: PacketRate) {
        self.tick.start(now, rate)
    }
    fn set_rate(&mut self, now: Instant, rate: PacketRate) {
        self.tick.set_rate(now, rate)
    }
    fn poll_timeout(&self) -> Option<Instant> {
        self.tick.poll_timeout()
    }
    fn on_timeout(&mut self, now: Instant) -> u32 {
        self.tick.on_timeout(now)
    }
    fn on_receive(&mut self, now: Instant) -> u32 {
        self.tick.nominal.as_mut().map_or(0, |n| n.take_owed(now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_receive_releases_what_is_owed_and_the_tick_the_rest() {
        let mut e = Smoothing::new(Duration::from_millis(100));
        e.start(Instant(0), PacketRate(100.0)); // one per 10 ms
        assert_eq!(e.on_timeout(Instant(0)), 1);
        // Data at 25 ms: nominal times 10 and 20 ms have passed
        assert_eq!(e.on_receive(Instant(25_000_000)), 2);
        assert_eq!(e.on_receive(Instant(26_000_000)), 0);
        // the tick at 100 ms releases 30, 40, …, 100 ms
        assert_eq!(e.poll_timeout(), Some(Instant(100_000_000)));
        assert_eq!(e.on_timeout(Instant(100_000_000)), 8);
    }

    #[test]
    fn frequent_receives_make_releases_as_smooth_as_the_receives() {
        let mut e = Smoothing::new(Duration::from_millis(50));
        e.start(Instant(0), PacketRate(1000.0));
        e.on_timeout(Instant(0));
        // a Data every ms: one Interest per Data, none left for the tick
        for k in 1..50u64 {
            assert_eq!(e.on_receive(Instant(k * 1_000_000)), 1, "at {k} ms");
        }
        assert_eq!(e.on_timeout(Instant(50_000_000)), 1);
    }
}
