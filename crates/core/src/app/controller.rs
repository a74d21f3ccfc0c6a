//! Consumer congestion controllers: decide *how much* (a rate or a window) and react to signals.
//!
//! Signals follow ndnd's data / loss / congestion vocabulary, extended for explicit rates:
//! `on_data`, `on_nack`, `on_timeout`, `on_mark`, `on_rate_stamp`. Built-in controllers are
//! variants of [`Controller`]; `Custom` takes any [`CongestionController`].

use crate::packet::NackReason;
use crate::time::{Duration, Instant, PacketRate};

/// What the controller asks for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    /// Interests per second, actuated by the consumer's sending engine.
    Rate(PacketRate),
    /// Interests in flight.
    Window(u32),
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
}

/// What a Nack tells the controller.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NackSignal {
    pub seq: u64,
    pub reason: NackReason,
    /// When the Nacked Interest was (last) sent.
    pub sent: Instant,
}

/// The contract of a consumer controller. Every signal has a neutral default.
pub trait CongestionController: std::fmt::Debug {
    fn target(&self) -> Target;
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
}

/// ndnSIM `ConsumerCbr`: a constant rate, deaf to every signal.
#[derive(Clone, Debug)]
pub struct ConstantRate {
    pub rate: PacketRate,
}

impl CongestionController for ConstantRate {
    fn target(&self) -> Target {
        Target::Rate(self.rate)
    }
}

/// A fixed window of Interests in flight, deaf to every signal.
#[derive(Clone, Debug)]
pub struct FixedWindow {
    pub window: u32,
}

impl CongestionController for FixedWindow {
    fn target(&self) -> Target {
        Target::Window(self.window)
    }
}

/// The controller of a consumer.
#[derive(Debug)]
pub enum Controller {
    ConstantRate(ConstantRate),
    FixedWindow(FixedWindow),
    /// Stateful Forwarding's AIMD rate consumer (seed 002).
    Sf(crate::schemes::sf::SfConsumer),
    /// MIRCC's consumer: the stamped path rate (seed 000).
    Mircc(crate::schemes::mircc::MirccConsumer),
    Custom(Box<dyn CongestionController + Send>),
}

impl Controller {
    fn inner(&self) -> &dyn CongestionController {
        match self {
            Controller::ConstantRate(c) => c,
            Controller::FixedWindow(c) => c,
            Controller::Sf(c) => c,
            Controller::Mircc(c) => c,
            Controller::Custom(c) => c.as_ref(),
        }
    }
    fn inner_mut(&mut self) -> &mut dyn CongestionController {
        match self {
            Controller::ConstantRate(c) => c,
            Controller::FixedWindow(c) => c,
            Controller::Sf(c) => c,
            Controller::Mircc(c) => c,
            Controller::Custom(c) => c.as_mut(),
        }
    }
}

impl CongestionController for Controller {
    fn target(&self) -> Target {
        self.inner().target()
    }
    fn on_data(&mut self, now: Instant, sig: &DataSignal) {
        self.inner_mut().on_data(now, sig)
    }
    fn on_nack(&mut self, now: Instant, sig: &NackSignal) {
        self.inner_mut().on_nack(now, sig)
    }
    fn on_timeout(&mut self, now: Instant, seq: u64) {
        self.inner_mut().on_timeout(now, seq)
    }
    fn on_mark(&mut self, now: Instant, sig: &DataSignal) {
        self.inner_mut().on_mark(now, sig)
    }
    fn on_rate_stamp(&mut self, now: Instant, rate: PacketRate, sig: &DataSignal) {
        self.inner_mut().on_rate_stamp(now, rate, sig)
    }
    fn next_class(&mut self) -> u8 {
        self.inner_mut().next_class()
    }
}
