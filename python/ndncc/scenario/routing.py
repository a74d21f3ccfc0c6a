"""Routing: [routing] and static [[routes]]. The shortest-path routes towards producer prefixes
are computed by the simulator (``crates/sim/src/routing.rs``), only at the nodes consumers'
Interests reach; :meth:`~ndncc.scenario.Scenario.routes` lists them."""

from __future__ import annotations

from .convert import _choice, _integer, _name, _next_hops, _prefix
from .keys import _ROUTE_KEYS, METRICS, ROUTING_MODES, U32
from .tables import _invalid, _Table


class _RoutingReader:
    """[routing] and [[routes]] (mixed into :class:`~.resolver._Resolver`)."""

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


def _components(prefix: str) -> list[str]:
    return [c for c in prefix.split("/") if c]


def _covers(prefix: str, name: str) -> bool:
    """True if `prefix` is a component-wise prefix of `name` ("/a" covers "/a/b", not "/ab")."""
    p, n = _components(prefix), _components(name)
    return n[: len(p)] == p
