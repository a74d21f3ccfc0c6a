//! CoopCon-recon's consumer (`controller = "coopcon-recon"`) [OURS throughout]: consumers
//! "gradually adjust the size of cwnd" (seed 004 §6.2.3) — a window with a gentle decrease.
//!
//! ```text
//! per unmarked Data:   cwnd ← cwnd + 1          until the first decrease (slow start)
//!                      cwnd ← cwnd + 1/cwnd     after it (+1 per window of Data)
//! per marked Data or timeout, at most once per SRTT:
//!                      cwnd ← max(min_window, β·cwnd)      (β = 0.9: gradual)
//! SRTT ← 7/8·SRTT + 1/8·RTT per Data whose Interest was sent once (the first sample: RTT)
//! ```
//!
//! A timed-out Interest is sent again (RTO = SRTT + 4·RTTVAR, the consumer's estimator).

use crate::app::controller::{CongestionController, DataSignal, Loss, Target};
use crate::mechanisms::rtt_estimator::RttEstimator;
use crate::schemes::params::{Kind, Problem, SchemeConfig};
use crate::schemes::registry::{ControllerScheme, TargetKind};
use crate::time::{Duration, Instant};

crate::scheme_config! {
    /// CoopCon-recon consumer settings (our reconstruction: every value is ours).
    pub struct CoopconConsumerConfig {
        /// cwnd at the start [OURS; 1].
        initial_window: f64 = 1.0, Kind::number(1.0), "Interests";
        /// The floor of cwnd [OURS; 1].
        min_window: f64 = 1.0, Kind::number(1.0), "Interests";
        /// β: the window's factor at a decrease, close to 1 for a gradual adjustment
        /// [OURS; 0.9].
        beta: f64 = 0.9, Kind::open_range(0.0, 1.0), "";
    }
}

impl SchemeConfig for CoopconConsumerConfig {
    fn cross_checks(&self) -> Vec<Problem> {
        Problem::window_below_floor(self.initial_window, self.min_window)
            .into_iter()
            .collect()
    }
}

/// The CoopCon-recon window controller.
#[derive(Clone, Debug)]
pub struct CoopconConsumer {
    pub cfg: CoopconConsumerConfig,
    /// cwnd, Interests in flight.
    pub window: f64,
    /// Before the first decrease: +1 per Data.
    pub slow_start: bool,
    /// SRTT in seconds (None before the first sample).
    pub srtt: Option<f64>,
    last_decrease: Option<Instant>,
    /// Decreases made, and those the once-per-SRTT gate suppressed.
    pub decreases: u64,
    pub suppressed: u64,
}

impl CoopconConsumer {
    pub fn new(cfg: CoopconConsumerConfig) -> Self {
        CoopconConsumer {
            window: cfg.initial_window.max(cfg.min_window),
            cfg,
            slow_start: true,
            srtt: None,
            last_decrease: None,
            decreases: 0,
            suppressed: 0,
        }
    }

    /// The gated gradual decrease (a marked Data or a timeout).
    fn decrease(&mut self, now: Instant) {
        if let (Some(t), Some(srtt)) = (self.last_decrease, self.srtt) {
            if now.saturating_since(t).as_secs_f64() < srtt {
                self.suppressed += 1;
                return;
            }
        }
        self.window = (self.window * self.cfg.beta).max(self.cfg.min_window);
        self.slow_start = false;
        self.last_decrease = Some(now);
        self.decreases += 1;
    }
}

impl CongestionController for CoopconConsumer {
    fn target(&self) -> Target {
        Target::Window(self.window)
    }
    fn on_data(&mut self, _now: Instant, sig: &DataSignal) {
        if !sig.retransmitted {
            let rtt = sig.rtt.as_secs_f64();
            self.srtt = Some(self.srtt.map_or(rtt, |s| 0.875 * s + 0.125 * rtt));
        }
        let unmarked = sig
            .segments
            .saturating_sub(sig.marked_segments.max(u32::from(sig.marked)));
        for _ in 0..unmarked {
            if self.slow_start {
                self.window += 1.0;
            } else {
                self.window += 1.0 / self.window;
            }
        }
    }
    fn on_mark(&mut self, now: Instant, _sig: &DataSignal) {
        self.decrease(now);
    }
    fn on_timeout(&mut self, now: Instant, _seq: u64) {
        self.decrease(now);
    }
    fn rto(&self, rtt: &RttEstimator) -> Option<Duration> {
        Some(rtt.rto())
    }
    fn retransmit(&mut self, _now: Instant, _seq: u64, loss: Loss) -> Option<bool> {
        // a timed-out Interest is sent again; a Nack: the consumer's `retransmit` setting
        (loss == Loss::Timeout).then_some(true)
    }
}

impl ControllerScheme for CoopconConsumer {
    type Config = CoopconConsumerConfig;
    const NAME: &'static str = "coopcon-recon";
    const DOC: &'static str = "Our reconstruction of CoopCon's consumer (from its abstract and \
        seed 004's sentences only): a window, slow start to the first mark, then +1 per window \
        of Data; a gradual decrease (x0.9) at most once per SRTT on a mark or a timeout.";
    const TARGET: TargetKind = TargetKind::Window;
    fn build(cfg: &CoopconConsumerConfig) -> Self {
        CoopconConsumer::new(cfg.clone())
    }
}
