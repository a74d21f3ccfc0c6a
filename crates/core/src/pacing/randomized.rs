//! Randomized sending (ndnSIM's `ConsumerCbr` with `Randomize`): a timer for every Interest, as
//! the ideal engine, but the gap to the next one is drawn afresh after every send, with mean
//! 1/r:
//!
//! * **uniform**: a gap uniform in [0, 2/r];
//! * **exponential**: an exponential gap of mean 1/r (Poisson sending), cut at 50/r as ndnSIM
//!   bounds it.
//!
//! Perfectly periodic senders sharing a drop-tail queue phase-lock (one of them always arrives
//! just after the queue filled); random gaps break that. Each gap is drawn as a unit gap g
//! (mean 1) times 1/r; a rate change re-spaces the pending gap from the last send with the same
//! g — next = last + g/r_new — as the nominal schedule of the other engines re-spaces from the
//! last nominal time, so a sender whose rate rises (an AIMD or MIRCC controller) does not wait
//! out a gap drawn at the old rate. (ndnSIM's ConsumerCbr never changes its rate.)

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
/// The longest gap (ns), as the nominal schedule's longest spacing.
const MAX_GAP_NS: f64 = 1e18;

#[derive(Clone, Debug)]
pub struct Randomized {
    pub dist: GapDist,
    rng: RngStream,
    /// Current mean gap 1/r (ns).
    interval_ns: f64,
    /// Time of the next send (ns); `None` before `start`.
    next_ns: Option<f64>,
    /// The last send (ns) and the unit gap drawn after it; `None` before the first send.
    last: Option<(f64, f64)>,
}

impl Randomized {
    pub fn new(dist: GapDist, rng: RngStream) -> Self {
        Randomized {
            dist,
            rng,
            interval_ns: f64::INFINITY,
            next_ns: None,
            last: None,
        }
    }

    /// A gap of mean 1: U(0, 2) or Exp(1) cut at 50.
    fn unit_gap(&mut self) -> f64 {
        let u = self.rng.uniform();
        match self.dist {
            GapDist::Uniform => 2.0 * u,
            GapDist::Exponential => (-(1.0 - u).ln()).min(EXP_BOUND),
        }
    }

    fn next_after(&self, last_ns: f64, unit: f64) -> f64 {
        last_ns + (unit * self.interval_ns).min(MAX_GAP_NS)
    }
}

impl SendingEngine for Randomized {
    fn start(&mut self, now: Instant, rate: PacketRate) {
        self.interval_ns = safe_interval_ns(rate);
        self.next_ns = Some(now.0 as f64);
        self.last = None;
    }

    fn set_rate(&mut self, _now: Instant, rate: PacketRate) {
        self.interval_ns = safe_interval_ns(rate);
        if let Some((last_ns, unit)) = self.last {
            self.next_ns = Some(self.next_after(last_ns, unit));
        }
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
            let unit = self.unit_gap();
            self.last = Some((next, unit));
            next = self.next_after(next, unit);
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
    fn a_rate_change_respaces_the_pending_gap_from_the_last_send() {
        let mut e = Randomized::new(
            GapDist::Exponential,
            RngStream::new(1, 0, StreamKind::App, 7),
        );
        e.start(Instant(0), PacketRate(1000.0));
        assert_eq!(e.on_timeout(Instant(0)), 1);
        let gap = e.poll_timeout().unwrap().0 as f64;
        // ten times the rate: the same unit gap, a tenth as long, from the same last send
        e.set_rate(Instant(10), PacketRate(10_000.0));
        let respaced = e.poll_timeout().unwrap().0 as f64;
        assert!((respaced - gap / 10.0).abs() <= 1.0, "{gap} -> {respaced}");
        // and back: the original gap
        e.set_rate(Instant(20), PacketRate(1000.0));
        assert!((e.poll_timeout().unwrap().0 as f64 - gap).abs() <= 1.0);
    }

    #[test]
    fn a_zero_rate_waits_at_most_the_longest_gap() {
        for seed in 0..200 {
            let mut e = Randomized::new(
                GapDist::Exponential,
                RngStream::new(seed, 0, StreamKind::App, 7),
            );
            e.start(Instant(0), PacketRate(0.0));
            assert_eq!(e.on_timeout(Instant(0)), 1);
            assert!(e.poll_timeout().unwrap().0 <= 1_000_000_000_000_000_000);
        }
    }
}
