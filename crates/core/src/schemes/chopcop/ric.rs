//! RIC — Receiver Interest Control, CHoPCoP's consumer (seed 001 §III.C, §IV;
//! `../shared/specs/chopcop.md`; `docs/schemes/chopcop.md`).
//!
//! A window W of outstanding chunk Interests (one Interest per 32-segment chunk, chunked fetch):
//!
//! ```text
//! per complete chunk, unmarked:  W += 1                 slow start, until W ≥ ssthresh (20)
//!                                W += α every W chunks  congestion avoidance (α = 1)
//! per marked chunk:              W ← β·W, β = β₂ − (β₂ − β₁)·N_marked/N   (β₁ = ½, β₂ = 0.8)
//! per timeout:                   W ← β₀·W                                 (β₀ = ½)
//! R̄TT ← σ·R̄TT + (1 − σ)·RTT (σ = 0.7);  timeout = δ·R̄TT (δ = 6)
//! ```
//!
//! The first congestion ends slow start for good (the seed: "after W reaches a threshold, or
//! when the network is congested, the receiver starts the congestion avoidance phase"); with
//! `timeout_slow_start` a timeout's reduction leaves slow start on while W < ssthresh. At most
//! one reduction per R̄TT [OPEN]. A timed-out chunk is asked again for its missing offsets (the
//! consumer's chunked fetch does the bookkeeping; RIC says "retransmit").

use crate::app::controller::{CongestionController, DataSignal, Loss, Target};
use crate::mechanisms::rtt_estimator::RttEstimator;
use crate::schemes::params::{Kind, Problem, SchemeConfig};
use crate::schemes::registry::{ControllerScheme, TargetKind};
use crate::time::{Duration, Instant};
use rustc_hash::FxHashMap;

crate::scheme_config! {
    /// RIC (CHoPCoP's consumer) settings; defaults are seed 001's values.
    pub struct RicConfig {
        /// W at the start [OPEN: 1 chunk].
        initial_window: f64 = 1.0, Kind::number(1.0), "chunks";
        /// ssthresh: slow start (W += 1 per chunk) ends when W reaches it (seed 001: 20).
        ssthresh: f64 = 20.0, Kind::number(1.0), "chunks";
        /// α: additive increase, W += α every W chunks received (seed 001: 1).
        alpha: f64 = 1.0, Kind::number(0.0), "chunks";
        /// β₀: multiplicative decrease on a timeout (seed 001: 0.5).
        beta0: f64 = 0.5, Kind::open_range(0.0, 1.0), "";
        /// β₁: the decrease of a chunk whose every packet is marked (seed 001: 0.5).
        beta1: f64 = 0.5, Kind::open_range(0.0, 1.0), "";
        /// β₂: the decrease as the share of marked packets tends to 0 (seed 001: 0.8).
        beta2: f64 = 0.8, Kind::open_range(0.0, 1.0), "";
        /// σ: weight of the old average in R̄TT ← σ·R̄TT + (1 − σ)·RTT (seed 001: 0.7).
        sigma: f64 = 0.7, Kind::range(0.0, 1.0), "";
        /// δ: timeout = δ·R̄TT (seed 001: 6; 2 in the small-timeout run).
        delta: f64 = 6.0, Kind::Number { min: 0.0, min_open: true, max: None, max_closed: false }, "";
        /// The timeout before the first RTT sample [OPEN: 1 s, RFC 6298's initial RTO].
        initial_timeout: Duration = Duration::from_secs(1), Kind::POSITIVE_TIME, "time";
        /// W_min: the window never goes below it [OPEN: 1].
        min_window: f64 = 1.0, Kind::number(1.0), "chunks";
        /// At most one reduction per R̄TT: a congestion signal within R̄TT of the last reduction
        /// is ignored [OPEN: seed 001 is silent; true].
        one_reduction_per_rtt: bool = true, Kind::Bool, "";
        /// A re-asked chunk gives an RTT sample too, measured from its first Interest to its
        /// completion [OPEN: seed 001 names no Karn rule; false = Karn's rule, chunks asked once
        /// only give samples]. Under Karn, R̄TT at δ = 2 never learns the far source's round
        /// trip (every chunk from it times out); the reproduction reports both.
        sample_reasked: bool = false, Kind::Bool, "";
        /// After a timeout's reduction, slow start resumes while W < ssthresh (a marked chunk
        /// still ends it for good) [OPEN reading: false = seed 001's text, "when the network is
        /// congested, the receiver starts the congestion avoidance phase"; true = TCP's habit
        /// of slow start after a timeout, with W ← β₀·W instead of 1]. Table II's δ = 2 run is
        /// reported with it.
        timeout_slow_start: bool = false, Kind::Bool, "";
    }
}

impl SchemeConfig for RicConfig {
    fn cross_checks(&self) -> Vec<Problem> {
        let mut p = Vec::new();
        if self.beta1 > self.beta2 {
            p.push(Problem::new(
                &["beta1", "beta2"],
                format!(
                    "beta1 ({}) is above beta2 ({}): more marks would decrease less",
                    self.beta1, self.beta2
                ),
                "set beta1 at most beta2".to_string(),
            ));
        }
        p.extend(Problem::window_below_floor(
            self.initial_window,
            self.min_window,
        ));
        p
    }
}

/// The RIC window controller.
#[derive(Clone, Debug)]
pub struct Ric {
    pub cfg: RicConfig,
    /// W, chunk Interests in flight.
    pub window: f64,
    /// In slow start (until ssthresh or the first congestion).
    pub slow_start: bool,
    /// Unmarked chunks received since the last additive increase (or reduction).
    since_increase: u32,
    /// R̄TT in ns, `None` before the first sample.
    avg_rtt: Option<f64>,
    last_reduction: Option<Instant>,
    /// Reductions applied (timeouts and marked chunks), and congestion signals ignored within
    /// one R̄TT of a reduction.
    pub reductions: u64,
    pub ignored: u64,
    /// When each chunk in flight was first asked (kept only with `sample_reasked`).
    first_sent: FxHashMap<u64, Instant>,
}

impl Ric {
    pub fn new(cfg: RicConfig) -> Self {
        Ric {
            window: cfg.initial_window,
            slow_start: cfg.initial_window < cfg.ssthresh,
            since_increase: 0,
            avg_rtt: None,
            last_reduction: None,
            reductions: 0,
            ignored: 0,
            first_sent: FxHashMap::default(),
            cfg,
        }
    }

    /// R̄TT, `None` before the first sample.
    pub fn avg_rtt(&self) -> Option<Duration> {
        self.avg_rtt.map(|r| Duration(r.round() as u64))
    }

    /// β of a chunk with `marked` of its `n` packets marked: β₂ − (β₂ − β₁)·marked/n.
    pub fn mark_beta(&self, marked: u32, n: u32) -> f64 {
        let share = f64::from(marked) / f64::from(n.max(1));
        self.cfg.beta2 - (self.cfg.beta2 - self.cfg.beta1) * share.min(1.0)
    }

    /// R̄TT ← σ·R̄TT + (1 − σ)·RTT (the first sample sets it).
    fn add_rtt(&mut self, rtt: Duration) {
        let r = rtt.0 as f64;
        self.avg_rtt = Some(match self.avg_rtt {
            None => r,
            Some(a) => self.cfg.sigma * a + (1.0 - self.cfg.sigma) * r,
        });
    }

    fn increase(&mut self) {
        if self.slow_start {
            self.window += 1.0;
            if self.window >= self.cfg.ssthresh {
                self.slow_start = false;
                self.since_increase = 0;
            }
        } else {
            self.since_increase += 1;
            if f64::from(self.since_increase) >= self.window {
                self.window += self.cfg.alpha;
                self.since_increase = 0;
            }
        }
    }

    /// W ← max(W_min, β·W), unless within one R̄TT of the last reduction. True if applied.
    fn reduce(&mut self, now: Instant, beta: f64) -> bool {
        let recent = self.cfg.one_reduction_per_rtt
            && match (self.last_reduction, self.avg_rtt()) {
                (Some(t), Some(rtt)) => now.saturating_since(t) < rtt,
                _ => false,
            };
        if recent {
            self.ignored += 1;
            return false;
        }
        self.window = (beta * self.window).max(self.cfg.min_window);
        self.slow_start = false;
        self.since_increase = 0;
        self.last_reduction = Some(now);
        self.reductions += 1;
        true
    }
}

impl CongestionController for Ric {
    fn target(&self) -> Target {
        Target::Window(self.window)
    }
    fn on_send(&mut self, now: Instant, seq: u64, retransmission: bool) {
        // only `sample_reasked` reads the first sends: Karn's rule keeps no table
        if self.cfg.sample_reasked && !retransmission {
            self.first_sent.insert(seq, now);
        }
    }
    /// One complete chunk: an RTT sample (a re-asked chunk's from its first Interest, or none
    /// under Karn's rule), then an increase, or the decrease of a marked chunk (which then
    /// brings no increase).
    fn on_data(&mut self, now: Instant, sig: &DataSignal) {
        let first = self.first_sent.remove(&sig.seq);
        if !sig.retransmitted {
            self.add_rtt(sig.rtt);
        } else if let (true, Some(t)) = (self.cfg.sample_reasked, first) {
            self.add_rtt(now.saturating_since(t));
        }
        if sig.marked_segments > 0 {
            let beta = self.mark_beta(sig.marked_segments, sig.segments);
            self.reduce(now, beta);
        } else {
            self.increase();
        }
    }
    /// W ← β₀·W (unless within R̄TT of the last reduction); with `timeout_slow_start`, slow
    /// start resumes if W is below ssthresh.
    fn on_timeout(&mut self, now: Instant, _seq: u64) {
        if self.reduce(now, self.cfg.beta0) && self.cfg.timeout_slow_start {
            self.slow_start = self.window < self.cfg.ssthresh;
        }
    }
    fn rto(&self, _rtt: &RttEstimator) -> Option<Duration> {
        Some(match self.avg_rtt {
            Some(a) => Duration((self.cfg.delta * a).round() as u64),
            None => self.cfg.initial_timeout,
        })
    }
    fn retransmit(&mut self, _now: Instant, _seq: u64, loss: Loss) -> Option<bool> {
        // re-ask a timed-out chunk (for its missing offsets); Nacks: the consumer's setting
        (loss == Loss::Timeout).then_some(true)
    }
}

impl ControllerScheme for Ric {
    type Config = RicConfig;
    const NAME: &'static str = "chopcop";
    const DOC: &'static str = "CHoPCoP's RIC (Zhang et al. 2014, seed 001): a window of chunk \
        Interests, slow start to 20 then +α every W chunks, ×β₀ on a timeout, \
        ×(β₂ − (β₂ − β₁)·N_marked/N) on a marked chunk, timeout δ·R̄TT; use with \
        chunk_segments.";
    const TARGET: TargetKind = TargetKind::Window;
    fn build(cfg: &RicConfig) -> Self {
        Ric::new(cfg.clone())
    }
}

#[cfg(test)]
#[path = "ric_tests.rs"]
mod tests;
