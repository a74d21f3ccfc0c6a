"""The scheme parts, read generically from the registry's schema.

Every scheme's parameters — name, kind and bounds, unit, default, doc — are declared once, in
Rust (``crates/core/src/schemes/``), and exported by the native module
(``_core.scheme_schema()``). This module turns that schema into converters, reads the per-node
router parts ([nodes.NAME.schemes.<name>], [defaults.node.schemes.<name>]) and the consumer
controllers' keys with them, and asks the core for the rules between parameters
(``_core.check_scheme``). It keeps no default or bound of its own.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from typing import Any

from ..units import format_time, parse_time
from .convert import (
    _DELAY,
    _boolean,
    _integer,
    _number_in,
    _positive_number,
    _rate_or,
    _size,
    _size_or,
    _unit,
)
from .errors import _describe, _did_you_mean
from .keys import _CONSUMER_KEYS
from .tables import _invalid, _Table


def _core() -> Any:
    """The native module (imported on first use: reading this module needs no build)."""
    from .. import _core as core

    return core


@cache
def schema() -> dict:
    """The registry's schema: ``{"routers": [...], "controllers": [...], "strategies": [...]}``,
    each scheme entry with ``name``, ``tag``, ``doc``, (controllers) ``target`` and ``params``;
    each strategy with ``name`` and ``doc``."""
    return json.loads(_core().scheme_schema())


def routers() -> dict[str, dict]:
    """Router-side scheme parts by name."""
    return {e["name"]: e for e in schema()["routers"]}


def controllers() -> dict[str, dict]:
    """Consumer controllers by name (as the scenario writes them, e.g. "sf-aimd")."""
    return {e["name"]: e for e in schema()["controllers"]}


def strategy_names() -> tuple[str, ...]:
    """The forwarding strategies a node may name (the core's strategy registry)."""
    return tuple(e["name"] for e in schema()["strategies"])


def example(param: dict) -> str:
    """A typical value of a parameter as a scenario file writes it (for messages)."""
    value, kind = param["example"], param["kind"]["type"]
    if value is None and "word" in param["kind"]:
        return f'"{param["kind"]["word"]}"'
    if kind in ("size", "size_or"):
        return f"{value}B"
    if kind == "time":
        return format_time(value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def converter(param: dict) -> Callable[[object], Any]:
    """The converter of a parameter's scenario value into its resolved value."""
    kind = param["kind"]
    k = kind["type"]
    if k == "number":
        return _number_in(
            example(param),
            kind["min"],
            kind["max"],
            open_low=kind["min_open"],
            closed_high=kind.get("max_closed", False),
        )
    if k == "positive":
        return _positive_number(example(param))
    if k == "rate_or":
        return _rate_or(kind["word"])
    if k == "integer":
        return _integer(kind["min"], kind["max"])
    if k == "bool":
        return _boolean
    if k == "size":
        return _size(kind["min"], kind["max"], example(param))
    if k == "size_or":
        return _size_or(kind["word"], kind["min"], kind["max"])
    if k == "time":
        if not kind["positive"]:
            return _DELAY
        return _unit(parse_time, positive=example(param), minimum=kind["min_ns"], unit_example="ms")
    raise AssertionError(f"unknown parameter kind {k}")


def controller_keys() -> dict[str, tuple[str, ...]]:
    """Consumer keys that belong to some controllers only: key -> the controllers it applies
    to (every controller parameter, and `randomize`, the gaps of a rate, not a window)."""
    owners: dict[str, list[str]] = {}
    for name, entry in controllers().items():
        for key in param_names(entry):
            owners.setdefault(key, []).append(name)
        if entry["target"] == "rate":
            owners.setdefault("randomize", []).append(name)
    return {k: tuple(v) for k, v in owners.items()}


def consumer_keys() -> tuple[str, ...]:
    """Every key a consumer app may have: its own and every controller's."""
    params = [k for k in controller_keys() if k not in _CONSUMER_KEYS]
    return (_CONSUMER_KEYS[0], *params, *_CONSUMER_KEYS[1:])


def param_names(entry: dict) -> list[str]:
    return [p["name"] for p in entry["params"]]


def foreign_keys(parts: dict[str, dict], this: str, where: Callable[[str], str]) -> dict:
    """The keys of the other parts that part `this` does not have -> (problem, fix), for
    check_keys; `where(name)` names a part's table or setting in messages."""
    own = param_names(parts[this])
    found: dict[str, tuple[str, str]] = {}
    for other, entry in parts.items():
        for key in param_names(entry):
            if other != this and key not in own and key not in found:
                found[key] = (
                    f"'{key}' is a key of {where(other)}, not of {where(this)}",
                    f"remove it; the {this} keys are {', '.join(own)}",
                )
    return found


def read_params(t: _Table, entry: dict, base: dict | None, keys: list[str] | None = None) -> dict:
    """The resolved values of part `entry`'s parameters read from `t` (keys not in `t` come
    from `base`, else the defaults); `keys` limits which parameters `t` may set (all if None).
    Required parameters missing from `t` and `base` are reported."""
    values = {}
    for p in entry["params"]:
        name = p["name"]
        fallback = (base or {}).get(name, p["default"])
        if p["required"] and name not in (base or {}):
            unit = f" ({p['unit']})" if p["unit"] else ""
            required = f"add {name} = {example(p)}{unit}: {p['doc']}"
            values[name] = t.get(name, converter(p), required=required)
        else:
            values[name] = t.get(name, converter(p), default=fallback)
    return values


def cross_check(t: _Table, kind: str, config: dict) -> bool:
    """Asks the core for the rules between parameters of a resolved `config` (kind "router":
    ``{name: values}``; "controller": ``{"type": tag, **values}``); reports each broken rule at
    the first of its keys written in `t` (a rule among inherited values only was checked where
    they were written). True if none is broken."""
    ok = True
    for problem in json.loads(_core().check_scheme(kind, json.dumps(config))):
        written = [k for k in problem["keys"] if k in t.data]
        if written:
            t.error(written[0], problem["problem"], problem["fix"])
            ok = False
    return ok


class _SchemeReader:
    """The [...schemes] tables of [defaults.node] and [nodes.NAME] (mixed into
    :class:`~.resolver._Resolver`)."""

    def read_schemes(self, t: _Table, base: dict) -> dict:
        """The node's schemes: `base` (the [defaults.node] ones) changed by its own `schemes`
        table, where a scheme's table overrides single keys and `NAME = false` removes it.
        A node runs at most one scheme: two are reported (and none is kept)."""
        schemes = t.data["schemes"]
        if not isinstance(schemes, dict):
            t.error(
                "schemes",
                f"expected a table, got {_describe(schemes)}",
                f"write [{t.at('schemes')}.NAME] tables",
            )
            return base
        result = dict(base)
        parts = routers()
        listed = ", ".join(parts)
        own: list[str] = []  # the schemes this table turns on (or changes)
        for name, value in schemes.items():
            key = f"schemes.{name}"
            if name not in parts:
                close = _did_you_mean(str(name), parts)
                fix = f"did you mean '{close}'?" if close else f"remove it, or use one of: {listed}"
                t.error(key, f"unknown scheme '{name}' (known: {listed})", fix)
                continue
            if value is False:
                result.pop(name, None)
                continue
            if not isinstance(value, dict):
                t.error(
                    key,
                    f"expected a table or false, got {_describe(value)}",
                    f"write [{t.at(key)}] and its keys below it (an empty table takes the "
                    f"defaults), or {name} = false to turn it off at this node",
                )
                continue
            own.append(name)
            resolved = self.read_router_part(name, _Table(self, value, t.at(key)), base.get(name))
            if resolved is None:
                result.pop(name, None)
            else:
                result[name] = resolved
        return {} if self.schemes_conflict(t, own, base) else result

    def schemes_conflict(self, t: _Table, own: list[str], base: dict) -> bool:
        """Reports a node (or [defaults.node]) that would run two schemes: two of its own, or
        one of its own and another one from [defaults.node]; True if so."""
        schemes = t.data["schemes"]
        inherited = [n for n in base if n not in own and schemes.get(n) is not False]
        if len(own) + len(inherited) < 2:
            return False
        if len(own) >= 2:
            t.error(
                "schemes",
                f"a node runs at most one scheme, got {' and '.join(own)}",
                "remove one of them",
            )
            return True
        mine, default = own[0], inherited[0]
        t.error(
            f"schemes.{mine}",
            f"a node runs at most one scheme, got {mine} here and {default} from "
            f"[defaults.node.schemes.{default}]",
            f"remove one of them: this table, or the default at this node with "
            f"{default} = false under [{t.at('schemes')}]",
        )
        return True

    def read_router_part(self, name: str, t: _Table, base: dict | None) -> dict | None:
        """A router-side scheme part's table; keys not in `t` come from `base` (the
        [defaults.node.schemes.<name>] values) or the registry's defaults. None if invalid."""
        parts = routers()
        t.check_keys(param_names(parts[name]), foreign_keys(parts, name, _scheme_table))
        values = read_params(t, parts[name], base)
        if _invalid(*values.values()):
            return None
        return values if cross_check(t, "router", {name: values}) else None

    # ---- sizes derived from the producers ---------------------------------------------------

    def default_data_sizes(self) -> None:
        """Fills in router parts' sizes left at "producers" (sf's and mircc's data_size) with
        the Data wire size of the producers reachable from the node (payload + [packets]
        data_overhead); when they send different sizes, the largest (so that a link's capacity
        in Data packets/s is never over-counted), with a warning. An explicit size that no
        producer sends is kept, with a warning."""
        producers = [app for app in self.apps if app.kind == "producer"]
        overhead = self.packets["data_overhead"]
        component = self.components()
        sizes_in: dict[int, set[int]] = {}
        for p in producers:
            size = p.spec["app"]["payload_size"] + overhead
            sizes_in.setdefault(component[p.node], set()).add(size)
        parts, warned = routers(), set()
        for i, node in enumerate(self.nodes):
            sizes = sorted(sizes_in.get(component[i], ()))
            if not sizes:
                continue
            for name, values in node["schemes"].items():
                for p in parts[name]["params"]:
                    kind, key = p["kind"], p["name"]
                    if kind["type"] != "size_or" or kind["word"] != "producers":
                        continue
                    where = self.written_at(node["name"], name, key)
                    derived = values[key] is None
                    if derived:
                        node["schemes"][name] = values = {**values, key: sizes[-1]}
                    quiet = len(sizes) == 1 if derived else values[key] in sizes
                    if not quiet and where not in warned:
                        warned.add(where)
                        self.warn(where, *_size_mismatch(name, key, values[key], sizes, derived))

    def written_at(self, node: str, scheme: str, key: str) -> str:
        """Where a node's scheme parameter was set: its own table, else [defaults.node]."""
        if key in self.explicit_keys(node, scheme):
            return f"nodes.{node}.schemes.{scheme}.{key}"
        return f"defaults.node.schemes.{scheme}.{key}"

    def explicit_keys(self, node: str, scheme: str) -> set[str]:
        """The keys of [nodes.NODE.schemes.SCHEME] as written."""
        table = self.data.get("nodes", {})
        for part in (node, "schemes", scheme):
            table = table.get(part, {}) if isinstance(table, dict) else {}
        return set(table) if isinstance(table, dict) else set()


def _size_mismatch(scheme: str, key: str, size: int, sizes: list[int], derived: bool) -> tuple:
    """(problem, fix) for a data size that is not the one the producers send."""
    listed = ", ".join(f"{s}B" for s in sizes)
    sent = f"the producers send Data of {listed} (payload + [packets] data_overhead)"
    counted = f"{scheme} counts a link's capacity in Data packets of {size}B"
    if derived:
        return (
            f'{key} = "producers" (the default) and {sent}: {counted}, the largest',
            f"set {key} to the size most of the traffic has, if it is not the largest",
        )
    effect = ", so the link is under-used" if size > sizes[-1] else ", so the link is over-filled"
    return (
        f"{key} = {size}B but {sent}: {counted}"
        + (effect if not sizes[0] <= size <= sizes[-1] else ""),
        f'remove {key} (its default, "producers", follows the producers), or set it to '
        f"{sizes[-1]}B",
    )


def _scheme_table(name: str) -> str:
    return f"[schemes.{name}]"
