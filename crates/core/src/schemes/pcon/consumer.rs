//! ndnSIM's `ConsumerPcon` (`apps/ndn-consumer-pcon.cpp`, ndnSIM 2.8) as a window controller,
//! `controller = "pcon"` (`../shared/specs/sieve.md`, "Consumer").
//!
//! ```text
//! unmarked Data:  AIMD   W += 1 while W < ssthresh, else W += 1/W
//!                 CUBIC  W += 1 while W < ssthresh, else W += max(0, W_cubic(t) − W)/W,
//!                        W_cubic(t) = C·(t − K)³ + W_max,  K = ∛(W_max·(1 − β_c)/C),
//!                        t = time since the last decrease
//! marked Data or timeout, only if highData > recPoint (conservative window adaptation):
//!                 recPoint = seq_next + s·(seq_next − highData)          (s = 0.5)
//!                 AIMD   ssthresh = β·W, W = ssthresh                     (β = 0.5)
//!                 CUBIC  W_max = W, ssthresh = max(β_c·W, W_0), W = ssthresh (β_c = 0.8)
//!                 then W ≥ W_0 (the initial window)
//! ```
//!
//! `seq_next` is the next new sequence number (ndnSIM's `m_seq`), `highData` the highest
//! sequence number answered. A marked Data neither grows the window nor is sent again; a
//! timeout takes the same gated decrease and the Interest is sent again. Timeouts, the RTO,
//! re-sends, late Data and the in-flight count compared with W are ndnSIM's consumer
//! machinery, shared with `ndnsim-cbr` ([`crate::app::ndnsim`]); every Data that reaches the
//! consumer counts for the window, a late one (after its timeout) included.

use crate::app::controller::{CongestionController, DataSignal, Loss, NackSignal, Target};
use crate::app::ndnsim::NdnsimRetxConfig;
use crate::schemes::params::{Kind, Problem, SchemeConfig};
use crate::schemes::registry::{ControllerScheme, TargetKind};
use crate::time::{Duration, Instant};

crate::scheme_config! {
    /// ndnSIM ConsumerPcon settings (its attribute defaults).
    pub struct ConsumerPconConfig {
        /// W_0: the initial window, also its floor (ndnSIM `Window`: 1).
        initial_window: f64 = 1.0, Kind::number(1.0), "Interests";
        /// CUBIC window law instead of AIMD (ndnSIM `CcAlgorithm`: AIMD).
        cubic: bool = false, Kind::Bool, "";
        /// β: AIMD multiplicative decrease (ndnSIM `Beta`: 0.5).
        beta: f64 = 0.5, Kind::open_range(0.0, 1.0), "";
        /// β_c: CUBIC multiplicative decrease (ndnSIM `CubicBeta`: 0.8).
        cubic_beta: f64 = 0.8, Kind::open_range(0.0, 1.0), "";
        /// C: CUBIC's scaling constant (ndnSIM `CUBIC_C`: 0.4).
        cubic_c: f64 = 0.4, Kind::Positive, "";
        /// CUBIC fast convergence (ndnSIM `UseCubicFastConvergence`: false, though its docs say
        /// on).
        cubic_fast_convergence: bool = false, Kind::Bool, "";
        /// s: recPoint = seq_next + s·(seq_next − highData) (ndnSIM `AddRttSuppress`: 0.5).
        add_rtt_suppress: f64 = 0.5, Kind::number(0.0), "";
        /// Conservative window adaptation: at most one decrease per window of Data (ndnSIM
        /// `UseCwa`: true).
        use_cwa: bool = true, Kind::Bool, "";
        /// React to congestion marks (ndnSIM `ReactToCongestionMarks`: true).
        react_to_marks: bool = true, Kind::Bool, "";
        /// The RTT estimate before the first sample (ndnSIM: 1 s).
        initial_rtt: Duration = Duration::from_secs(1), Kind::POSITIVE_TIME, "time";
        /// The RTO's floor per unit of back-off (ndnSIM `MinRTO`: 200 ms).
        min_rto: Duration = Duration::from_millis(200), Kind::POSITIVE_TIME, "time";
        /// The RTO's ceiling (ndnSIM `MaxRTO`: 200 s).
        max_rto: Duration = Duration::from_secs(200), Kind::POSITIVE_TIME, "time";
        /// The largest back-off multiplier m (ndnSIM: 64).
        max_multiplier: u32 = 64, Kind::Integer { min: 1, max: 1 << 20 }, "";
        /// ndnSIM's `RetxTimer`: every this often (from the start of the run) the consumer
        /// declares timed out the Interests with now − sent ≥ the RTO read at that check
        /// (ndnSIM: 50 ms).
        retx_timer: Duration = Duration::from_millis(50), Kind::PERIOD, "time";
    }
}

impl SchemeConfig for ConsumerPconConfig {
    fn cross_checks(&self) -> Vec<Problem> {
        if self.min_rto > self.max_rto {
            return vec![Problem::new(
                &["max_rto", "min_rto"],
                format!(
                    "min_rto ({} s) is above max_rto ({} s)",
                    self.min_rto.as_secs_f64(),
                    self.max_rto.as_secs_f64()
                ),
                "set min_rto at most max_rto",
            )];
        }
        Vec::new()
    }
}

/// The ConsumerPcon window controller.
#[derive(Clone, Debug)]
pub struct ConsumerPcon {
    pub cfg: ConsumerPconConfig,
    /// W.
    pub window: f64,
    pub ssthresh: f64,
    /// The next new sequence number (ndnSIM `m_seq`).
    pub seq_next: u64,
    /// The highest sequence number answered by Data.
    pub high_data: u64,
    /// No decrease until `high_data` passes it.
    pub rec_point: f64,
    pub cubic_wmax: f64,
    cubic_last_wmax: f64,
    /// When the window was last decreased (the run's start before any decrease).
    cubic_last_decrease: Instant,
    /// Decreases made, and those the conservative window adaptation suppressed.
    pub decreases: u64,
    pub suppressed: u64,
}

impl ConsumerPcon {
    pub fn new(cfg: ConsumerPconConfig) -> Self {
        ConsumerPcon {
            window: cfg.initial_window,
            ssthresh: f64::INFINITY,
            seq_next: 0,
            high_data: 0,
            rec_point: 0.0,
            cubic_wmax: 0.0,
            cubic_last_wmax: 0.0,
            cubic_last_decrease: Instant::ZERO,
            decreases: 0,
            suppressed: 0,
            cfg,
        }
    }

    fn increase(&mut self, now: Instant) {
        if self.window < self.ssthresh {
            self.window += 1.0;
        } else if !self.cfg.cubic {
            self.window += 1.0 / self.window;
        } else {
            let c = self.cfg.cubic_c;
            let t = now.saturating_since(self.cubic_last_decrease).as_secs_f64();
            let k = (self.cubic_wmax * (1.0 - self.cfg.cubic_beta) / c).cbrt();
            let w_cubic = c * (t - k).powi(3) + self.cubic_wmax;
            self.window += (w_cubic - self.window).max(0.0) / self.window;
        }
    }

    /// The gated decrease (a marked Data or a timeout).
    fn decrease(&mut self, now: Instant) {
        if self.cfg.use_cwa && self.high_data as f64 <= self.rec_point {
            self.suppressed += 1;
            return;
        }
        let diff = self.seq_next.saturating_sub(self.high_data) as f64;
        self.rec_point = self.seq_next as f64 + self.cfg.add_rtt_suppress * diff;
        let w0 = self.cfg.initial_window;
        if self.cfg.cubic {
            let fast = self.cfg.cubic_fast_convergence;
            if fast && self.window < self.cubic_last_wmax * (1.0 - 0.01) {
                self.cubic_last_wmax = self.window;
                self.cubic_wmax = self.window * (1.0 + self.cfg.cubic_beta) / 2.0;
            } else {
                self.cubic_last_wmax = self.window;
                self.cubic_wmax = self.window;
            }
            self.ssthresh = (self.window * self.cfg.cubic_beta).max(w0);
            self.window = self.ssthresh;
            self.cubic_last_decrease = now;
        } else {
            self.ssthresh = self.window * self.cfg.beta;
            self.window = self.ssthresh;
        }
        self.window = self.window.max(w0);
        self.decreases += 1;
    }
}

impl CongestionController for ConsumerPcon {
    fn target(&self) -> Target {
        Target::Window(self.window)
    }
    fn on_send(&mut self, _now: Instant, seq: u64, _retransmission: bool) {
        self.seq_next = self.seq_next.max(seq + 1);
    }
    fn on_data(&mut self, now: Instant, sig: &DataSignal) {
        self.high_data = self.high_data.max(sig.seq);
        if !sig.marked {
            self.increase(now);
        }
    }
    fn on_mark(&mut self, now: Instant, _sig: &DataSignal) {
        if self.cfg.react_to_marks {
            self.decrease(now);
        }
    }
    /// The gated decrease; the consumer's machinery doubles the RTO multiplier.
    fn on_timeout(&mut self, now: Instant, _seq: u64) {
        self.decrease(now);
    }
    fn ndnsim_retx(&self) -> Option<NdnsimRetxConfig> {
        Some(NdnsimRetxConfig {
            retx_timer: self.cfg.retx_timer,
            initial_rtt: self.cfg.initial_rtt,
            min_rto: self.cfg.min_rto,
            max_rto: self.cfg.max_rto,
            max_multiplier: self.cfg.max_multiplier,
        })
    }
    /// A Nack changes nothing (ndnSIM ignores it; the consumer keeps the Interest outstanding).
    fn on_nack(&mut self, _now: Instant, _sig: &NackSignal) {}
    fn retransmit(&mut self, _now: Instant, _seq: u64, loss: Loss) -> Option<bool> {
        // ndnSIM's consumer re-expresses timed-out Interests; a Nack: the consumer's setting
        (loss == Loss::Timeout).then_some(true)
    }
}

impl ControllerScheme for ConsumerPcon {
    type Config = ConsumerPconConfig;
    const NAME: &'static str = "pcon";
    const DOC: &'static str = "ndnSIM's ConsumerPcon: an AIMD or CUBIC window, one decrease per \
        window of Data on a congestion mark or a timeout (conservative window adaptation), \
        ndnSIM 2.8's timeouts and re-sends (checks every RetxTimer against its RTO).";
    const TARGET: TargetKind = TargetKind::Window;
    fn build(cfg: &ConsumerPconConfig) -> Self {
        ConsumerPcon::new(cfg.clone())
    }
}

#[cfg(test)]
#[path = "consumer_tests.rs"]
mod tests;
