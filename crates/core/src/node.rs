//! A node: a forwarder and the applications attached to it through app faces.
//!
//! The node is the unit a driver talks to. Its contract is the crate's sans-IO contract:
//!
//! ```text
//! handle_packet(now, face, packet)   a packet arrived from the link of a net face
//! poll_timeout() -> Option<Instant>  when the node next wants on_timeout (None: never)
//! on_timeout(now)                    time has reached (at least) that instant
//! poll_transmit(now, face) -> Option<Packet>   the link of `face` is free: the next packet
//! take_ready(&mut Vec<FaceId>)       net faces whose transmit queue became non-empty
//! handle_control(now, msg)           a message from the node's controller
//! take_control(&mut Vec<ControlBody>)  messages for the node's controller
//! ```
//!
//! The node never reads a clock, sleeps, or touches a socket. Calling `on_timeout` earlier than
//! asked is harmless (nothing is due), so a driver may wake it spuriously.

use crate::app::App;
use crate::control::ControlBody;
use crate::face::{FaceId, FaceKind, QueueLimit};
use crate::forwarder::Forwarder;
use crate::name::NameId;
use crate::packet::Packet;
use crate::time::{BitRate, Instant};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AppState {
    Waiting,
    Running,
    Stopped,
}

/// An application and its attachment.
#[derive(Debug)]
pub struct AppSlot {
    pub app: App,
    pub face: FaceId,
    pub start: Instant,
    pub stop: Option<Instant>,
    state: AppState,
    scheduled: Option<Instant>,
}

impl AppSlot {
    fn next_wake(&self) -> Option<Instant> {
        match self.state {
            AppState::Waiting => Some(self.start),
            // a stopped app sends nothing new but may still wait for answers (timeouts)
            AppState::Stopped => self.app.poll_timeout(),
            AppState::Running => match (self.app.poll_timeout(), self.stop) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }
}

/// A node with at most this many faces is an *edge* node (a consumer's or a producer's, a leaf
/// router): a visit may touch any of its faces, so the prefetch hints ask for them all. A node
/// with more is a *hub*, whose faces are found per packet. (A speed choice only.)
pub const EDGE_FACES: usize = 4;

/// `repr(C)`: the apps and their timers, read on every visit, just before the forwarder's
/// first fields (see [`crate::forwarder::FwCore`]).
#[derive(Debug)]
#[repr(C)]
pub struct Node {
    /// The earliest of `app_timers` (read after every event without touching its buffer).
    app_next: Option<Instant>,
    pub apps: Vec<AppSlot>,
    app_timers: BinaryHeap<Reverse<(Instant, u32)>>,
    pub fwd: Forwarder,
    /// The list an app fills during one call, when the pools are off ([`crate::spare`]); last:
    /// with the pools on (large networks) it is never touched.
    scratch: Vec<Packet>,
}

impl Node {
    pub fn new(fwd: Forwarder) -> Self {
        Node {
            app_next: None,
            fwd,
            apps: Vec::new(),
            app_timers: BinaryHeap::new(),
            scratch: Vec::new(),
        }
    }

    /// Adds a net face towards `peer` over the driver's link `link` of `bandwidth`.
    pub fn add_net_face(
        &mut self,
        peer: u32,
        link: u32,
        limit: QueueLimit,
        bandwidth: Option<BitRate>,
    ) -> FaceId {
        let id = self.fwd.add_face(FaceKind::Net { peer, link }, limit);
        self.fwd.core.faces[id.0 as usize].bandwidth = bandwidth;
        id
    }

    /// Attaches an application with its lifetime; a producer's prefix is registered on its
    /// app face with cost 0. Returns the app face.
    pub fn add_app(&mut self, app: App, start: Instant, stop: Option<Instant>) -> FaceId {
        let idx = self.apps.len() as u32;
        let face = self
            .fwd
            .add_face(FaceKind::App { app: idx }, QueueLimit::Packets(u32::MAX));
        if let App::Producer(p) = &app {
            self.fwd.add_route(p.cfg.prefix, face, 0);
        }
        // most nodes hold one app: no room for four (800 bytes) where one slot is used
        self.apps.reserve_exact(1);
        self.apps.push(AppSlot {
            app,
            face,
            start,
            stop,
            state: AppState::Waiting,
            scheduled: None,
        });
        self.reschedule(idx as usize);
        face
    }

    /// Registers a route on a net face.
    pub fn add_route(&mut self, prefix: NameId, face: FaceId, cost: u32) {
        self.fwd.add_route(prefix, face, cost);
    }

    fn reschedule(&mut self, i: usize) {
        let slot = &mut self.apps[i];
        let next = slot.next_wake();
        if next != slot.scheduled {
            slot.scheduled = next;
            if let Some(t) = next {
                self.app_timers.push(Reverse((t, i as u32)));
                if self.app_next.is_none_or(|n| t < n) {
                    self.app_next = Some(t);
                }
            }
        }
    }

    /// Passes packets between the forwarder and the apps until both are quiet.
    fn pump(&mut self, now: Instant) {
        while !self.fwd.core.app_out.is_empty() {
            let batch = std::mem::take(&mut self.fwd.core.app_out);
            for (face, p) in batch.iter() {
                let FaceKind::App { app } = self.fwd.core.faces[face.0 as usize].kind else {
                    continue;
                };
                let i = app as usize;
                if self.apps[i].state == AppState::Waiting {
                    continue;
                }
                let mut out = self.take_out();
                // disjoint fields: no need to clone the shared name table per packet
                let names = &self.fwd.core.names;
                self.apps[i].app.handle_packet(now, names, p, &mut out);
                self.send_from_app(now, i, &mut out);
                self.give_out(out);
                self.reschedule(i);
            }
            let mut batch = batch;
            batch.clear();
            if crate::spare::pooling() {
                // the list goes back to the pool, not to this node (cold the next time: `spare`)
                crate::spare::give_app_out(batch);
            } else if self.fwd.core.app_out.is_empty() {
                self.fwd.core.app_out = batch;
            }
        }
    }

    /// An empty list for an app to fill: from the pool, or the node's own ([`crate::spare`]).
    fn take_out(&mut self) -> Vec<Packet> {
        if crate::spare::pooling() {
            crate::spare::take_packets()
        } else {
            std::mem::take(&mut self.scratch)
        }
    }

    fn give_out(&mut self, out: Vec<Packet>) {
        if crate::spare::pooling() {
            crate::spare::give_packets(out);
        } else {
            self.scratch = out;
        }
    }

    fn send_from_app(&mut self, now: Instant, i: usize, out: &mut Vec<Packet>) {
        let face = self.apps[i].face;
        for p in out.drain(..) {
            self.fwd.handle_packet(now, face, p);
        }
    }

    /// A packet arrived on net face `face`.
    pub fn handle_packet(&mut self, now: Instant, face: FaceId, p: Packet) {
        self.fwd.handle_packet(now, face, p);
        self.pump(now);
    }

    pub fn poll_timeout(&self) -> Option<Instant> {
        match (self.fwd.poll_timeout(), self.app_next) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether the node has at most [`EDGE_FACES`] faces.
    #[inline]
    pub fn is_edge(&self) -> bool {
        self.fwd.faces().len() <= EDGE_FACES
    }

    /// Whether an app of the node is due to wake at `at`.
    pub fn app_due(&self, at: Instant) -> bool {
        self.app_next.is_some_and(|t| t <= at)
    }

    pub fn on_timeout(&mut self, now: Instant) {
        if self.fwd.poll_timeout().is_some_and(|t| t <= now) {
            self.fwd.on_timeout(now);
            self.pump(now);
        }
        while self.app_next.is_some_and(|t| t <= now) {
            let Some(Reverse((t, i))) = self.app_timers.pop() else {
                break;
            };
            self.app_next = self.app_timers.peek().map(|Reverse((t, _))| *t);
            let i = i as usize;
            if self.apps[i].scheduled != Some(t) {
                continue; // superseded
            }
            self.apps[i].scheduled = None;
            self.wake_app(now, i);
            self.pump(now);
            self.reschedule(i);
        }
    }

    fn wake_app(&mut self, now: Instant, i: usize) {
        let mut out = self.take_out();
        let slot = &mut self.apps[i];
        if slot.state == AppState::Waiting && now >= slot.start {
            slot.state = AppState::Running;
            slot.app.start(now, &mut out);
        }
        if slot.state == AppState::Running && slot.stop.is_some_and(|s| now >= s) {
            slot.state = AppState::Stopped;
            slot.app.stop(now);
        }
        if slot.state != AppState::Waiting {
            slot.app.on_timeout(now, &mut out);
        }
        self.send_from_app(now, i, &mut out);
        self.give_out(out);
    }

    /// The link of net face `face` is free at `now`: the next packet to transmit.
    pub fn poll_transmit(&mut self, now: Instant, face: FaceId) -> Option<Packet> {
        self.fwd.poll_transmit(now, face)
    }

    /// A message from the node's controller.
    pub fn handle_control(&mut self, now: Instant, msg: &ControlBody) {
        self.fwd.handle_control(now, msg);
        self.pump(now);
    }

    /// Moves the messages the node's module sent to its controller into `into`.
    pub fn take_control(&mut self, into: &mut Vec<ControlBody>) {
        into.append(&mut self.fwd.core.control_out);
    }

    /// Moves the net faces whose queue became non-empty into `into`.
    pub fn take_ready(&mut self, into: &mut Vec<FaceId>) {
        into.append(&mut self.fwd.core.ready);
    }
}

/// Prefetch hints for a driver that knows a node's next visit ([`crate::prefetch`]): the lines
/// such a visit reads, asked for in stages, each stage's addresses read from lines the previous
/// one brought in. They change no state and no result.
impl Node {
    /// Bytes from the node's start through the forwarder's output buffers: the apps and their
    /// timers, the strategy and tick, and the headers of the faces, FIB, PIT, its timers and
    /// output lists (`repr(C)`: fields in the order a visit reads them).
    const HOT_BYTES: usize = std::mem::offset_of!(Node, fwd)
        + std::mem::offset_of!(Forwarder, core)
        + std::mem::offset_of!(crate::forwarder::FwCore, names);

    /// First stage: the node's own hot lines (no load: the address is the node's).
    #[inline]
    pub fn prefetch_hot(&self) {
        crate::prefetch::span(self, Self::HOT_BYTES);
    }

    /// Second stage (the node's hot lines in cache), before a packet arrives on `face` or a
    /// timer fires (`face` None): the face's lines a packet reads, and on a node with few faces
    /// (an edge node: it answers, or its app sends, on one of them) every face's lines a
    /// packet leaving or entering by it touches, the apps' slots, the roots and tails of the
    /// timer queues, the ready-face list and a short PIT's entries.
    #[inline]
    pub fn prefetch_visit(&self, face: Option<FaceId>) {
        use crate::prefetch::{line, span};
        let faces = &self.fwd.core.faces;
        if let Some(f) = face.and_then(|f| faces.get(f.0 as usize)) {
            line(f);
            f.prefetch_recv();
        }
        if self.is_edge() {
            for f in faces {
                // both kinds' lines, without reading the face to tell its kind (cold here)
                f.prefetch_whole();
            }
        }
        for slot in self.apps.iter().take(2) {
            span(slot, std::mem::size_of::<AppSlot>());
        }
        if let Some(t) = self.app_timers.as_slice().first() {
            line(t);
        }
        self.fwd.core.prefetch_timers();
        self.fwd.core.prefetch_outputs();
        self.fwd.core.pit.prefetch_list();
    }

    /// Third stage (the app slots in cache), as the visit starts: the consumers' own state.
    #[inline]
    pub fn prefetch_apps(&self) {
        for slot in self.apps.iter().take(2) {
            slot.app.prefetch();
        }
    }

    /// Second stage before the link of net face `face` takes its next packet: the face's
    /// sending lines and its queue's head ([`Face::prefetch_out`](crate::face::Face)).
    #[inline]
    pub fn prefetch_transmit(&self, face: FaceId) {
        if let Some(f) = self.fwd.core.faces.get(face.0 as usize) {
            f.prefetch_out();
        }
    }
}
