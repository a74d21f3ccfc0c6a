"""Computed routes (crates/sim/src/routing.rs): they exist exactly at the nodes a consumer's
Interests reach, and there they are the entries the every-node computation of earlier versions
gave (kept below as the reference), so forwarding is unchanged for every scenario."""

from __future__ import annotations

import heapq
import random
from pathlib import Path

import pytest
from ndncc import workloads
from ndncc.scenario import Scenario

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted(
    p
    for p in [*ROOT.glob("scenarios/**/*.toml"), *(ROOT / "tests" / "data").glob("*.toml")]
    if "sweeps" not in p.parts and "minindn" not in p.name
)
U32 = 2**32 - 1


# ---- the reference: every node gets a route to every producer prefix (ndncc ≤ 0.1) ----------


def _components(prefix: str) -> list[str]:
    return [c for c in prefix.split("/") if c]


def covers(prefix: str, name: str) -> bool:
    p, n = _components(prefix), _components(name)
    return n[: len(p)] == p


def reference_routes(spec: dict) -> list[tuple]:
    """(node, prefix, link, cost) of the old every-node Dijkstra, merged with static routes."""
    routing = spec.get("routing", {"mode": "static"})
    static = [(r["node"], r["prefix"], r["link"], r["cost"]) for r in spec["routes"]]
    if routing["mode"] != "shortest":
        return static
    metric = routing["metric"]
    adj: list[list[tuple[int, int, int]]] = [[] for _ in spec["nodes"]]
    for i, link in enumerate(spec["links"]):
        w = {"delay": link["delay_ns"], "hops": 0, "cost": link.get("cost", 0)}[metric]
        adj[link["a"]].append((link["b"], i, w))
        adj[link["b"]].append((link["a"], i, w))
    prefixes: list[str] = []
    for app in spec["apps"]:
        if app["app"]["kind"] == "producer" and app["app"]["prefix"] not in prefixes:
            prefixes.append(app["app"]["prefix"])
    computed = []
    for prefix in prefixes:
        sources = {
            a["node"]
            for a in spec["apps"]
            if a["app"]["kind"] == "producer" and a["app"]["prefix"] == prefix
        }
        dist = {s: (0, 0) for s in sources}
        heap = [(0, 0, s) for s in sorted(sources)]
        done = set()
        while heap:
            d, hops, node = heapq.heappop(heap)
            if node in done:
                continue
            done.add(node)
            for other, _, w in adj[node]:
                cand = (d + w, hops + 1)
                if other not in dist or cand < dist[other]:
                    dist[other] = cand
                    heapq.heappush(heap, (*cand, other))
        for node in range(len(spec["nodes"])):
            if node in sources or node not in dist:
                continue
            tight = [
                (other, link)
                for other, link, w in adj[node]
                if other in dist and (dist[other][0] + w, dist[other][1] + 1) == dist[node]
            ]
            total, hops = dist[node]
            cost = {"delay": -(-total // 1000), "hops": hops, "cost": total}[metric]
            computed.append((node, prefix, min(tight)[1], min(cost, U32)))
    position = {r[:3]: i for i, r in enumerate(computed)}
    for r in static:
        if r[:3] in position:
            computed[position[r[:3]]] = r
        else:
            computed.append(r)
    return computed


def reached(spec: dict, fib: list[tuple]) -> dict[str, set[int]]:
    """Consumer prefix -> the nodes its Interests can reach when every node forwards on every
    next hop of its longest-prefix match in `fib` (a local producer's prefix counts)."""
    entries: dict[int, dict[str, list[int]]] = {}
    for node, prefix, link, _ in fib:
        entries.setdefault(node, {}).setdefault(prefix, []).append(link)
    for app in spec["apps"]:
        if app["app"]["kind"] == "producer":
            entries.setdefault(app["node"], {}).setdefault(app["app"]["prefix"], [])
    out: dict[str, set[int]] = {}
    for app in spec["apps"]:
        if app["app"]["kind"] != "consumer":
            continue
        name = app["app"]["prefix"]
        seen = out.setdefault(name, set())
        stack = [app["node"]]
        while stack:
            x = stack.pop()
            if x in seen:
                continue
            seen.add(x)
            matching = [p for p in entries.get(x, {}) if covers(p, name)]
            if not matching:
                continue
            longest = max(matching, key=lambda p: len(_components(p)))
            for link in entries[x][longest]:
                ends = spec["links"][link]
                stack.append(ends["b"] if ends["a"] == x else ends["a"])
    return out


def check_exact(scenario: Scenario) -> list[tuple]:
    """Asserts that the simulator's routes are the reference's at every node some consumer's
    Interests reach (for every prefix covering its names), and exist nowhere else."""
    spec = scenario.resolve()
    new = [(r["node"], r["prefix"], r["link"], r["cost"]) for r in scenario.routes()]
    old = reference_routes(spec)
    assert len(set(new)) == len(new)
    static = {(r["node"], r["prefix"], r["link"], r["cost"]) for r in spec["routes"]}
    assert static <= set(new)  # every [[routes]] entry, wherever it is
    assert set(new) <= set(old)
    walk = reached(spec, new)
    assert walk == reached(spec, old)  # Interests go exactly where they went
    for node, prefix, *_ in set(new) - static:
        assert any(node in nodes and covers(prefix, c) for c, nodes in walk.items()), (
            f"route for {prefix} at node {node}, which no Interest under it reaches"
        )
    for c, nodes in walk.items():
        for r in old:
            if r[0] in nodes and covers(r[1], c):
                assert r in new, f"missing route {r} at a node {c}'s Interests reach"
    return new


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_scenario_routes_exactly_where_interests_go(path):
    check_exact(Scenario.load(path))


def test_dumbbell_routes_only_on_the_paths():
    routes = check_exact(workloads.dumbbell(50))
    # consumer i's node, R1 and R2 for /p<i>: three entries a prefix, not one a node
    assert len(routes) == 3 * 50


def test_isp_map_routes_only_on_the_paths(tmp_path):
    check_exact(workloads.isp(60, directory=tmp_path))


def random_scenario(seed: int) -> Scenario:
    """A random connected graph (zero-delay links, leaves, cycles), producers of nested
    prefixes, consumers anywhere, some static routes, a random metric."""
    rng = random.Random(seed)
    n = rng.randint(3, 14)
    s = Scenario(name=f"random{seed}", duration="1s").defaults(bandwidth="10Mbps")
    names = [f"N{i}" for i in range(n)]
    for name in rng.sample(names, n):
        s.node(name)
    pairs = []
    for i in range(1, n):
        pairs.append((names[rng.randrange(i)], names[i]))
    for _ in range(rng.randint(0, n)):
        a, b = rng.sample(names, 2)
        if not {(a, b), (b, a)} & set(pairs):  # a scenario has no parallel links
            pairs.append((a, b))
    for a, b in pairs:
        s.link(a, b, delay=f"{rng.choice([0, 1, 1, 2, 5])}ms", cost=rng.randint(0, 3))
    prefixes = ["/a", "/a/b", "/c", "/"]
    produced = []
    for _ in range(rng.randint(1, 4)):
        prefix = rng.choice(prefixes)
        produced.append(prefix)
        s.producer(rng.choice(names), prefix)
    for _ in range(rng.randint(1, 4)):
        base = rng.choice(produced)
        s.consumer(rng.choice(names), base if base == "/" else base + rng.choice(["", "/x"]))
    adjacent = {}
    for a, b in pairs:
        adjacent.setdefault(a, set()).add(b)
        adjacent.setdefault(b, set()).add(a)
    for _ in range(rng.randint(0, 3)):
        node = rng.choice(names)
        s.route(node, rng.choice(prefixes), rng.choice(sorted(adjacent[node])), rng.randint(0, 9))
    s.routing(metric=rng.choice(["delay", "hops", "cost"]))
    return s


@pytest.mark.parametrize("seed", range(120))
def test_random_graphs_match_the_every_node_routes(seed):
    scenario = random_scenario(seed)
    try:
        scenario.resolve()
    except Exception:  # e.g. a duplicate static route drawn twice: not a routing question
        pytest.skip("invalid random scenario")
    check_exact(scenario)
