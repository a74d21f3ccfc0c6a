"""The resolver: raw dict -> resolved spec (or ScenarioError).

:class:`_Resolver` holds the state of one pass (the problems and warnings found so far, the
nodes, links and apps read so far) and the helpers every reader uses; the readers of the
sections are mixins in ``read_*.py``, :mod:`.schemes` and :mod:`.routing`. The checks across
tables (a consumer's producer, default rates, isolated nodes, table size) are here."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from ..units import format_time
from .budget import _BudgetChecker
from .errors import Problem, ScenarioError, _describe, _did_you_mean
from .keys import MAX_TABLE_ROWS, TOP_LEVEL
from .read_apps import _AppReader
from .read_sdn import _SdnReader
from .read_settings import _SettingsReader
from .read_topology import _TopologyReader
from .routing import _components, _covers, _RoutingReader
from .schemes import _core, _SchemeReader, controllers
from .tables import _App, _invalid, _Link, _Table


class _Resolver(
    _SettingsReader,
    _TopologyReader,
    _SchemeReader,
    _AppReader,
    _RoutingReader,
    _BudgetChecker,
    _SdnReader,
):
    """One pass over a scenario's dict: :meth:`run` returns (spec, trace options) or raises
    :class:`ScenarioError` with every problem found."""

    def __init__(
        self,
        data: dict,
        source: str,
        base_dir: Path,
        default_name: str,
        duration_overridden: bool = False,
    ):
        self.data = data
        self.duration_overridden = duration_overridden
        self.source = source
        self.base_dir = base_dir
        self.default_name = default_name
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []
        self.nodes: list[dict] = []
        self.node_index: dict[str, int] = {}
        self.links: list[_Link] = []
        self.link_by_pair: dict[frozenset[int], int] = {}
        self.apps: list[_App] = []
        self.links_of_node: list[list[_Link]] = []  # filled on first use, after [[links]]
        self.duration_ns: int | None = None
        self.bin_ns: Any = None  # [trace] bin, once read (_INVALID if it was wrong)
        self.nodes_incomplete = False  # a broken topology file: unknown node names are not news
        self.node_defaults: dict = {"strategy": "best-route", "cs_capacity": 0, "schemes": {}}
        self.packets: dict = {}
        # clock profiles read so far: (path, state) -> (granularity_ns, samples_ns) or None
        self.clock_profiles: dict[tuple[Path, str], tuple[int, list[int]] | None] = {}
        self.profile_files: dict[Path, dict | ScenarioError] = {}

    # ---- helpers -------------------------------------------------------------------------

    def error(self, key: str, problem: str, fix: str, file: str | None = None) -> None:
        self.problems.append(Problem(file or self.source, key, problem, fix))

    def warn(self, key: str, problem: str, fix: str, file: str | None = None) -> None:
        self.warnings.append(Problem(file or self.source, key, problem, fix))

    def table(self, name: str) -> _Table:
        """A top-level table (empty when absent); a non-table value is reported."""
        value = self.data.get(name, {})
        if not isinstance(value, dict):
            fix = {"nodes": "declare each node as a table [nodes.NAME]"}.get(
                name, f"write [{name}] and key = value lines below it"
            )
            self.error(name, f"{name} must be a table, got {_describe(value)}", fix)
            table = _Table(self, {}, name)
            table.broken = True
            return table
        return _Table(self, value, name)

    def array(self, name: str) -> list[_Table]:
        value = self.data.get(name, [])
        if isinstance(value, dict):
            self.error(
                name,
                f"{name} must be an array of tables, got a table",
                f"write [[{name}]] (two brackets) before each entry",
            )
            return []
        if not isinstance(value, (list, tuple)):
            self.error(
                name,
                f"{name} must be an array of tables, got {_describe(value)}",
                f"write [[{name}]] before each entry",
            )
            return []
        tables = []
        for i, item in enumerate(value):
            if isinstance(item, dict):
                tables.append(_Table(self, item, f"{name}[{i}]"))
            else:
                self.error(
                    f"{name}[{i}]",
                    f"expected a table, got {_describe(item)}",
                    f"write [[{name}]] followed by key = value lines",
                )
        return tables

    def node_ref(self, table: _Table, key: str, name: str) -> int | None:
        """Index of node `name` (referenced at `key`), or None after reporting it unknown."""
        if name in self.node_index:
            return self.node_index[name]
        if self.nodes_incomplete:
            return None
        close = _did_you_mean(name, self.node_index)
        if close:
            fix = f"did you mean '{close}'?"
        elif 0 < len(self.node_index) <= 12:
            fix = f"known nodes: {', '.join(self.node_index)}"
        else:
            fix = "declare it with [nodes.NAME] or in a link"
        table.error(key, f"unknown node '{name}'", fix)
        return None

    def add_node(self, name: str, attrs: dict | None = None) -> int:
        if name not in self.node_index:
            self.node_index[name] = len(self.nodes)
            self.nodes.append({"name": name, **copy.deepcopy(attrs or self.node_defaults)})
        return self.node_index[name]

    def sub_table(self, parent: _Table, name: str) -> _Table:
        value = parent.data.get(name, {})
        if not isinstance(value, dict):
            parent.error(
                name,
                f"expected a table, got {_describe(value)}",
                f"write [{parent.at(name)}] and key = value lines below it",
            )
            value = {}
        return _Table(self, value, parent.at(name))

    # ---- the whole pass ------------------------------------------------------------------

    def run(self) -> tuple[dict, dict]:
        self.check_top_level()
        scenario = self.read_scenario()
        packets = self.read_packets()
        self.packets = packets
        link_defaults = self.read_defaults()
        self.read_nodes()
        topology = self.read_topology_file()
        self.read_links(topology, link_defaults)
        self.read_apps()
        mode, metric = self.read_routing()
        static = self.read_routes()
        trace, options = self.read_trace()
        sdn = self.read_sdn()
        self.cross_checks(mode, static)
        if self.problems:
            raise ScenarioError(self.problems)
        spec = {
            **scenario,
            "packets": packets,
            "nodes": self.nodes,
            "links": [link.spec() for link in self.links],
            # shortest-path routes are computed by the simulator (crates/sim/src/routing.rs)
            "routing": {"mode": mode, "metric": metric},
            "routes": static,
            "apps": [app.spec for app in self.apps],
            "trace": trace,
        }
        if sdn:
            spec["components"] = sdn
        return spec, options

    def check_top_level(self) -> None:
        for key in self.data:
            if key not in TOP_LEVEL:
                close = _did_you_mean(str(key), TOP_LEVEL)
                fix = (
                    f"did you mean [{close}]?" if close else f"known tables: {', '.join(TOP_LEVEL)}"
                )
                self.error(str(key), f"unknown table [{key}]", fix)

    # ---- checks across tables --------------------------------------------------------------------

    def cross_checks(self, mode: Any, static: list[dict]) -> None:
        if self.problems:
            return  # later checks would mostly repeat the same mistakes
        producers = [app for app in self.apps if app.kind == "producer"]
        by_prefix: dict[tuple[str, ...], list[_App]] = {}
        for p in producers:
            by_prefix.setdefault(tuple(_components(p.prefix)), []).append(p)
        component = self.components()
        for app in self.apps:
            if app.kind == "consumer":
                # the producers whose prefix covers the consumer's (each ancestor looked up)
                parts = tuple(_components(app.prefix))
                serving = [p for n in range(len(parts) + 1) for p in by_prefix.get(parts[:n], ())]
                serving.sort(key=lambda p: p.index)
                self.check_consumer(app, serving, producers, component, mode, static)
        self.warn_static_routes_nowhere(static, producers)
        self.default_data_sizes()
        self.check_memory()
        self.warn_isolated()
        self.check_table_size()

    def check_table_size(self) -> None:
        """The time series must fit in memory: refuse a bin far too fine for the duration."""
        duration, bin_ns = self.duration_ns, self.bin_ns
        if _invalid(bin_ns) or not duration or not bin_ns:
            return
        bins = -(-duration // bin_ns)
        per_bin = 2 * len(self.apps) + 2 * len(self.links) + len(self.nodes)
        if bins * per_bin <= MAX_TABLE_ROWS:
            return
        smallest = -(-duration * per_bin // MAX_TABLE_ROWS)
        self.error(
            "trace.bin",
            f"the time series would hold {bins * per_bin:,} rows ({bins:,} bins × {per_bin} "
            f"apps, faces and nodes), more than {MAX_TABLE_ROWS:,}",
            f'raise bin to at least "{format_time(smallest)}", or shorten the duration',
        )

    def check_consumer(
        self,
        app: _App,
        serving: list[_App],
        producers: list[_App],
        component: list[int],
        mode: str,
        static: list[dict],
    ) -> None:
        if not serving:
            known = sorted({p.prefix for p in producers})
            close = _did_you_mean(app.prefix, known)
            fix = (
                f"did you mean '{close}'?"
                if close
                else f'add a producer app with prefix = "{app.prefix}"'
            )
            self.error(f"{app.key}.prefix", f"no producer serves '{app.prefix}'", fix)
            return
        if not any(component[p.node] == component[app.node] for p in serving):
            where = ", ".join(sorted({self.nodes[p.node]["name"] for p in serving}))
            name = self.nodes[app.node]["name"]
            self.error(
                f"{app.key}.node",
                f"no path from {name} to a producer of '{app.prefix}' (on {where})",
                "add links that connect them",
            )
            return
        reachable = [p for p in serving if component[p.node] == component[app.node]]
        self.default_line_rates(app, reachable)
        self.warn_single_class_multipath(app, component)
        if mode != "static" or any(p.node == app.node for p in serving):
            return
        if not any(r["node"] == app.node and _covers(r["prefix"], app.prefix) for r in static):
            self.warn(
                f"{app.key}.prefix",
                f"static routing gives {self.nodes[app.node]['name']} no route for '{app.prefix}'",
                "add a [[routes]] entry for it",
            )
            return
        trail = self.static_trail(app.node, app.prefix, {p.node for p in serving}, static)
        if trail is not None:
            where = ", ".join(sorted({self.nodes[p.node]["name"] for p in serving}))
            self.warn(
                f"{app.key}.prefix",
                f"the static routes from {self.nodes[app.node]['name']} for '{app.prefix}' "
                f"reach no producer of it: {trail}",
                f"add [[routes]] entries that lead to a producer of it (on {where})",
            )

    def warn_static_routes_nowhere(self, static: list[dict], producers: list[_App]) -> None:
        """Static routes for a prefix no consumer asks for (the consumers' own are checked
        with them) that loop or end before any producer of names under it: warned once per
        prefix, with the trail from its first route."""
        asked = [a.prefix for a in self.apps if a.kind == "consumer"]
        done: set[str] = set()
        for r in static:
            prefix = r["prefix"]
            if prefix in done or any(_covers(prefix, a) or _covers(a, prefix) for a in asked):
                continue
            done.add(prefix)
            serving = {
                p.node for p in producers if _covers(p.prefix, prefix) or _covers(prefix, p.prefix)
            }
            trail = self.static_trail(r["node"], prefix, serving, static)
            if trail is None:
                continue
            none = " (none serves names under it)" if not serving else ""
            self.warn(
                "routes",
                f"the static routes for '{prefix}' from {self.nodes[r['node']]['name']} reach "
                f"no producer{none}: {trail}",
                "remove them, or add routes that lead to a producer of it",
            )

    def static_trail(
        self, start: int, prefix: str, producers: set[int], static: list[dict]
    ) -> str | None:
        """None when the static routes for names under `prefix` (at each node the routes of
        the longest prefix that covers them) lead from node `start` to a node with one of
        `producers`; else how they fail, along their first next hops: "A → B → A, a loop" or
        "A → B, where no route for it goes on"."""
        hops: dict[int, list[int]] = {}
        longest: dict[int, int] = {}
        for r in static:
            if not _covers(r["prefix"], prefix):
                continue
            n, depth = r["node"], len(_components(r["prefix"]))
            link = self.links[r["link"]]
            other = link.b if link.a == n else link.a
            if depth > longest.get(n, -1):
                longest[n], hops[n] = depth, []
            if depth == longest[n]:
                hops[n].append(other)
        seen, todo = {start}, [start]
        while todo:
            n = todo.pop()
            if n in producers:
                return None
            for m in hops.get(n, ()):
                if m not in seen:
                    seen.add(m)
                    todo.append(m)
        path, n = [start], start
        while hops.get(n) and hops[n][0] not in path:
            n = hops[n][0]
            path.append(n)
        names = " → ".join(self.nodes[i]["name"] for i in path)
        if hops.get(n):
            return f"{names} → {self.nodes[hops[n][0]]['name']}, a loop"
        return f"{names}, where no route for it goes on"

    def warn_single_class_multipath(self, app: _App, component: list[int]) -> None:
        """A MIRCC consumer with `multipath = true` labels its Interests primary or secondary:
        only the class-multipath strategy sends the classes different ways."""
        controller = app.spec["app"]["controller"]
        if controller.get("type") != controllers()["mircc"]["tag"] or not controller.get(
            "multipath"
        ):
            return
        mine = component[app.node]
        if any(
            n["strategy"] == "class-multipath"
            for i, n in enumerate(self.nodes)
            if component[i] == mine
        ):
            return
        self.warn(
            f"{app.key}.multipath",
            "multipath = true labels the consumer's Interests primary or secondary, but no node "
            'it can reach runs strategy = "class-multipath": both classes take one path',
            f'give node {self.nodes[app.node]["name"]} strategy = "class-multipath" (and a '
            "second route), or remove multipath",
        )

    def line_rate(self, app: _App, serving: list[_App], key: str, fix: str) -> tuple | None:
        """(line rate, Data wire size) of a consumer's node: its fastest link's bandwidth in
        Data packets/s of the size its producers send, the default of a rate `key` (sf-aimd's
        max_rate, mircc's rate); None after reporting why there is none."""
        name = self.nodes[app.node]["name"]
        if len(self.links_of_node) != len(self.nodes):
            self.links_of_node = [[] for _ in self.nodes]
            for link in self.links:
                self.links_of_node[link.a].append(link)
                self.links_of_node[link.b].append(link)
        bandwidths = [link.bandwidth_bps for link in self.links_of_node[app.node]]
        overhead = self.packets["data_overhead"]
        sizes = sorted({p.spec["app"]["payload_size"] + overhead for p in serving})
        if not bandwidths:
            self.error(f"{app.key}.{key}", f"no default {key}: node {name} has no links", fix)
            return None
        if len(sizes) != 1:
            listed = ", ".join(f"{size}B" for size in sizes)
            self.error(
                f"{app.key}.{key}",
                f"no default {key}: the producers of '{app.prefix}' send Data of "
                f"different sizes ({listed})",
                fix,
            )
            return None
        return max(bandwidths) / (8 * sizes[0]), sizes[0]

    def default_line_rates(self, app: _App, serving: list[_App]) -> None:
        """Fills in a consumer controller's rates left at "line" (sf-aimd's max_rate, mircc's
        initial rate): the line rate of its node's fastest link, in Data packets/s of the size
        its producers send; the core's rules between parameters are checked again with it."""
        controller = app.spec["app"]["controller"]
        entry = next(e for e in controllers().values() if e["tag"] == controller["type"])
        name = self.nodes[app.node]["name"]
        for p in entry["params"]:
            key, kind = p["name"], p["kind"]
            if kind["type"] != "rate_or" or kind["word"] != "line" or controller[key] is not None:
                continue
            fix = f"set {key} = N ({p['unit']}) on the consumer"
            found = self.line_rate(app, serving, key, fix)
            if found is None:
                return
            line_rate, size = found
            filled = {**controller, key: line_rate}
            problems = json.loads(_core().check_scheme("controller", json.dumps(filled)))
            for problem in problems:
                at = next((k for k in problem["keys"] if k != key), key)
                self.error(
                    f"{app.key}.{at}",
                    f"{problem['problem']}: {key} defaults to {name}'s line rate "
                    f"({line_rate:g} Data packets/s of {size}B)",
                    f"{problem['fix']}; or set {key}",
                )
            if problems:
                return
            controller[key] = line_rate

    def components(self) -> list[int]:
        parent = list(range(len(self.nodes)))

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for link in self.links:
            parent[find(link.a)] = find(link.b)
        return [find(x) for x in range(len(self.nodes))]

    def warn_isolated(self) -> None:
        if len(self.nodes) < 2:
            return
        linked = {n for link in self.links for n in (link.a, link.b)}
        names = [n["name"] for n in self.nodes]
        for i, name in enumerate(names):
            if i in linked:
                continue
            close = _did_you_mean(name, [n for n in names if n != name])
            fix = (
                f"did you mean '{close}'? (Mini-NDN files lower-case node names)"
                if close and close.lower() == name.lower()
                else "add a link to it, or remove it"
            )
            self.warn(f"nodes.{name}", f"node '{name}' has no links", fix)
