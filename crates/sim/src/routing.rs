//! Routes: the spec's static ones plus, with `mode = "shortest"`, the shortest-path routes
//! towards every producer prefix — computed only at the nodes a consumer's Interests can reach.
//!
//! The rules are `docs/scenario.md`'s "How routes are computed": at a node, the entry for a
//! producer prefix points to the nearest producer of it by the metric (ties: fewer hops, then the
//! lowest-index next hop, i.e. the first hop of the lexicographically first shortest path); its
//! cost is the metric as an integer; a producer's own node gets no entry for its prefix. An
//! entry exists only where an Interest can use it: starting at every consumer's node, the walk
//! follows the next hops of the longest-prefix-matching entry (computed, static or a local
//! producer's) for the consumer's names, and every node it reaches gets the computed entries of
//! the producer prefixes covering those names. The entries at those nodes are exactly those an
//! every-node computation would give; nowhere else does an Interest look one up.
//!
//! Cost: one resumable Dijkstra per producer prefix, run only as far as the walk needs, and over
//! the graph without its leaves (nodes with one neighbour): a leaf is never between two other
//! nodes on a shortest path, nor the tight next hop of its neighbour unless it is a source, so a
//! hub with 10 000 leaf neighbours costs nothing per prefix. The work grows with the routes that
//! exist, not with nodes × prefixes.

use crate::spec::{AppKind, RoutingMetric, RoutingMode, ScenarioSpec};
use ndncc_core::{NameId, NameTable};
use rustc_hash::{FxHashMap, FxHashSet};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One FIB entry: at `node`, Interests under `prefix` may leave on the face of `link`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Route {
    pub node: u32,
    pub prefix: NameId,
    pub link: u32,
    pub cost: u32,
}

/// A path length: (metric total, hops), compared lexicographically, so that zero-weight links
/// never make two nodes each other's next hop.
type Dist = (u128, u32);

/// (neighbour, link, weight)
type Edge = (u32, u32, u64);

struct Graph {
    /// Every link of a node, in link order.
    adj: Vec<Vec<Edge>>,
    /// The links of a node to neighbours that have more than one neighbour.
    core: Vec<Vec<Edge>>,
    /// A node's neighbour when it has exactly one (a leaf).
    only: Vec<Option<u32>>,
    /// Connected component of each node.
    comp: Vec<u32>,
}

impl Graph {
    fn new(spec: &ScenarioSpec, metric: RoutingMetric) -> Self {
        let n = spec.nodes.len();
        let mut adj: Vec<Vec<Edge>> = vec![Vec::new(); n];
        for (i, l) in spec.links.iter().enumerate() {
            let w = match metric {
                RoutingMetric::Delay => l.delay_ns,
                RoutingMetric::Hops => 0,
                RoutingMetric::Cost => u64::from(l.cost),
            };
            adj[l.a].push((l.b as u32, i as u32, w));
            adj[l.b].push((l.a as u32, i as u32, w));
        }
        let only: Vec<Option<u32>> = adj
            .iter()
            .map(|edges| {
                let first = edges.first()?.0;
                edges.iter().all(|e| e.0 == first).then_some(first)
            })
            .collect();
        let core = adj
            .iter()
            .map(|edges| {
                edges
                    .iter()
                    .copied()
                    .filter(|e| only[e.0 as usize].is_none())
                    .collect()
            })
            .collect();
        let mut parent: Vec<u32> = (0..n as u32).collect();
        fn find(p: &mut [u32], mut x: u32) -> u32 {
            while p[x as usize] != x {
                p[x as usize] = p[p[x as usize] as usize];
                x = p[x as usize];
            }
            x
        }
        for l in &spec.links {
            let (a, b) = (find(&mut parent, l.a as u32), find(&mut parent, l.b as u32));
            parent[a as usize] = b;
        }
        let comp = (0..n as u32).map(|x| find(&mut parent, x)).collect();
        Graph {
            adj,
            core,
            only,
            comp,
        }
    }
}

/// Multi-source Dijkstra towards the producers of one prefix, resumed on demand.
struct Search {
    /// Producer nodes, sorted.
    sources: Vec<u32>,
    /// Source leaves by their neighbour.
    leaf_sources: FxHashMap<u32, Vec<u32>>,
    /// Components holding a source.
    comps: Vec<u32>,
    dist: FxHashMap<u32, Dist>,
    done: FxHashSet<u32>,
    heap: BinaryHeap<Reverse<(Dist, u32)>>,
}

impl Search {
    fn new(g: &Graph, mut sources: Vec<u32>) -> Self {
        sources.sort_unstable();
        sources.dedup();
        let mut leaf_sources: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        let mut dist = FxHashMap::default();
        let mut heap = BinaryHeap::new();
        for &s in &sources {
            if let Some(n) = g.only[s as usize] {
                leaf_sources.entry(n).or_default().push(s);
            }
            dist.insert(s, (0, 0));
            heap.push(Reverse(((0, 0), s)));
        }
        let mut comps: Vec<u32> = sources.iter().map(|&s| g.comp[s as usize]).collect();
        comps.sort_unstable();
        comps.dedup();
        Search {
            sources,
            leaf_sources,
            comps,
            dist,
            done: FxHashSet::default(),
            heap,
        }
    }

    fn is_source(&self, x: u32) -> bool {
        self.sources.binary_search(&x).is_ok()
    }

    fn reachable(&self, g: &Graph, x: u32) -> bool {
        self.comps.binary_search(&g.comp[x as usize]).is_ok()
    }

    /// Runs Dijkstra (over the graph without leaves) until `x` is settled; its distance.
    fn settle(&mut self, g: &Graph, x: u32) -> Option<Dist> {
        while !self.done.contains(&x) {
            let Reverse((d, u)) = self.heap.pop()?;
            if !self.done.insert(u) {
                continue;
            }
            for &(v, _, w) in &g.core[u as usize] {
                if self.done.contains(&v) {
                    continue;
                }
                let candidate = (d.0 + u128::from(w), d.1 + 1);
                if self.dist.get(&v).is_none_or(|&old| candidate < old) {
                    self.dist.insert(v, candidate);
                    self.heap.push(Reverse((candidate, v)));
                }
            }
        }
        self.dist.get(&x).copied()
    }

    /// The distance of `x` to the nearest source, if any.
    fn distance(&mut self, g: &Graph, x: u32) -> Option<Dist> {
        if !self.reachable(g, x) {
            return None;
        }
        match g.only[x as usize] {
            // a leaf that is not a source: through its neighbour
            Some(n) if !self.is_source(x) => {
                if g.only[n as usize].is_some() && !self.is_source(n) {
                    return None; // two leaves, no source
                }
                let dn = self.settle(g, n)?;
                g.adj[x as usize]
                    .iter()
                    .map(|&(_, _, w)| (dn.0 + u128::from(w), dn.1 + 1))
                    .min()
            }
            _ => self.settle(g, x),
        }
    }

    /// The route at `x` (not a source): the link to the lowest-index neighbour on a shortest
    /// path, and the path's length.
    fn route(&mut self, g: &Graph, x: u32) -> Option<(u32, Dist)> {
        let target = self.distance(g, x)?;
        let tight = |dy: Dist, w: u64| (dy.0 + u128::from(w), dy.1 + 1) == target;
        let mut best: Option<(u32, u32)> = None;
        let mut consider = |y: u32, link: u32| {
            if best.is_none_or(|b| (y, link) < b) {
                best = Some((y, link));
            }
        };
        if g.only[x as usize].is_some() {
            for &(y, link, w) in &g.adj[x as usize] {
                if self.dist_known(y).is_some_and(|dy| tight(dy, w)) {
                    consider(y, link);
                }
            }
        } else {
            // non-leaf neighbours settled before x (a tight one has a smaller distance) ...
            for &(y, link, w) in &g.core[x as usize] {
                if self.done.contains(&y) && tight(self.dist[&y], w) {
                    consider(y, link);
                }
            }
            // ... and leaf neighbours that are sources (no other leaf is ever tight)
            for &s in self.leaf_sources.get(&x).map_or(&[][..], |v| &v[..]) {
                for &(_, link, w) in &g.adj[s as usize] {
                    if tight((0, 0), w) {
                        consider(s, link);
                    }
                }
            }
        }
        best.map(|(_, link)| (link, target))
    }

    fn dist_known(&self, y: u32) -> Option<Dist> {
        if self.is_source(y) {
            return Some((0, 0));
        }
        self.done.contains(&y).then(|| self.dist[&y])
    }
}

fn route_cost((total, hops): Dist, metric: RoutingMetric) -> u32 {
    let value = match metric {
        RoutingMetric::Delay => total.div_ceil(1000), // microseconds, rounded up
        RoutingMetric::Hops => u128::from(hops),
        RoutingMetric::Cost => total,
    };
    value.min(u128::from(u32::MAX)) as u32
}

/// Interns every prefix of the scenario in `names` — the producer prefixes that get computed
/// routes (in producer order), then static routes', then the apps' — and returns every FIB
/// entry on net faces: computed ones grouped by prefix then node, then static ones (a static
/// entry for the same node, prefix and link as a computed one replaces it in place).
pub fn routes(spec: &ScenarioSpec, names: &mut NameTable) -> Vec<Route> {
    let shortest = spec.routing.mode == RoutingMode::Shortest;
    let metric = spec.routing.metric;
    let g = Graph::new(spec, metric);
    // producer prefixes in order of first appearance, with their nodes
    let mut order: Vec<&str> = Vec::new();
    let mut nodes_of: FxHashMap<&str, Vec<u32>> = FxHashMap::default();
    for a in &spec.apps {
        if let AppKind::Producer(p) = &a.app {
            let e = nodes_of.entry(p.prefix.as_str()).or_insert_with(|| {
                order.push(p.prefix.as_str());
                Vec::new()
            });
            e.push(a.node as u32);
        }
    }
    // interned first: the prefixes that have a computed entry at some node (a node sharing a
    // component with a producer of it that is not one) — the order of earlier versions, which
    // put every such entry in the spec
    let mut comp_size: FxHashMap<u32, usize> = FxHashMap::default();
    for &c in &g.comp {
        *comp_size.entry(c).or_default() += 1;
    }
    if shortest {
        for p in &order {
            let mut per_comp: FxHashMap<u32, FxHashSet<u32>> = FxHashMap::default();
            for &n in &nodes_of[p] {
                per_comp.entry(g.comp[n as usize]).or_default().insert(n);
            }
            if per_comp.iter().any(|(c, s)| comp_size[c] > s.len()) {
                names.intern(p);
            }
        }
    }
    let statics: Vec<Route> = spec
        .routes
        .iter()
        .map(|r| Route {
            node: r.node as u32,
            prefix: names.intern(&r.prefix),
            link: r.link as u32,
            cost: r.cost,
        })
        .collect();
    for a in &spec.apps {
        names.intern(a.prefix());
    }
    if !shortest {
        return statics;
    }
    let computed = computed_routes(spec, names, &g, &order, &nodes_of, &statics);
    merge(computed, statics)
}

/// The walk from every consumer (see the module doc).
fn computed_routes(
    spec: &ScenarioSpec,
    names: &NameTable,
    g: &Graph,
    order: &[&str],
    nodes_of: &FxHashMap<&str, Vec<u32>>,
    statics: &[Route],
) -> Vec<Route> {
    let metric = spec.routing.metric;
    // producer prefix id -> its search (created on first use)
    let mut index: FxHashMap<NameId, usize> = FxHashMap::default();
    let mut sources: Vec<Vec<u32>> = Vec::new();
    for p in order {
        let id = names.lookup(p).expect("interned");
        let i = *index.entry(id).or_insert_with(|| {
            sources.push(Vec::new());
            sources.len() - 1
        });
        sources[i].extend(&nodes_of[p]);
    }
    for s in &mut sources {
        s.sort_unstable();
        s.dedup();
    }
    let ids: Vec<NameId> = {
        let mut v = vec![NameId::ROOT; sources.len()];
        for (&id, &i) in &index {
            v[i] = id;
        }
        v
    };
    let mut searches: Vec<Option<Search>> = (0..sources.len()).map(|_| None).collect();
    let local: FxHashSet<(u32, NameId)> = spec
        .apps
        .iter()
        .filter_map(|a| match &a.app {
            AppKind::Producer(p) => Some((a.node as u32, names.lookup(&p.prefix)?)),
            AppKind::Consumer(_) => None,
        })
        .collect();
    let mut static_at: FxHashMap<(u32, NameId), Vec<u32>> = FxHashMap::default();
    for r in statics {
        static_at
            .entry((r.node, r.prefix))
            .or_default()
            .push(r.link);
    }
    // consumers grouped by prefix, in order of appearance
    let mut consumer_order: Vec<NameId> = Vec::new();
    let mut starts: FxHashMap<NameId, Vec<u32>> = FxHashMap::default();
    for a in &spec.apps {
        if let AppKind::Consumer(c) = &a.app {
            let id = names.lookup(&c.prefix).expect("interned");
            starts
                .entry(id)
                .or_insert_with(|| {
                    consumer_order.push(id);
                    Vec::new()
                })
                .push(a.node as u32);
        }
    }
    // (producer prefix index, node) -> (link, cost)
    let mut found: FxHashMap<(usize, u32), Option<(u32, u32)>> = FxHashMap::default();
    let mut route_at = |i: usize, x: u32| -> Option<(u32, u32)> {
        *found.entry((i, x)).or_insert_with(|| {
            if sources[i].binary_search(&x).is_ok() {
                return None; // served by the local producer's app face
            }
            let s = searches[i].get_or_insert_with(|| Search::new(g, sources[i].clone()));
            s.route(g, x).map(|(link, d)| (link, route_cost(d, metric)))
        })
    };
    for c in consumer_order {
        // the producer prefixes covering c's names, longest first, and every ancestor
        let mut chain = vec![c];
        while let Some(p) = names.parent(*chain.last().expect("non-empty")) {
            chain.push(p);
        }
        let covering: Vec<(NameId, Option<usize>)> =
            chain.iter().map(|&a| (a, index.get(&a).copied())).collect();
        let mut visited: FxHashSet<u32> = FxHashSet::default();
        let mut stack: Vec<u32> = Vec::new();
        for &x in &starts[&c] {
            if visited.insert(x) {
                stack.push(x);
            }
        }
        while let Some(x) = stack.pop() {
            let mut next: Vec<u32> = Vec::new();
            let mut matched = false;
            for &(a, producer) in &covering {
                let computed = producer.and_then(|i| route_at(i, x));
                if matched {
                    continue; // shorter entries: installed, not followed
                }
                let statics = static_at.get(&(x, a));
                if computed.is_none() && statics.is_none() && !local.contains(&(x, a)) {
                    continue;
                }
                matched = true; // the longest match: Interests for c leave on its next hops
                next.extend(computed.map(|(link, _)| link));
                next.extend(statics.into_iter().flatten().copied());
            }
            for link in next {
                let l = &spec.links[link as usize];
                let y = if l.a as u32 == x { l.b } else { l.a } as u32;
                if visited.insert(y) {
                    stack.push(y);
                }
            }
        }
    }
    let mut out: Vec<((usize, u32), (u32, u32))> = found
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k, v)))
        .collect();
    out.sort_unstable_by_key(|&(k, _)| k);
    out.into_iter()
        .map(|((i, node), (link, cost))| Route {
            node,
            prefix: ids[i],
            link,
            cost,
        })
        .collect()
}

/// Computed entries, then static ones; a static one for the same (node, prefix, link) as a
/// computed one replaces it in place (its cost wins).
fn merge(computed: Vec<Route>, statics: Vec<Route>) -> Vec<Route> {
    let mut routes = computed;
    let position: FxHashMap<(u32, NameId, u32), usize> = routes
        .iter()
        .enumerate()
        .map(|(i, r)| ((r.node, r.prefix, r.link), i))
        .collect();
    for r in statics {
        match position.get(&(r.node, r.prefix, r.link)) {
            Some(&i) => routes[i] = r,
            None => routes.push(r),
        }
    }
    routes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::*;

    fn spec(json: &str) -> ScenarioSpec {
        ScenarioSpec::from_json(json).expect("spec")
    }

    fn node(name: &str) -> String {
        format!(r#"{{"name": "{name}"}}"#)
    }

    fn link(a: usize, b: usize, delay_ns: u64) -> String {
        format!(r#"{{"a": {a}, "b": {b}, "bandwidth_bps": 1000000, "delay_ns": {delay_ns}}}"#)
    }

    fn app(kind: &str, node: usize, prefix: &str) -> String {
        let extra = if kind == "producer" {
            r#""payload_size": 100"#
        } else {
            r#""controller": {"type": "constant_rate", "rate": 1.0}"#
        };
        format!(
            r#"{{"name": "{kind}{node}", "node": {node}, "app": {{"kind": "{kind}", "prefix": "{prefix}", {extra}}}}}"#
        )
    }

    fn routes_of(
        nodes: &[&str],
        links: &[String],
        apps: &[String],
    ) -> Vec<(u32, String, u32, u32)> {
        let s = spec(&format!(
            r#"{{"name": "t", "duration_ns": 1, "nodes": [{}], "links": [{}], "apps": [{}],
                "routing": {{"mode": "shortest", "metric": "delay"}}}}"#,
            nodes.iter().map(|n| node(n)).collect::<Vec<_>>().join(","),
            links.join(","),
            apps.join(",")
        ));
        let mut names = NameTable::new();
        routes(&s, &mut names)
            .into_iter()
            .map(|r| (r.node, names.uri(r.prefix), r.link, r.cost))
            .collect()
    }

    #[test]
    fn parallel_links_take_the_shorter_then_the_first() {
        // C = P twice (links 0: 5 ms, 1: 2 ms, 2: 2 ms): the 2 ms link of lowest index
        let links = [
            link(0, 1, 5_000_000),
            link(0, 1, 2_000_000),
            link(1, 0, 2_000_000),
        ];
        let apps = [app("consumer", 0, "/p"), app("producer", 1, "/p")];
        assert_eq!(
            routes_of(&["C", "P"], &links, &apps),
            vec![(0, "/p".into(), 1, 2000)]
        );
    }

    #[test]
    fn leaves_relay_nothing_and_unreachable_nodes_get_nothing() {
        // C - H - P with leaves L1, L2 on H, and an island X - Y with a consumer of /p on X
        let links = [
            link(0, 1, 1_000_000),
            link(1, 2, 1_000_000),
            link(1, 3, 1_000_000),
            link(1, 4, 1_000_000),
            link(5, 6, 1_000_000),
        ];
        let apps = [
            app("consumer", 0, "/p"),
            app("producer", 2, "/p"),
            app("consumer", 5, "/p"),
        ];
        let got = routes_of(&["C", "H", "P", "L1", "L2", "X", "Y"], &links, &apps);
        assert_eq!(
            got,
            vec![(0, "/p".into(), 0, 2000), (1, "/p".into(), 1, 1000)]
        );
    }
}
