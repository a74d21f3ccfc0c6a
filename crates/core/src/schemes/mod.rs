//! Router-side congestion-control modules and the plug points they use.
//!
//! A scheme's router part ([`RouterHooks`]) hooks into the forwarding pipeline (see
//! `../shared/specs/substrate.md` and DESIGN.md, "Plug points"):
//!
//! * an Interest about to go out on a face: admit, hold (the module keeps it — per-flow queues,
//!   delay queues — and releases it later with [`ModuleAction::SendInterest`]), Nack or drop;
//! * a Data about to go out on a face (mark, stamp), Data and Nacks arriving;
//! * the face's transmit queue, as a queue discipline: every packet at enqueue (drop it) and at
//!   dequeue (mark it, knowing its sojourn time); faces count their occupancy per packet type;
//! * time: a periodic tick, and the module's own timers (`poll_timeout` / `on_timeout`);
//! * the control plane: messages to and from a controller component ([`crate::control`]);
//! * traces: named per-face gauges that become columns of the face time series.
//!
//! Every hook can read the node's faces (queue lengths, occupancy, counters). Hooks about
//! Interests, Data and Nacks also get `prefix`: the FIB entry's prefix for the packet's name
//! (the name's base when no entry matches), so schemes can keep per-FIB-entry state.
//!
//! Each scheme is one module here; [`registry`] lists them (one line each) and builds their
//! parts from their configs ([`params`]). Built-in router modules are variants of
//! [`RouterModule`], dispatched by `match`; `Custom` takes any [`RouterHooks`] implementation,
//! for experiments and tests.

pub mod chopcop;
pub mod components;
pub mod coopcon_recon;
pub mod flecom_recon;
pub mod hr_icp;
pub mod icp;
pub mod ictp;
pub mod mircc;
pub mod params;
pub mod pcon;
pub mod registry;
pub mod sf;
pub mod sieve;
pub mod strategies;
#[cfg(test)]
pub(crate) mod testkit;

pub use registry::{Controller, ControllerConfig, RouterConfig, RouterModule};

use crate::control::ControlBody;
use crate::face::{Face, FaceId};
use crate::name::NameId;
use crate::packet::{Data, Interest, Nack, NackReason, Packet};
use crate::time::{Duration, Instant};

/// What a router module asks the forwarder to do ([`RouterHooks::poll_action`]).
#[derive(Clone, Debug, PartialEq)]
pub enum ModuleAction {
    /// Send an Interest the module held on `face`; dropped silently if its PIT entry no longer
    /// waits for that transmission (satisfied, expired, Nacked, or replaced by a later one).
    SendInterest { face: FaceId, interest: Interest },
    /// Send a message to the node's controller (over its control link).
    Control(ControlBody),
}

/// What a router module decides for an Interest about to leave on a face.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InterestVerdict {
    /// Send it now (enqueue on the face's transmit queue).
    Admit,
    /// The module keeps (a copy of) it and sends it later with
    /// [`ModuleAction::SendInterest`]; the PIT records it as sent on this face now.
    Hold,
    /// Refuse it on this face with this reason; the strategy may try another face, and if none
    /// admits it the Interest is Nacked downstream.
    Nack(NackReason),
    /// Refuse it silently on this face.
    Drop,
}

/// The plug points of a router-side scheme. Every method has a neutral default.
pub trait RouterHooks: std::fmt::Debug {
    /// Whether the hooks read the FIB prefix they are given (per-prefix state); when not, the
    /// forwarder skips the longest-prefix match and hands them the name's base.
    fn uses_prefix(&self) -> bool {
        true
    }
    /// An Interest is about to go out on `face`.
    fn on_interest_out(
        &mut self,
        _now: Instant,
        _face: FaceId,
        _prefix: NameId,
        _interest: &Interest,
        _faces: &[Face],
    ) -> InterestVerdict {
        InterestVerdict::Admit
    }
    /// A Data is about to go out on `face`: set `data.ext.mark`, stamp `data.ext.rate_stamp`.
    fn on_data_out(&mut self, _now: Instant, _face: FaceId, _data: &mut Data, _faces: &[Face]) {}
    /// A Data arrived on `face`, answering an Interest sent there at `sent` (`None` if
    /// unsolicited). The module may stamp it (e.g. MIRCC's path-minimum rate).
    fn on_data_in(
        &mut self,
        _now: Instant,
        _face: FaceId,
        _prefix: NameId,
        _data: &mut Data,
        _sent: Option<Instant>,
        _faces: &[Face],
    ) {
    }
    /// A Nack arrived on `face` for a pending Interest sent there at `sent`.
    fn on_nack_in(
        &mut self,
        _now: Instant,
        _face: FaceId,
        _prefix: NameId,
        _nack: &Nack,
        _sent: Instant,
        _faces: &[Face],
    ) {
    }
    /// A packet is about to join `face`'s transmit queue (drop-tail follows): a queue
    /// discipline's enqueue step. False drops it (counted as a drop of the face).
    fn on_enqueue(
        &mut self,
        _now: Instant,
        _face: FaceId,
        _p: &mut Packet,
        _faces: &[Face],
    ) -> bool {
        true
    }
    /// A packet leaves `face`'s transmit queue for the link after `sojourn` in it: a queue
    /// discipline's dequeue step (e.g. CoDel-style marking).
    fn on_dequeue(
        &mut self,
        _now: Instant,
        _face: FaceId,
        _p: &mut Packet,
        _sojourn: Duration,
        _faces: &[Face],
    ) {
    }
    /// The names of the per-face gauges the module reports: columns `scheme_<name>` of the
    /// face time series (e.g. "rate", "bucket", "marked_fraction", "ratio").
    fn gauge_names(&self) -> &'static [&'static str] {
        &[]
    }
    /// The gauges of `face` at `now`, in the order of [`Self::gauge_names`]; `out` comes filled
    /// with NaN (= none for this face).
    fn face_gauges(&mut self, _now: Instant, _face: FaceId, _out: &mut [f64]) {}
    /// The period of [`RouterHooks::on_tick`]; `None` = no tick.
    fn tick_interval(&self) -> Option<Duration> {
        None
    }
    /// The periodic tick.
    fn on_tick(&mut self, _now: Instant, _faces: &[Face]) {}
    /// When the module next wants [`Self::on_timeout`] (its own timers: shaping periods,
    /// delay queues, reports), besides the tick.
    fn poll_timeout(&self) -> Option<Instant> {
        None
    }
    /// Time has reached (at least) [`Self::poll_timeout`]; calling it early is harmless.
    fn on_timeout(&mut self, _now: Instant, _faces: &[Face]) {}
    /// A message from the node's controller.
    fn on_control(&mut self, _now: Instant, _msg: &ControlBody, _faces: &[Face]) {}
    /// The next action the module asks for; the forwarder drains them after every packet,
    /// timeout and control message it handles.
    fn poll_action(&mut self) -> Option<ModuleAction> {
        None
    }
}
