//! ICTP, the Information-Centric Transport Protocol (Salsano, Detti, Cancellieri, Pomposini,
//! Blefari-Melazzi, 2012), seed 001's TCP-like baseline (`../shared/specs/chopcop.md`,
//! "Baselines"; `docs/schemes/ictp.md`).
//!
//! TCP Reno over segment Interests (one Interest per segment, no chunks):
//!
//! ```text
//! per Data:        cwnd += 1          while cwnd < ssthresh   (slow start)
//!                  cwnd += 1 / cwnd   otherwise               (congestion avoidance)
//! per timeout:     ssthresh ← max(cwnd/2, 2), cwnd ← 1, the Interest is sent again
//! 3 later Data:    the missing segment is sent again at once (fast retransmit),
//!                  ssthresh ← max(cwnd/2, 2), cwnd ← ssthresh (fast recovery, no inflation)
//! RTO = SRTT + 4·RTTVAR (RFC 6298, the consumer's estimator)
//! ```
//!
//! No public code of ICTP exists; where its description is silent the choice is a parameter
//! or written in the docs.

use crate::app::controller::{CongestionController, DataSignal, Loss, Target};
use crate::mechanisms::rtt_estimator::RttEstimator;
use crate::schemes::params::{Kind, SchemeConfig};
use crate::schemes::registry::{ControllerScheme, TargetKind};
use crate::time::{Duration, Instant};
use std::cell::Cell;
use std::collections::{BTreeMap, VecDeque};

crate::scheme_config! {
    /// ICTP consumer settings.
    pub struct IctpConfig {
        /// cwnd at the start (TCP's initial window of one segment).
        initial_window: f64 = 1.0, Kind::number(1.0), "Interests";
        /// ssthresh at the start; 0 = no limit (RFC 5681: "arbitrarily high") [OPEN].
        initial_ssthresh: f64 = 0.0, Kind::number(0.0), "Interests";
        /// The floor of ssthresh after a loss (TCP Reno: 2 segments).
        min_ssthresh: f64 = 2.0, Kind::number(1.0), "Interests";
        /// Later Data that declare a missing segment lost (TCP's three duplicate ACKs); 0 = no
        /// fast retransmit.
        dup_threshold: u32 = 3, Kind::Integer { min: 0, max: 1_000 }, "Data";
    }
}

impl SchemeConfig for IctpConfig {}

/// The ICTP window controller.
#[derive(Clone, Debug)]
pub struct Ictp {
    pub cfg: IctpConfig,
    /// cwnd, Interests in flight.
    pub window: f64,
    pub ssthresh: f64,
    /// The highest sequence number answered so far.
    highest: Option<u64>,
    /// Missing segments below `highest` with how many later Data arrived since.
    holes: BTreeMap<u64, u32>,
    /// Segments declared lost, for [`CongestionController::poll_loss`].
    lost: VecDeque<u64>,
    /// Fast recovery until this segment is answered (no second reduction meanwhile).
    recovery: Option<u64>,
    /// The last timeout reduction and the RTO then; timeouts within it are the same event.
    last_timeout: Option<Instant>,
    last_rto: Cell<Duration>,
    pub fast_retransmits: u64,
}

impl Ictp {
    pub fn new(cfg: IctpConfig) -> Self {
        Ictp {
            window: cfg.initial_window,
            ssthresh: if cfg.initial_ssthresh > 0.0 {
                cfg.initial_ssthresh
            } else {
                f64::INFINITY
            },
            highest: None,
            holes: BTreeMap::new(),
            lost: VecDeque::new(),
            recovery: None,
            last_timeout: None,
            last_rto: Cell::new(Duration::ZERO),
            fast_retransmits: 0,
            cfg,
        }
    }

    /// ssthresh ← max(cwnd/2, floor).
    fn halve_ssthresh(&mut self) {
        self.ssthresh = (self.window / 2.0).max(self.cfg.min_ssthresh);
    }

    /// Out-of-order bookkeeping of one answered segment: a gap opens holes, later Data count
    /// against every hole below them, and a hole that reaches the threshold is declared lost.
    fn track_order(&mut self, seq: u64) -> Option<u64> {
        self.holes.remove(&seq);
        match self.highest {
            Some(h) if seq <= h => return None,
            Some(h) => self.holes.extend((h + 1..seq).map(|s| (s, 0))),
            None => {} // the first answer: no gap known below it
        }
        self.highest = Some(seq);
        if self.cfg.dup_threshold == 0 {
            self.holes.clear();
            return None;
        }
        let mut first_lost = None;
        let threshold = self.cfg.dup_threshold;
        self.holes.retain(|&s, n| {
            if s >= seq {
                return true;
            }
            *n += 1;
            if *n >= threshold {
                first_lost.get_or_insert(s);
                self.lost.push_back(s);
                return false;
            }
            true
        });
        first_lost
    }
}

impl CongestionController for Ictp {
    fn target(&self) -> Target {
        Target::Window(self.window)
    }
    fn on_data(&mut self, _now: Instant, sig: &DataSignal) {
        if self.recovery == Some(sig.seq) {
            self.recovery = None;
        }
        let lost = self.track_order(sig.seq);
        if let Some(s) = lost {
            self.fast_retransmits += 1;
            if self.recovery.is_none() {
                self.halve_ssthresh();
                self.window = self.ssthresh;
                self.recovery = Some(s);
                return;
            }
        }
        if self.window < self.ssthresh {
            self.window += 1.0;
        } else {
            self.window += 1.0 / self.window;
        }
    }
    fn on_timeout(&mut self, now: Instant, seq: u64) {
        self.holes.remove(&seq);
        let same_event = self
            .last_timeout
            .is_some_and(|t| now.saturating_since(t) < self.last_rto.get());
        if same_event {
            return;
        }
        self.halve_ssthresh();
        self.window = 1.0;
        self.recovery = None;
        self.last_timeout = Some(now);
    }
    fn rto(&self, rtt: &RttEstimator) -> Option<Duration> {
        let rto = rtt.rto();
        self.last_rto.set(rto);
        Some(rto)
    }
    fn retransmit(&mut self, _now: Instant, _seq: u64, loss: Loss) -> Option<bool> {
        (loss == Loss::Timeout).then_some(true)
    }
    fn poll_loss(&mut self) -> Option<u64> {
        self.lost.pop_front()
    }
}

impl ControllerScheme for Ictp {
    type Config = IctpConfig;
    const NAME: &'static str = "ictp";
    const DOC: &'static str = "ICTP (Salsano et al. 2012, seed 001's baseline): TCP Reno over \
        segment Interests, slow start then +1/cwnd, on a timeout ssthresh = max(cwnd/2, 2) and \
        cwnd = 1, fast retransmit after three later Data, RTO = SRTT + 4·RTTVAR.";
    const TARGET: TargetKind = TargetKind::Window;
    fn build(cfg: &IctpConfig) -> Self {
        Ictp::new(cfg.clone())
    }
}

#[cfg(test)]
#[path = "ictp_tests.rs"]
mod tests;
