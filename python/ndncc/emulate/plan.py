"""From a resolved scenario to what runs: one ``ndnccd`` configuration per node and the app
processes. Pure functions (no process, no socket): unit-tested on their own.

Each link ``a``–``b`` becomes a UDP face at ``a`` towards ``b`` and one at ``b`` towards
``a``; each face emulates its outgoing direction with the link's bandwidth, one-way delay and
that direction's queue (``queue_ab`` at ``a``, ``queue_ba`` at ``b``, in packets or in bytes
as the scenario writes it), as the simulator puts the a→b queue in a's face. The strategies and
router schemes accepted are the ones ``ndnccd`` loads (:func:`daemon_modules`). Routes are
the simulator's FIB entries on net faces (:meth:`ndncc.scenario.Scenario.routes`: static
``[[routes]]`` and the computed shortest paths), each mapped to the face of its link at its
node. Apps reach their node's daemon over
a Unix socket; producers register their prefix there as real apps do.

A scenario with an SDN controller (``[sdn.<name>]``, ndnSieve's) gets one controller process
(``ndnccd sdn-controller``, :func:`controller_config`) running the same component as the
simulator; every daemon has an ``[sdn]`` section (:func:`sdn_section`): the controller's Unix
socket, its node index, its faces' links and peers (the controller learns the topology from
them), and the control link's delay, which the two endpoints hold each message for
(``docs/sdn-control-protocol.md``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

UDP_PORT = 6363  # every node's UDP port in namespace mode (each namespace has its own)


class EmulateError(Exception):
    """A scenario or a set-up emulation cannot run; the message is one line for the user."""


@dataclass
class Endpoint:
    """Where a node's daemon takes UDP from its neighbours: (address, port)."""

    addr: str
    port: int

    def uri(self) -> str:
        return f"udp4://{self.addr}:{self.port}"


@dataclass
class NodePlan:
    index: int
    name: str
    socket: Path
    listen: Endpoint
    sdn: dict | None = None  # the [sdn] section (a scenario with an SDN controller)
    # the [[face]] entries: (link index, peer node index, peer endpoint, link emulation)
    faces: list[tuple[int, int, Endpoint, dict]] = field(default_factory=list)
    routes: list[dict] = field(default_factory=list)  # {"prefix", "face", "cost"}
    forwarder: dict = field(default_factory=dict)


@dataclass(frozen=True)
class DaemonModules:
    """What ``ndnccd`` loads: its strategies and router modules, by name."""

    strategies: tuple[str, ...]
    modules: tuple[str, ...]


@cache
def daemon_modules() -> DaemonModules:
    """The strategies and router modules ``ndnccd`` loads: the daemon's own list
    (``crates/rt/src/daemon/modules.rs``, read through the native module; ``ndnccd
    --list-modules`` prints the same), so that emulation accepts exactly what the daemon runs."""
    from .. import _core

    d = json.loads(_core.ndnccd_modules())
    return DaemonModules(tuple(d["strategies"]), tuple(d["modules"]))


def unsupported(spec: dict) -> list[str]:
    """What of the resolved scenario emulation cannot reproduce, one phrase each (empty: it
    all runs). Refused rather than approximated: a real run that silently differs from the
    scenario would be compared with the simulator as if it were the same."""
    problems = []
    loads = daemon_modules()
    names = [n["name"] for n in spec["nodes"]]
    for n in spec["nodes"]:
        if n.get("strategy", "best-route") not in loads.strategies:
            problems.append(
                f"node {n['name']}: strategy {n['strategy']!r} (ndnccd runs "
                f"{', '.join(loads.strategies)})"
            )
        schemes = n.get("schemes") or {}
        if len(schemes) > 1:
            problems.append(f"node {n['name']}: {len(schemes)} router schemes (ndnccd runs one)")
        for s in schemes:
            if s not in loads.modules:
                problems.append(
                    f"node {n['name']}: router scheme {s!r} (ndnccd loads "
                    f"{', '.join(loads.modules)})"
                )
    for i, ln in enumerate(spec["links"]):
        where = f"link {i} ({names[ln['a']]}–{names[ln['b']]})"
        if ln.get("loss", 0):
            problems.append(f"{where}: loss = {ln['loss']} (ndnccd emulates no random loss)")
    if len(spec.get("components") or []) > 1:
        problems.append(
            f"{len(spec['components'])} [sdn] controller components (emulation runs one "
            "controller process)"
        )
    for a in spec["apps"]:
        body = a["app"]
        if body.get("kind") == "consumer":
            clock = body.get("clock") or {}
            if clock.get("type", "ideal") != "ideal":
                problems.append(
                    f"app {a['name']}: clock {clock.get('type')!r} (a real app sleeps on the "
                    "OS clock; remove the modelled clock)"
                )
        elif body.get("kind") == "producer" and body.get("share") is not None:
            problems.append(f"app {a['name']}: share (multi-source placement is simulator-only)")
    return problems


def link_emulation(spec: dict, link: dict, direction: str) -> dict:
    """ndnccd's ``link = {...}`` of one direction ("ab" or "ba") of a resolved link."""
    return {
        "bandwidth_mbps": link["bandwidth_bps"] / 1e6,
        "delay_ms": link["delay_ns"] / 1e6,
        "queue": queue_capacity(link.get(f"queue_{direction}", {"packets": 100})),
    }


def queue_capacity(q: dict) -> str:
    """A resolved queue (``{"packets": N}`` or ``{"bytes": N}``) as ndnccd's ``queue`` reads it:
    ``"Np"`` or ``"NB"`` (the scenario's units; ndnccd drops by packets or by bytes alike)."""
    if "packets" in q:
        return f"{int(q['packets'])}p"
    return f"{int(q['bytes'])}B"


def plan_nodes(
    spec: dict, routes: list[dict], endpoints: list[Endpoint], workdir: Path
) -> list[NodePlan]:
    """One :class:`NodePlan` per node. ``endpoints[i]`` is node i's UDP address (loopback
    ports, or the per-link addresses' stand-in in namespace mode: see :func:`link_addresses`);
    ``routes`` are :meth:`Scenario.routes` entries."""
    problems = unsupported(spec)
    if problems:
        raise EmulateError("cannot emulate: " + "; ".join(problems))
    nodes = [
        NodePlan(
            index=i,
            name=n["name"],
            socket=workdir / f"{i}.sock",
            listen=endpoints[i],
        )
        for i, n in enumerate(spec["nodes"])
    ]
    face_of: dict[tuple[int, int], int] = {}  # (node, link) -> face index at that node
    for li, ln in enumerate(spec["links"]):
        for here, there, d in ((ln["a"], ln["b"], "ab"), (ln["b"], ln["a"], "ba")):
            peer = link_peer(endpoints, spec, li, there)
            face_of[(here, li)] = len(nodes[here].faces)
            nodes[here].faces.append((li, there, peer, link_emulation(spec, ln, d)))
    for r in routes:
        nodes[r["node"]].routes.append(
            {"prefix": r["prefix"], "face": face_of[(r["node"], r["link"])], "cost": r["cost"]}
        )
    for i, n in enumerate(spec["nodes"]):
        fw: dict = {
            "strategy": n.get("strategy", "best-route"),
            "cs_capacity": int(n.get("cs_capacity", 0)),
        }
        schemes = n.get("schemes") or {}
        if schemes:
            fw["module"] = {k: module_table(k, v) for k, v in schemes.items()}
        nodes[i].forwarder = fw
    if spec.get("components"):
        for n in nodes:
            n.sdn = sdn_section(spec["components"][0], n, workdir)
    return nodes


def controller_socket(workdir: Path) -> Path:
    """Where the emulation's SDN controller listens."""
    return workdir / "sdn.sock"


def sdn_section(component: dict, node: NodePlan, workdir: Path) -> dict:
    """A daemon's ``[sdn]`` section: every node lends its faces and routes to the controller's
    topology (as the simulator builds it from every node); the nodes the component lists are
    joined (reports and metrics), the others are not."""
    return {
        "controller": f"unix://{controller_socket(workdir)}",
        "node": node.index,
        "delay_ms": component.get("delay_ns", 0) / 1e6,
        "joined": node.index in component["nodes"],
        "faces": [{"link": li, "peer": peer} for li, peer, _, _ in node.faces],
    }


def controller_config(spec: dict, workdir: Path) -> dict | None:
    """The SDN controller's configuration (``ndnccd sdn-controller``), None without one."""
    comps = spec.get("components") or []
    if not comps:
        return None
    from ..scenario.read_sdn import components

    ((name, values),) = comps[0]["config"].items()
    entry = next((e for e in components().values() if e["tag"] == name), None)
    if entry is None:
        raise EmulateError(f"[sdn.{name}]: no such controller component in ndnccd")
    return {
        "nodes": len(spec["nodes"]),
        "listen": {"unix": str(controller_socket(workdir))},
        "component": {entry["name"]: scenario_units(entry["params"], values)},
    }


def controller_config_toml(spec: dict, workdir: Path) -> str | None:
    """:func:`controller_config` as the TOML file ``ndnccd sdn-controller`` reads."""
    from ..scenario.toml_io import _to_toml

    cfg = controller_config(spec, workdir)
    if cfg is None:
        return None
    return "# ndncc emulate: the SDN controller (generated)\n" + _to_toml(cfg)


def module_table(scheme: str, resolved: dict) -> dict:
    """A node's resolved router scheme as ``[forwarder.module.<scheme>]`` writes it: in a
    scenario's units (times "…ns", sizes "…B", a derived value as its word), which ndnccd reads
    as a scenario's ``[nodes.NAME.schemes.<scheme>]`` (docs/realtime.md)."""
    from ..scenario.schemes import routers

    return scenario_units(routers()[scheme]["params"], resolved)


def scenario_units(params: list[dict], resolved: dict) -> dict:
    """A scheme part's resolved values (``params``: its schema) in a scenario's units."""
    kinds = {p["name"]: p["kind"] for p in params}
    out = {}
    for key, value in resolved.items():
        kind = kinds.get(key, {})
        if value is None:
            if "word" in kind:
                out[key] = kind["word"]
            continue
        if kind.get("type") == "time":
            out[key] = f"{value}ns"
        elif kind.get("type") in ("size", "size_or"):
            out[key] = f"{value}B"
        else:
            out[key] = value
    return out


def link_addresses(link_index: int) -> tuple[str, str]:
    """Namespace mode: the two addresses of link ``link_index`` (a /30 each, 10.x.y.0/30 ...
    up to 2^22 links), the a side first."""
    base = link_index * 4
    if base >= 1 << 24:
        raise EmulateError(f"too many links to address ({link_index + 1})")
    o2, o3, o4 = (base >> 16) & 255, (base >> 8) & 255, base & 255
    return f"10.{o2}.{o3}.{o4 + 1}", f"10.{o2}.{o3}.{o4 + 2}"


def link_peer(endpoints: list[Endpoint], spec: dict, link_index: int, there: int) -> Endpoint:
    """The endpoint a face on link ``link_index`` sends to: the peer's loopback port, or in
    namespace mode (every endpoint's addr is "0.0.0.0") the peer's address on that link."""
    ep = endpoints[there]
    if ep.addr != "0.0.0.0":
        return ep
    a, b = link_addresses(link_index)
    return Endpoint(a if spec["links"][link_index]["a"] == there else b, ep.port)


def node_config(node: NodePlan) -> dict:
    """The node's ``ndnccd`` configuration (docs/realtime.md, "The config file") as a dict."""
    return {
        "forwarder": node.forwarder,
        "listen": {"unix": str(node.socket), "udp": f"{node.listen.addr}:{node.listen.port}"},
        "face": [{"uri": peer.uri(), "link": link} for _, _, peer, link in node.faces],
        "route": node.routes,
        **({"sdn": node.sdn} if node.sdn is not None else {}),
    }


def node_config_toml(node: NodePlan) -> str:
    """:func:`node_config` as the TOML file ``ndnccd`` reads."""
    from ..scenario.toml_io import _to_toml

    head = f"# ndncc emulate: node {node.name} (generated)\n"
    return head + _to_toml(node_config(node))


def app_args(spec: dict, app: dict) -> tuple[dict, float, float | None, float]:
    """(the ``--spec`` JSON of one app, its start, its stop to sending (consumers), the time it
    runs until), seconds from the emulation's start."""
    end = spec["duration_ns"] / 1e9
    start = app.get("start_ns", 0) / 1e9
    stop = app.get("stop_ns")
    stop_s = None if stop is None else min(stop / 1e9, end)
    return {"app": app["app"], "packets": spec["packets"]}, start, stop_s, end
