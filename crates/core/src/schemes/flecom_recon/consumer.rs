//! FleCom-recon's consumer (`controller = "flecom-recon"`) [OURS throughout]: consumers
//! "moderately constrain the size of cwnd" (abstract) and size its change "on the level of
//! network congestion" (seed 004 §6.2.2). The level is the fraction of marked Data, averaged
//! over windows — DCTCP's law (Alizadeh et al. 2010), our choice:
//!
//! ```text
//! per unmarked Data:  cwnd ← cwnd + 1          until the first decrease (slow start)
//!                     cwnd ← cwnd + 1/cwnd     after it
//! each observation window (as many Data as cwnd held when it began):
//!                     F = marked / received in it
//!                     α ← (1 − g)·α + g·F                       (α₀ = 1, g = 1/16)
//!                     if F > 0:  cwnd ← max(min_window, cwnd·(1 − α/2))
//! the first marked Data in slow start:  cwnd ← max(min_window, cwnd·(1 − α/2)) at once
//! a timeout:          cwnd ← max(min_window, cwnd/2), at most once per observation window
//! ```
//!
//! A timed-out Interest is sent again (RTO = SRTT + 4·RTTVAR, the consumer's estimator).

use crate::app::controller::{CongestionController, DataSignal, Loss, Target};
use crate::mechanisms::rtt_estimator::RttEstimator;
use crate::schemes::params::{Kind, Problem, SchemeConfig};
use crate::schemes::registry::{ControllerScheme, TargetKind};
use crate::time::{Duration, Instant};

crate::scheme_config! {
    /// FleCom-recon consumer settings (our reconstruction: every value is ours).
    pub struct FlecomConsumerConfig {
        /// cwnd at the start [OURS; 1].
        initial_window: f64 = 1.0, Kind::number(1.0), "Interests";
        /// The floor of cwnd [OURS; 1].
        min_window: f64 = 1.0, Kind::number(1.0), "Interests";
        /// g: the weight of each observation window's marked fraction in α [OURS; DCTCP's
        /// 1/16].
        gain: f64 = 0.0625, Kind::open_closed(0.0, 1.0), "";
        /// α₀: the congestion level before any window closed [OURS; 1, as Linux's DCTCP].
        initial_alpha: f64 = 1.0, Kind::Number { min: 0.0, min_open: false, max: Some(1.0),
            max_closed: true }, "";
    }
}

impl SchemeConfig for FlecomConsumerConfig {
    fn cross_checks(&self) -> Vec<Problem> {
        Problem::window_below_floor(self.initial_window, self.min_window)
            .into_iter()
            .collect()
    }
}

/// The window factor after a decrease at congestion level `alpha`: 1 − α/2.
pub fn cut_factor(alpha: f64) -> f64 {
    1.0 - alpha / 2.0
}

/// The FleCom-recon window controller.
#[derive(Clone, Debug)]
pub struct FlecomConsumer {
    pub cfg: FlecomConsumerConfig,
    /// cwnd, Interests in flight.
    pub window: f64,
    /// α: the congestion level, the moving average of the marked fraction.
    pub alpha: f64,
    /// Before the first decrease: +1 per Data.
    pub slow_start: bool,
    /// The current observation window: its length (Data), Data and marked Data received.
    obs_len: f64,
    obs_data: u64,
    obs_marked: u64,
    /// A timeout already halved the window in this observation window.
    obs_cut: bool,
    /// Decreases made.
    pub decreases: u64,
}

impl FlecomConsumer {
    pub fn new(cfg: FlecomConsumerConfig) -> Self {
        let window = cfg.initial_window.max(cfg.min_window);
        FlecomConsumer {
            window,
            alpha: cfg.initial_alpha,
            slow_start: true,
            obs_len: window,
            obs_data: 0,
            obs_marked: 0,
            obs_cut: false,
            decreases: 0,
            cfg,
        }
    }

    fn cut(&mut self, factor: f64) {
        self.window = (self.window * factor).max(self.cfg.min_window);
        self.slow_start = false;
        self.decreases += 1;
    }

    /// Closes the observation window: α from its marked fraction, the sized decrease.
    fn close(&mut self) {
        let f = self.obs_marked as f64 / self.obs_data as f64;
        let g = self.cfg.gain;
        self.alpha = (1.0 - g) * self.alpha + g * f;
        if self.obs_marked > 0 && !self.obs_cut {
            self.cut(cut_factor(self.alpha));
        }
        self.obs_len = self.window.max(1.0);
        self.obs_data = 0;
        self.obs_marked = 0;
        self.obs_cut = false;
    }
}

impl CongestionController for FlecomConsumer {
    fn target(&self) -> Target {
        Target::Window(self.window)
    }
    fn on_data(&mut self, _now: Instant, sig: &DataSignal) {
        let marked = sig.marked_segments.max(u32::from(sig.marked));
        let unmarked = sig.segments.saturating_sub(marked);
        for _ in 0..unmarked {
            if self.slow_start {
                self.window += 1.0;
            } else {
                self.window += 1.0 / self.window;
            }
        }
        self.obs_data += u64::from(sig.segments.max(1));
        self.obs_marked += u64::from(marked);
        if self.obs_data as f64 >= self.obs_len {
            self.close();
        }
    }
    fn on_mark(&mut self, _now: Instant, _sig: &DataSignal) {
        if self.slow_start {
            self.cut(cut_factor(self.alpha));
            self.obs_cut = true;
        }
    }
    fn on_timeout(&mut self, _now: Instant, _seq: u64) {
        if !self.obs_cut {
            self.cut(0.5);
            self.obs_cut = true;
        }
    }
    fn rto(&self, rtt: &RttEstimator) -> Option<Duration> {
        Some(rtt.rto())
    }
    fn retransmit(&mut self, _now: Instant, _seq: u64, loss: Loss) -> Option<bool> {
        // a timed-out Interest is sent again; a Nack: the consumer's `retransmit` setting
        (loss == Loss::Timeout).then_some(true)
    }
}

impl ControllerScheme for FlecomConsumer {
    type Config = FlecomConsumerConfig;
    const NAME: &'static str = "flecom-recon";
    const DOC: &'static str = "Our reconstruction of FleCom's consumer (from its abstract and \
        seed 004's sentences only): a window cut once per window of Data by 1 - alpha/2, alpha \
        the moving average of the marked fraction (the congestion level; DCTCP's law).";
    const TARGET: TargetKind = TargetKind::Window;
    fn build(cfg: &FlecomConsumerConfig) -> Self {
        FlecomConsumer::new(cfg.clone())
    }
}
