//! ndnSieve's SDN controller [SEED 004 §3.1, §4.2], a sans-IO
//! [`ControllerComponent`] (`[sdn.sieve]`).
//!
//! * **TMM** (topology management): the routers, their links and FIBs ([`Topology`]), learned
//!   at start.
//! * **GIC** (global information cache): the latest (β, ε) of every interface, from the
//!   routers' reports and signals.
//! * **CSF** (congestion status filter): on a congestion signal, ε is read from the GIC; only
//!   mild congestion (ε ≤ th2) goes on to the cost calculator — severe congestion is left to
//!   the consumers (the routers mark).
//! * **Cost calculator** (Algorithm 1): the congested interface (router i, face f) carries the
//!   Data of the prefixes that its neighbour j forwards Interests for through that link. For
//!   each such prefix the **shunt router** is the first router downstream of the link (j, then
//!   the routers that send j that prefix's Interests, breadth first) with several next hops for
//!   the prefix. Each next hop g of the shunt router gets
//!
//!   ```text
//!   metric_g = max over links (u→v) on the paths behind g of  β_uv · 10 · e^{ε_uv}   (Formula 3)
//!   ```
//!
//!   (the paths behind g: the link g leads to and, recursively, the next hops of the prefix
//!   at the routers upstream), and the metrics go to the shunt router, which forwards the
//!   prefix on the interface with the lowest one. Every poll period the metrics of the shunt
//!   routers already steered are computed again and pushed (`refresh`), so that traffic moves
//!   back when the congestion clears — with `one_prefix` (default), like a signal, a poll moves
//!   at most one prefix, the one that gains most; `hold` (our option, off by default) keeps a move in place
//!   for a while before metrics that would undo it are sent.
//!
//! A router may tell the controller the metrics it holds: a `NextHopValue` *from* a router
//! (never sent in the simulator; on real sockets a router's HELLO carries them, so that a
//! restarted controller knows which next hop each shunt router uses now). The controller then
//! counts the router's lowest-metric next hop as its current one (the one a move is weighed
//! against) and keeps refreshing it, as if it had pushed those metrics itself.

use super::{BETA, EPS, SIGNAL};
use crate::control::{ControlBody, ControlMessage, ControllerComponent};
use crate::face::FaceId;
use crate::name::NameId;
use crate::schemes::components::{ComponentScheme, TopoFace, Topology};
use crate::schemes::params::{Kind, SchemeConfig};
use crate::time::{Duration, Instant};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::{BTreeMap, VecDeque};

crate::scheme_config! {
    /// ndnSieve SDN controller settings (`[sdn.sieve]`).
    pub struct SieveControllerConfig {
        /// th2 of the congestion status filter: a signal whose interface has ε ≤ th2 is mild
        /// congestion (keep it equal to the routers' th2) [OPEN; 0.3].
        th2: f64 = 0.3, Kind::open_range(0.0, 1.0), "";
        /// T_p: how often the metrics of the steered shunt routers are computed again and
        /// pushed (the paper's polling period, 0.5 s).
        poll: Duration = Duration::from_millis(500), Kind::PERIOD, "time";
        /// Push fresh metrics to the steered shunt routers every poll (false: only when a
        /// mild-congestion signal arrives) [OPEN; true, the paper's "periodically refreshed"].
        refresh: bool = true, Kind::Bool, "";
        /// After a steered router's lowest-metric interface for a prefix changes, metrics that
        /// would change it again are held back this long [OPEN; 0 s = as the paper: every
        /// refresh may move the traffic, which flaps when one flow fills any path it is on].
        hold: Duration = Duration::ZERO, Kind::TIME, "time";
        /// On a mild signal, move only the one prefix of the congested link that gains most
        /// (Algorithm 1's "select the prefix of traffic on congested links"; false: every
        /// prefix on the link, which then all move together) [OPEN; true].
        one_prefix: bool = true, Kind::Bool, "";
    }
}

impl SchemeConfig for SieveControllerConfig {}

/// What the controller did (one congestion event = one signal).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reactions {
    /// Congestion signals received.
    pub signals: u64,
    /// Signals the filter passed on as mild congestion.
    pub mild: u64,
    /// Signals the filter left to the consumers (severe congestion).
    pub severe: u64,
    /// Mild signals for which a shunt router was found and metrics pushed.
    pub rerouted: u64,
    /// Metric messages sent.
    pub metrics_sent: u64,
}

/// The ndnSieve SDN controller.
#[derive(Debug)]
pub struct SieveController {
    pub cfg: SieveControllerConfig,
    topo: Topology,
    gic: FxHashMap<(u32, FaceId), (f64, f64)>,
    /// (shunt router, prefix) pairs steered so far: their lowest-metric next hop and when it
    /// last changed.
    steered: BTreeMap<(u32, NameId), (FaceId, Instant)>,
    /// Metrics routers said they hold (`NextHopValue` from a router).
    held: BTreeMap<(u32, NameId), Vec<(FaceId, f64)>>,
    out: VecDeque<ControlMessage>,
    next_poll: Instant,
    pub reactions: Reactions,
}

/// Formula 3's term for one link.
pub fn link_cost(beta: f64, eps: f64) -> f64 {
    beta * 10.0 * eps.exp()
}

impl SieveController {
    pub fn new(cfg: SieveControllerConfig, topo: Topology) -> Self {
        SieveController {
            next_poll: Instant::ZERO + cfg.poll,
            cfg,
            topo,
            gic: FxHashMap::default(),
            steered: BTreeMap::new(),
            held: BTreeMap::new(),
            out: VecDeque::new(),
            reactions: Reactions::default(),
        }
    }

    /// The GIC's (β, ε) of `node`'s `face` ((0, 0) before any report).
    pub fn cached(&self, node: u32, face: FaceId) -> (f64, f64) {
        self.gic.get(&(node, face)).copied().unwrap_or((0.0, 0.0))
    }

    /// `node`'s `face` in the topology (`None` for an unknown node or face).
    fn topo_face(&self, node: u32, face: FaceId) -> Option<&TopoFace> {
        self.topo
            .nodes
            .get(node as usize)
            .and_then(|n| n.face(face))
    }

    /// The prefixes whose Data crosses `node`'s `face` (their Interests came through it).
    pub fn prefixes_on(&self, node: u32, face: FaceId) -> Vec<NameId> {
        let Some(tf) = self.topo_face(node, face) else {
            return Vec::new();
        };
        let down = &self.topo.nodes[tf.peer as usize];
        let Some(back) = down.faces.iter().find(|f| f.link == tf.link) else {
            return Vec::new();
        };
        down.routes
            .iter()
            .filter(|(_, hops)| hops.contains(&back.face))
            .map(|(p, _)| *p)
            .collect()
    }

    /// The shunt routers of `prefix` for the link leaving `node` on `face`: breadth first
    /// downstream of the link, the first routers with at least two next hops for the prefix.
    pub fn shunt_routers(&self, node: u32, face: FaceId, prefix: NameId) -> Vec<u32> {
        let Some(tf) = self.topo_face(node, face) else {
            return Vec::new();
        };
        let mut found = Vec::new();
        let mut seen: FxHashSet<u32> = [node, tf.peer].into_iter().collect();
        let mut level = vec![tf.peer];
        while !level.is_empty() && found.is_empty() {
            let mut next = Vec::new();
            for &r in &level {
                let rn = &self.topo.nodes[r as usize];
                if rn.nexthops(prefix).len() >= 2 {
                    found.push(r);
                    continue;
                }
                // the routers that send r this prefix's Interests
                for f in &rn.faces {
                    let d = &self.topo.nodes[f.peer as usize];
                    let uses = d
                        .faces
                        .iter()
                        .any(|df| df.link == f.link && d.nexthops(prefix).contains(&df.face));
                    if uses && seen.insert(f.peer) {
                        next.push(f.peer);
                    }
                }
            }
            level = next;
        }
        found.sort_unstable();
        found
    }

    /// Formula 3: the metric of next hop `face` of `shunt` for `prefix`.
    pub fn metric(&self, shunt: u32, face: FaceId, prefix: NameId) -> f64 {
        let mut seen: FxHashSet<u32> = [shunt].into_iter().collect();
        self.behind(shunt, face, prefix, &mut seen)
    }

    /// The largest link cost on the paths behind `node`'s `face` (towards the producers).
    fn behind(&self, node: u32, face: FaceId, prefix: NameId, seen: &mut FxHashSet<u32>) -> f64 {
        let Some(tf) = self.topo.nodes[node as usize].face(face) else {
            return 0.0;
        };
        let up = tf.peer;
        let Some(up_face) = self.topo.nodes[up as usize]
            .faces
            .iter()
            .find(|f| f.link == tf.link)
        else {
            return 0.0;
        };
        // the link's Data direction: up → node, measured at up's face
        let (beta, eps) = self.cached(up, up_face.face);
        let mut worst = link_cost(beta, eps);
        if seen.insert(up) {
            for &h in self.topo.nodes[up as usize].nexthops(prefix) {
                worst = worst.max(self.behind(up, h, prefix, seen));
            }
        }
        worst
    }

    /// Computes and queues the metrics of every next hop of `prefix` at `shunt` (unless they
    /// would move the traffic again within `hold` of the last move); true if sent.
    fn push_metrics(&mut self, now: Instant, shunt: u32, prefix: NameId) -> bool {
        let hops = self.topo.nodes[shunt as usize].nexthops(prefix).to_vec();
        let metrics: Vec<(FaceId, f64)> = hops
            .iter()
            .map(|&f| (f, self.metric(shunt, f, prefix)))
            .collect();
        // the router's choice: the lowest metric, ties to the first next hop
        let Some(best) = metrics
            .iter()
            .fold(None::<(FaceId, f64)>, |b, &(f, m)| match b {
                Some((_, bm)) if bm <= m => b,
                _ => Some((f, m)),
            })
            .map(|(f, _)| f)
        else {
            return false;
        };
        match self.steered.get(&(shunt, prefix)) {
            Some(&(was, _)) if was == best => {}
            Some(&(_, changed)) if now.saturating_since(changed) < self.cfg.hold => return false,
            _ => {
                self.steered.insert((shunt, prefix), (best, now));
            }
        }
        for (face, value) in metrics {
            self.reactions.metrics_sent += 1;
            self.out.push_back(ControlMessage {
                node: shunt,
                body: ControlBody::NextHopValue {
                    prefix,
                    face,
                    value,
                },
            });
        }
        true
    }

    /// The next hop the shunt router uses for `prefix` now: the one the controller chose
    /// last, else its first (cheapest) next hop.
    fn current(&self, shunt: u32, prefix: NameId) -> Option<FaceId> {
        match self.steered.get(&(shunt, prefix)) {
            Some(&(f, _)) => Some(f),
            None => self.topo.nodes[shunt as usize]
                .nexthops(prefix)
                .first()
                .copied(),
        }
    }

    /// How much lower the best next hop's metric is than the current one's.
    fn gain(&self, shunt: u32, prefix: NameId) -> f64 {
        let Some(cur) = self.current(shunt, prefix) else {
            return 0.0;
        };
        let hops = self.topo.nodes[shunt as usize].nexthops(prefix);
        let best = hops
            .iter()
            .map(|&f| self.metric(shunt, f, prefix))
            .fold(f64::INFINITY, f64::min);
        self.metric(shunt, cur, prefix) - best
    }

    /// Of (shunt router, prefix) `pairs`, the one whose move gains most (first on ties), if
    /// any gains.
    fn most_gain(&self, pairs: &[(u32, NameId)]) -> Option<(u32, NameId)> {
        let mut best: Option<((u32, NameId), f64)> = None;
        for &p in pairs {
            let g = self.gain(p.0, p.1);
            if g > 0.0 && best.is_none_or(|(_, bg)| g > bg) {
                best = Some((p, g));
            }
        }
        best.map(|(p, _)| p)
    }

    /// The cost calculator, for a mild congestion of `node`'s `face`.
    fn reroute(&mut self, now: Instant, node: u32, face: FaceId) {
        let mut pairs: Vec<(u32, NameId)> = Vec::new();
        for prefix in self.prefixes_on(node, face) {
            for shunt in self.shunt_routers(node, face, prefix) {
                pairs.push((shunt, prefix));
            }
        }
        if self.cfg.one_prefix {
            pairs = self.most_gain(&pairs).into_iter().collect();
        }
        let mut any = false;
        for (shunt, prefix) in pairs {
            any |= self.push_metrics(now, shunt, prefix);
        }
        if any {
            self.reactions.rerouted += 1;
        }
    }
}

impl SieveController {
    /// A router's held metric for next hop `face` of `prefix` (see the module doc).
    fn learn(&mut self, now: Instant, node: u32, prefix: NameId, face: FaceId, value: f64) {
        let held = self.held.entry((node, prefix)).or_default();
        match held.iter_mut().find(|(f, _)| *f == face) {
            Some(e) => e.1 = value,
            None => held.push((face, value)),
        }
        // the router's choice: the lowest metric, ties to the first
        let best = held
            .iter()
            .fold(None::<(FaceId, f64)>, |b, &(f, m)| match b {
                Some((_, bm)) if bm <= m => b,
                _ => Some((f, m)),
            })
            .map(|(f, _)| f);
        if let Some(best) = best {
            self.steered.insert((node, prefix), (best, now));
        }
    }
}

impl ControllerComponent for SieveController {
    fn handle_message(&mut self, now: Instant, msg: &ControlMessage) {
        let (face, values) = match &msg.body {
            ControlBody::FaceReport { face, values } => (face, values),
            &ControlBody::NextHopValue {
                prefix,
                face,
                value,
            } => return self.learn(now, msg.node, prefix, face, value),
        };
        let get = |k: &str| values.iter().find(|(n, _)| *n == k).map(|(_, v)| *v);
        let entry = self.gic.entry((msg.node, *face)).or_insert((0.0, 0.0));
        if let Some(b) = get(BETA) {
            entry.0 = b;
        }
        if let Some(e) = get(EPS) {
            entry.1 = e;
        }
        if get(SIGNAL).unwrap_or(0.0) <= 0.0 {
            return;
        }
        self.reactions.signals += 1;
        // the sieve: ε from the cache decides
        let (_, eps) = self.cached(msg.node, *face);
        if eps > self.cfg.th2 {
            self.reactions.severe += 1;
        } else {
            self.reactions.mild += 1;
            self.reroute(now, msg.node, *face);
        }
    }

    fn poll_message(&mut self) -> Option<ControlMessage> {
        self.out.pop_front()
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.cfg.refresh.then_some(self.next_poll)
    }

    fn on_timeout(&mut self, now: Instant) {
        if now < self.next_poll {
            return;
        }
        while self.next_poll <= now {
            self.next_poll += self.cfg.poll;
        }
        let mut steered: Vec<_> = self.steered.keys().copied().collect();
        if self.cfg.one_prefix {
            // one move per poll too: only the pair that gains most gets new metrics (the
            // others' choice would not change; their routers keep the last metrics)
            steered = self.most_gain(&steered).into_iter().collect();
        }
        for (shunt, prefix) in steered {
            self.push_metrics(now, shunt, prefix);
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let r = &self.reactions;
        vec![
            ("signals", r.signals),
            ("mild", r.mild),
            ("severe", r.severe),
            ("rerouted", r.rerouted),
            ("metrics_sent", r.metrics_sent),
        ]
    }
}

impl ComponentScheme for SieveController {
    type Config = SieveControllerConfig;
    const NAME: &'static str = "sieve";
    const DOC: &'static str = "ndnSieve's SDN controller (seed 004): caches the routers' \
        (β, ε), passes only mild congestion to the cost calculator, and pushes the metrics \
        max β·10·e^ε of the paths behind each interface of the shunt router.";
    fn build(cfg: &SieveControllerConfig, topo: &Topology) -> Self {
        SieveController::new(cfg.clone(), topo.clone())
    }
}
