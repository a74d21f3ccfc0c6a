//! The ideal engine (seed 002's "Original"): a timer for every Interest, exact to the
//! nanosecond — release at t_k. This is what ndnSIM does.

use super::{Nominal, SendingEngine};
use crate::time::{Instant, PacketRate};

#[derive(Clone, Debug, Default)]
pub struct Ideal {
    nominal: Option<Nominal>,
}

impl SendingEngine for Ideal {
    fn start(&mut self, now: Instant, rate: PacketRate) {
        self.nominal = Some(Nominal::start(now, rate));
    }
    fn set_rate(&mut self, _now: Instant, rate: PacketRate) {
        if let Some(n) = &mut self.nominal {
            n.set_rate(rate);
        }
    }
    fn poll_timeout(&self) -> Option<Instant> {
        self.nominal.map(|n| n.next_instant())
    }
    fn on_timeout(&mut self, now: Instant) -> u32 {
        self.nominal.as_mut().map_or(0, |n| n.take_owed(now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Drives an engine through its own timer and returns the release instants.
    fn releases(e: &mut impl SendingEngine, until: Instant) -> Vec<Instant> {
        let mut out = Vec::new();
        while let Some(t) = e.poll_timeout() {
            if t > until {
                break;
            }
            for _ in 0..e.on_timeout(t) {
                out.push(t);
            }
        }
        out
    }

    #[test]
    fn releases_exactly_at_nominal_times() {
        let mut e = Ideal::default();
        e.start(Instant(1_000), PacketRate(1000.0));
        let r = releases(&mut e, Instant(4_000_000));
        assert_eq!(
            r,
            vec![
                Instant(1_000),
                Instant(1_001_000),
                Instant(2_001_000),
                Instant(3_001_000)
            ]
        );
    }

    #[test]
    fn rate_change_respaces_from_the_last_nominal_time() {
        let mut e = Ideal::default();
        e.start(Instant(0), PacketRate(1000.0));
        assert_eq!(e.on_timeout(Instant(0)), 1);
        // next was 1 ms; after doubling the rate it is last (0) + 0.5 ms
        e.set_rate(Instant(100), PacketRate(2000.0));
        assert_eq!(e.poll_timeout(), Some(Instant(500_000)));
        // a third of a ms spacing rounds up to whole nanoseconds without drift
        e.set_rate(Instant(100), PacketRate(3000.0));
        let r = releases(&mut e, Instant(1_000_000));
        assert_eq!(
            r,
            vec![Instant(333_334), Instant(666_667), Instant(1_000_000)]
        );
    }
}
