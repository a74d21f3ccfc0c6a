//! Router-side congestion-control modules and the plug points they use.
//!
//! A scheme's router part hooks into the forwarding pipeline at five points (see
//! `../shared/specs/substrate.md`): an Interest about to go out on a face (admit, queue, Nack or
//! drop), a Data about to go out on a face (mark, stamp), Data and Nack arriving, and a periodic
//! tick. Every hook can read the node's faces (queue lengths and counters).
//!
//! Hooks about Interests, Data and Nacks also get `prefix`: the FIB entry's prefix for the
//! packet's name (the name's base when no entry matches), so schemes can keep per-FIB-entry
//! state.
//!
//! Each scheme is one module here; [`registry`] lists them (one line each) and builds their
//! parts from their configs ([`params`]). Built-in router modules are variants of
//! [`RouterModule`], dispatched by `match`; `Custom` takes any [`RouterHooks`] implementation,
//! for experiments and tests.

pub mod icp;
pub mod mircc;
pub mod params;
pub mod registry;
pub mod sf;

pub use registry::{Controller, ControllerConfig, RouterConfig, RouterModule};

use crate::face::{Face, FaceId};
use crate::name::NameId;
use crate::packet::{Data, Interest, Nack, NackReason};
use crate::time::{Duration, Instant};

/// What a router module decides for an Interest about to leave on a face.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InterestVerdict {
    /// Send it now (enqueue on the face's transmit queue).
    Admit,
    /// Hold it in the face's Interest queue until [`RouterHooks::release_interests`] lets it go.
    Queue,
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
    /// The module's per-face state for traces: (rate limit in Interests/s, bucket level in
    /// tokens), `None` if it keeps none for `face`.
    fn face_gauges(&mut self, _now: Instant, _face: FaceId) -> Option<(f64, f64)> {
        None
    }
    /// The period of [`RouterHooks::on_tick`]; `None` = no tick.
    fn tick_interval(&self) -> Option<Duration> {
        None
    }
    /// The periodic tick.
    fn on_tick(&mut self, _now: Instant, _faces: &[Face]) {}
    /// How many of the `queued` Interests held on `face` may go out now. Asked after every tick
    /// and after every packet the node handles, for faces whose Interest queue is not empty.
    fn release_interests(
        &mut self,
        _now: Instant,
        _face: FaceId,
        _queued: usize,
        _faces: &[Face],
    ) -> usize {
        0
    }
}
