//! ndnSieve's consumer [SEED 004 §4.3]: a window of Interests that reacts to marks only.
//!
//! ```text
//! per unmarked Data:  cwnd ← cwnd + 1              (equation 4, as printed: per Data)
//!                     cwnd ← cwnd + 1/cwnd         (option `per_window`: +1 per window of Data;
//!                                                   with `start_per_data`, only after the
//!                                                   first marked Data — +1 per Data before)
//! per marked Data:    cwnd ← max(min_window, cwnd − 1)            (equation 5)
//! per timeout:        no change; the Interest is sent again (RTO = SRTT + 4·RTTVAR)
//! ```
//!
//! The paper lists retransmission as future work; retransmitting on a timeout without touching
//! the window is our [OPEN] choice (as ICP's controller does, whatever the consumer's
//! `retransmit` key says about timeouts), so that a loss neither stalls the transfer nor
//! becomes a second congestion signal.

use crate::app::controller::{CongestionController, DataSignal, Loss, Target};
use crate::mechanisms::rtt_estimator::RttEstimator;
use crate::schemes::params::{Kind, Problem, SchemeConfig};
use crate::schemes::registry::{ControllerScheme, TargetKind};
use crate::time::{Duration, Instant};

crate::scheme_config! {
    /// ndnSieve consumer settings (`controller = "sieve"`).
    pub struct SieveConsumerConfig {
        /// cwnd at the start [OPEN; 1].
        initial_window: f64 = 1.0, Kind::number(1.0), "Interests";
        /// The floor of cwnd [OPEN; 1].
        min_window: f64 = 1.0, Kind::number(1.0), "Interests";
        /// +1 per window of Data (cwnd += 1/cwnd) instead of +1 per Data as equation 4 prints
        /// [OPEN; false = as printed].
        per_window: bool = false, Kind::Bool, "";
        /// With `per_window`: +1 per Data (equation 4 as printed) until the first marked Data,
        /// +1 per window after it — the paper's timeline (congestion and the first path switch
        /// at ≈ 1 s on 10 Mbit/s, 60 ms paths) needs a start faster than +1 per round trip from
        /// cwnd = 1 [OPEN; false].
        start_per_data: bool = false, Kind::Bool, "";
    }
}

impl SchemeConfig for SieveConsumerConfig {
    fn cross_checks(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        if self.start_per_data && !self.per_window {
            problems.push(Problem::new(
                &["start_per_data", "per_window"],
                "start_per_data changes nothing without per_window: the window already grows by \
                 1 per Data throughout",
                "set per_window = true, or remove start_per_data",
            ));
        }
        problems.extend(Problem::window_below_floor(
            self.initial_window,
            self.min_window,
        ));
        problems
    }
}

/// The ndnSieve window controller.
#[derive(Clone, Debug)]
pub struct SieveConsumer {
    pub cfg: SieveConsumerConfig,
    /// cwnd, Interests in flight.
    pub window: f64,
    /// Marked Data seen (each took one off the window).
    pub marks: u64,
    /// Timeouts seen (none changed the window).
    pub timeouts: u64,
    /// A marked Data has arrived (ends the per-Data start of `start_per_data`).
    pub marked_once: bool,
}

impl SieveConsumer {
    pub fn new(cfg: SieveConsumerConfig) -> Self {
        SieveConsumer {
            window: cfg.initial_window.max(cfg.min_window),
            cfg,
            marks: 0,
            timeouts: 0,
            marked_once: false,
        }
    }
}

impl CongestionController for SieveConsumer {
    fn target(&self) -> Target {
        Target::Window(self.window)
    }
    fn on_data(&mut self, _now: Instant, sig: &DataSignal) {
        let unmarked = sig
            .segments
            .saturating_sub(sig.marked_segments.max(u32::from(sig.marked)));
        let per_window = self.cfg.per_window && (self.marked_once || !self.cfg.start_per_data);
        for _ in 0..unmarked {
            if per_window {
                self.window += 1.0 / self.window;
            } else {
                self.window += 1.0;
            }
        }
    }
    fn on_mark(&mut self, _now: Instant, sig: &DataSignal) {
        let n = sig.marked_segments.max(1);
        self.marks += u64::from(n);
        self.marked_once = true;
        self.window = (self.window - f64::from(n)).max(self.cfg.min_window);
    }
    fn on_timeout(&mut self, _now: Instant, _seq: u64) {
        self.timeouts += 1;
    }
    fn rto(&self, rtt: &RttEstimator) -> Option<Duration> {
        Some(rtt.rto())
    }
    fn retransmit(&mut self, _now: Instant, _seq: u64, loss: Loss) -> Option<bool> {
        // a timed-out Interest is sent again [OPEN: future work in the paper]; a Nack is left
        // to the consumer's `retransmit` setting
        (loss == Loss::Timeout).then_some(true)
    }
}

impl ControllerScheme for SieveConsumer {
    type Config = SieveConsumerConfig;
    const NAME: &'static str = "sieve";
    const DOC: &'static str = "ndnSieve's consumer (seed 004): a window, +1 per unmarked Data, \
        −1 per marked Data, no reaction to timeouts (the Interest is sent again).";
    const TARGET: TargetKind = TargetKind::Window;
    fn build(cfg: &SieveConsumerConfig) -> Self {
        SieveConsumer::new(cfg.clone())
    }
}
