//! The forwarder: NFD-style pipelines over FIB, PIT and Content Store, a strategy, and an
//! optional router-side congestion-control module.
//!
//! The state machine follows the crate's sans-IO contract: `handle_*` for input,
//! `poll_timeout()` / `on_timeout(now)` for time, and outputs left in buffers the owner drains
//! (`app_out` for local applications, net faces' transmit queues plus the `ready` list for links).

pub mod strategy;

use crate::control::ControlBody;
use crate::face::{Face, FaceId, FaceKind, QueueLimit};
use crate::name::{Name, NameId, NameTable};
use crate::packet::{Data, Interest, Nack, NackReason, Packet};
use crate::rng::RngStream;
use crate::schemes::{InterestVerdict, ModuleAction, RouterModule};
use crate::table::cs::ContentStore;
use crate::table::fib::Fib;
use crate::table::fib::NextHop;
use crate::table::pit::Pit;
use crate::time::{Duration, Instant};
use crate::timers::TimerQueue;
use smallvec::SmallVec;
use std::sync::Arc;
pub use strategy::Strategy;

/// Per-node counters (cumulative).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeCounters {
    /// PIT entries satisfied by Data.
    pub satisfied: u64,
    /// PIT entries that expired.
    pub timed_out: u64,
    /// PIT entries ended by a Nack sent downstream (no route, refused by the router module, or
    /// every upstream Nacked). With `satisfied` and `timed_out`: every entry ends one way.
    pub rejected: u64,
    /// Data with no PIT entry, or a segment of a chunked answer that already passed.
    pub unsolicited_data: u64,
    /// Interests answered with Nack(Duplicate) (loops).
    pub loops: u64,
    /// Interests dropped as an exact duplicate (same nonce, same face).
    pub duplicates: u64,
    /// Interests aggregated into an existing PIT entry.
    pub aggregated: u64,
    /// Nacks that matched no out-record.
    pub unmatched_nacks: u64,
    /// Interests dropped because the PIT was at its limit ([`Pit::set_limit`]).
    pub pit_full: u64,
}

/// The outcome of trying to send an Interest on one face.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendOutcome {
    Sent,
    /// Held by the router module, which sends it later.
    Held,
    /// Refused by the router module, with a Nack reason or silently.
    Refused(Option<NackReason>),
}

impl SendOutcome {
    pub fn accepted(self) -> bool {
        matches!(self, SendOutcome::Sent | SendOutcome::Held)
    }
}

/// Everything the strategy may act on: tables, faces, module and outputs.
///
/// `repr(C)`, fields in the order a packet touches them: what every visit of the node reads or
/// writes (the faces, FIB, PIT and its timers, the output buffers, the Content Store's capacity)
/// shares a few cache lines, and the router module (a large enum, idle on most nodes), the
/// counters and the Content Store's tables come last. With tens of thousands of nodes each
/// visit of a node is a round of cache misses, one per line touched.
#[derive(Debug)]
#[repr(C)]
pub struct FwCore {
    pub faces: Vec<Face>,
    /// True when the node runs no router module ([`FwCore::plain`]): read after every event,
    /// so kept here rather than read from the module (out of line, in its own block).
    plain: bool,
    /// The Content Store is on (capacity > 0, fixed at construction): read on every Interest
    /// and Data, so kept here rather than in the store's own lines.
    cs_on: bool,
    pub fib: Fib,
    pub pit: Pit,
    pit_timers: TimerQueue<Name>,
    /// Packets for local applications, drained by the node.
    pub app_out: Vec<(FaceId, Packet)>,
    /// Net faces whose transmit queue went from empty to non-empty, drained by the driver.
    pub ready: Vec<FaceId>,
    /// Where the driver keeps its links' state, a prefetch hint ([`FwCore::set_link_hint`]).
    link_hint: LinkHint,
    /// A hub's (more than [`crate::node::EDGE_FACES`] faces) link of each face ([`NO_LINK`] for
    /// an app face), so that the link an Interest will leave by is asked for as soon as the FIB
    /// names its face ([`FwCore::prefetch_arrival`]); empty otherwise. A hint only: set with
    /// the link hint.
    face_links: Vec<u32>,
    /// Messages the router module sends to the node's controller, drained by the driver.
    pub control_out: Vec<ControlBody>,
    /// Interests a face's queue dropped, for the strategy's `on_dropped_interest`.
    dropped: Vec<(FaceId, Interest)>,
    pub names: Arc<NameTable>,
    /// Size of a Nack's header added to the Interest it carries, in bytes.
    pub nack_overhead: u32,
    /// The Content Store when it is on (`cs_on`); none, and no heap block, when it is off (most
    /// nodes: 96 bytes each in the node before).
    cs: Option<Box<ContentStore>>,
    pub counters: NodeCounters,
    pub rng: RngStream,
    /// The router module, boxed when the node runs one (no block when it runs none, see
    /// [`ModuleSlot`]): most nodes run none, and a visit of a plain node reads only
    /// `plain` (the enum is 392 bytes; inline it made every node 1 024 bytes). Replace it with
    /// [`FwCore::set_module`], which keeps `plain` true to it.
    module: ModuleSlot,
}

/// Where a driver keeps the state of link `l` (what it reads when a face of the link becomes
/// ready): the `stride` bytes from `base + l × stride`. A prefetch hint only, and no pointer
/// (never dereferenced: a stale or wrong address costs a useless prefetch, nothing else).
/// `stride` 0: no hint, and none of the forwarder's own prefetches either (small networks,
/// whose state stays in cache: the hints would cost instructions for nothing).
#[derive(Clone, Copy, Debug, Default)]
struct LinkHint {
    base: usize,
    stride: usize,
}

/// [`FwCore::face_links`] of an app face.
const NO_LINK: u32 = u32::MAX;

/// A node's router module: boxed when it runs one, no heap block at all when it runs none
/// (with 20 000 nodes, 20 000 boxed `RouterModule::None` were 7.8 MB of heap).
#[derive(Debug)]
struct ModuleSlot(Option<Box<RouterModule>>);

/// What [`FwCore::cs`] shows of a node whose Content Store is off.
static NO_CS: std::sync::LazyLock<ContentStore> = std::sync::LazyLock::new(|| ContentStore::new(0));

/// What a node without a module reads through its [`ModuleSlot`].
const NO_MODULE: &RouterModule = &RouterModule::None;

impl ModuleSlot {
    fn new(module: RouterModule) -> Self {
        match module {
            RouterModule::None => ModuleSlot(None),
            m => ModuleSlot(Some(Box::new(m))),
        }
    }
}

impl std::ops::Deref for ModuleSlot {
    type Target = RouterModule;
    #[inline]
    fn deref(&self) -> &RouterModule {
        self.0.as_deref().unwrap_or(NO_MODULE)
    }
}

impl std::ops::DerefMut for ModuleSlot {
    /// A `RouterModule::None` to act on is boxed on first use (the hot paths skip the module
    /// of a plain node, so this is rare: tests, gauges, a control message).
    #[inline]
    fn deref_mut(&mut self) -> &mut RouterModule {
        self.0.get_or_insert_with(|| Box::new(RouterModule::None))
    }
}

/// A forwarder: a strategy over a [`FwCore`] (`repr(C)`: the strategy and the tick, read on
/// every visit, beside the core's first fields).
#[derive(Debug)]
#[repr(C)]
pub struct Forwarder {
    pub strategy: Strategy,
    tick: Option<(Duration, Instant)>,
    pub core: FwCore,
}

impl FwCore {
    /// Caches `data` in the Content Store (when it is on: `cs_on`, read without touching the
    /// store), unless it is one segment of a chunked answer: the store keeps one Data per name
    /// and segments share their chunk's name.
    #[inline]
    fn cache(&mut self, data: Data, now: Instant) {
        if self.cs_on && data.ext.segment.is_none() {
            self.cs.as_mut().expect("cs_on: a store").insert(data, now);
        }
    }

    /// Sends any packet out of `face`: to the app, or onto the transmit queue (through the
    /// router module's enqueue step, then drop-tail). False if it was dropped.
    pub fn emit(&mut self, now: Instant, face: FaceId, mut p: Packet) -> bool {
        let i = face.0 as usize;
        if self.faces[i].is_app() {
            self.faces[i].counters.count_out(&p);
            if self.app_out.capacity() == 0 {
                self.app_out = crate::spare::take_app_out(); // in cache (see `spare`)
            }
            self.app_out.push((face, p));
            return true;
        }
        let plain = self.plain();
        let was_marked = !plain && matches!(p, Packet::Data(d) if d.ext.mark);
        let admitted = plain || self.module.on_enqueue(now, face, &mut p, &self.faces);
        let f = &mut self.faces[i];
        let queued = if admitted {
            f.enqueue(now, p)
        } else {
            f.count_drop(&p);
            false
        };
        // a mark the enqueue step set (NFD's threshold rule) counts like one set on the way out
        if queued && !plain && !was_marked && matches!(p, Packet::Data(d) if d.ext.mark) {
            f.counters.marks += 1;
        }
        if queued && f.queue_len() == 1 {
            self.ready.push(face);
            // (`prefetching()`, read field by field: `f` borrows the faces)
            if self.link_hint.stride != 0 {
                if let FaceKind::Net { link, .. } = f.kind {
                    self.link_hint.prefetch(link); // the driver reads it to start the link
                }
            }
        }
        if !queued {
            if let Packet::Interest(interest) = p {
                self.dropped.push((face, interest));
            }
        }
        queued
    }

    /// True when the node runs no router module (plain NDN forwarding): the hooks' defaults
    /// then apply, and the hot paths skip the module's dispatch.
    #[inline]
    pub fn plain(&self) -> bool {
        self.plain
    }

    /// The Content Store.
    pub fn cs(&self) -> &ContentStore {
        self.cs.as_deref().unwrap_or(&NO_CS)
    }

    /// Replaces the Content Store (keeping `cs_on` true to it).
    pub fn set_cs(&mut self, cs: ContentStore) {
        self.cs_on = cs.enabled();
        self.cs = cs.enabled().then(|| Box::new(cs));
    }

    /// The router module (`RouterModule::None` when the node runs none).
    pub fn module(&self) -> &RouterModule {
        &self.module
    }

    /// The router module, to act on it (gauges, tests). To replace it use
    /// [`FwCore::set_module`]: assigning through this reference would leave `plain` stale.
    pub fn module_mut(&mut self) -> &mut RouterModule {
        &mut self.module
    }

    /// The faces and the router module, both to act on (per-face gauges); None for the module
    /// of a node that runs none (a `&mut` to it would box a `RouterModule::None` for the node,
    /// as the driver's sampler asks every trace bin for every node).
    pub fn faces_and_module_mut(&mut self) -> (&mut [Face], Option<&mut RouterModule>) {
        (&mut self.faces, self.module.0.as_deref_mut())
    }

    /// Replaces the router module (its tick, if any, is not scheduled: the forwarder's tick is
    /// set from the module given to [`Forwarder::new`]).
    pub fn set_module(&mut self, module: RouterModule) {
        self.plain = matches!(module, RouterModule::None);
        self.module = ModuleSlot::new(module);
    }

    /// Action: forward the pending Interest `name` on `face`, subject to the router module.
    pub fn send_interest(&mut self, now: Instant, name: Name, face: FaceId) -> SendOutcome {
        if self.prefetching() {
            self.prefetch_face(face); // while the PIT entry is found again
        }
        // one PIT lookup: the hooks see the faces, never the PIT, so the entry stays valid
        let prefix = self.module_prefix(name);
        let Some(entry) = self.pit.get_mut(&name) else {
            return SendOutcome::Refused(None);
        };
        let interest = entry.interest;
        let verdict = if self.plain {
            InterestVerdict::Admit
        } else {
            self.module
                .on_interest_out(now, face, prefix, &interest, &self.faces)
        };
        match verdict {
            InterestVerdict::Admit => {
                entry.upsert_out_record(face, interest.nonce, now);
                self.emit(now, face, Packet::Interest(interest));
                SendOutcome::Sent
            }
            InterestVerdict::Hold => {
                entry.upsert_out_record(face, interest.nonce, now);
                SendOutcome::Held
            }
            InterestVerdict::Nack(r) => SendOutcome::Refused(Some(r)),
            InterestVerdict::Drop => SendOutcome::Refused(None),
        }
    }

    /// Action: send a Data on `face`, letting the router module mark or stamp it.
    pub fn send_data(&mut self, now: Instant, face: FaceId, mut data: Data) {
        if !self.plain() {
            let was_marked = data.ext.mark;
            self.module.on_data_out(now, face, &mut data, &self.faces);
            if data.ext.mark && !was_marked {
                self.faces[face.0 as usize].counters.marks += 1;
            }
        }
        self.emit(now, face, Packet::Data(data));
    }

    /// Action: send a Nack for `interest` on `face`.
    pub fn send_nack(
        &mut self,
        now: Instant,
        face: FaceId,
        interest: Interest,
        reason: NackReason,
    ) {
        let size = interest.size + self.nack_overhead;
        self.emit(
            now,
            face,
            Packet::Nack(Nack {
                reason,
                interest,
                size,
            }),
        );
    }

    /// Action: Nack every downstream of the pending Interest `name` and erase its entry.
    pub fn reject_pending_interest(&mut self, now: Instant, name: Name, reason: NackReason) {
        let Some(entry) = self.pit.remove(&name) else {
            return;
        };
        self.counters.rejected += 1;
        for r in entry.in_records.iter() {
            let mut i = entry.interest;
            i.nonce = r.nonce;
            self.send_nack(now, r.face, i, reason);
        }
    }

    /// The prefix handed to the router module's hooks: the matching FIB entry's when the module
    /// keeps per-prefix state, else (no lookup) the name's base.
    pub fn module_prefix(&self, name: Name) -> NameId {
        if !self.plain() && self.module.uses_prefix() {
            self.fib_prefix(name)
        } else {
            name.base
        }
    }

    /// The prefix of the FIB entry matching `name` (the name's base when none matches).
    pub fn fib_prefix(&self, name: Name) -> NameId {
        self.fib
            .lpm(&self.names, name)
            .map_or(name.base, |e| e.prefix)
    }

    fn schedule_expiry(&mut self, at: Instant, name: Name) {
        self.pit_timers.push(at, name);
    }

    /// Carries out what the router module asks for: held Interests it sends (only while their
    /// entry still waits for that transmission: not after it was satisfied, expired, Nacked, or
    /// replaced by a later Interest of the same name) and control messages.
    fn drain_module(&mut self, now: Instant) {
        if self.plain {
            return; // no module, nothing it could ask for
        }
        while let Some(action) = self.module.poll_action() {
            match action {
                ModuleAction::SendInterest { face, interest } => {
                    let pending = self.pit.get(&interest.name).is_some_and(|e| {
                        e.out_records
                            .iter()
                            .any(|r| r.face == face && r.nonce == interest.nonce && !r.nacked)
                    });
                    if pending {
                        self.emit(now, face, Packet::Interest(interest));
                    }
                }
                ModuleAction::Control(body) => self.control_out.push(body),
            }
        }
    }

    /// The next hops of the FIB entry matching `name` (with their weights).
    pub fn nexthops(&self, name: Name) -> SmallVec<[NextHop; 4]> {
        self.fib
            .lpm(&self.names, name)
            .map(|e| e.nexthops.iter().copied().collect())
            .unwrap_or_default()
    }

    /// Sets the weight of next hop `face` in the FIB entry matching `name` (PCON's forwarding
    /// ratios, ndnSieve's metrics); false if there is no such next hop.
    pub fn set_nexthop_weight(&mut self, name: Name, face: FaceId, weight: f64) -> bool {
        let prefix = self.fib_prefix(name);
        self.fib.set_weight(prefix, face, weight)
    }
}

/// How a forwarder is set up.
#[derive(Debug)]
pub struct ForwarderConfig {
    pub strategy: Strategy,
    /// Content Store capacity in packets (0 = off).
    pub cs_capacity: usize,
    pub nack_overhead: u32,
}

impl Forwarder {
    pub fn new(
        names: Arc<NameTable>,
        config: ForwarderConfig,
        module: RouterModule,
        rng: RngStream,
    ) -> Self {
        let tick = module
            .tick_interval()
            .filter(|d| d.0 > 0)
            .map(|d| (d, Instant::ZERO + d));
        let cs = ContentStore::new(config.cs_capacity);
        Forwarder {
            core: FwCore {
                names,
                faces: Vec::new(),
                plain: matches!(module, RouterModule::None),
                cs_on: cs.enabled(),
                fib: Fib::new(),
                pit: Pit::new(),
                cs: cs.enabled().then(|| Box::new(cs)),
                module: ModuleSlot::new(module),
                counters: NodeCounters::default(),
                nack_overhead: config.nack_overhead,
                app_out: Vec::new(),
                ready: Vec::new(),
                rng,
                link_hint: LinkHint::default(),
                face_links: Vec::new(),
                control_out: Vec::new(),
                dropped: Vec::new(),
                pit_timers: TimerQueue::default(),
            },
            strategy: config.strategy,
            tick,
        }
    }

    /// Adds a face; returns its id. App faces ignore `limit`.
    pub fn add_face(&mut self, kind: FaceKind, limit: QueueLimit) -> FaceId {
        let id = FaceId(self.core.faces.len() as u32);
        self.core.faces.push(Face::new(id, kind, limit));
        id
    }

    /// Registers a route: Interests under `prefix` may go out on `face`.
    pub fn add_route(&mut self, prefix: NameId, face: FaceId, cost: u32) {
        self.core.fib.add_nexthop(prefix, face, cost);
    }

    pub fn faces(&self) -> &[Face] {
        &self.core.faces
    }

    /// Closes net face `face` (its peer went away): its routes are removed, its transmit queue
    /// emptied, and anything sent to it from now on is dropped (counted as queue drops). PIT
    /// records on it simply expire. The id is never reused. Returns the routes removed.
    pub fn close_face(&mut self, face: FaceId) -> usize {
        let Some(f) = self.core.faces.get_mut(face.0 as usize) else {
            return 0;
        };
        f.close();
        self.core.ready.retain(|&r| r != face);
        self.core.fib.remove_face(face)
    }

    /// Incoming Interest pipeline.
    pub fn handle_interest(&mut self, now: Instant, in_face: FaceId, interest: Interest) {
        let core = &mut self.core;
        core.faces[in_face.0 as usize]
            .counters
            .count_in(&Packet::Interest(interest));
        if core.cs_on {
            let cs = core.cs.as_mut().expect("cs_on: a store");
            if let Some(d) = cs.lookup(interest.name, interest.must_be_fresh, now) {
                core.send_data(now, in_face, d);
                return;
            }
        }
        let name = interest.name;
        let expiry = now + interest.lifetime;
        let forward = match core.pit.get_mut(&name) {
            Some(entry) => {
                if entry.has_nonce(interest.nonce) {
                    let same = entry
                        .in_record(in_face)
                        .is_some_and(|r| r.nonce == interest.nonce);
                    if same {
                        core.counters.duplicates += 1;
                    } else {
                        core.counters.loops += 1;
                        core.send_nack(now, in_face, interest, NackReason::Duplicate);
                    }
                    return;
                }
                let retransmission = entry.in_record(in_face).is_some();
                let pending = entry.out_records.iter().any(|r| !r.nacked);
                entry.upsert_in_record(in_face, interest.nonce, now, expiry);
                entry.ask_segments(interest.ext.chunk());
                entry.interest = interest;
                if !retransmission && pending {
                    core.counters.aggregated += 1;
                }
                retransmission || !pending
            }
            None => {
                if core.pit.is_full() {
                    core.counters.pit_full += 1;
                    return;
                }
                let entry = core.pit.insert(interest, expiry);
                entry.upsert_in_record(in_face, interest.nonce, now, expiry);
                entry.ask_segments(interest.ext.chunk());
                true
            }
        };
        core.schedule_expiry(expiry, name);
        if forward {
            self.strategy
                .after_receive_interest(&mut self.core, now, name, in_face);
        }
        self.after_input(now);
    }

    /// Incoming Data pipeline.
    pub fn handle_data(&mut self, now: Instant, in_face: FaceId, mut data: Data) {
        let core = &mut self.core;
        let f = &mut core.faces[in_face.0 as usize];
        f.counters.count_in(&Packet::Data(data));
        if !f.is_app() {
            data.ext.hops = data.ext.hops.saturating_add(1);
        }
        let prefix = core.module_prefix(data.name);
        let entry = core.pit.get_mut(&data.name);
        if !core.plain {
            let sent = entry
                .as_ref()
                .and_then(|e| e.out_record(in_face))
                .map(|r| r.sent);
            core.module
                .on_data_in(now, in_face, prefix, &mut data, sent, &core.faces);
        }
        let Some(entry) = entry else {
            core.counters.unsolicited_data += 1;
            return;
        };
        let done = match data.ext.segment.map(|seg| entry.mark_segment(seg)) {
            // a segment that already passed: nothing left to answer with it
            Some(None) => {
                core.counters.unsolicited_data += 1;
                return;
            }
            Some(Some(last)) => last,
            None => true,
        };
        if done && !matches!(self.strategy, Strategy::Custom(_)) {
            // the common case: a built-in strategy has no Data triggers, so the entry can leave
            // its records be taken out (no lists of faces collected) and the entry erased first
            let ins = std::mem::take(&mut entry.in_records);
            let outs = std::mem::take(&mut entry.out_records);
            if core.prefetching() {
                for r in ins.iter() {
                    core.prefetch_face(r.face); // while the entry is erased
                }
            }
            core.pit.discard(&data.name);
            core.cache(data, now);
            for r in ins.iter().filter(|r| r.face != in_face) {
                core.send_data(now, r.face, data);
            }
            core.counters.satisfied += 1;
            for r in ins.iter().filter(|r| r.face != in_face) {
                core.faces[r.face.0 as usize].counters.in_satisfied += 1;
            }
            for r in &outs {
                core.faces[r.face.0 as usize].counters.out_satisfied += 1;
            }
            self.after_input(now);
            return;
        }
        let downstream: SmallVec<[FaceId; 4]> = entry
            .in_records
            .iter()
            .map(|r| r.face)
            .filter(|&f| f != in_face)
            .collect();
        let upstream: SmallVec<[FaceId; 4]> = entry.out_records.iter().map(|r| r.face).collect();
        core.cache(data, now);
        self.strategy
            .before_satisfy_interest(core, now, data.name, in_face);
        self.strategy
            .after_receive_data(core, now, data.name, in_face, &data);
        for &face in &downstream {
            core.send_data(now, face, data);
        }
        if done {
            core.pit.discard(&data.name);
            core.counters.satisfied += 1;
            for &face in &downstream {
                core.faces[face.0 as usize].counters.in_satisfied += 1;
            }
            for &face in &upstream {
                core.faces[face.0 as usize].counters.out_satisfied += 1;
            }
        }
        self.after_input(now);
    }

    /// Incoming Nack pipeline.
    pub fn handle_nack(&mut self, now: Instant, in_face: FaceId, nack: Nack) {
        let core = &mut self.core;
        core.faces[in_face.0 as usize]
            .counters
            .count_in(&Packet::Nack(nack));
        let name = nack.interest.name;
        let matched = core.pit.get_mut(&name).and_then(|e| {
            e.out_records
                .iter_mut()
                .find(|r| r.face == in_face && r.nonce == nack.interest.nonce)
        });
        let sent = match matched {
            Some(out) => {
                out.nacked = true;
                out.sent
            }
            None => {
                core.counters.unmatched_nacks += 1;
                return;
            }
        };
        if !core.plain {
            let prefix = core.module_prefix(name);
            core.module
                .on_nack_in(now, in_face, prefix, &nack, sent, &core.faces);
        }
        self.strategy
            .after_receive_nack(core, now, name, in_face, nack.reason);
        self.after_input(now);
    }

    /// After every input: the router module's actions, then the strategy's
    /// `on_dropped_interest` for Interests a queue dropped (whose handling may drop more).
    #[inline]
    fn after_input(&mut self, now: Instant) {
        if self.core.plain && self.core.dropped.is_empty() {
            return; // the common case, after every packet: nothing to carry out
        }
        self.after_input_work(now);
    }

    /// [`Forwarder::after_input`] when there is something to carry out (kept out of line).
    #[inline(never)]
    fn after_input_work(&mut self, now: Instant) {
        self.core.drain_module(now);
        while !self.core.dropped.is_empty() {
            let dropped = std::mem::take(&mut self.core.dropped);
            for (face, interest) in &dropped {
                self.strategy
                    .on_dropped_interest(&mut self.core, now, *face, interest);
            }
            self.core.drain_module(now);
        }
    }

    /// A message from the node's controller, for the router module.
    pub fn handle_control(&mut self, now: Instant, msg: &ControlBody) {
        if !self.core.plain {
            self.core.module.on_control(now, msg, &self.core.faces);
        }
        self.after_input(now);
    }

    /// Any packet from a face.
    pub fn handle_packet(&mut self, now: Instant, face: FaceId, p: Packet) {
        match p {
            Packet::Interest(i) => self.handle_interest(now, face, i),
            Packet::Data(d) => self.handle_data(now, face, d),
            Packet::Nack(n) => self.handle_nack(now, face, n),
        }
    }

    /// When the forwarder next needs [`Forwarder::on_timeout`] (PIT expiry, module tick, the
    /// module's own timers).
    #[inline]
    pub fn poll_timeout(&self) -> Option<Instant> {
        let pit = self.core.pit_timers.peek().map(|(t, _)| t);
        let tick = self.tick.map(|(_, t)| t);
        let first = match (pit, tick) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if self.core.plain {
            return first; // the common case, asked after every event: no module to consult
        }
        match (first, self.core.module.poll_timeout()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Expires PIT entries and runs the module tick.
    pub fn on_timeout(&mut self, now: Instant) {
        let core = &mut self.core;
        while let Some((t, name)) = core.pit_timers.peek() {
            if t > now {
                break;
            }
            core.pit_timers.pop();
            let expired = core.pit.get(&name).is_some_and(|e| e.expiry <= now);
            if !expired {
                continue;
            }
            self.strategy
                .before_expire_pending_interest(core, now, name);
            let Some(e) = core.pit.remove(&name) else {
                continue; // the strategy ended the entry itself
            };
            core.counters.timed_out += 1;
            for r in &e.in_records {
                core.faces[r.face.0 as usize].counters.in_timed_out += 1;
            }
            for r in &e.out_records {
                core.faces[r.face.0 as usize].counters.out_timed_out += 1;
            }
        }
        if let Some((period, next)) = self.tick {
            if now >= next {
                core.module.on_tick(now, &core.faces);
                let mut n = next;
                while n <= now {
                    n += period;
                }
                self.tick = Some((period, n));
            }
        }
        if !core.plain && core.module.poll_timeout().is_some_and(|t| t <= now) {
            core.module.on_timeout(now, &core.faces);
        }
        self.after_input(now);
    }

    /// The next packet to put on the link of net face `face` at `now`, if any: the head of its
    /// transmit queue, through the router module's dequeue step.
    pub fn poll_transmit(&mut self, now: Instant, face: FaceId) -> Option<Packet> {
        let core = &mut self.core;
        let (mut p, sojourn) = core.faces.get_mut(face.0 as usize)?.dequeue(now)?;
        if !core.plain {
            let was_marked = matches!(p, Packet::Data(d) if d.ext.mark);
            core.module
                .on_dequeue(now, face, &mut p, sojourn, &core.faces);
            if matches!(p, Packet::Data(d) if d.ext.mark) && !was_marked {
                core.faces[face.0 as usize].counters.marks += 1;
            }
        }
        Some(p)
    }
}

/// Prefetch hints ([`crate::prefetch`]). They change nothing.
impl FwCore {
    /// The PIT timers' next push and pop.
    #[inline]
    pub fn prefetch_timers(&self) {
        self.pit_timers.prefetch();
    }

    /// Turns the forwarder's own prefetches on, telling where the driver keeps its links'
    /// state: link `l`'s at the `stride` bytes from address `base + l × stride` (see
    /// [`LinkHint`]). For a driver of a network too large for the caches (a hub's face, found
    /// in a table, is then cold: prefetched as soon as its id is known, and the link's state
    /// as soon as the face's queue becomes non-empty).
    pub fn set_link_hint(&mut self, base: usize, stride: usize) {
        self.link_hint = LinkHint { base, stride };
        if stride != 0 && self.faces.len() > crate::node::EDGE_FACES {
            self.face_links = (self.faces.iter())
                .map(|f| match f.kind {
                    FaceKind::Net { link, .. } => link,
                    FaceKind::App { .. } => NO_LINK,
                })
                .collect();
        }
    }

    /// The list of ready faces, which a packet queued on a net face writes and the driver then
    /// reads (a heap block of the node's own: cold on a node seldom visited).
    #[inline]
    pub fn prefetch_outputs(&self) {
        if self.ready.capacity() > 0 {
            crate::prefetch::line(self.ready.as_ptr());
        }
    }

    /// The bytes the forwarder prefetches as link `link`'s state in its driver: (address,
    /// length), or None without a link hint ([`FwCore::set_link_hint`]). For tests of a
    /// driver's hint.
    pub fn link_hint_span(&self, link: u32) -> Option<(usize, usize)> {
        self.prefetching()
            .then(|| (self.link_hint.at(link), self.link_hint.stride))
    }

    /// True when the forwarder's own prefetches are on ([`FwCore::set_link_hint`]).
    #[inline]
    fn prefetching(&self) -> bool {
        self.link_hint.stride != 0
    }

    /// A face a packet will leave by (and a Data satisfy a record on): its sending and
    /// receiving lines. Reads nothing of the face.
    #[inline]
    fn prefetch_face(&self, face: FaceId) {
        if let Some(f) = self.faces.get(face.0 as usize) {
            f.prefetch_whole();
        }
    }

    /// Prefetch hint ([`crate::prefetch`]), an event before packet `p` arrives: the line of
    /// the PIT key its name leads to (in a PIT with a table of its own) and the FIB line an
    /// Interest's longest-prefix match reads first (in a direct-indexed FIB). Reads neither.
    #[inline]
    pub fn prefetch_arrival_early(&self, p: &Packet) {
        let name = p.name();
        self.pit.prefetch_key(&name);
        if let Packet::Interest(_) = p {
            self.fib.prefetch(name.base);
        }
    }

    /// Prefetch hint, as packet `p` arrives (after [`FwCore::prefetch_arrival_early`]): through
    /// the PIT key, now in cache, the entry's lines. Changes nothing.
    #[inline]
    pub fn prefetch_arrival(&self, p: &Packet) {
        let name = p.name();
        self.pit.prefetch(&name);
        if let Packet::Interest(_) = p {
            // and through the FIB line, the face the Interest will most likely leave by
            if let Some(face) = self.fib.first_hop_hint(name.base) {
                self.prefetch_face(face);
                match self.face_links.get(face.0 as usize) {
                    Some(&link) if link != NO_LINK => self.link_hint.prefetch(link),
                    _ => {}
                }
            }
        }
    }
}

impl LinkHint {
    /// The address of the driver's state of link `link`.
    #[inline]
    fn at(self, link: u32) -> usize {
        self.base
            .wrapping_add(self.stride.wrapping_mul(link as usize))
    }

    /// The driver's state of link `link`.
    #[inline]
    fn prefetch(self, link: u32) {
        crate::prefetch::span(self.at(link) as *const u8, self.stride);
    }
}

#[cfg(test)]
mod tests;
