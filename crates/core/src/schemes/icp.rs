//! ICP, the Interest Control Protocol (Carofiglio, Gallo, Muscariello, 2012), the simplest
//! window baseline of seed 001 (`../shared/specs/chopcop.md`, "Baselines"; `docs/schemes/icp.md`).
//!
//! A window W of outstanding Interests:
//!
//! ```text
//! per Data:        W += 1          while W < ssthresh      (slow start, our option)
//!                  W += η / W      otherwise               (additive increase, η = 1)
//! per timeout:     W ← max(W_min, β·W), at most once per τ (β = ½)
//! ```
//!
//! The retransmission timer is a fixed τ (ICP's design: τ must exceed the largest RTT under
//! load, and seed 001 blames ICP's poor results on false timeouts from too small a τ). A
//! timed-out Interest is expressed again. No public code of ICP exists; where its abstract is
//! silent (slow start, one decrease per τ) the choice is a parameter.

use crate::app::controller::{CongestionController, DataSignal, Loss, Target};
use crate::mechanisms::rtt_estimator::RttEstimator;
use crate::schemes::params::{Kind, Problem, SchemeConfig};
use crate::schemes::registry::{ControllerScheme, TargetKind};
use crate::time::{Duration, Instant};

crate::scheme_config! {
    /// ICP consumer settings.
    pub struct IcpConfig {
        /// W at the start.
        initial_window: f64 = 1.0, Kind::number(1.0), "Interests";
        /// Slow start (W += 1 per Data) while W is below this [OPEN: ICP's abstract has no slow
        /// start; 20 chunks as seed 001's RIC]; 0 = none.
        ssthresh: f64 = 20.0, Kind::number(0.0), "Interests";
        /// η: additive increase, W += η/W per Data.
        increase: f64 = 1.0, Kind::number(0.0), "Interests";
        /// β: multiplicative decrease on a timeout.
        decrease: f64 = 0.5, Kind::open_range(0.0, 1.0), "";
        /// W_min: the window never goes below it.
        min_window: f64 = 1.0, Kind::number(1.0), "Interests";
        /// τ: the fixed retransmission timer [OPEN: seed 001 implies a value below its ≈ 400 ms
        /// loaded RTT; 300 ms].
        tau: Duration = Duration::from_millis(300), Kind::POSITIVE_TIME, "time";
        /// At most one decrease per τ [OPEN; true].
        one_decrease_per_tau: bool = true, Kind::Bool, "";
        /// k: τ = k × the consumer's smoothed RTT (RFC 6298's SRTT, one estimator for every
        /// path) once it has a sample, the fixed `tau` before [OPEN: 0 = the fixed τ always;
        /// seed 001 says ICP relies on "a single round trip time (RTT) estimator"].
        tau_srtt_factor: f64 = 0.0, Kind::number(0.0), "";
        /// τ = the consumer's RFC 6298 RTO, SRTT + 4·RTTVAR (clamped to [200 ms, 60 s]), from
        /// one estimator fed by every Interest sent once, whatever path answered it; the fixed
        /// `tau` before the first sample [OPEN: false; seed 001 groups ICP with ICTP as relying
        /// on "a single round trip time (RTT) estimator"].
        tau_rto: bool = false, Kind::Bool, "";
        /// The window's unit [OPEN: 0 = W counts Interests, one per Data or per chunk]. N > 0:
        /// W counts segments and each Interest asks N of them (seed 001's chunks: 32) — ICP's
        /// window of packets over chunk Interests: W / N Interests in flight (at least one),
        /// a complete chunk of n segments steps the window law n times (+1 each while W <
        /// `ssthresh`, +η/W each after), and `initial_window`, `ssthresh` and `min_window` are
        /// in segments.
        window_segments: f64 = 0.0, Kind::number(0.0), "segments";
    }
}

impl SchemeConfig for IcpConfig {
    fn cross_checks(&self) -> Vec<Problem> {
        if self.tau_rto && self.tau_srtt_factor > 0.0 {
            return vec![Problem::new(
                &["tau_rto", "tau_srtt_factor"],
                "tau_rto and tau_srtt_factor both set τ from the RTT estimate".to_string(),
                "set one of them (tau_srtt_factor = 0 or tau_rto = false)".to_string(),
            )];
        }
        Problem::window_below_floor(self.initial_window, self.min_window)
            .into_iter()
            .collect()
    }
}

/// The ICP window controller.
#[derive(Clone, Debug)]
pub struct Icp {
    pub cfg: IcpConfig,
    /// W, Interests in flight.
    pub window: f64,
    /// When the window was last decreased.
    last_decrease: Option<Instant>,
}

impl Icp {
    pub fn new(cfg: IcpConfig) -> Self {
        Icp {
            window: cfg.initial_window,
            cfg,
            last_decrease: None,
        }
    }
}

impl CongestionController for Icp {
    fn target(&self) -> Target {
        if self.cfg.window_segments > 0.0 {
            Target::Window(self.window / self.cfg.window_segments)
        } else {
            Target::Window(self.window)
        }
    }
    fn on_data(&mut self, _now: Instant, sig: &DataSignal) {
        // per Data, or per segment of the chunk when W counts segments
        let steps = if self.cfg.window_segments > 0.0 {
            sig.segments.max(1)
        } else {
            1
        };
        for _ in 0..steps {
            if self.window < self.cfg.ssthresh {
                self.window += 1.0;
            } else {
                self.window += self.cfg.increase / self.window;
            }
        }
    }
    fn on_timeout(&mut self, now: Instant, _seq: u64) {
        let recent = self.cfg.one_decrease_per_tau
            && self
                .last_decrease
                .is_some_and(|t| now.saturating_since(t) < self.cfg.tau);
        if !recent {
            self.window = (self.window * self.cfg.decrease).max(self.cfg.min_window);
            self.last_decrease = Some(now);
        }
    }
    fn rto(&self, rtt: &RttEstimator) -> Option<Duration> {
        match rtt.srtt() {
            Some(_) if self.cfg.tau_rto => Some(rtt.rto()),
            Some(s) if self.cfg.tau_srtt_factor > 0.0 => Some(Duration(
                (s.0 as f64 * self.cfg.tau_srtt_factor).round() as u64,
            )),
            _ => Some(self.cfg.tau),
        }
    }
    fn retransmit(&mut self, _now: Instant, _seq: u64, loss: Loss) -> Option<bool> {
        // ICP re-expresses timed-out Interests; a Nack is left to the consumer's setting
        (loss == Loss::Timeout).then_some(true)
    }
}

impl ControllerScheme for Icp {
    type Config = IcpConfig;
    const NAME: &'static str = "icp";
    const DOC: &'static str = "ICP (Carofiglio et al. 2012, seed 001's baseline): a window of \
        Interests, +1/W per Data, halved on a fixed timer τ, timed-out Interests re-expressed.";
    const TARGET: TargetKind = TargetKind::Window;
    fn build(cfg: &IcpConfig) -> Self {
        Icp::new(cfg.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data() -> DataSignal {
        DataSignal {
            seq: 0,
            rtt: Duration::from_millis(10),
            retransmitted: false,
            marked: false,
            rate_stamp: None,
            class: 0,
            segments: 1,
            marked_segments: 0,
        }
    }

    #[test]
    fn slow_start_then_additive_increase_then_halving() {
        let mut c = Icp::new(IcpConfig {
            ssthresh: 4.0,
            ..Default::default()
        });
        for _ in 0..3 {
            c.on_data(Instant(0), &data());
        }
        assert_eq!(c.window, 4.0);
        c.on_data(Instant(0), &data());
        assert_eq!(c.window, 4.25);
        c.on_timeout(Instant(1_000), 0);
        assert_eq!(c.window, 2.125);
        // a second timeout within τ does not decrease again
        c.on_timeout(Instant(2_000), 1);
        assert_eq!(c.window, 2.125);
        c.on_timeout(Instant(1_000) + c.cfg.tau, 2);
        assert_eq!(c.window, 1.0625);
        c.on_timeout(Instant(1_000) + c.cfg.tau + c.cfg.tau, 3);
        assert_eq!(c.window, 1.0, "never below W_min");
    }

    #[test]
    fn tau_is_fixed_or_a_multiple_of_the_smoothed_rtt() {
        let mut est = RttEstimator::default();
        let fixed = Icp::new(IcpConfig::default());
        let k = Icp::new(IcpConfig {
            tau_srtt_factor: 2.0,
            ..Default::default()
        });
        assert_eq!(k.rto(&est), Some(k.cfg.tau), "before a sample: τ");
        est.add_sample(Duration::from_millis(100));
        assert_eq!(fixed.rto(&est), Some(Duration::from_millis(300)));
        assert_eq!(k.rto(&est), Some(Duration::from_millis(200)));
    }

    #[test]
    fn tau_from_the_rto_of_the_single_estimator() {
        let c = Icp::new(IcpConfig {
            tau_rto: true,
            ..Default::default()
        });
        let mut est = RttEstimator::default();
        assert_eq!(c.rto(&est), Some(c.cfg.tau), "before a sample: τ");
        // 300 ms, then 100 ms: SRTT = 275 ms, RTTVAR = ¾·150 + ¼·200 = 162.5 ms
        est.add_sample(Duration::from_millis(300));
        est.add_sample(Duration::from_millis(100));
        assert_eq!(c.rto(&est), Some(Duration::from_millis(925)));
        // both readings at once are refused
        let both = IcpConfig {
            tau_rto: true,
            tau_srtt_factor: 2.0,
            ..Default::default()
        };
        assert_eq!(both.cross_checks().len(), 1);
        assert!(IcpConfig::default().cross_checks().is_empty());
    }

    /// Two nodes, 10 ms each way: the window grows by 1 per Data to ssthresh, then by 1/W per
    /// Data; the first answer of seq 40 is lost, and at its Interest's deadline (τ after it was
    /// sent) W halves, and seq 40 is asked again.
    #[test]
    fn harness_slow_start_additive_increase_timeout_decrease() {
        use crate::harness::TwoNode;
        use crate::packet::Packet;
        use crate::schemes::registry::Controller;
        use std::cell::Cell;
        use std::rc::Rc;

        let cfg = IcpConfig {
            ssthresh: 4.0,
            tau: Duration::from_millis(100),
            ..Default::default()
        };
        let tau = cfg.tau;
        let mut h = TwoNode::new(
            Controller::Icp(Icp::new(cfg)),
            Duration::from_millis(10),
            1000,
            |_| {},
        );
        let lost_sent = Rc::new(Cell::new(None));
        let seen = lost_sent.clone();
        let mut dropped = false;
        h.drop_when(move |now, p| match p {
            Packet::Interest(i) if i.name.seq == Some(40) && seen.get().is_none() => {
                seen.set(Some(now));
                false
            }
            // the first answer of seq 40 only: its retransmission gets through
            Packet::Data(d) if d.name.seq == Some(40) && !dropped => {
                dropped = true;
                true
            }
            _ => false,
        });
        let mut trace: Vec<(Instant, f64)> = Vec::new();
        h.run_until(Instant(Duration::from_secs(1).0), |h| {
            let w = h.consumer().target_window().unwrap();
            if trace.last().is_none_or(|&(_, last)| last != w) {
                trace.push((h.now, w));
            }
        });
        // slow start: 1 → 2 → 3 → 4 one Data at a time, the first Data after one RTT (20 ms)
        assert_eq!(trace[0], (Instant::ZERO, 1.0));
        assert_eq!(trace[1], (Instant(Duration::from_millis(20).0), 2.0));
        assert_eq!(trace[2].1, 3.0);
        assert_eq!(trace[3].1, 4.0);
        // additive increase: W += 1/W per Data, until the loss
        let sent = lost_sent.get().expect("seq 40 was sent");
        let deadline = sent + tau;
        let cut = (1..trace.len())
            .find(|&i| trace[i].1 < trace[i - 1].1)
            .expect("a decrease");
        assert_eq!(
            trace[cut].0, deadline,
            "W halves at the lost Interest's deadline"
        );
        for pair in trace[3..cut].windows(2) {
            let (w0, w1) = (pair[0].1, pair[1].1);
            assert!((w1 - (w0 + 1.0 / w0)).abs() < 1e-9, "{w0} -> {w1}");
        }
        // the timeout halves W at the deadline of the lost Interest, and only once
        assert_eq!(trace[cut].1, trace[cut - 1].1 / 2.0);
        assert!(trace[cut + 1..].iter().all(|&(_, w)| w > trace[cut].1));
        assert_eq!(h.consumer().stats.timeouts, 1);
        assert_eq!(h.consumer().stats.retransmissions, 1, "ICP re-expresses it");
    }

    /// W in segments over chunks of 32: a complete chunk steps the law once per segment (slow
    /// start to `ssthresh`, then +1/W each), the consumer is asked for W / 32 chunk Interests,
    /// and a timeout halves W (in segments).
    #[test]
    fn a_window_of_segments_over_chunk_interests() {
        let mut c = Icp::new(IcpConfig {
            window_segments: 32.0,
            ..Default::default()
        });
        assert_eq!(
            c.target(),
            Target::Window(1.0 / 32.0),
            "one segment: one chunk Interest"
        );
        let chunk = DataSignal {
            segments: 32,
            ..data()
        };
        c.on_data(Instant(0), &chunk);
        // 19 steps of +1 (1 → 20), then 13 of +1/W
        let mut w = 20.0;
        for _ in 0..13 {
            w += 1.0 / w;
        }
        assert!((c.window - w).abs() < 1e-12, "{} vs {w}", c.window);
        assert_eq!(c.target(), Target::Window(w / 32.0));
        c.on_timeout(Instant(1), 0);
        assert_eq!(c.window, w / 2.0);
        // the default counts one step per signal, whatever the chunk's segments
        let mut d = Icp::new(IcpConfig::default());
        d.on_data(Instant(0), &chunk);
        assert_eq!(d.window, 2.0);
        assert_eq!(d.target(), Target::Window(2.0));
    }

    #[test]
    fn asks_for_its_timer_and_retransmission() {
        let mut c = Icp::new(IcpConfig::default());
        assert_eq!(
            c.rto(&RttEstimator::default()),
            Some(Duration::from_millis(300))
        );
        assert_eq!(c.retransmit(Instant(0), 0, Loss::Timeout), Some(true));
        assert_eq!(c.retransmit(Instant(0), 0, Loss::Nack), None);
    }
}
