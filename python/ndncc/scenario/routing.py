"""Routing: [routing] and static [[routes]], and the shortest-path routes computed towards
every producer prefix (Dijkstra), merged with the static ones."""

from __future__ import annotations

import heapq

from .convert import _choice, _integer, _name, _next_hops, _prefix
from .keys import _ROUTE_KEYS, METRICS, ROUTING_MODES, U32
from .tables import _invalid, _Link, _Table


class _RoutingReader:
    """[routing], [[routes]] and the computed routes (mixed into
    :class:`~.resolver._Resolver`)."""

    # ---- [routing], [[routes]] -------------------------------------------------------------

    def read_routing(self) -> tuple[str, str]:
        t = self.table("routing")
        t.check_keys(("mode", "metric"))
        mode = t.get("mode", _choice("routing mode", ROUTING_MODES), default="shortest")
        metric = t.get("metric", _choice("routing metric", METRICS), default="delay")
        return mode, metric

    def read_routes(self) -> list[dict]:
        routes: list[dict] = []
        seen: dict[tuple, str] = {}
        for t in self.array("routes"):
            t.check_keys(_ROUTE_KEYS)
            for route in self.read_route(t):
                key = (route["node"], route["prefix"], route["link"])
                if key in seen:
                    t.error(
                        "next_hop",
                        f"duplicate route (same node, prefix and next hop as {seen[key]})",
                        "remove one of them",
                    )
                    continue
                seen[key] = t.path
                routes.append(route)
        return routes

    def read_route(self, t: _Table) -> list[dict]:
        node_name = t.get("node", _name("node"), required='add node = "NAME"')
        prefix = t.get("prefix", _prefix, required='add prefix = "/prefix"')
        hops = t.get("next_hop", _next_hops, required='add next_hop = "NEIGHBOUR"')
        cost = t.get("cost", _integer(0, U32), default=0)
        node = None if _invalid(node_name) else self.node_ref(t, "node", node_name)
        if node is None or _invalid(prefix, hops, cost):
            return []
        routes = []
        for hop in hops:
            link = self.route_link(t, node, hop)
            if link is not None:
                routes.append({"node": node, "prefix": prefix, "link": link, "cost": cost})
        return routes

    def route_link(self, t: _Table, node: int, hop: str) -> int | None:
        other = self.node_ref(t, "next_hop", hop)
        if other is None:
            return None
        link = self.link_by_pair.get(frozenset((node, other)))
        if link is None:
            name = self.nodes[node]["name"]
            neighbours = [self.nodes[n]["name"] for n in self.neighbours(node)]
            fix = (
                f"neighbours of {name}: {', '.join(neighbours)}"
                if neighbours
                else f"{name} has no links; add one"
            )
            if other == node:
                fix = f"a next hop is a neighbour, not the node itself ({fix})"
            t.error("next_hop", f"'{hop}' is not a neighbour of {name}", fix)
        return link

    def neighbours(self, node: int) -> list[int]:
        result = []
        for link in self.links:
            if node in (link.a, link.b):
                result.append(link.b if link.a == node else link.a)
        return result

    # ---- routes -------------------------------------------------------------------------------

    def compute_routes(self, metric: str) -> list[dict]:
        routes = []
        prefixes: list[str] = []
        for app in self.apps:
            if app.kind == "producer" and app.prefix not in prefixes:
                prefixes.append(app.prefix)
        for prefix in prefixes:
            sources = {
                app.node for app in self.apps if app.kind == "producer" and app.prefix == prefix
            }
            routes.extend(self.routes_to(prefix, sources, metric))
        return routes

    def routes_to(self, prefix: str, sources: set[int], metric: str) -> list[dict]:
        adj = self.adjacency(metric)
        dist = _dijkstra(len(self.nodes), adj, sources)
        routes = []
        for node in range(len(self.nodes)):
            if node in sources or node not in dist:
                continue
            link = _next_hop_link(adj[node], dist, dist[node])
            routes.append(
                {
                    "node": node,
                    "prefix": prefix,
                    "link": link,
                    "cost": _route_cost(dist[node], metric),
                }
            )
        return routes

    def adjacency(self, metric: str) -> list[list[tuple[int, int, int]]]:
        """adjacency[node] = [(neighbour, link index, weight)]."""
        adj: list[list[tuple[int, int, int]]] = [[] for _ in self.nodes]
        for i, link in enumerate(self.links):
            weight = _link_weight(link, metric)
            adj[link.a].append((link.b, i, weight))
            adj[link.b].append((link.a, i, weight))
        return adj


def _components(prefix: str) -> list[str]:
    return [c for c in prefix.split("/") if c]


def _covers(prefix: str, name: str) -> bool:
    """True if `prefix` is a component-wise prefix of `name` ("/a" covers "/a/b", not "/ab")."""
    p, n = _components(prefix), _components(name)
    return n[: len(p)] == p


def _link_weight(link: _Link, metric: str) -> int:
    return {"delay": link.delay_ns, "hops": 0, "cost": link.cost}[metric]


def _route_cost(dist: tuple[int, int], metric: str) -> int:
    total, hops = dist
    if metric == "delay":
        total = -(-total // 1000)  # microseconds, rounded up
    elif metric == "hops":
        total = hops
    return min(total, U32)


def _dijkstra(
    n: int, adj: list[list[tuple[int, int, int]]], sources: set[int]
) -> dict[int, tuple[int, int]]:
    """Multi-source shortest paths; distances are (metric, hops), compared lexicographically,
    so that zero-weight links never make two nodes each other's next hop."""
    dist: dict[int, tuple[int, int]] = {s: (0, 0) for s in sources}
    heap = [(0, 0, s) for s in sorted(sources)]
    done = [False] * n
    while heap:
        d, hops, node = heapq.heappop(heap)
        if done[node]:
            continue
        done[node] = True
        for other, _link, weight in adj[node]:
            candidate = (d + weight, hops + 1)
            if other not in dist or candidate < dist[other]:
                dist[other] = candidate
                heapq.heappush(heap, (*candidate, other))
    return dist


def _next_hop_link(
    edges: list[tuple[int, int, int]], dist: dict[int, tuple[int, int]], target: tuple[int, int]
) -> int:
    """The link to the lowest-index neighbour on a shortest path (`edges` of the node, `target`
    its distance): the first hop of the lexicographically first shortest path."""
    tight = [
        (other, link)
        for other, link, weight in edges
        if other in dist and (dist[other][0] + weight, dist[other][1] + 1) == target
    ]
    return min(tight)[1]


def _merge_routes(computed: list[dict], static: list[dict]) -> list[dict]:
    """Computed routes, then static ones; a static route for the same (node, prefix, link) as a
    computed one replaces it in place (its cost wins)."""
    routes = [dict(r) for r in computed]
    position = {(r["node"], r["prefix"], r["link"]): i for i, r in enumerate(routes)}
    for route in static:
        key = (route["node"], route["prefix"], route["link"])
        if key in position:
            routes[position[key]] = dict(route)
        else:
            routes.append(dict(route))
    return routes
