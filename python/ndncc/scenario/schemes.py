"""The per-node congestion-control schemes, [nodes.NAME.schemes.<name>] (and
[defaults.node.schemes.<name>]): their keys and defaults, and :class:`_SchemeReader`, the
part of the resolver that reads them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..units import parse_time
from .convert import _DELAY, _boolean, _number_in, _positive_number, _rate_or, _size, _unit
from .errors import _describe, _did_you_mean
from .keys import U32
from .tables import _invalid, _Table

# Per-node congestion-control schemes, [nodes.NAME.schemes.<name>]; a node runs at most one.
SCHEMES = ("sf", "mircc")
# Stateful Forwarding (router part): TOML key -> (resolved key, default in resolved form).
_SF_DEFAULTS = {
    "depth": ("depth", 50.0),  # D, the maximum bucket depth, in packets
    "per_face": ("per_face", True),
    "per_fib": ("per_fib", False),
    "data_size": ("data_size", 1250),  # bytes: a face's bandwidth -> its line rate in Data/s
    "initial_rate": ("initial_rate", None),  # None = "line": the face's line rate
    "min_rate": ("min_rate", 1.0),
    "increase": ("increase", 1.0),  # additive increase, Interests/s
    "decrease": ("decrease", 0.5),  # multiplicative decrease factor
    "nack_suppression": ("nack_suppression", False),
    "leak_slack": ("leak_slack", 1.001),  # ndnSIM 1.0 leaks every slack / r seconds
    "leak_randomize": ("leak_randomize_ns", 1_000_000),  # ndnSIM's RandomizeLeak, 1 ms
}
# MIRCC (router part, seed 000): TOML key -> (resolved key, default in resolved form).
_MIRCC_DEFAULTS = {
    "interval": ("interval_ns", 100_000_000),  # T, the rate-update interval (coarse clock)
    "alpha": ("alpha", 0.5),  # α, gain of the excess rate
    "beta": ("beta", 1.0),  # β, gain of the queue term
    "eta": ("eta", 1.0),  # η, target utilisation
    "ewma": ("ewma", 0.5),  # weight of the previous base / excess rate
    "depth": ("depth", 200.0),  # D, the policing bucket depth, in Interests
    "data_size": ("data_size", 1250),  # bytes: a face's bandwidth -> C in Data/s
    "initial_rate": ("initial_rate", None),  # None = "capacity": R starts at C
    "initial_rtt": ("initial_rtt_ns", 100_000_000),  # d before the first RTT sample
    "rate_floor": ("rate_floor", None),  # None = "rtt": one packet per RTT (1/d)
    "police": ("police", True),
    "standing_queue": ("standing_queue", True),  # g = the bucket's lowest level during T
    "leak_slack": ("leak_slack", 1.001),
    "leak_randomize": ("leak_randomize_ns", 1_000_000),
    # multipath: secondary-class Interests enter the bucket only below this fraction of D
    "secondary_share": ("secondary_share", 0.5),
}
_SCHEME_KEYS = {"sf": _SF_DEFAULTS, "mircc": _MIRCC_DEFAULTS}

_initial_rate = _rate_or("line")


def _foreign_scheme_keys(other: str, this: str) -> dict[str, tuple[str, str]]:
    """The keys of scheme `other` that scheme `this` does not have -> (problem, fix), for
    check_keys in [...schemes.<this>]."""
    own = _SCHEME_KEYS[this]
    return {
        key: (
            f"'{key}' is a key of [schemes.{other}], not of [schemes.{this}]",
            f"remove it; the {this} keys are {', '.join(own)}",
        )
        for key in _SCHEME_KEYS[other]
        if key not in own
    }


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
        listed = ", ".join(SCHEMES)
        own: list[str] = []  # the schemes this table turns on (or changes)
        for name, value in schemes.items():
            key = f"schemes.{name}"
            if name not in SCHEMES:
                close = _did_you_mean(str(name), SCHEMES)
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
            read = {"sf": self.read_sf, "mircc": self.read_mircc}[name]
            resolved = read(_Table(self, value, t.at(key)), base.get(name))
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

    def read_sf(self, t: _Table, base: dict | None) -> dict | None:
        """Stateful Forwarding's router part; keys not in `t` come from `base` (the
        [defaults.node.schemes.sf] values) or the built-in defaults. None if invalid."""
        t.check_keys(_SF_DEFAULTS, _foreign_scheme_keys("mircc", "sf"))
        convert: dict[str, Callable[[object], Any]] = {
            "depth": _number_in("50", 1),  # a bucket admits an Interest when 1 token is free
            "per_face": _boolean,
            "per_fib": _boolean,
            "data_size": _size(1, U32, "1250B"),
            "initial_rate": _initial_rate,
            "min_rate": _positive_number("1"),
            "increase": _number_in("1", 0),
            "decrease": _number_in("0.5", 0, 1, open_low=True),
            "nack_suppression": _boolean,
            "leak_slack": _number_in("1.001", 1),
            "leak_randomize": _DELAY,
        }
        sf = {}
        for key, (resolved, default) in _SF_DEFAULTS.items():
            sf[resolved] = t.get(key, convert[key], default=(base or {}).get(resolved, default))
        if _invalid(*sf.values()):
            return None
        # Combinations are checked where one of their keys is written (an inherited one was
        # checked in [defaults.node.schemes.sf]).
        if not (sf["per_face"] or sf["per_fib"]) and {"per_face", "per_fib"} & t.data.keys():
            t.error(
                "per_face" if "per_face" in t.data else "per_fib",
                "per_face and per_fib are both false: no rate limit would be kept",
                "set per_face = true (a limit per outgoing face) and/or per_fib = true "
                "(a limit per FIB entry and face)",
            )
            return None
        initial = sf["initial_rate"]
        if (
            initial is not None
            and initial < sf["min_rate"]
            and {"initial_rate", "min_rate"} & t.data.keys()
        ):
            t.error(
                "initial_rate" if "initial_rate" in t.data else "min_rate",
                f"initial_rate ({initial:g}) is below min_rate ({sf['min_rate']:g})",
                f"set initial_rate to at least {sf['min_rate']:g}, or lower min_rate",
            )
            return None
        return sf

    def read_mircc(self, t: _Table, base: dict | None) -> dict | None:
        """MIRCC's router part (seed 000); keys not in `t` come from `base` (the
        [defaults.node.schemes.mircc] values) or the built-in defaults. None if invalid."""
        t.check_keys(_MIRCC_DEFAULTS, _foreign_scheme_keys("sf", "mircc"))
        convert: dict[str, Callable[[object], Any]] = {
            "interval": _unit(parse_time, positive="100ms", minimum=1_000, unit_example="ms"),
            "alpha": _number_in("0.5", 0),
            "beta": _number_in("1", 0),
            "eta": _positive_number("1"),
            "ewma": _number_in("0.5", 0, 1),
            "depth": _number_in("200", 1),  # an Interest needs one free token
            "data_size": _size(1, U32, "1250B"),
            "initial_rate": _rate_or("capacity"),
            "initial_rtt": _unit(parse_time, positive="100ms", unit_example="ms"),
            "rate_floor": _rate_or("rtt"),
            "police": _boolean,
            "standing_queue": _boolean,
            "leak_slack": _number_in("1.001", 1),
            "leak_randomize": _DELAY,
            "secondary_share": _number_in("0.5", 0, 1, open_low=True),
        }
        mircc = {}
        for key, (resolved, default) in _MIRCC_DEFAULTS.items():
            mircc[resolved] = t.get(key, convert[key], default=(base or {}).get(resolved, default))
        return None if _invalid(*mircc.values()) else mircc
