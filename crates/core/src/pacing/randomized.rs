//! Randomized sending (ndnSIM's `ConsumerCbr` with `Randomize`): a timer for every Interest, as
//! the ideal engine, but the gap to the next one is drawn afresh after every send, with mean
//! 1/r:
//!
//! * **uniform**: a gap uniform in [0, 2/r];
//! * **exponential**: an exponential gap of mean 1/r (Poisson sending), cut at 50/r as ndnSIM
//!   bounds it.
//!
//! Perfectly periodic senders sharing a drop-tail queue phase-lock (one of them always arrives
//! just after the queue filled); random gaps break that. A rate change takes effect from the
//! next gap on: the send already scheduled keeps its time, as in ndnSIM.

use super::{safe_interval_ns, SendingEngine};
use crate::rng::RngStream;
use crate::time::{Instant, PacketRate};

/// The distribution of the gaps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GapDist {
    Uniform,
    Exponential,
}

/// ndnSIM's bound on an exponential gap, in mean gaps.
const EXP_BOUND: f64 = 50.0;

#[derive(Clone, Debug)]
pub struct Randomized {
    pub dist: GapDist,
    rng: RngStream,
    /// Current mean gap 1/r (ns).
    interval_ns: f64,
    /// Time of the next send (ns); `None` before `start`.
    next_ns: Option<f64>,
}

impl Randomized {
    pub fn new(dist: GapDist, rng: RngStream) -> Self {
        Randomized {
            dist,
            rng,
            interval_ns: f64::INFINITY,
            next_ns: None,
        }
    }

    fn gap_ns(&mut self) -> f64 {
        let u = self.rng.uniform();
        match self.dist {
            GapDist::Uniform => 2.0 * u * self.interval_ns,
            GapDist::Exponential => (-(1.0 - u).ln()).min(EXP_BOUND) * self.interval_ns,
        }
    }
}

impl SendingEngine for Randomized {
    fn start(&mut self, now: Instant, rate: PacketRate) {
        self.interval_ns = safe_interval_ns(rate);
        self.next_ns = Some(now.0 as f64);
    }

    fn set_rate(&mut self, _now: Instant, rate: PacketRate) {
        self.interval_ns = safe_interval_ns(rate);
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.next_ns.map(|t| Instant(t.max(0.0).ceil() as u64))
    }

    fn on_timeout(&mut self, now: Instant) -> u32 {
        let Some(mut next) = self.next_ns else {
            return 0;
        };
        let mut n = 0;
        // gaps shorter than a nanosecond (or a late wake-up) release several at once
        while next <= now.0 as f64 {
            n += 1;
            next += self.gap_ns();
        }
        self.next_ns = Some(next);
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamKind;

    fn gaps(dist: GapDist, seed: u64, n: usize) -> Vec<f64> {
        let mut e = Randomized::new(dist, RngStream::new(seed, 0, StreamKind::App, 7));
        e.start(Instant(0), PacketRate(1000.0));
        let mut sends = Vec::new();
        while sends.len() < n {
            let t = e.poll_timeout().unwrap();
            for _ in 0..e.on_timeout(t) {
                sends.push(t.0 as f64);
            }
        }
        sends.windows(2).map(|w| (w[1] - w[0]) / 1e6).collect() // ms
    }

    fn mean_and_cv(x: &[f64]) -> (f64, f64) {
        let m = x.iter().sum::<f64>() / x.len() as f64;
        let var = x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / x.len() as f64;
        (m, var.sqrt() / m)
    }

    #[test]
    fn uniform_gaps_average_one_over_the_rate_within_twice_that() {
        let g = gaps(GapDist::Uniform, 1, 50_000);
        let (m, cv) = mean_and_cv(&g);
        assert!((m - 1.0).abs() < 0.01, "mean {m} ms");
        // U(0, 2): coefficient of variation 1/√3
        assert!((cv - 1.0 / 3f64.sqrt()).abs() < 0.01, "cv {cv}");
        assert!(g.iter().all(|&x| (0.0..=2.0).contains(&x)));
    }

    #[test]
    fn exponential_gaps_are_poisson_sending_bounded_at_fifty_means() {
        let g = gaps(GapDist::Exponential, 2, 50_000);
        let (m, cv) = mean_and_cv(&g);
        assert!((m - 1.0).abs() < 0.02, "mean {m} ms");
        assert!((cv - 1.0).abs() < 0.03, "cv {cv}");
        assert!(g.iter().all(|&x| x <= 50.0 + 1e-6));
    }

    #[test]
    fn same_stream_same_gaps_other_seed_other_gaps() {
        assert_eq!(
            gaps(GapDist::Uniform, 3, 100),
            gaps(GapDist::Uniform, 3, 100)
        );
        assert_ne!(
            gaps(GapDist::Uniform, 3, 100),
            gaps(GapDist::Uniform, 4, 100)
        );
    }

    #[test]
    fn a_rate_change_applies_from_the_next_gap() {
        let mut e = Randomized::new(GapDist::Uniform, RngStream::new(1, 0, StreamKind::App, 7));
        e.start(Instant(0), PacketRate(1000.0));
        assert_eq!(e.on_timeout(Instant(0)), 1);
        let scheduled = e.poll_timeout();
        e.set_rate(Instant(10), PacketRate(1e6));
        assert_eq!(e.poll_timeout(), scheduled);
        let t = scheduled.unwrap();
        e.on_timeout(t);
        // the gap after it is drawn at 1e6/s: at most 2 µs
        assert!(e.poll_timeout().unwrap().0 - t.0 <= 2_000);
    }
}
