//! The event loop: an event queue keyed (time, seq), links that serialize, propagate and lose
//! packets, and node timers.

use super::wire::Fifo;
use super::{RunOptions, World};
use ndncc_core::face::FaceKind;
use ndncc_core::rng::RngStream;
use ndncc_core::{BitRate, Duration, FaceId, Instant};

/// One direction of a link. `repr(C)`, aligned to a cache line: everything a packet reads or
/// writes in the first line (the random stream, drawn from only on lossy links, in the second).
#[repr(C, align(64))]
pub(super) struct LinkDir {
    pub(super) from: u32,
    pub(super) from_face: FaceId,
    pub(super) to: u32,
    pub(super) to_face: FaceId,
    bandwidth: BitRate,
    delay: Duration,
    loss: f64,
    /// The link is serializing until this instant.
    busy_until: Instant,
    /// Packets on the wire with their arrival instants, in order (a link never reorders), in
    /// the world's shared [`super::wire::Wire`]; only the head has an `Arrive` event, so the
    /// event queue holds one per busy link.
    pub(super) in_flight: Fifo,
    /// A `TxDone` event is scheduled (only when packets wait behind the one on the wire).
    tx_pending: bool,
    rng: RngStream,
}

impl LinkDir {
    /// A link direction from (node, face) to (node, face), idle and empty.
    pub(super) fn new(
        (from, from_face): (u32, FaceId),
        (to, to_face): (u32, FaceId),
        bandwidth: BitRate,
        delay: Duration,
        loss: f64,
        rng: RngStream,
    ) -> Self {
        LinkDir {
            from,
            from_face,
            to,
            to_face,
            bandwidth,
            delay,
            loss,
            rng,
            busy_until: Instant::ZERO,
            tx_pending: false,
            in_flight: Fifo::default(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum EventKind {
    // the discriminants are packed into KIND_BITS bits of an event's key (see `Event::kind`)
    TxDone,
    Arrive,
    NodeTimer,
    Sample,
    /// A control message arrives (its index in the control plane).
    Control,
    ControllerTimer,
}

/// Bits of an event's node or link-direction index (checked when the world is built).
pub(super) const IDX_BITS: u32 = 22;
const KIND_BITS: u32 = 3;
const SEQ_BITS: u32 = 64 - IDX_BITS - KIND_BITS;

/// An event in 16 bytes: `key` = time << 64 | seq << 25 | kind << 22 | idx, ordered by the key
/// alone — that is by (time, seq), seq being unique: ties run in scheduling order, and one
/// integer comparison orders two events. (Half the size of a key beside separate fields: the
/// heap moves less memory per level.)
#[derive(Clone, Copy, Debug)]
pub(super) struct Event {
    key: u128,
}

impl Event {
    fn time(&self) -> u64 {
        (self.key >> 64) as u64
    }
    pub(super) fn kind(&self) -> EventKind {
        match (self.key >> IDX_BITS) as u64 & ((1 << KIND_BITS) - 1) {
            0 => EventKind::TxDone,
            1 => EventKind::Arrive,
            2 => EventKind::NodeTimer,
            3 => EventKind::Sample,
            4 => EventKind::Control,
            _ => EventKind::ControllerTimer,
        }
    }
    pub(super) fn idx(&self) -> u32 {
        (self.key as u64 & ((1 << IDX_BITS) - 1)) as u32
    }
}

impl super::calendar::Timed for Event {
    #[inline]
    fn time_ns(&self) -> u64 {
        self.time()
    }
}

impl PartialEq for Event {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Event {
    /// Reversed: the standard max-heap then pops the earliest event.
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        o.key.cmp(&self.key)
    }
}

impl<'a> World<'a> {
    #[inline]
    pub(super) fn schedule(&mut self, at: Instant, kind: EventKind, idx: u32) {
        self.seq += 1;
        assert!(self.seq < 1 << SEQ_BITS, "more than 2^39 events scheduled");
        let low = (self.seq << (IDX_BITS + KIND_BITS)) | ((kind as u64) << IDX_BITS) | idx as u64;
        self.events.push(Event {
            key: (u128::from(at.0) << 64) | u128::from(low),
        });
    }

    /// After a node acted: start idle links it has packets for, and keep its timer current.
    pub(super) fn after_node(&mut self, n: u32) {
        self.node_control_out(n);
        if !self.nodes[n as usize].fwd.core.ready.is_empty() {
            self.start_ready_links(n);
        }
        if let Some(t) = self.nodes[n as usize].poll_timeout() {
            let t = t.max(self.now);
            if self.node_sched[n as usize].is_none_or(|s| t < s) {
                self.node_sched[n as usize] = Some(t);
                self.schedule(t, EventKind::NodeTimer, n);
            }
        }
    }

    /// Starts the idle links of the net faces whose queue node `n` just made non-empty.
    fn start_ready_links(&mut self, n: u32) {
        let mut ready = std::mem::take(&mut self.ready);
        self.nodes[n as usize].take_ready(&mut ready);
        for face in ready.drain(..) {
            // the face's link: directions 2·link (a→b) and 2·link + 1 (b→a); read from the face
            // the forwarder just queued on (in cache), not from a per-node table (two misses)
            let kind = self.nodes[n as usize].fwd.faces()[face.0 as usize].kind;
            if let FaceKind::Net { link, .. } = kind {
                let mut d = 2 * link;
                if self.links[d as usize].from != n {
                    d += 1;
                }
                let l = &mut self.links[d as usize];
                if l.tx_pending {
                    continue; // the link will pull the queue when it is free
                }
                if l.busy_until <= self.now {
                    self.start_tx(d);
                } else {
                    l.tx_pending = true;
                    let at = l.busy_until;
                    self.schedule(at, EventKind::TxDone, d);
                }
            }
        }
        self.ready = ready;
    }

    /// Puts the next waiting packet of link direction `d` on the wire. A `TxDone` event is
    /// scheduled only if more packets wait; otherwise the link just records when it frees up
    /// (most links are lightly loaded: this spares an event per packet).
    fn start_tx(&mut self, d: u32) {
        let l = &mut self.links[d as usize];
        let node = &mut self.nodes[l.from as usize];
        let Some(p) = node.poll_transmit(self.now, l.from_face) else {
            return;
        };
        let more = node.fwd.faces()[l.from_face.0 as usize].queue_len() > 0;
        let done = self.now + l.bandwidth.serialization(p.size());
        l.busy_until = done;
        l.tx_pending = more;
        let lost = l.rng.chance(l.loss);
        let arrive = done + l.delay;
        let first_on_wire = l.in_flight.is_empty();
        if lost {
            self.link_losses += 1;
        } else {
            self.wire.push(&mut l.in_flight, arrive, p);
        }
        if more {
            self.schedule(done, EventKind::TxDone, d);
        }
        if !lost && first_on_wire {
            self.schedule(arrive, EventKind::Arrive, d);
        }
    }

    fn step(&mut self, kind: EventKind, idx: u32) {
        match kind {
            EventKind::TxDone => {
                self.links[idx as usize].tx_pending = false;
                self.start_tx(idx);
            }
            EventKind::Arrive => {
                let l = &mut self.links[idx as usize];
                let p = self.wire.pop(&mut l.in_flight).expect("in-flight packet");
                let (to, face) = (l.to, l.to_face);
                if let Some(next) = self.wire.front(&l.in_flight) {
                    self.schedule(next, EventKind::Arrive, idx);
                }
                self.packet_hops += 1;
                self.nodes[to as usize].handle_packet(self.now, face, p);
                self.after_node(to);
            }
            EventKind::NodeTimer => {
                if self.node_sched[idx as usize] != Some(self.now) {
                    return; // superseded by an earlier wake-up
                }
                self.node_sched[idx as usize] = None;
                self.nodes[idx as usize].on_timeout(self.now);
                self.after_node(idx);
            }
            EventKind::Control => self.control_arrive(idx),
            EventKind::ControllerTimer => self.controller_timer(idx),
            EventKind::Sample => {
                self.sample();
                let next = self.now + Duration(self.spec.trace.bin_ns);
                if next.0 < self.spec.duration_ns {
                    self.schedule(next, EventKind::Sample, 0);
                }
            }
        }
    }

    /// Runs the event loop; false if `progress` asked to stop. (Never inlined: profilers can
    /// then count the loop apart from set-up and teardown, e.g. callgrind's `--toggle-collect`.)
    #[inline(never)]
    pub(super) fn run(&mut self, opts: &RunOptions, progress: &mut dyn FnMut(f64) -> bool) -> bool {
        for n in 0..self.nodes.len() as u32 {
            self.after_node(n);
        }
        self.start_controllers();
        if opts.tables && self.spec.trace.bin_ns < self.spec.duration_ns {
            self.schedule(Instant(self.spec.trace.bin_ns), EventKind::Sample, 0);
        }
        let end = self.spec.duration_ns;
        let every = opts.progress_every.max(1);
        #[cfg(feature = "event-cost")]
        super::cost::begin(self);
        // events left until the next progress call (a countdown: no division per event)
        let mut until_progress = every - self.processed % every;
        while let Some(ev) = self.events.peek() {
            let (t, kind, idx) = (ev.time(), ev.kind(), ev.idx());
            if t >= end {
                break;
            }
            self.events.pop();
            self.now = Instant(t);
            self.processed += 1;
            #[cfg(feature = "event-cost")]
            let probe = super::cost::Probe::start(self, kind, idx, t);
            self.prefetch_ahead(kind, idx);
            self.step(kind, idx);
            #[cfg(feature = "event-cost")]
            probe.stop(self);
            until_progress -= 1;
            if until_progress == 0 {
                until_progress = every;
                if !progress(self.now.as_secs_f64()) {
                    #[cfg(feature = "event-cost")]
                    super::cost::end(self);
                    return false;
                }
            }
        }
        #[cfg(feature = "event-cost")]
        super::cost::end(self);
        self.now = Instant(end);
        if opts.tables {
            self.sample();
        }
        progress(self.now.as_secs_f64())
    }
}
