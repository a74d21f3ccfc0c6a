"""The network: [defaults] (link and node defaults), [nodes], a [topology] file and
[[links]]."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

from ..units import parse_rate
from .convert import (
    _DELAY,
    _POSITIVE_QUEUE,
    _POSITIVE_RATE,
    _choice,
    _integer,
    _name,
    _pair,
    _probability,
    _string,
)
from .errors import _Bad, _describe, missing
from .keys import _LINK_DEFAULT_KEYS, _LINK_KEYS, _NODE_KEYS, U32
from .schemes import strategy_names
from .tables import _INVALID, _invalid, _Link, _Table


class _TopologyReader:
    """[defaults], [nodes], [topology] and [[links]] (mixed into
    :class:`~.resolver._Resolver`)."""

    # ---- [defaults], [nodes] -------------------------------------------------------------------

    def read_defaults(self) -> dict:
        t = self.table("defaults")
        t.check_keys(("link", "node"))
        link = self.sub_table(t, "link")
        node = self.sub_table(t, "node")
        node.check_keys(_NODE_KEYS)
        self.node_defaults = self.node_attrs(node, self.node_defaults)
        link.check_keys(
            _LINK_DEFAULT_KEYS,
            {"between": ("a default link has no ends", "move between into a [[links]] table")},
        )
        values = {}
        for key in _LINK_DEFAULT_KEYS:
            if key in link.data:
                values[key] = link.get(key, _LINK_CONVERT[key])
        self.warn_bytes_rate(link)
        return values

    def node_attrs(self, t: _Table, base: dict) -> dict:
        strategies = _choice("strategy", strategy_names())
        strategy = t.get("strategy", strategies, default=base["strategy"])
        cs = t.get("cs", _integer(0, U32), default=base["cs_capacity"])
        schemes = copy.deepcopy(base["schemes"])
        if "schemes" in t.data:
            schemes = self.read_schemes(t, schemes)
        return {"strategy": strategy, "cs_capacity": cs, "schemes": schemes}

    def read_nodes(self) -> None:
        t = self.table("nodes")
        for name, attrs in t.data.items():
            key = t.at(str(name))
            try:
                _name("node")(name)
            except _Bad as bad:
                t.error(str(name), bad.problem, bad.fix)
                continue
            if not isinstance(attrs, dict):
                self.error(
                    key,
                    f"expected a table, got {_describe(attrs)}",
                    f"write [{key}] and its keys below it",
                )
                continue
            node = _Table(self, attrs, key)
            node.check_keys(_NODE_KEYS)
            self.add_node(name, self.node_attrs(node, self.node_defaults))

    # ---- [topology], [[links]] -----------------------------------------------------------------

    def read_topology_file(self):
        t = self.table("topology")
        if not t.data:
            return None
        # on first use: the readers cost start-up time to scenarios without a topology file
        from ..importers import FORMATS as TOPOLOGY_FORMATS
        from ..importers import TopologyError, infer_format, read_topology

        t.check_keys(("file", "format"))
        file = t.get(
            "file", _string, required='add file = "topo.txt" under [topology], or remove [topology]'
        )
        fmt = t.get("format", _choice("topology format", TOPOLOGY_FORMATS))
        if _invalid(file, fmt):
            return None
        fmt = fmt or infer_format(file)
        if fmt is None:
            t.error(
                "file",
                f"cannot tell the format of '{file}' from its extension",
                'add format = "ndnsim" or format = "minindn"',
            )
            return None
        path = self.base_dir / file
        if not path.is_file():
            t.error(
                "file",
                f"topology file '{path}' {missing(path)}",
                "check the path; it is relative to the scenario file",
            )
            return None
        try:
            topology = read_topology(path, fmt)
        except TopologyError as err:
            for p in err.problems:
                self.error(
                    f"line {p.line}" if p.line is not None else "", p.problem, p.fix, file=err.path
                )
            self.nodes_incomplete = True
            return None
        self.add_topology_nodes(topology)
        return topology

    def add_topology_nodes(self, topology) -> None:
        for name, line in zip(topology.nodes, topology.node_lines, strict=True):
            try:
                _name("node")(name)
            except _Bad as bad:
                self.error(f"line {line}", bad.problem, bad.fix, file=topology.path)
                continue
            self.add_node(name)
        for line, message in topology.warnings:
            self.warn(f"line {line}", message, "check the line", file=topology.path)

    def read_links(self, topology, defaults: dict) -> None:
        if topology is not None:
            for raw, line in zip(topology.links, topology.link_lines, strict=True):
                self.read_link(
                    _Table(self, raw, f"line {line}", topology.path), defaults, from_file=True
                )
        for t in self.array("links"):
            t.check_keys(_LINK_KEYS)
            self.read_link(t, defaults, from_file=False, file_nodes=topology is not None)

    def read_link(
        self, t: _Table, defaults: dict, from_file: bool, file_nodes: bool = False
    ) -> None:
        ends = self.link_ends(t, from_file, file_nodes)
        values = {key: self.link_value(t, key, defaults) for key in _LINK_DEFAULT_KEYS}
        queue_ab = t.get("queue_ab", _POSITIVE_QUEUE, default=values["queue"])
        queue_ba = t.get("queue_ba", _POSITIVE_QUEUE, default=values["queue"])
        if ends is None or _invalid(queue_ab, queue_ba, *values.values()):
            return
        a, b = ends
        self.warn_bytes_rate(t)
        link = _Link(
            a,
            b,
            values["bandwidth"],
            values["delay"],
            queue_ab,
            queue_ba,
            values["loss"],
            values["cost"],
            t.file,
            t.path,
        )
        self.link_by_pair[frozenset((a, b))] = len(self.links)
        self.links.append(link)

    def link_ends(self, t: _Table, from_file: bool, file_nodes: bool) -> tuple[int, int] | None:
        pair = t.get("between", _pair, required='add between = ["A", "B"]')
        if pair is None or _invalid(pair):
            return None
        a_name, b_name = pair
        if a_name == b_name:
            t.error(
                "between", f"link from '{a_name}' to itself", "a link joins two different nodes"
            )
            return None
        if from_file or not file_nodes:
            a, b = self.add_node(a_name), self.add_node(b_name)
        else:
            a, b = (self.node_ref(t, "between", a_name), self.node_ref(t, "between", b_name))
            if a is None or b is None:
                return None
        other = self.link_by_pair.get(frozenset((a, b)))
        if other is not None:
            first = self.links[other]
            origin = first.key if first.file == t.file else f"{first.file} {first.key}"
            t.error(
                "between",
                f"duplicate link between {a_name} and {b_name} (also {origin})",
                "remove one of the two links",
            )
            return None
        return a, b

    def link_value(self, t: _Table, key: str, defaults: dict) -> Any:
        if key in t.data:
            return t.get(key, _LINK_CONVERT[key])
        if key in defaults:
            return defaults[key]
        if key in _LINK_BUILTIN:
            return _LINK_BUILTIN[key]
        example = {"bandwidth": '"10Mbps"', "delay": '"10ms"'}[key]
        t.error(
            key,
            f"link has no {key}",
            f"add {key} = {example} to the link, or to [defaults.link] for every link",
        )
        return _INVALID

    def warn_bytes_rate(self, t: _Table) -> None:
        text = t.data.get("bandwidth")
        if isinstance(text, str) and re.search(r"B(ps|/s)\s*$", text):
            bps = parse_rate(text)
            self.warn(
                t.at("bandwidth"),
                f"'{text}' is in bytes per second (= {bps} bit/s)",
                "write 'bps' (lower-case b) for bits per second, if that was meant",
                file=t.file,
            )


_LINK_CONVERT: dict[str, Callable[[object], Any]] = {
    "bandwidth": _POSITIVE_RATE,
    "delay": _DELAY,
    "queue": _POSITIVE_QUEUE,
    "loss": _probability,
    "cost": _integer(0, U32),
}
_LINK_BUILTIN = {"queue": {"packets": 100}, "loss": 0.0, "cost": 1}
