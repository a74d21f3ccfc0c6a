//! Consumer congestion controllers: decide *how much* (a rate or a window) and react to signals.
//!
//! Signals follow ndnd's data / loss / congestion vocabulary, extended for explicit rates:
//! `on_data`, `on_nack`, `on_timeout`, `on_mark`, `on_rate_stamp`. The controllers of the
//! schemes are variants of [`crate::schemes::registry::Controller`]; `Custom` takes any
//! [`CongestionController`].

use super::ndnsim::NdnsimRetxConfig;
use crate::mechanisms::rtt_estimator::RttEstimator;
use crate::packet::NackReason;
use crate::schemes::params::{Kind, SchemeConfig};
use crate::schemes::registry::{ControllerScheme, TargetKind};
use crate::time::{Duration, Instant, PacketRate};

/// What the controller asks for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    /// Interests per second, actuated by the consumer's sending engine.
    Rate(PacketRate),
    /// Interests in flight; fractional windows send while fewer than ⌊W⌋ (at least one) are
    /// in flight.
    Window(f64),
}

/// What a Data tells the controller.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DataSignal {
    pub seq: u64,
    /// Time since the last transmission of this Interest.
    pub rtt: Duration,
    /// True if this Interest was sent more than once (its RTT is ambiguous).
    pub retransmitted: bool,
    pub marked: bool,
    pub rate_stamp: Option<PacketRate>,
    /// Traffic class of the Interest this Data answers.
    pub class: u8,
    /// Data packets this signal stands for: 1, or the segments of a whole chunk (chunked fetch:
    /// one signal per complete chunk).
    pub segments: u32,
    /// How many of them carried a congestion mark (`marked` = at least one).
    pub marked_segments: u32,
}

#[cfg(test)]
impl DataSignal {
    /// A test signal for one Data (not retransmitted, class 0, no rate stamp).
    pub(crate) fn one(seq: u64, rtt: Duration, marked: bool) -> DataSignal {
        DataSignal {
            seq,
            rtt,
            retransmitted: false,
            marked,
            rate_stamp: None,
            class: 0,
            segments: 1,
            marked_segments: u32::from(marked),
        }
    }
}

/// What a Nack tells the controller.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NackSignal {
    pub seq: u64,
    pub reason: NackReason,
    /// When the Nacked Interest was (last) sent.
    pub sent: Instant,
}

/// Why an Interest was lost, for [`CongestionController::retransmit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loss {
    Timeout,
    Nack,
}

/// The contract of a consumer controller. Every signal has a neutral default.
pub trait CongestionController: std::fmt::Debug {
    fn target(&self) -> Target;
    /// The retransmission timeout of an Interest sent now, from the consumer's RTT estimator
    /// (δ·SRTT, SRTT + 4·RTTVAR, a fixed τ …); `None` = the consumer's configured `timeout`.
    fn rto(&self, _rtt: &RttEstimator) -> Option<Duration> {
        None
    }
    /// Whether to send `seq` again after a loss (called after `on_timeout` / `on_nack`);
    /// `None` = the consumer's `retransmit` setting decides.
    fn retransmit(&mut self, _now: Instant, _seq: u64, _loss: Loss) -> Option<bool> {
        None
    }
    /// The consumer is sending `seq` now (`retransmission`: not its first transmission); called
    /// before [`Self::rto`] for that Interest. Window laws that compare sequence numbers
    /// (ndnSIM's `ConsumerPcon`: the next sequence number) follow the sends here.
    fn on_send(&mut self, _now: Instant, _seq: u64, _retransmission: bool) {}
    /// ndnSIM 2.8's timeout and retransmission machinery ([`super::ndnsim`]) with these
    /// settings, instead of the consumer's deadlines; `None` (the default) = deadlines at the
    /// send + [`Self::rto`].
    fn ndnsim_retx(&self) -> Option<NdnsimRetxConfig> {
        None
    }
    fn on_data(&mut self, _now: Instant, _sig: &DataSignal) {}
    fn on_nack(&mut self, _now: Instant, _sig: &NackSignal) {}
    fn on_timeout(&mut self, _now: Instant, _seq: u64) {}
    /// The Data carried a congestion mark (called after `on_data`).
    fn on_mark(&mut self, _now: Instant, _sig: &DataSignal) {}
    /// The Data carried an explicit rate `rate` (called after `on_data`).
    fn on_rate_stamp(&mut self, _now: Instant, _rate: PacketRate, _sig: &DataSignal) {}
    /// The traffic class of the next Interest to send (multipath controllers).
    fn next_class(&mut self) -> u8 {
        0
    }
    /// A sequence number the controller declares lost before its timeout (fast retransmit,
    /// e.g. after three later Data); drained by the consumer after every Data, which sends a
    /// declared number again at once, outside the window, if it is still pending.
    fn poll_loss(&mut self) -> Option<u64> {
        None
    }
}

crate::scheme_config! {
    /// Settings of controller = "constant-rate".
    pub struct ConstantRateConfig {
        /// The rate (ndnSIM ConsumerCbr's Frequency).
        rate: f64 = 1000.0, Kind::Positive, "Interests/s";
    }
}

impl SchemeConfig for ConstantRateConfig {}

/// A constant rate of new Interests, deaf to every signal: ndnSIM's `ConsumerCbr` without its
/// timeouts and re-sends (those are [`NdnsimCbr`]'s).
#[derive(Clone, Debug)]
pub struct ConstantRate {
    pub rate: PacketRate,
}

impl CongestionController for ConstantRate {
    fn target(&self) -> Target {
        Target::Rate(self.rate)
    }
}

impl ControllerScheme for ConstantRate {
    type Config = ConstantRateConfig;
    const NAME: &'static str = "constant-rate";
    const DOC: &'static str = "A constant rate of new Interests, deaf to every signal (ndnSIM's \
        ConsumerCbr without its timeouts and re-sends: see ndnsim-cbr).";
    const TARGET: TargetKind = TargetKind::Rate;
    fn build(cfg: &ConstantRateConfig) -> Self {
        ConstantRate {
            rate: PacketRate(cfg.rate),
        }
    }
}

crate::scheme_config! {
    /// Settings of controller = "ndnsim-cbr" (ndnSIM 2.8's ConsumerCbr attributes, snake_case;
    /// `Randomize`, `MaxSeq`, `LifeTime` and `StartSeq` are the consumer's keys `randomize`,
    /// `max_seq`, `lifetime` and `start_seq`).
    pub struct NdnsimCbrConfig {
        /// ndnSIM `Frequency`: Interests per second, re-sent ones included (ndnSIM: 1).
        frequency: f64 = 1.0, Kind::Positive, "Interests/s";
        /// ndnSIM `RetxTimer`: the period of the timeout checks (ndnSIM: 50 ms).
        retx_timer: Duration = Duration::from_millis(50), Kind::PERIOD, "time";
    }
}

impl SchemeConfig for NdnsimCbrConfig {}

/// ndnSIM 2.8's `ConsumerCbr` as ndnSIM runs it: one Interest every 1/frequency, timed-out
/// sequence numbers (ndnSIM's RTO, checked every `retx_timer`) re-sent before new ones
/// ([`super::ndnsim`]).
#[derive(Clone, Debug)]
pub struct NdnsimCbr {
    pub rate: PacketRate,
    pub retx_timer: Duration,
}

impl CongestionController for NdnsimCbr {
    fn target(&self) -> Target {
        Target::Rate(self.rate)
    }
    fn ndnsim_retx(&self) -> Option<NdnsimRetxConfig> {
        Some(NdnsimRetxConfig {
            retx_timer: self.retx_timer,
            ..Default::default()
        })
    }
    fn retransmit(&mut self, _now: Instant, _seq: u64, loss: Loss) -> Option<bool> {
        // every timed-out number is sent again; Nacks never reach here (ndnSIM ignores them)
        (loss == Loss::Timeout).then_some(true)
    }
}

impl ControllerScheme for NdnsimCbr {
    type Config = NdnsimCbrConfig;
    const NAME: &'static str = "ndnsim-cbr";
    const DOC: &'static str = "ndnSIM 2.8's ConsumerCbr as ndnSIM runs it: a constant rate of \
        Interests, timed out on ndnSIM's RTO at checks every RetxTimer, timed-out sequence \
        numbers re-sent before new ones.";
    const TARGET: TargetKind = TargetKind::Rate;
    fn build(cfg: &NdnsimCbrConfig) -> Self {
        NdnsimCbr {
            rate: PacketRate(cfg.frequency),
            retx_timer: cfg.retx_timer,
        }
    }
}

crate::scheme_config! {
    /// Settings of controller = "fixed-window".
    pub struct FixedWindowConfig {
        /// W: Interests in flight.
        window: u32 = 10, Kind::Integer { min: 1, max: u32::MAX as u64 }, "Interests";
    }
}

impl SchemeConfig for FixedWindowConfig {}

/// A fixed window of Interests in flight, deaf to every signal.
#[derive(Clone, Debug)]
pub struct FixedWindow {
    pub window: u32,
}

impl CongestionController for FixedWindow {
    fn target(&self) -> Target {
        Target::Window(f64::from(self.window))
    }
}

impl ControllerScheme for FixedWindow {
    type Config = FixedWindowConfig;
    const NAME: &'static str = "fixed-window";
    const DOC: &'static str = "A fixed window of Interests in flight, deaf to every signal.";
    const TARGET: TargetKind = TargetKind::Window;
    fn build(cfg: &FixedWindowConfig) -> Self {
        FixedWindow { window: cfg.window }
    }
}
