//! The control plane: typed messages between node modules and controller components (an SDN
//! controller such as ndnSieve's), carried by the driver over control links with their own delay
//! (the simulator) or a control connection (real time).
//!
//! A node's router module sends with [`crate::schemes::ModuleAction::Control`] and receives in
//! [`crate::schemes::RouterHooks::on_control`]. A controller is a sans-IO state machine
//! ([`ControllerComponent`]): messages in, messages out (addressed by node index), its own
//! timers.

use crate::face::FaceId;
use crate::name::NameId;
use crate::time::Instant;

/// What a control message says.
#[derive(Clone, Debug, PartialEq)]
pub enum ControlBody {
    /// Named measurements about a face of the sender (utilisation, queue occupancy, state …).
    FaceReport {
        face: FaceId,
        values: Vec<(&'static str, f64)>,
    },
    /// A value for a next hop of a prefix at the receiving node (a path metric, a ratio).
    NextHopValue {
        prefix: NameId,
        face: FaceId,
        value: f64,
    },
}

/// A control message with its endpoints: node indices as the driver numbers them.
#[derive(Clone, Debug, PartialEq)]
pub struct ControlMessage {
    /// The node that sent it (to a controller), or the node it goes to (from a controller).
    pub node: u32,
    pub body: ControlBody,
}

/// A controller component: the contract of every sans-IO state machine.
pub trait ControllerComponent: std::fmt::Debug {
    /// A message from node `msg.node`.
    fn handle_message(&mut self, _now: Instant, _msg: &ControlMessage) {}
    /// The next message to send (`node` = its destination).
    fn poll_message(&mut self) -> Option<ControlMessage> {
        None
    }
    /// When the controller next wants [`Self::on_timeout`].
    fn poll_timeout(&self) -> Option<Instant> {
        None
    }
    /// Time has reached (at least) [`Self::poll_timeout`].
    fn on_timeout(&mut self, _now: Instant) {}
    /// The component's own counters, named (for a driver's report).
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}
