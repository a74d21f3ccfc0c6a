//! Building a network from a [`ScenarioSpec`] and running its event loop.

use crate::output::{AppMeta, Column, FaceMeta, Meta, SimOutput, Table};
use crate::spec::{
    AppKind, ClockSpec, ControllerSpec, EngineSpec, GapDistSpec, QueueSpec, ScenarioSpec,
    SpecError, WaitSpec,
};
use crate::summary::{jain, ConsumerSummary, DelayStats, FaceSummary, ProducerSummary, Summary};
use ndncc_core::app::controller::{ConstantRate, FixedWindow};
use ndncc_core::app::{App, Consumer, ConsumerConfig, Controller, Producer, ProducerConfig};
use ndncc_core::face::{FaceCounters, FaceKind, QueueLimit};
use ndncc_core::forwarder::{Forwarder, ForwarderConfig, NodeCounters, Strategy};
use ndncc_core::pacing::{
    ClockModel, Engine, GapDist, Ideal, Randomized, Rfc3448, Rmc, Smoothing, Tick, WaitDist,
};
use ndncc_core::rng::{name_key, RngStream, StreamKind};
use ndncc_core::schemes::mircc::{MirccConfig, MirccConsumer, MirccRouter};
use ndncc_core::schemes::sf::{SfConfig, SfConsumer, SfRouter};
use ndncc_core::schemes::RouterModule;
use ndncc_core::{BitRate, Duration, FaceId, Instant, NameTable, Node, Packet, PacketRate};
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;

/// Options of one run that are not part of the scenario.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Build the time-series and delay tables (off for benchmarks).
    pub tables: bool,
    /// Call the progress callback every this many events.
    pub progress_every: u64,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            tables: true,
            progress_every: 1 << 16,
        }
    }
}

/// One direction of a link.
struct LinkDir {
    from: u32,
    from_face: FaceId,
    to: u32,
    to_face: FaceId,
    bandwidth: BitRate,
    delay: Duration,
    loss: f64,
    rng: RngStream,
    /// The link is serializing until this instant.
    busy_until: Instant,
    /// A `TxDone` event is scheduled (only when packets wait behind the one on the wire).
    tx_pending: bool,
    /// Packets on the wire with their arrival instants, in order (a link never reorders);
    /// only the head has an `Arrive` event, so the event queue holds one per busy link.
    in_flight: VecDeque<(Instant, Packet)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum EventKind {
    TxDone,
    Arrive,
    NodeTimer,
    Sample,
}

/// An event, ordered by `key` = (time << 64) | seq alone: ties run in scheduling order, and
/// one integer comparison orders two events.
#[derive(Clone, Copy, Debug)]
struct Event {
    key: u128,
    kind: EventKind,
    idx: u32,
}

impl Event {
    fn time(&self) -> u64 {
        (self.key >> 64) as u64
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

/// Where a global app index lives.
#[derive(Clone, Copy)]
struct AppLoc {
    node: u32,
    slot: u32,
}

struct World<'a> {
    spec: &'a ScenarioSpec,
    nodes: Vec<Node>,
    links: Vec<LinkDir>,
    /// For each node, face index → link direction leaving through it (net faces only).
    face_dir: Vec<Vec<Option<u32>>>,
    apps: Vec<AppLoc>,
    events: BinaryHeap<Event>,
    seq: u64,
    node_sched: Vec<Option<Instant>>,
    ready: Vec<FaceId>,
    now: Instant,
    processed: u64,
    packet_hops: u64,
    link_losses: u64,
    series: Series,
}

fn queue_limit(q: QueueSpec) -> QueueLimit {
    match q {
        QueueSpec::Packets(n) => QueueLimit::Packets(n),
        QueueSpec::Bytes(b) => QueueLimit::Bytes(b),
    }
}

/// A waiting-time distribution of the core from its spec.
fn wait_dist(w: &WaitSpec) -> WaitDist {
    match w {
        WaitSpec::Exponential { mean_ns } => WaitDist::Exponential {
            mean: Duration(*mean_ns),
        },
        WaitSpec::Empirical { samples_ns } => {
            let mut samples_ns = samples_ns.clone();
            samples_ns.sort_unstable();
            WaitDist::Empirical { samples_ns }
        }
    }
}

/// The clock model of a consumer's sending loop.
fn clock_model(c: &ClockSpec) -> ClockModel {
    match c {
        ClockSpec::Ideal => ClockModel::Ideal,
        ClockSpec::Granular { tg_ns } => ClockModel::Granular {
            tg: Duration(*tg_ns),
        },
        ClockSpec::Os { tg_ns, wait, load } => ClockModel::Os {
            tg: Duration(*tg_ns),
            wait: wait_dist(wait),
            load: load
                .as_ref()
                .map(|l| (Instant(l.start_ns), Instant(l.end_ns), wait_dist(&l.wait))),
        },
    }
}

/// The router module a node runs, from its `schemes` table.
fn router_module(spec: &ScenarioSpec, node: &crate::spec::NodeSpec) -> RouterModule {
    if let Some(m) = &node.schemes.mircc {
        let cfg = MirccConfig {
            interval: Duration(m.interval_ns),
            alpha: m.alpha,
            beta: m.beta,
            eta: m.eta,
            ewma: m.ewma,
            depth: m.depth,
            data_size: m.data_size,
            initial_rate: m.initial_rate,
            initial_rtt: Duration(m.initial_rtt_ns),
            rate_floor: m.rate_floor,
            police: m.police,
            standing_queue: m.standing_queue,
            leak_slack: m.leak_slack,
            leak_randomize: Duration(m.leak_randomize_ns),
            secondary_share: m.secondary_share,
        };
        let key = name_key(&[&node.name, "mircc"]);
        let rng = RngStream::new(spec.seed, spec.run, StreamKind::Node, key);
        return RouterModule::Mircc(MirccRouter::new(cfg, rng));
    }
    match &node.schemes.sf {
        Some(sf) => {
            let cfg = SfConfig {
                depth: sf.depth,
                per_face: sf.per_face,
                per_fib: sf.per_fib,
                data_size: sf.data_size,
                initial_rate: sf.initial_rate,
                min_rate: sf.min_rate,
                increase: sf.increase,
                decrease: sf.decrease,
                nack_suppression: sf.nack_suppression,
                leak_slack: sf.leak_slack,
                leak_randomize: Duration(sf.leak_randomize_ns),
            };
            // the module's own stream: leak phases must not shift the node's other draws
            let key = name_key(&[&node.name, "sf"]);
            let rng = RngStream::new(spec.seed, spec.run, StreamKind::Node, key);
            RouterModule::Sf(SfRouter::new(cfg, rng))
        }
        None => RouterModule::None,
    }
}

fn build_app(spec: &ScenarioSpec, names: &NameTable, index: usize) -> Result<App, SpecError> {
    let a = &spec.apps[index];
    let prefix_of = |p: &str| {
        names
            .lookup(p)
            .ok_or_else(|| SpecError(format!("app {}: prefix {p} not interned", a.name)))
    };
    Ok(match &a.app {
        AppKind::Producer(p) => App::Producer(Producer::new(ProducerConfig {
            prefix: prefix_of(&p.prefix)?,
            payload: p.payload_size,
            data_size: p.payload_size.saturating_add(spec.packets.data_overhead),
            freshness: Duration(p.freshness_ns),
            content_segments: p.content_segments,
            processing_delay: Duration(p.processing_delay_ns),
        })),
        AppKind::Consumer(c) => {
            let controller = match c.controller {
                ControllerSpec::ConstantRate { rate } => Controller::ConstantRate(ConstantRate {
                    rate: PacketRate(rate),
                }),
                ControllerSpec::FixedWindow { window } => {
                    Controller::FixedWindow(FixedWindow { window })
                }
                ControllerSpec::SfAimd {
                    initial_rate,
                    max_rate,
                    nack_suppression,
                } => Controller::Sf(SfConsumer::new(initial_rate, max_rate, nack_suppression)),
                ControllerSpec::Mircc {
                    initial_rate,
                    min_rate,
                    multipath,
                } => Controller::Mircc(if multipath {
                    MirccConsumer::multipath(initial_rate, min_rate)
                } else {
                    MirccConsumer::new(initial_rate, min_rate)
                }),
            };
            let clock = clock_model(&c.clock);
            let engine = match c.engine {
                EngineSpec::Ideal => Engine::Ideal(Ideal::default()),
                EngineSpec::Randomized { dist } => {
                    // its own stream: the clock model's draws use the consumer's
                    let key = name_key(&[&a.name, "engine"]);
                    let rng = RngStream::new(spec.seed, spec.run, StreamKind::App, key);
                    Engine::Randomized(Randomized::new(
                        match dist {
                            GapDistSpec::Uniform => GapDist::Uniform,
                            GapDistSpec::Exponential => GapDist::Exponential,
                        },
                        rng,
                    ))
                }
                EngineSpec::Tick {
                    tick_ns,
                    smoothing: false,
                } => Engine::Tick(Tick::new(Duration(tick_ns))),
                EngineSpec::Tick {
                    tick_ns,
                    smoothing: true,
                } => Engine::Smoothing(Smoothing::new(Duration(tick_ns))),
                EngineSpec::Rfc3448 {
                    burst,
                    granularity_ns,
                    max_owed,
                } => {
                    let tg = granularity_ns.map_or(clock.granularity(), Duration);
                    let mut e = Rfc3448::new(burst, tg);
                    e.max_owed = max_owed;
                    Engine::Rfc3448(e)
                }
                EngineSpec::Rmc { kr, period_ns } => Engine::Rmc(Rmc::new(kr, Duration(period_ns))),
            };
            let cfg = ConsumerConfig {
                prefix: prefix_of(&c.prefix)?,
                interest_size: spec.packets.interest_size,
                lifetime: Duration(c.lifetime_ns),
                timeout: Duration(c.timeout_ns.unwrap_or(c.lifetime_ns)),
                retx_on_timeout: c.retx_on_timeout,
                retx_on_nack: c.retx_on_nack,
                max_transmissions: c.max_transmissions.max(1),
                start_seq: c.start_seq,
                max_seq: c.max_seq,
                record_delays: spec.trace.delays,
            };
            let key = name_key(&[&a.name]);
            let rng = RngStream::new(spec.seed, spec.run, StreamKind::App, key);
            let mut consumer = Consumer::new(cfg, controller, engine, rng);
            consumer.clock = clock;
            App::Consumer(Box::new(consumer))
        }
    })
}

impl<'a> World<'a> {
    fn build(spec: &'a ScenarioSpec) -> Result<Self, SpecError> {
        spec.check()?;
        let mut names = NameTable::new();
        for r in &spec.routes {
            names.intern(&r.prefix);
        }
        for a in &spec.apps {
            names.intern(app_prefix(a));
        }
        let names = Arc::new(names);
        let mut nodes = Vec::with_capacity(spec.nodes.len());
        for n in &spec.nodes {
            let strategy = Strategy::from_key(&n.strategy)
                .ok_or_else(|| SpecError(format!("unknown strategy {}", n.strategy)))?;
            let cfg = ForwarderConfig {
                strategy,
                cs_capacity: n.cs_capacity as usize,
                nack_overhead: spec.packets.nack_overhead,
            };
            let key = name_key(&[&n.name]);
            let rng = RngStream::new(spec.seed, spec.run, StreamKind::Node, key);
            let module = router_module(spec, n);
            nodes.push(Node::new(Forwarder::new(names.clone(), cfg, module, rng)));
        }
        let mut links = Vec::with_capacity(2 * spec.links.len());
        let mut face_dir: Vec<Vec<Option<u32>>> = vec![Vec::new(); spec.nodes.len()];
        let mut link_faces = Vec::with_capacity(spec.links.len());
        for (i, l) in spec.links.iter().enumerate() {
            // parallel links between the same pair are told apart by their order
            let ordinal = spec.links[..i]
                .iter()
                .filter(|o| (o.a, o.b) == (l.a, l.b) || (o.a, o.b) == (l.b, l.a))
                .count()
                .to_string();
            let bw = Some(BitRate(l.bandwidth_bps));
            let fa = nodes[l.a].add_net_face(l.b as u32, i as u32, queue_limit(l.queue_ab), bw);
            let fb = nodes[l.b].add_net_face(l.a as u32, i as u32, queue_limit(l.queue_ba), bw);
            link_faces.push((fa, fb));
            for (from, ff, to, tf) in [(l.a, fa, l.b, fb), (l.b, fb, l.a, fa)] {
                let d = links.len() as u32;
                let fd = &mut face_dir[from];
                fd.resize(ff.0 as usize + 1, None);
                fd[ff.0 as usize] = Some(d);
                links.push(LinkDir {
                    from: from as u32,
                    from_face: ff,
                    to: to as u32,
                    to_face: tf,
                    bandwidth: BitRate(l.bandwidth_bps),
                    delay: Duration(l.delay_ns),
                    loss: l.loss,
                    rng: RngStream::new(
                        spec.seed,
                        spec.run,
                        StreamKind::Link,
                        name_key(&[&spec.nodes[from].name, &spec.nodes[to].name, &ordinal]),
                    ),
                    busy_until: Instant::ZERO,
                    tx_pending: false,
                    in_flight: VecDeque::new(),
                });
            }
        }
        for r in &spec.routes {
            let (fa, fb) = link_faces[r.link];
            let face = if spec.links[r.link].a == r.node {
                fa
            } else {
                fb
            };
            let prefix = names.lookup(&r.prefix).expect("interned above");
            nodes[r.node].add_route(prefix, face, r.cost);
        }
        let mut apps = Vec::with_capacity(spec.apps.len());
        for (i, a) in spec.apps.iter().enumerate() {
            let app = build_app(spec, &names, i)?;
            let slot = nodes[a.node].apps.len() as u32;
            nodes[a.node].add_app(app, Instant(a.start_ns), a.stop_ns.map(Instant));
            apps.push(AppLoc {
                node: a.node as u32,
                slot,
            });
        }
        let n_nodes = nodes.len();
        Ok(World {
            spec,
            nodes,
            links,
            face_dir,
            apps,
            events: BinaryHeap::new(),
            seq: 0,
            node_sched: vec![None; n_nodes],
            ready: Vec::new(),
            now: Instant::ZERO,
            processed: 0,
            packet_hops: 0,
            link_losses: 0,
            series: Series::default(),
        })
    }

    fn schedule(&mut self, at: Instant, kind: EventKind, idx: u32) {
        self.seq += 1;
        self.events.push(Event {
            key: (u128::from(at.0) << 64) | u128::from(self.seq),
            kind,
            idx,
        });
    }

    /// After a node acted: start idle links it has packets for, and keep its timer current.
    fn after_node(&mut self, n: u32) {
        let node = &mut self.nodes[n as usize];
        node.take_ready(&mut self.ready);
        let mut ready = std::mem::take(&mut self.ready);
        for face in ready.drain(..) {
            if let Some(d) = self.face_dir[n as usize][face.0 as usize] {
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
        if let Some(t) = self.nodes[n as usize].poll_timeout() {
            let t = t.max(self.now);
            if self.node_sched[n as usize].is_none_or(|s| t < s) {
                self.node_sched[n as usize] = Some(t);
                self.schedule(t, EventKind::NodeTimer, n);
            }
        }
    }

    /// Puts the next waiting packet of link direction `d` on the wire. A `TxDone` event is
    /// scheduled only if more packets wait; otherwise the link just records when it frees up
    /// (most links are lightly loaded: this spares an event per packet).
    fn start_tx(&mut self, d: u32) {
        let l = &mut self.links[d as usize];
        let node = &mut self.nodes[l.from as usize];
        let Some(p) = node.poll_transmit(l.from_face) else {
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
            l.in_flight.push_back((arrive, p));
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
                let (_, p) = l.in_flight.pop_front().expect("in-flight packet");
                let (to, face) = (l.to, l.to_face);
                if let Some(&(next, _)) = l.in_flight.front() {
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
            EventKind::Sample => {
                self.sample();
                let next = self.now + Duration(self.spec.trace.bin_ns);
                if next.0 < self.spec.duration_ns {
                    self.schedule(next, EventKind::Sample, 0);
                }
            }
        }
    }

    /// Runs the event loop; false if `progress` asked to stop.
    fn run(&mut self, opts: &RunOptions, progress: &mut dyn FnMut(f64) -> bool) -> bool {
        for n in 0..self.nodes.len() as u32 {
            self.after_node(n);
        }
        if opts.tables && self.spec.trace.bin_ns < self.spec.duration_ns {
            self.schedule(Instant(self.spec.trace.bin_ns), EventKind::Sample, 0);
        }
        let end = self.spec.duration_ns;
        let every = opts.progress_every.max(1);
        while let Some(&ev) = self.events.peek() {
            let (t, kind, idx) = (ev.time(), ev.kind, ev.idx);
            if t >= end {
                break;
            }
            self.events.pop();
            self.now = Instant(t);
            self.processed += 1;
            self.step(kind, idx);
            if self.processed % every == 0 && !progress(self.now.as_secs_f64()) {
                return false;
            }
        }
        self.now = Instant(end);
        if opts.tables {
            self.sample();
        }
        progress(self.now.as_secs_f64())
    }
}

/// Time-series accumulation: cumulative counters at the previous sample, and the rows so far.
#[derive(Default)]
struct Series {
    prev_face: Vec<Vec<FaceCounters>>,
    prev_node: Vec<(NodeCounters, u64, u64)>,
    prev_app: Vec<ndncc_core::app::ConsumerStats>,
    app: Cols<12>,
    face: Cols<27>,
    node: Cols<9>,
}

/// Row-major accumulation of numeric columns, all stored as f64 or u64 per column kind.
struct Cols<const N: usize> {
    f: [Vec<f64>; N],
    u: [Vec<u64>; N],
}

impl<const N: usize> Default for Cols<N> {
    fn default() -> Self {
        Cols {
            f: std::array::from_fn(|_| Vec::new()),
            u: std::array::from_fn(|_| Vec::new()),
        }
    }
}

impl<'a> World<'a> {
    fn sample(&mut self) {
        let t = self.now.as_secs_f64();
        let s = &mut self.series;
        // apps (consumers only)
        if s.prev_app.len() < self.apps.len() {
            s.prev_app = vec![Default::default(); self.apps.len()];
        }
        for (i, loc) in self.apps.iter().enumerate() {
            let App::Consumer(c) = &self.nodes[loc.node as usize].apps[loc.slot as usize].app
            else {
                continue;
            };
            let st = c.stats;
            let p = s.prev_app[i];
            let a = &mut s.app;
            a.f[0].push(t);
            a.u[1].push(i as u64);
            a.u[2].push(st.interests_sent - p.interests_sent);
            a.u[3].push(st.retransmissions - p.retransmissions);
            a.u[4].push(st.data_received - p.data_received);
            a.u[5].push(st.data_bytes - p.data_bytes);
            a.u[6].push(st.nacks - p.nacks);
            a.u[7].push(st.timeouts - p.timeouts);
            a.f[8].push(c.target_rate().unwrap_or(f64::NAN));
            a.f[9].push(c.target_window().map_or(f64::NAN, |w| w as f64));
            a.u[10].push(c.in_flight() as u64);
            a.f[11].push(c.rtt.srtt().map_or(f64::NAN, |d| d.as_secs_f64() * 1e3));
            s.prev_app[i] = st;
        }
        // faces
        if s.prev_face.len() < self.nodes.len() {
            s.prev_face = self
                .nodes
                .iter()
                .map(|n| vec![FaceCounters::default(); n.fwd.faces().len()])
                .collect();
            s.prev_node = vec![(NodeCounters::default(), 0, 0); self.nodes.len()];
        }
        for (ni, node) in self.nodes.iter_mut().enumerate() {
            let core = &mut node.fwd.core;
            for (fi, face) in core.faces.iter_mut().enumerate() {
                let c = face.counters;
                let p = s.prev_face[ni][fi];
                let f = &mut s.face;
                f.f[0].push(t);
                f.u[1].push(ni as u64);
                f.u[2].push(face.id.ndnsim_id() as u64);
                let diffs = [
                    c.in_pkts[0] - p.in_pkts[0],
                    c.out_pkts[0] - p.out_pkts[0],
                    c.in_pkts[1] - p.in_pkts[1],
                    c.out_pkts[1] - p.out_pkts[1],
                    c.in_pkts[2] - p.in_pkts[2],
                    c.out_pkts[2] - p.out_pkts[2],
                    c.in_bytes[0] - p.in_bytes[0],
                    c.out_bytes[0] - p.out_bytes[0],
                    c.in_bytes[1] - p.in_bytes[1],
                    c.out_bytes[1] - p.out_bytes[1],
                    c.in_bytes[2] - p.in_bytes[2],
                    c.out_bytes[2] - p.out_bytes[2],
                    c.in_satisfied - p.in_satisfied,
                    c.in_timed_out - p.in_timed_out,
                    c.out_satisfied - p.out_satisfied,
                    c.out_timed_out - p.out_timed_out,
                    c.drops - p.drops,
                    c.drop_bytes - p.drop_bytes,
                    c.marks - p.marks,
                    face.queue_len() as u64,
                    face.queue_bytes(),
                    face.window_max_pkts,
                ];
                for (k, v) in diffs.into_iter().enumerate() {
                    f.u[3 + k].push(v);
                }
                let gauges = core.module.face_gauges(self.now, face.id);
                f.f[25].push(gauges.map_or(f64::NAN, |g| g.0));
                f.f[26].push(gauges.map_or(f64::NAN, |g| g.1));
                face.window_max_pkts = face.queue_len() as u64;
                s.prev_face[ni][fi] = c;
            }
            let nc = node.fwd.core.counters;
            let cs = &node.fwd.core.cs;
            let (pn, ph, pm) = s.prev_node[ni];
            let n = &mut s.node;
            n.f[0].push(t);
            n.u[1].push(ni as u64);
            n.u[2].push(nc.satisfied - pn.satisfied);
            n.u[3].push(nc.timed_out - pn.timed_out);
            n.u[4].push(nc.rejected - pn.rejected);
            n.u[5].push(node.fwd.core.pit.len() as u64);
            n.u[6].push(cs.len() as u64);
            n.u[7].push(cs.hits - ph);
            n.u[8].push(cs.misses - pm);
            s.prev_node[ni] = (nc, cs.hits, cs.misses);
        }
    }

    fn meta(&self) -> Meta {
        let mut faces = Vec::new();
        for (ni, node) in self.nodes.iter().enumerate() {
            for face in node.fwd.faces() {
                let (kind, descr, peer, link, app) = match face.kind {
                    FaceKind::Net { peer, link } => (
                        "net",
                        mac_descr(link, self.spec.links[link as usize].a == ni),
                        Some(peer),
                        Some(link),
                        None,
                    ),
                    FaceKind::App { app } => {
                        let global = self
                            .apps
                            .iter()
                            .position(|l| l.node == ni as u32 && l.slot == app)
                            .map(|g| g as u32);
                        ("app", "appFace://".to_string(), None, None, global)
                    }
                };
                faces.push(FaceMeta {
                    node: ni as u32,
                    face: face.id.ndnsim_id(),
                    kind,
                    descr,
                    peer,
                    link,
                    app,
                });
            }
        }
        let apps = self
            .spec
            .apps
            .iter()
            .map(|a| {
                let kind = match &a.app {
                    AppKind::Producer(_) => "producer",
                    AppKind::Consumer(_) => "consumer",
                };
                AppMeta {
                    name: a.name.clone(),
                    node: a.node as u32,
                    kind,
                    prefix: app_prefix(a).to_string(),
                }
            })
            .collect();
        Meta {
            nodes: self.spec.nodes.iter().map(|n| n.name.clone()).collect(),
            faces,
            apps,
        }
    }

    fn summary(&self) -> Summary {
        let duration = self.spec.duration_ns;
        let mut consumers = Vec::new();
        let mut producers = Vec::new();
        for (i, loc) in self.apps.iter().enumerate() {
            let a = &self.spec.apps[i];
            let node_name = self.spec.nodes[a.node].name.clone();
            match &self.nodes[loc.node as usize].apps[loc.slot as usize].app {
                App::Consumer(c) => {
                    let st = c.stats;
                    let stop = a.stop_ns.unwrap_or(duration).min(duration);
                    let active = stop.saturating_sub(a.start_ns) as f64 * 1e-9;
                    let mut delays: Vec<f64> = c
                        .delays
                        .iter()
                        .map(|d| d.full_delay.as_secs_f64() * 1e3)
                        .collect();
                    let ratio =
                        (st.requested > 0).then(|| st.data_received as f64 / st.requested as f64);
                    consumers.push(ConsumerSummary {
                        name: a.name.clone(),
                        node: node_name,
                        prefix: app_prefix(a).to_string(),
                        interests_sent: st.interests_sent,
                        data_received: st.data_received,
                        nacks_received: st.nacks,
                        timeouts: st.timeouts,
                        retransmissions: st.retransmissions,
                        data_bytes: st.data_bytes,
                        max_burst: st.max_burst,
                        active_time_s: active,
                        throughput_mbps: if active > 0.0 {
                            st.data_bytes as f64 * 8.0 / active / 1e6
                        } else {
                            0.0
                        },
                        delivery_ratio: ratio,
                        loss_rate: ratio.map(|r| 1.0 - r),
                        delay_ms: DelayStats::of(&mut delays),
                    });
                }
                App::Producer(p) => producers.push(ProducerSummary {
                    name: a.name.clone(),
                    node: node_name,
                    prefix: app_prefix(a).to_string(),
                    interests_received: p.stats.interests_received,
                    data_sent: p.stats.data_sent,
                }),
            }
        }
        let mut faces = Vec::new();
        for (ni, node) in self.nodes.iter().enumerate() {
            for face in node.fwd.faces() {
                let c = &face.counters;
                let (descr, peer) = match face.kind {
                    FaceKind::Net { peer, link } => (
                        mac_descr(link, self.spec.links[link as usize].a == ni),
                        Some(self.spec.nodes[peer as usize].name.clone()),
                    ),
                    FaceKind::App { .. } => ("appFace://".to_string(), None),
                };
                faces.push(FaceSummary {
                    node: self.spec.nodes[ni].name.clone(),
                    face: face.id.ndnsim_id(),
                    descr,
                    peer,
                    in_interests: c.in_pkts[0],
                    out_interests: c.out_pkts[0],
                    in_data: c.in_pkts[1],
                    out_data: c.out_pkts[1],
                    in_nacks: c.in_pkts[2],
                    out_nacks: c.out_pkts[2],
                    in_bytes: c.in_bytes.iter().sum(),
                    out_bytes: c.out_bytes.iter().sum(),
                    out_interest_bytes: c.out_bytes[0],
                    out_data_bytes: c.out_bytes[1],
                    out_nack_bytes: c.out_bytes[2],
                    drops: c.drops,
                    drop_bytes: c.drop_bytes,
                    marks: c.marks,
                    max_queue_pkts: face.max_pkts,
                    max_queue_bytes: face.max_bytes,
                });
            }
        }
        let tputs: Vec<f64> = consumers.iter().map(|c| c.throughput_mbps).collect();
        Summary {
            scenario: self.spec.name.clone(),
            seed: self.spec.seed,
            run: self.spec.run,
            sim_time_s: duration as f64 * 1e-9,
            events: self.processed,
            packet_hops: self.packet_hops,
            link_losses: self.link_losses,
            apps: consumers,
            producers,
            faces,
            fairness_jain: jain(&tputs),
        }
    }

    fn tables(&mut self) -> Vec<(String, Table)> {
        let s = std::mem::take(&mut self.series);
        let app = make_table(
            s.app,
            &[
                ("time_s", 'f'),
                ("app", 'i'),
                ("interests", 'u'),
                ("retransmissions", 'u'),
                ("data", 'u'),
                ("data_bytes", 'u'),
                ("nacks", 'u'),
                ("timeouts", 'u'),
                ("rate", 'f'),
                ("window", 'f'),
                ("in_flight", 'u'),
                ("srtt_ms", 'f'),
            ],
        );
        let face_cols = [
            ("time_s", 'f'),
            ("node", 'i'),
            ("face", 'i'),
            ("in_interests", 'u'),
            ("out_interests", 'u'),
            ("in_data", 'u'),
            ("out_data", 'u'),
            ("in_nacks", 'u'),
            ("out_nacks", 'u'),
            ("in_interest_bytes", 'u'),
            ("out_interest_bytes", 'u'),
            ("in_data_bytes", 'u'),
            ("out_data_bytes", 'u'),
            ("in_nack_bytes", 'u'),
            ("out_nack_bytes", 'u'),
            ("in_satisfied", 'u'),
            ("in_timed_out", 'u'),
            ("out_satisfied", 'u'),
            ("out_timed_out", 'u'),
            ("drops", 'u'),
            ("drop_bytes", 'u'),
            ("marks", 'u'),
            ("queue_pkts", 'u'),
            ("queue_bytes", 'u'),
            ("queue_max_pkts", 'u'),
            ("scheme_rate", 'f'),
            ("scheme_bucket", 'f'),
        ];
        let face = make_table(s.face, &face_cols);
        let node = make_table(
            s.node,
            &[
                ("time_s", 'f'),
                ("node", 'i'),
                ("satisfied", 'u'),
                ("timed_out", 'u'),
                ("rejected", 'u'),
                ("pit_entries", 'u'),
                ("cs_entries", 'u'),
                ("cs_hits", 'u'),
                ("cs_misses", 'u'),
            ],
        );
        let mut d_time = Vec::new();
        let mut d_app = Vec::new();
        let mut d_seq = Vec::new();
        let mut d_last = Vec::new();
        let mut d_full = Vec::new();
        let mut d_tx = Vec::new();
        let mut d_hops = Vec::new();
        for (i, loc) in self.apps.iter().enumerate() {
            if let App::Consumer(c) = &self.nodes[loc.node as usize].apps[loc.slot as usize].app {
                for r in &c.delays {
                    d_time.push(r.time.as_secs_f64());
                    d_app.push(i as u32);
                    d_seq.push(r.seq);
                    d_last.push(r.last_delay.as_secs_f64());
                    d_full.push(r.full_delay.as_secs_f64());
                    d_tx.push(r.transmissions);
                    d_hops.push(r.hops as u32);
                }
            }
        }
        let delays = Table {
            columns: vec![
                ("time_s".into(), Column::F64(d_time)),
                ("app".into(), Column::U32(d_app)),
                ("seq".into(), Column::U64(d_seq)),
                ("last_delay_s".into(), Column::F64(d_last)),
                ("full_delay_s".into(), Column::F64(d_full)),
                ("transmissions".into(), Column::U32(d_tx)),
                ("hop_count".into(), Column::U32(d_hops)),
            ],
        };
        vec![
            ("app_series".into(), app),
            ("face_series".into(), face),
            ("node_series".into(), node),
            ("delays".into(), delays),
        ]
    }
}

fn app_prefix(a: &crate::spec::AppSpec) -> &str {
    match &a.app {
        AppKind::Producer(p) => &p.prefix,
        AppKind::Consumer(c) => &c.prefix,
    }
}

/// ndnSIM-style net-device face description: one MAC per link end, numbered from 1.
fn mac_descr(link: u32, is_a: bool) -> String {
    let n = 2 * link as u64 + if is_a { 1 } else { 2 };
    let b = n.to_be_bytes();
    format!(
        "netdev://[{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}]",
        b[2], b[3], b[4], b[5], b[6], b[7]
    )
}

/// Turns accumulated columns into a table; kind 'f' = f64, 'u' = u64, 'i' = u32 (indices).
fn make_table<const N: usize>(mut cols: Cols<N>, spec: &[(&str, char)]) -> Table {
    let columns = spec
        .iter()
        .enumerate()
        .map(|(k, (name, kind))| {
            let col = match kind {
                'f' => Column::F64(std::mem::take(&mut cols.f[k])),
                'i' => Column::U32(cols.u[k].iter().map(|&x| x as u32).collect()),
                _ => Column::U64(std::mem::take(&mut cols.u[k])),
            };
            (name.to_string(), col)
        })
        .collect();
    Table { columns }
}

/// Why a run produced no output.
#[derive(Debug, Clone, PartialEq)]
pub enum SimError {
    Spec(SpecError),
    /// The progress callback asked to stop.
    Interrupted,
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimError::Spec(e) => e.fmt(f),
            SimError::Interrupted => write!(f, "run interrupted"),
        }
    }
}

impl std::error::Error for SimError {}

impl From<SpecError> for SimError {
    fn from(e: SpecError) -> Self {
        SimError::Spec(e)
    }
}

/// Runs a scenario to its end. `progress` receives the simulated time in seconds from time to
/// time and once at the end; returning false stops the run.
pub fn run(
    spec: &ScenarioSpec,
    opts: &RunOptions,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<SimOutput, SimError> {
    let mut w = World::build(spec)?;
    if !w.run(opts, progress) {
        return Err(SimError::Interrupted);
    }
    let summary = w.summary();
    let meta = w.meta();
    let tables = if opts.tables { w.tables() } else { Vec::new() };
    Ok(SimOutput {
        summary,
        meta,
        tables,
    })
}
