//! The control plane in virtual time: controller components (an SDN controller) and the control
//! links that join them to nodes, each with its own one-way delay. A message a node's module
//! sends ([`ndncc_core::schemes::ModuleAction::Control`]) reaches its controller one delay
//! later; a message the controller sends to a node arrives one delay later too. Control links
//! never lose, queue or reorder messages.

use super::events::EventKind;
use super::World;
use ndncc_core::control::{ControlMessage, ControllerComponent};
use ndncc_core::{Duration, Instant};
use rustc_hash::FxHashMap;

/// A control link: `node` — controller `controller`, `delay` each way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ControlLink {
    pub node: usize,
    pub controller: usize,
    pub delay: Duration,
}

/// The controllers of a run and the messages on their links.
#[derive(Default)]
pub(super) struct ControlPlane {
    controllers: Vec<Box<dyn ControllerComponent + Send>>,
    /// Per node: its controller and the link's delay.
    link_of: Vec<Option<(usize, Duration)>>,
    /// Per controller: the pending timer it asked for.
    sched: Vec<Option<Instant>>,
    /// Messages on the wire by event index: (controller, message) — to the controller when
    /// `up`, else to `message.node`.
    in_flight: FxHashMap<u32, (usize, bool, ControlMessage)>,
    next_id: u32,
    /// Messages a node sent with no control link (dropped).
    pub(super) unlinked: u64,
    scratch: Vec<ndncc_core::control::ControlBody>,
}

impl ControlPlane {
    pub(super) fn new(
        nodes: usize,
        controllers: Vec<Box<dyn ControllerComponent + Send>>,
        links: &[ControlLink],
    ) -> Result<Self, String> {
        let mut link_of = vec![None; nodes];
        for l in links {
            if l.node >= nodes || l.controller >= controllers.len() {
                return Err(format!(
                    "control link {} - {}: no such node or controller",
                    l.node, l.controller
                ));
            }
            if link_of[l.node].replace((l.controller, l.delay)).is_some() {
                return Err(format!("node {}: more than one control link", l.node));
            }
        }
        Ok(ControlPlane {
            sched: vec![None; controllers.len()],
            controllers,
            link_of,
            ..Default::default()
        })
    }

    fn put(&mut self, controller: usize, up: bool, msg: ControlMessage) -> u32 {
        // ids fit an event's index bits; they wrap, skipping those still on a link
        let mask = (1u32 << super::events::IDX_BITS) - 1;
        while self.in_flight.contains_key(&self.next_id) {
            self.next_id = (self.next_id + 1) & mask;
        }
        let id = self.next_id;
        self.next_id = (self.next_id + 1) & mask;
        self.in_flight.insert(id, (controller, up, msg));
        id
    }
}

impl World<'_> {
    /// Sends what node `n`'s module addressed to its controller.
    pub(super) fn node_control_out(&mut self, n: u32) {
        if self.nodes[n as usize].fwd.core.control_out.is_empty() {
            return; // the common case, after every event
        }
        let cp = &mut self.control;
        self.nodes[n as usize].take_control(&mut cp.scratch);
        if cp.scratch.is_empty() {
            return;
        }
        let bodies = std::mem::take(&mut cp.scratch);
        for body in bodies {
            let Some((c, delay)) = self.control.link_of[n as usize] else {
                self.control.unlinked += 1;
                continue;
            };
            let msg = ControlMessage { node: n, body };
            let id = self.control.put(c, true, msg);
            self.schedule(self.now + delay, EventKind::Control, id);
        }
    }

    /// Sends what controller `c` has for nodes, and keeps its timer current.
    fn after_controller(&mut self, c: usize) {
        while let Some(msg) = self.control.controllers[c].poll_message() {
            let node = msg.node as usize;
            match self.control.link_of.get(node).copied().flatten() {
                Some((owner, delay)) if owner == c => {
                    let id = self.control.put(c, false, msg);
                    self.schedule(self.now + delay, EventKind::Control, id);
                }
                _ => self.control.unlinked += 1,
            }
        }
        if let Some(t) = self.control.controllers[c].poll_timeout() {
            let t = t.max(self.now);
            if self.control.sched[c].is_none_or(|s| t < s) {
                self.control.sched[c] = Some(t);
                self.schedule(t, EventKind::ControllerTimer, c as u32);
            }
        }
    }

    /// Starts every controller's timer.
    pub(super) fn start_controllers(&mut self) {
        for c in 0..self.control.controllers.len() {
            self.after_controller(c);
        }
    }

    /// A control message arrives (event `id`).
    pub(super) fn control_arrive(&mut self, id: u32) {
        let Some((c, up, msg)) = self.control.in_flight.remove(&id) else {
            return;
        };
        if up {
            self.control.controllers[c].handle_message(self.now, &msg);
            self.after_controller(c);
        } else {
            let n = msg.node;
            self.nodes[n as usize].handle_control(self.now, &msg.body);
            self.after_node(n);
        }
    }

    /// Controller `c`'s timer.
    pub(super) fn controller_timer(&mut self, c: u32) {
        let c = c as usize;
        if self.control.sched[c] != Some(self.now) {
            return; // superseded
        }
        self.control.sched[c] = None;
        self.control.controllers[c].on_timeout(self.now);
        self.after_controller(c);
    }
}
