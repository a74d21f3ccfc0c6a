//! Building the world: nodes, faces, links, routes and apps from the resolved spec.

use super::control::{ControlLink, ControlPlane};
use super::events::LinkDir;
use super::sample::Series;
use super::{AppLoc, Parts, World};
use crate::spec::{AppKind, ClockSpec, QueueSpec, ScenarioSpec, SpecError, WaitSpec};
use ndncc_core::app::{App, Consumer, ConsumerConfig, Placement, Producer, ProducerConfig};
use ndncc_core::control::ControllerComponent;
use ndncc_core::face::QueueLimit;
use ndncc_core::forwarder::{Forwarder, ForwarderConfig};
use ndncc_core::pacing::{ClockModel, WaitDist};
use ndncc_core::rng::{name_key, RngStream, StreamKind};
use ndncc_core::schemes::components::Topology;
use ndncc_core::schemes::strategies;
use ndncc_core::schemes::RouterModule;
use ndncc_core::{BitRate, Duration, Instant, NameTable, Node};
use std::sync::Arc;

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

/// The router module a node runs, from its `schemes` table (at most one, checked).
fn router_module(spec: &ScenarioSpec, node: &crate::spec::NodeSpec) -> RouterModule {
    match node.schemes.0.first() {
        Some(cfg) => {
            // the module's own stream: its draws must not shift the node's other draws
            let key = name_key(&[&node.name, cfg.name()]);
            cfg.build(RngStream::new(spec.seed, spec.run, StreamKind::Node, key))
        }
        None => RouterModule::None,
    }
}

/// A producer's share of its prefix's blocks: the interval after the shares of the producers of
/// the same prefix listed before it; the draws come from the prefix's own placement stream.
fn placement(
    spec: &ScenarioSpec,
    index: usize,
    p: &crate::spec::ProducerSpec,
) -> Result<Option<Placement>, SpecError> {
    let Some(share) = p.share else {
        return Ok(None);
    };
    let shares = |apps: &[crate::spec::AppSpec]| -> f64 {
        apps.iter()
            .filter_map(|a| match &a.app {
                AppKind::Producer(q) if q.prefix == p.prefix => q.share,
                _ => None,
            })
            .sum()
    };
    let lo = shares(&spec.apps[..index]);
    if shares(&spec.apps) > 1.0 + 1e-9 {
        return Err(SpecError(format!(
            "the shares of the producers of {} add up to more than 1",
            p.prefix
        )));
    }
    let key = RngStream::new(
        spec.seed,
        spec.run,
        StreamKind::App,
        name_key(&["placement", &p.prefix]),
    )
    .next_u64();
    Ok(Some(Placement {
        key,
        lo,
        hi: lo + share,
        block: p.placement_block.unwrap_or(1),
    }))
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
            placement: placement(spec, index, p)?,
        })),
        AppKind::Consumer(c) => {
            let controller = c.controller.build();
            let clock = clock_model(&c.clock);
            let engine = crate::engines::engine_from_spec(&c.engine, clock.granularity(), || {
                // its own stream: the clock model's draws use the consumer's
                let key = name_key(&[&a.name, "engine"]);
                RngStream::new(spec.seed, spec.run, StreamKind::App, key)
            });
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
                chunk_segments: c.chunk_segments,
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
    /// Builds the network (`large`: with the large networks' speed choices, see
    /// [`super::RunOptions::large_network`]); `routes_s` receives the seconds spent computing
    /// routes.
    pub(super) fn build(
        spec: &'a ScenarioSpec,
        parts: Parts,
        large: bool,
        routes_s: &mut f64,
    ) -> Result<Self, SpecError> {
        spec.check()?;
        if spec.nodes.len().max(2 * spec.links.len()) >= 1 << super::events::IDX_BITS {
            return Err(SpecError(
                "more than 4 194 303 nodes or link directions".into(),
            ));
        }
        let mut custom: Vec<Option<RouterModule>> = (0..spec.nodes.len()).map(|_| None).collect();
        for (n, m) in parts.modules {
            let slot = custom
                .get_mut(n)
                .ok_or_else(|| SpecError(format!("custom module for node {n}: no such node")))?;
            *slot = Some(RouterModule::Custom(m));
        }
        // buffer pools for large networks only: emptied buffers (face queues, PIT tables, app
        // lists) go to `ndncc_core::spare`'s pools, whose ≈ 100 instructions per packet hop pay
        // when per-flow state outgrows the caches (scale-10000: −30 % last-level misses per
        // event). Speed only: results are the same.
        ndncc_core::spare::set_pooling(large);
        let mut names = NameTable::new();
        // interns every prefix (routes' first, then apps'), computing routes on the way
        let started = std::time::Instant::now();
        let routes = crate::routing::routes(spec, &mut names);
        *routes_s = started.elapsed().as_secs_f64();
        let names = Arc::new(names);
        // faces per node (its links and apps), so that a hub's face list is allocated once
        let mut n_faces = vec![0usize; spec.nodes.len()];
        for l in &spec.links {
            n_faces[l.a] += 1;
            n_faces[l.b] += 1;
        }
        for a in &spec.apps {
            n_faces[a.node] += 1;
        }
        let mut nodes = Vec::with_capacity(spec.nodes.len());
        for n in &spec.nodes {
            // the strategy's own stream: its draws must not shift the node's other draws
            let srng = RngStream::new(
                spec.seed,
                spec.run,
                StreamKind::Node,
                name_key(&[&n.name, "strategy", &n.strategy]),
            );
            let strategy = strategies::build(&n.strategy, srng)
                .ok_or_else(|| SpecError(format!("unknown strategy {}", n.strategy)))?;
            let cfg = ForwarderConfig {
                strategy,
                cs_capacity: n.cs_capacity as usize,
                nack_overhead: spec.packets.nack_overhead,
            };
            let key = name_key(&[&n.name]);
            let rng = RngStream::new(spec.seed, spec.run, StreamKind::Node, key);
            let module = custom[nodes.len()]
                .take()
                .unwrap_or_else(|| router_module(spec, n));
            let mut node = Node::new(Forwarder::new(names.clone(), cfg, module, rng));
            node.fwd.core.faces.reserve_exact(n_faces[nodes.len()]);
            nodes.push(node);
        }
        let mut links = Vec::with_capacity(2 * spec.links.len());
        let mut link_faces = Vec::with_capacity(spec.links.len());
        let mut parallel: rustc_hash::FxHashMap<(usize, usize), usize> = Default::default();
        for (i, l) in spec.links.iter().enumerate() {
            // parallel links between the same pair are told apart by their order
            let seen = parallel.entry((l.a.min(l.b), l.a.max(l.b))).or_default();
            let ordinal = seen.to_string();
            *seen += 1;
            let bw = Some(BitRate(l.bandwidth_bps));
            let fa = nodes[l.a].add_net_face(l.b as u32, i as u32, queue_limit(l.queue_ab), bw);
            let fb = nodes[l.b].add_net_face(l.a as u32, i as u32, queue_limit(l.queue_ba), bw);
            link_faces.push((fa, fb));
            for (from, ff, to, tf) in [(l.a, fa, l.b, fb), (l.b, fb, l.a, fa)] {
                // direction 2·i is a→b, 2·i + 1 is b→a (the loop finds it from the face's link)
                let rng = RngStream::new(
                    spec.seed,
                    spec.run,
                    StreamKind::Link,
                    name_key(&[&spec.nodes[from].name, &spec.nodes[to].name, &ordinal]),
                );
                links.push(LinkDir::new(
                    (from as u32, ff),
                    (to as u32, tf),
                    BitRate(l.bandwidth_bps),
                    Duration(l.delay_ns),
                    l.loss,
                    rng,
                ));
            }
        }
        for r in &routes {
            let (fa, fb) = link_faces[r.link as usize];
            let face = if spec.links[r.link as usize].a == r.node as usize {
                fa
            } else {
                fb
            };
            nodes[r.node as usize].add_route(r.prefix, face, r.cost);
        }
        let control = control_plane(spec, &nodes, parts.controllers, parts.control_links)?;
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
        let ahead = super::prefetch::Ahead::new(&links, large);
        ahead.hint_links(&mut nodes, &links);
        Ok(World {
            spec,
            nodes,
            links,
            control,
            wire: Default::default(),
            apps,
            events: super::queue::Events::new(large),
            seq: 0,
            node_sched: vec![None; n_nodes],
            ready: Vec::new(),
            now: Instant::ZERO,
            processed: 0,
            packet_hops: 0,
            link_losses: 0,
            series: Series::default(),
            ahead,
            #[cfg(feature = "event-cost")]
            cost: Default::default(),
        })
    }
}

/// The control plane: the components given as code, then the scenario's (`spec.components`,
/// built from the topology as the routes left it), with their control links.
fn control_plane(
    spec: &ScenarioSpec,
    nodes: &[Node],
    mut controllers: Vec<Box<dyn ControllerComponent + Send>>,
    mut links: Vec<ControlLink>,
) -> Result<ControlPlane, SpecError> {
    if !spec.components.is_empty() {
        let topo = Topology::of(nodes.iter().map(|n| &n.fwd));
        for c in &spec.components {
            let index = controllers.len();
            controllers.push(c.config.build(&topo));
            links.extend(c.nodes.iter().map(|&node| ControlLink {
                node,
                controller: index,
                delay: Duration(c.delay_ns),
            }));
        }
    }
    ControlPlane::new(spec.nodes.len(), controllers, &links).map_err(SpecError)
}

pub(super) fn app_prefix(a: &crate::spec::AppSpec) -> &str {
    match &a.app {
        AppKind::Producer(p) => &p.prefix,
        AppKind::Consumer(c) => &c.prefix,
    }
}
