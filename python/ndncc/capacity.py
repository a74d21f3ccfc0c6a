"""The capacity a run's Data had: the bottleneck the traffic crossed, not the slowest link
anywhere in the topology.

From the run's own counters: the link directions that carried Data (a net face with
``out_data`` > 0), the nodes Data came from (a producer's node, or one that sent more Data than
the network gave it: a cache), and the nodes of the consumers that received Data. The capacity
is the maximum flow from those sources to those consumers over those link directions, each at
its bandwidth — for one path its slowest link, for two disjoint 10 Mbit/s paths 20 Mbit/s; a
dead-end link no Data crossed does not count. ``capacity_link`` names the links of the minimum
cut ("R1–R2", several joined by " + ").

Nothing is returned (no capacity line on the figures) when it is not defined: no Data crossed
a link, or a consumer got Data from its own node (a source and a consumer on one node: no link
bounds it).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["bottleneck", "max_flow"]

#: links named in ``capacity_link`` before "…"
MAX_NAMED = 4


def max_flow(
    n: int, edges: Sequence[tuple[int, int, float]], sources: set[int], sinks: set[int]
) -> tuple[float, list[int]]:
    """Maximum flow over directed `edges` (u, v, capacity) of an `n`-node graph from every
    node of `sources` to every node of `sinks` (Dinic's algorithm), and the indices of the
    edges of a minimum cut (saturated, from the sources' side of the residual graph to the
    other). Infinite when a node is both a source and a sink."""
    if sources & sinks:
        return float("inf"), []
    s, t = n, n + 1
    # residual arcs: head, capacity left, index of the reverse arc, index in `edges` (or -1)
    head: list[int] = []
    cap: list[float] = []
    rev: list[int] = []
    orig: list[int] = []
    adj: list[list[int]] = [[] for _ in range(n + 2)]

    def arc(u: int, v: int, c: float, i: int) -> None:
        adj[u].append(len(head))
        head.append(v), cap.append(c), rev.append(len(head)), orig.append(i)
        adj[v].append(len(head))
        head.append(u), cap.append(0.0), rev.append(len(head) - 2), orig.append(-1)

    for i, (u, v, c) in enumerate(edges):
        arc(u, v, c, i)
    for x in sorted(sources):
        arc(s, x, float("inf"), -1)
    for x in sorted(sinks):
        arc(x, t, float("inf"), -1)

    def levels() -> list[int]:
        level = [-1] * (n + 2)
        level[s] = 0
        queue = deque([s])
        while queue:
            u = queue.popleft()
            for a in adj[u]:
                if cap[a] > 0 and level[head[a]] < 0:
                    level[head[a]] = level[u] + 1
                    queue.append(head[a])
        return level

    total = 0.0
    while (level := levels())[t] >= 0:
        nxt = [0] * (n + 2)
        while True:  # a blocking flow: paths along increasing levels, iteratively
            path: list[int] = []
            u = s
            while u != t:
                while nxt[u] < len(adj[u]):
                    a = adj[u][nxt[u]]
                    if cap[a] > 0 and level[head[a]] == level[u] + 1:
                        break
                    nxt[u] += 1
                if nxt[u] == len(adj[u]):  # dead end: retreat
                    if u == s:
                        break
                    level[u] = -1
                    a = path.pop()
                    u = head[rev[a]]
                    nxt[u] += 1
                    continue
                path.append(adj[u][nxt[u]])
                u = head[path[-1]]
            if u != t:
                break
            push = min(cap[a] for a in path)
            if push == float("inf"):
                return push, []
            for a in path:
                cap[a] -= push
                cap[rev[a]] += push
            total += push
    reach = levels()
    cut = [i for i, (u, v, _) in enumerate(edges) if reach[u] >= 0 and reach[v] < 0]
    return total, cut


def bottleneck(
    spec: Mapping[str, Any], summary: Mapping[str, Any], meta: Mapping[str, Any]
) -> dict[str, Any]:
    """``capacity_mbps`` (Mbit/s) and ``capacity_link`` of a run (see the module); empty when
    not defined. `spec` is the resolved scenario, `summary` / `meta` the run's."""
    nodes = [str(nd.get("name", i)) for i, nd in enumerate(spec.get("nodes", []))]
    links = spec.get("links", [])
    faces, metas = summary.get("faces") or [], meta.get("faces") or []
    if len(faces) != len(metas):
        return {}
    index = {name: i for i, name in enumerate(nodes)}
    came_in = [0] * len(nodes)
    went_out = [0] * len(nodes)
    edges: list[tuple[int, int, float]] = []
    edge_link: list[int] = []
    for f, m in zip(faces, metas, strict=True):
        node, out = m.get("node"), int(f.get("out_data") or 0)
        if not isinstance(node, int) or not 0 <= node < len(nodes):
            return {}
        went_out[node] += out
        link = m.get("link")
        if link is None:
            continue
        came_in[node] += int(f.get("in_data") or 0)
        bw = (links[link] if 0 <= link < len(links) else {}).get("bandwidth_bps")
        if out > 0 and bw and m.get("peer") is not None:
            edges.append((node, int(m["peer"]), bw / 1e6))
            edge_link.append(link)
    producers = {index.get(p.get("node")) for p in summary.get("producers") or []}
    sources = {i for i in producers if i is not None}
    sources |= {i for i in range(len(nodes)) if went_out[i] > came_in[i]}
    sinks = {
        index[a["node"]]
        for a in summary.get("apps") or []
        if a.get("data_received") and a.get("node") in index
    }
    if not edges or not sinks or sources & sinks:
        return {}
    value, cut = max_flow(len(nodes), edges, sources, sinks)
    if not 0 < value < float("inf"):
        return {}
    named = []
    for i in cut:
        ln = links[edge_link[i]]
        text = f"{nodes[ln['a']]}–{nodes[ln['b']]}"
        if text not in named:
            named.append(text)
    where = " + ".join(named[:MAX_NAMED]) + (" + …" if len(named) > MAX_NAMED else "")
    return {"capacity_mbps": value, "capacity_link": where}
