"""The [sdn.<name>] tables: controller components (ndnSieve's SDN controller) and the control
links that join them to nodes.

A component's parameters come from the registry's schema (``_core.scheme_schema()["components"]``,
declared once in Rust, ``crates/core/src/schemes/components.rs``), like the router parts' and
the consumer controllers'. Besides them a table takes:

* ``nodes``: the nodes with a control link to the component (default: every node running the
  router part of the same name, e.g. ``sieve``); a node has at most one control link;
* ``delay``: the one-way delay of each control link (default 1 ms).

A parameter that the component and the router part of the same name both have (ndnSieve's
``th2``) is one threshold read in two places: a node joined to the component whose router part
holds another value is warned about.
"""

from __future__ import annotations

from .convert import _DELAY
from .errors import _describe, _did_you_mean
from .schemes import cross_check, param_names, read_params, routers, schema
from .tables import _invalid, _Table

_OWN_KEYS = ("nodes", "delay")
DEFAULT_DELAY_NS = 1_000_000


def components() -> dict[str, dict]:
    """Controller components by name."""
    return {e["name"]: e for e in schema().get("components", [])}


class _SdnReader:
    """[sdn.<name>] (mixed into :class:`~.resolver._Resolver`)."""

    def read_sdn(self) -> list[dict]:
        t = self.table("sdn")
        parts = components()
        listed = ", ".join(parts) or "none"
        result: list[dict] = []
        linked: dict[int, str] = {}
        for name, value in t.data.items():
            if name not in parts:
                close = _did_you_mean(str(name), parts)
                fix = f"did you mean '{close}'?" if close else f"use one of: {listed}"
                t.error(str(name), f"unknown controller component '{name}' (known: {listed})", fix)
                continue
            if not isinstance(value, dict):
                t.error(
                    name,
                    f"expected a table, got {_describe(value)}",
                    f"write [sdn.{name}] and its keys below it",
                )
                continue
            sub = _Table(self, value, t.at(name))
            entry = parts[name]
            sub.check_keys((*_OWN_KEYS, *param_names(entry)))
            params = {k: v for k, v in value.items() if k not in _OWN_KEYS}
            values = read_params(_Table(self, params, sub.path), entry, None)
            delay = sub.get("delay", _DELAY, default=DEFAULT_DELAY_NS)
            nodes = self.sdn_nodes(sub, name)
            if _invalid(delay, *values.values()) or nodes is None:
                continue
            if not cross_check(sub, "component", {entry["tag"]: values}):
                continue
            for n in nodes:
                if n in linked:
                    sub.error(
                        "nodes",
                        f"node '{self.nodes[n]['name']}' has a control link to "
                        f"[sdn.{linked[n]}] already",
                        "list each node under one controller only",
                    )
                    return result
                linked[n] = name
            result.append({"config": {entry["tag"]: values}, "nodes": nodes, "delay_ns": delay})
            self.warn_shared_params(sub, name, values, nodes)
        return result

    def warn_shared_params(self, t: _Table, name: str, values: dict, nodes: list[int]) -> None:
        """Warns when a parameter of component `name` that its router part also has differs
        at a node joined to it (the component's value is not the routers')."""
        part = routers().get(name)
        if part is None:
            return
        for key in param_names(part):
            if key not in values:
                continue
            differ: dict[object, list[str]] = {}
            for n in nodes:
                router = self.nodes[n].get("schemes", {}).get(name)
                if router is not None and router.get(key) != values[key]:
                    differ.setdefault(router[key], []).append(self.nodes[n]["name"])
            if not differ:
                continue
            at = "; ".join(f"{_shown(v)} at {_listed(names)}" for v, names in differ.items())
            written = "set" if key in t.data else "its default"
            self.warn(
                t.at(key),
                f"[sdn.{name}] {key} = {_shown(values[key])} ({written}), but the {name} router "
                f"part has {key} = {at}: the controller and the routers would read one "
                "threshold two ways",
                f"give [sdn.{name}] and [defaults.node.schemes.{name}] (or the nodes' tables) "
                f"the same {key}",
            )

    def sdn_nodes(self, t: _Table, name: str) -> list[int] | None:
        """The node indices of `nodes`, or by default those running router part `name`."""
        if "nodes" not in t.data:
            nodes = [i for i, n in enumerate(self.nodes) if name in n.get("schemes", {})]
            if not nodes:
                if self.problems:  # an invalid scheme table was dropped: not news
                    return None
                t.error(
                    None,
                    f"no node runs the {name} router part, so nothing is joined to it",
                    f'list them: nodes = ["R1", ...], or add [nodes.R1.schemes.{name}]',
                )
                return None
            return nodes
        value = t.data["nodes"]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            t.error("nodes", f"expected a list of node names, got {_describe(value)}",
                    'write nodes = ["R1", "R2"]')  # fmt: skip
            return None
        found = [self.node_ref(t, "nodes", v) for v in value]
        if any(f is None for f in found):
            return None
        if len(set(found)) != len(found):
            t.error("nodes", "a node is listed twice", "list each node once")
            return None
        return found


def _shown(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _listed(names: list[str], most: int = 6) -> str:
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more
