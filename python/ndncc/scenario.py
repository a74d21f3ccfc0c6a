"""Scenarios: the user's TOML (or Python-built) description, validated and resolved.

A :class:`Scenario` holds the same nested dict a scenario TOML file parses to, whether it was
loaded from a file, given as a dict or built with the builder methods, so every scenario goes
through one validation path. :meth:`Scenario.resolve` checks everything, collects *all*
mistakes into one :class:`ScenarioError`, converts units to integers (ns, bps, bytes), computes
routes and returns the resolved spec of ``crates/sim/src/spec.rs`` as a JSON-able dict.

The file format is documented in ``docs/scenario.md``.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import heapq
import json
import math
import re
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .importers import FORMATS as TOPOLOGY_FORMATS
from .importers import TopologyError, infer_format, read_topology
from .units import UnitError, format_time, parse_queue, parse_rate, parse_size, parse_time

__all__ = ["Problem", "Scenario", "ScenarioError", "read_clock_profile"]

U32 = 2**32 - 1
U64 = 2**64 - 1

TOP_LEVEL = (
    "scenario",
    "packets",
    "topology",
    "defaults",
    "nodes",
    "links",
    "routing",
    "routes",
    "apps",
    "trace",
)
STRATEGIES = ("best-route", "multicast", "weighted-multipath", "class-multipath")
# Per-node congestion-control schemes, [nodes.NAME.schemes.<name>]; a node runs at most one.
SCHEMES = ("sf", "mircc")
APP_KINDS = ("consumer", "producer")
CONTROLLERS = {
    "constant-rate": "constant_rate",
    "fixed-window": "fixed_window",
    "sf-aimd": "sf_aimd",
    "mircc": "mircc",
}
ENGINES = {
    "ideal": "ideal",
    "tick": "tick",
    "tick+smoothing": "tick",
    "rfc3448": "rfc3448",
    "rfc3448-burst": "rfc3448",
    "rmc": "rmc",
}
# The clock a consumer's sending loop sleeps on (seed 003): consumer key `clock`.
CLOCKS = ("ideal", "granular", "os")
# ndnSIM's ConsumerCbr `Randomize`: the gaps of the ideal engine (consumer key `randomize`).
RANDOMIZE = ("none", "uniform", "exponential")
CLOCK_PROFILE_STATES = ("idle", "load")  # the profiles `ndncc clock-probe` measures
RETRANSMIT = {
    "none": (False, False),
    "timeout": (True, False),
    "nack": (False, True),
    "both": (True, True),
}
ROUTING_MODES = ("shortest", "static")
METRICS = ("delay", "hops", "cost")
DEFAULT_RATE_TRACE_NS = 500_000_000  # ndnSIM's L3RateTracer default period

_SCENARIO_KEYS = ("name", "duration", "seed", "run")
_PACKET_KEYS = ("interest_size", "data_overhead", "nack_overhead")
_NODE_KEYS = ("strategy", "cs", "schemes")
_LINK_KEYS = ("between", "bandwidth", "delay", "queue", "queue_ab", "queue_ba", "loss", "cost")
_LINK_DEFAULT_KEYS = ("bandwidth", "delay", "queue", "loss", "cost")
_APP_KEYS = ("name", "node", "kind", "prefix", "start", "stop")
_PRODUCER_KEYS = ("payload", "freshness", "content_segments", "processing_delay")
_CONSUMER_KEYS = (
    "controller", "rate", "window", "max_rate", "nack_suppression", "min_rate", "multipath",
    "engine", "randomize",
    "tick", "smoothing", "granularity", "max_owed", "kr", "period",
    "clock", "clock_granularity", "clock_wait_mean", "clock_profile", "clock_profile_state",
    "clock_load_window",
    "lifetime", "timeout", "retransmit", "max_transmissions", "start_seq",
    "max_seq",
)  # fmt: skip
# Consumer keys that belong to some controllers / engines only: key -> the ones it applies to.
_CONTROLLER_KEYS = {
    "rate": ("constant-rate", "sf-aimd", "mircc"),
    "window": ("fixed-window",),
    "max_rate": ("sf-aimd",),
    "nack_suppression": ("sf-aimd",),
    "min_rate": ("mircc",),
    "multipath": ("mircc",),
    "randomize": ("constant-rate", "sf-aimd", "mircc"),  # gaps of a rate, not a window
}
ENGINE_KEYS = {
    "randomize": ("ideal",),  # random gaps of mean 1/r (ndnSIM's ConsumerCbr Randomize)
    "tick": ("tick", "tick+smoothing"),
    "smoothing": ("tick", "tick+smoothing"),
    "granularity": ("rfc3448", "rfc3448-burst"),  # t_g of the RFC 3448 delta rule
    "max_owed": ("rfc3448", "rfc3448-burst"),
    "kr": ("rmc",),  # the RMC gain
    "period": ("rmc",),  # Ts, the RMC loop period
}
# Consumer keys that belong to some clocks only, like ENGINE_KEYS.
_CLOCK_KEYS = {
    "clock_granularity": ("granular", "os"),
    "clock_wait_mean": ("os",),
    "clock_profile": ("os",),
    "clock_profile_state": ("os",),
    "clock_load_window": ("os",),
}
MAX_SCENARIO_BYTES = 64 * 2**20  # a scenario file beyond 64 MiB is a wrong path
MAX_RATE = 1e9  # packets per second: one per ns, the simulator's time resolution
# Rows of the time-series tables a scenario may ask for (bins x (apps + faces + nodes)); about
# 200 bytes each, so some 4 GB: beyond that a longer bin is the fix, not more memory.
MAX_TABLE_ROWS = 20_000_000
DEFAULT_CLOCK_GRANULARITY_NS = 1_000_000  # 1 ms: seed 003's Linux, HZ = 1000
DEFAULT_RMC_PERIOD_NS = 1_000_000  # Ts = 1 ms
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
_ROUTE_KEYS = ("node", "prefix", "next_hop", "cost")
_PERIODIC_TRACES = ("rate_trace", "drop_trace", "cs_trace")  # ndnSIM tracers with a period
_TRACE_KEYS = ("bin", "delays", "parquet", "figures", *_PERIODIC_TRACES, "app_delays_trace")

# Names users coming from other tools reach for, mapped to ours (difflib misses most of them).
_KEY_HINTS = {
    "bw": "bandwidth", "rate": "bandwidth", "capacity": "bandwidth", "latency": "delay",
    "max_queue_size": "queue", "queue_size": "queue", "maxpackets": "queue", "lossrate": "loss",
    "loss_rate": "loss", "metric": "cost", "nodes": "between", "ends": "between",
    "payload_size": "payload", "size": "payload", "frequency": "rate",
    "interest_lifetime": "lifetime", "cs_capacity": "cs", "cache": "cs", "content_store": "cs",
    "next_hops": "next_hop", "nexthop": "next_hop", "face": "next_hop", "via": "next_hop",
    "type": "kind", "app": "kind", "seconds": "duration", "stop_time": "stop",
    "start_time": "start", "bin_size": "bin", "retx": "retransmit",
    "tick_interval": "tick", "granularity": "tick", "clock": "tick", "smooth": "smoothing",
    "initial": "initial_rate", "max_depth": "depth", "bucket_depth": "depth",
    "randomize_leak": "leak_randomize", "additive_increase": "increase",
    "multiplicative_decrease": "decrease", "suppress_nacks": "nack_suppression",
    "t": "interval", "period": "interval", "update_interval": "interval",
    "rate_interval": "interval", "gamma": "ewma", "weight": "ewma", "ewma_weight": "ewma",
    "utilisation": "eta", "utilization": "eta", "target_utilization": "eta", "rtt": "initial_rtt",
    "policing": "police", "minimum_rate": "min_rate", "floor": "min_rate",
    "k_r": "kr", "gain": "kr", "ts": "period", "t_s": "period", "tg": "clock_granularity",
    "t_g": "clock_granularity", "wait_mean": "clock_wait_mean", "mean_wait": "clock_wait_mean",
    "clock_wait": "clock_wait_mean", "wait": "clock_wait_mean", "profile": "clock_profile",
    "clock_probe": "clock_profile", "profile_state": "clock_profile_state",
    "clock_state": "clock_profile_state", "state": "clock_profile_state",
    "max_backlog": "max_owed", "owed": "max_owed",
}  # fmt: skip

_NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$")
_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)$|\s*\(at end of document\)$")
_PATH_SEGMENT = re.compile(r"^(?P<key>[^.\[\]]+)(?:\[(?P<sel>[^\]]+)\])?$")


# ============================================================================================
# Problems


@dataclass(frozen=True)
class Problem:
    """One mistake (or warning): where it is, what is wrong, how to fix it."""

    file: str
    key: str
    problem: str
    fix: str

    def __str__(self) -> str:
        where = f"{self.file}: {self.key}" if self.key else self.file
        return f"{where}: {self.problem} (fix: {self.fix})"


class ScenarioError(Exception):
    """A scenario that cannot be run. ``problems`` lists every mistake found; ``str()`` gives
    one line per problem: ``FILE: KEY: PROBLEM (fix: FIX)``."""

    def __init__(self, problems: Iterable[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class _Bad(Exception):
    """A value that cannot be used (raised by converters, turned into a Problem by callers)."""

    def __init__(self, problem: str, fix: str):
        super().__init__(problem)
        self.problem = problem
        self.fix = fix


# ============================================================================================
# Value converters: value -> converted value, or raise _Bad


def _describe(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, (list, tuple)):
        return "an array"
    if value is None:
        return "None"
    kind = {int: "the integer", float: "the number"}.get(type(value), type(value).__name__)
    return f"{kind} {value!r}"


def _did_you_mean(word: str, options: Iterable[str], cutoff: float = 0.6) -> str | None:
    options = list(options)
    exact = [o for o in options if o.lower() == word.lower()]
    close = exact or difflib.get_close_matches(word, options, n=1, cutoff=cutoff)
    return close[0] if close else None


def _unit(
    parse: Callable[..., Any], positive: str | None = None, minimum: int = 0, **kw: Any
) -> Callable[[object], Any]:
    """Wraps a units parser; with `positive` (an example value) zero is rejected too, and an
    amount below `minimum` (e.g. a timer period of a few ns, which would flood the event
    queue)."""

    def convert(value: object) -> Any:
        try:
            result = parse(value, **kw)
        except UnitError as err:
            raise _Bad(err.problem, err.fix) from None
        amount = next(iter(result.values())) if isinstance(result, dict) else result
        if positive is not None and amount == 0:
            raise _Bad(f"must be positive, got {value!r}", f"write e.g. '{positive}'")
        if amount < minimum:
            shown = format_time(minimum) if parse is parse_time else str(minimum)
            raise _Bad(
                f"{value!r} is below the smallest period, {shown}", f"write e.g. '{positive}'"
            )
        return result

    return convert


def _integer(low: int = 0, high: int = U64) -> Callable[[object], int]:
    def convert(value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                fix = f"write {int(value)} (no decimal point)"
            elif isinstance(value, str) and value.strip().isdigit():
                fix = f"write {value.strip()} without quotes"
            else:
                fix = f"write a whole number such as {max(low, 1)}"
            raise _Bad(f"expected an integer, got {_describe(value)}", fix)
        if value < low:
            raise _Bad(f"must be at least {low}, got {value}", f"write a whole number >= {low}")
        if value > high:
            raise _Bad(f"must be at most {high}, got {value}", f"write a whole number <= {high}")
        return value

    return convert


def _a_number(value: object, example: str) -> float:
    """`value` as a float, or _Bad for a non-number (a quoted number gets "without quotes")."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        fix = f"write e.g. {example}"
        if isinstance(value, str):
            try:
                float(value.strip())
            except ValueError:
                fix = f"write a plain number (no unit, no quotes), e.g. {example}"
            else:
                fix = f"write {value.strip()} without quotes"
        raise _Bad(f"expected a number, got {_describe(value)}", fix)
    if not math.isfinite(value):
        raise _Bad(f"expected a finite number, got {value!r}", f"write e.g. {example}")
    return float(value)


def _positive_number(example: str) -> Callable[[object], float]:
    def convert(value: object) -> float:
        number = _a_number(value, example)
        if number <= 0:
            raise _Bad(f"must be a positive number, got {value!r}", f"write e.g. {example}")
        if number > MAX_RATE:
            # every such key is a rate per second (or a factor of one)
            raise _Bad(
                f"{value!r} is too large: at most {MAX_RATE:g}, one per nanosecond (the "
                "simulator's resolution)",
                f"write e.g. {example}",
            )
        return number

    return convert


def _number_in(
    example: str, low: float, high: float | None = None, *, open_low: bool = False
) -> Callable[[object], float]:
    """A number >= low (> low with `open_low`) and, with `high`, < high."""

    def convert(value: object) -> float:
        number = _a_number(value, example)
        below = number <= low if open_low else number < low
        if below or (high is not None and number >= high):
            if high is not None:
                where = f"in {'(' if open_low else '['}{low:g}, {high:g})"
            else:
                where = f"{'greater than' if open_low else 'at least'} {low:g}"
            raise _Bad(f"must be {where}, got {value!r}", f"write e.g. {example}")
        return number

    return convert


def _rate_or(word: str) -> Callable[[object], float | None]:
    """A rate in Interests/s, or `word` (None): a rate the simulator derives from the face
    ("line": sf's line rate; "capacity": MIRCC's C; "rtt": MIRCC's floor of 1/d)."""

    def convert(value: object) -> float | None:
        if isinstance(value, str):
            if value.strip().lower() == word:
                return None
            try:
                float(value.strip())
            except ValueError:
                close = _did_you_mean(value.strip(), [word], cutoff=0.5)
                raise _Bad(
                    f'expected a number of Interests/s or "{word}", got {_describe(value)}',
                    f'did you mean "{word}"?' if close else f'write e.g. 1000, or "{word}"',
                ) from None
        return _positive_number(f'1000, or "{word}"')(value)

    return convert


_initial_rate = _rate_or("line")


def _boolean(value: object) -> bool:
    if not isinstance(value, bool):
        word = value.strip().lower() if isinstance(value, str) else ""
        fix = f"write {word} without quotes" if word in ("true", "false") else "write true or false"
        raise _Bad(f"expected true or false, got {_describe(value)}", fix)
    return value


def _string(value: object) -> str:
    if not isinstance(value, str):
        raise _Bad(f"expected a string, got {_describe(value)}", "put the value in double quotes")
    return value


def _scenario_name(value: object) -> str:
    """A scenario name: also the default output directory results/<name>, so one path part."""
    text = _string(value)
    fix = 'use letters, digits, "-", "_" and ".", e.g. "dumbbell-2"'
    if not text.strip() or text in (".", ".."):
        raise _Bad(f"{text!r} is not a usable name", fix)
    if any(c in text for c in "/\\") or any(ord(c) < 32 for c in text):
        raise _Bad(f"{text!r} contains a path separator or a control character", fix)
    if len(text) > 200:
        raise _Bad(f"the name is {len(text)} characters long (at most 200)", fix)
    return text


def _choice(what: str, options: Iterable[str]) -> Callable[[object], str]:
    options = tuple(options)

    def convert(value: object) -> str:
        listed = ", ".join(f'"{o}"' for o in options)
        if not isinstance(value, str):
            raise _Bad(f"expected a string, got {_describe(value)}", f"use one of {listed}")
        if value in options:
            return value
        close = _did_you_mean(value.replace("_", "-"), options, cutoff=0.5)
        fix = f'did you mean "{close}"?' if close else f"use one of {listed}"
        raise _Bad(f"unknown {what} '{value}' (known: {listed})", fix)

    return convert


def _name(what: str) -> Callable[[object], str]:
    def convert(value: object) -> str:
        if not isinstance(value, str):
            raise _Bad(
                f"expected a {what} name, got {_describe(value)}",
                'write it in double quotes, e.g. "R1"',
            )
        text = value
        if not _NAME_RE.match(text):
            cleaned = re.sub(r"[^A-Za-z0-9_.\-]+", "_", text).strip("_.-") or "n1"
            raise _Bad(
                f"{what} name {text!r} may contain only letters, digits, '_', '-' and '.'",
                f"rename it, e.g. '{cleaned}'",
            )
        return text

    return convert


def _prefix(value: object) -> str:
    text = _string(value)
    if not text.startswith("/"):
        raise _Bad(f"prefix {text!r} must start with '/'", f"write '/{text}'")
    if any(c.isspace() for c in text):
        raise _Bad(
            f"prefix {text!r} contains whitespace", "remove the spaces or percent-encode them (%20)"
        )
    if text != "/" and (text.endswith("/") or "//" in text):
        fixed = "/" + "/".join(c for c in text.split("/") if c)
        raise _Bad(f"prefix {text!r} has an empty name component", f"write '{fixed}'")
    return text


def _probability(value: object) -> float:
    if isinstance(value, str) and value.strip().endswith("%"):
        number = value.strip()[:-1].strip()
        try:
            value = float(number) / 100
        except ValueError:
            raise _Bad(
                f"cannot read {value!r} as a percentage", 'write e.g. 0.01 or "1%"'
            ) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Bad(
            f"expected a probability, got {_describe(value)}", 'write e.g. 0.01 (1 % loss) or "1%"'
        )
    if not 0 <= value < 1:
        hint = f'; for {value} % write {value / 100:g} or "{value:g}%"' if 1 <= value < 100 else ""
        raise _Bad(
            f"loss must be a probability in [0, 1), got {value!r}",
            f"write e.g. 0.01 for 1 % loss{hint}",
        )
    return float(value)


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


def _pair(value: object) -> tuple[str, str]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise _Bad(f"expected two node names, got {_describe(value)}", 'write between = ["A", "B"]')
    return _name("node")(value[0]), _name("node")(value[1])


def _next_hops(value: object) -> list[str]:
    hops = list(value) if isinstance(value, (list, tuple)) else [value]
    if not hops:
        raise _Bad("next_hop is empty", 'write next_hop = "R1" or next_hop = ["R1", "R2"]')
    return [_name("node")(h) for h in hops]


_TIME = _unit(parse_time, unit_example="s")
_POSITIVE_TIME = _unit(parse_time, positive="1s", unit_example="s")
_DELAY = _unit(parse_time, unit_example="ms")
_POSITIVE_RATE = _unit(parse_rate, positive="100Mbps")
_POSITIVE_QUEUE = _unit(parse_queue, positive="100p")


def _size(low: int, high: int, example: str) -> Callable[[object], int]:
    base = _unit(parse_size)

    def convert(value: object) -> int:
        size = base(value)
        if size < low:
            raise _Bad(f"must be positive, got {value!r}", f"write e.g. '{example}'")
        if size > high:
            raise _Bad(f"must be at most {high} bytes, got {value!r}", f"write e.g. '{example}'")
        return size

    return convert


def _kr(value: object) -> float:
    """The RMC gain kr: the loop's error evolves as e <- (1 - kr) e, so it is stable only for
    0 < kr < 2 (seed 003)."""
    kr = _a_number(value, "1")
    if not 0 < kr < 2:
        raise _Bad(
            f"kr must be in (0, 2), got {value!r}",
            "write a gain in (0, 2), e.g. kr = 1 (seed 003's recommended value): every period "
            "multiplies the RMC loop's error by 1 - kr, so the loop is unstable for kr >= 2 "
            "(and does not converge for kr <= 0)",
        )
    return kr


_clock_choice = _choice("clock", CLOCKS)


def _clock(value: object) -> str:
    """A clock model name; a time (clock = "1ms") gets a fix naming clock_granularity."""
    try:
        return _clock_choice(value)
    except _Bad as bad:
        if isinstance(value, str):
            try:
                parse_time(value)
            except UnitError:
                pass
            else:
                raise _Bad(
                    bad.problem,
                    f"clock names the clock model; for timers of granularity {value} write "
                    f'clock = "granular" and clock_granularity = "{value}"',
                ) from None
        raise


_CLOCK_TIME = _unit(parse_time, positive="1ms", unit_example="ms")
# a timer that fires periodically: at least 1 µs (a 1 ns period is 10^9 events per second)
_PERIOD_TIME = _unit(parse_time, positive="1ms", minimum=1_000, unit_example="ms")
_WAIT_TIME = _unit(parse_time, positive="50us", unit_example="us")


# ============================================================================================
# Clock profiles: the JSON files `ndncc clock-probe` writes


def _json_kind(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if value is None:
        return "null"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return f"the number {value!r}"


def _whole_ns(value: object, low: int) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and low <= value <= U64


def spec_json(spec: dict) -> str:
    """A resolved spec as canonical JSON (sorted keys, no spaces)."""
    return json.dumps(spec, sort_keys=True, separators=(",", ":"))


def spec_hash(spec: dict) -> str:
    """sha256 (hex) of a resolved spec's canonical JSON (:meth:`Scenario.hash`)."""
    return hashlib.sha256(spec_json(spec).encode()).hexdigest()


def read_clock_profile(path: str | Path, state: str = "idle") -> tuple[int, list[int]]:
    """Reads a clock profile written by ``ndncc clock-probe``: returns the clock granularity
    t_g and the waiting times of profile `state` ("idle" or "load"), both in ns.

    The file is JSON: ``{"version": 1, "granularity_ns": N, "profiles": {"idle":
    {"samples_ns": [...], ...}, "load": {...}}, ...}`` (other keys are ignored). Raises
    :class:`ScenarioError` listing every mistake, each located in the file (a JSON path such as
    ``profiles.idle.samples_ns[3]``, or ``line N`` for a syntax error)."""
    path = Path(path)
    return _profile_state(_read_profile_json(path), str(path), state)


_PROBE_AGAIN = "write the file again with `ndncc clock-probe`"


def _read_profile_json(path: Path) -> dict:
    """A clock profile file's JSON object; ScenarioError if it cannot be read or parsed."""
    file = str(path)
    probe = _PROBE_AGAIN

    def fail(key: str, problem: str, fix: str) -> ScenarioError:
        return ScenarioError([Problem(file, key, problem, fix)])

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise fail("", "clock profile file not found", f"check the path, or {probe}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise fail("", f"cannot read the file: {err}", f"check the file, or {probe}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise fail(
            f"line {err.lineno}",
            f"invalid JSON: {err.msg} (column {err.colno})",
            f"fix it, or {probe}",
        ) from None
    except RecursionError:
        raise fail("", "the JSON is nested too deeply to read", probe) from None
    if not isinstance(data, dict):
        raise fail("", f"expected a JSON object, got {_json_kind(data)}", probe)
    return data


def _profile_state(data: dict, file: str, state: str) -> tuple[int, list[int]]:
    """t_g and the samples of profile `state` in a profile file's JSON object (see
    :func:`read_clock_profile`)."""
    probe = _PROBE_AGAIN
    problems: list[Problem] = []
    version = data.get("version", 1)
    if version != 1 or isinstance(version, bool):
        problems.append(
            Problem(
                file,
                "version",
                f"unsupported version {json.dumps(version)}",
                f"{probe} (version 1)",
            )
        )
    granularity = data.get("granularity_ns")
    if "granularity_ns" not in data:
        problems.append(
            Problem(
                file,
                "granularity_ns",
                "missing granularity_ns",
                f"add the clock's t_g in ns, or {probe}",
            )
        )
    elif not _whole_ns(granularity, 1):
        problems.append(
            Problem(
                file,
                "granularity_ns",
                f"granularity_ns must be a whole number of ns > 0, got {_json_kind(granularity)}",
                f'write e.g. "granularity_ns": 1000000 (1 ms), or {probe}',
            )
        )
    samples = _profile_samples(file, data.get("profiles", _MISSING), state, problems)
    if problems:
        raise ScenarioError(problems)
    return granularity, samples


def _profile_samples(file: str, profiles: Any, state: str, problems: list[Problem]) -> list[int]:
    """The samples of `profiles[state]` (appends to `problems` and returns [] if invalid)."""
    probe = _PROBE_AGAIN
    key = f"profiles.{state}"
    if profiles is _MISSING:
        problems.append(Problem(file, "profiles", "missing profiles", probe))
        return []
    if not isinstance(profiles, dict):
        problems.append(
            Problem(file, "profiles", f"expected an object, got {_json_kind(profiles)}", probe)
        )
        return []
    if state not in profiles:
        others = [str(name) for name in profiles]
        fix = f'measure the "{state}" profile: {probe}'
        if others:
            fix = f'set clock_profile_state = "{others[0]}" in the scenario, or {fix}'
        has = f"it has: {', '.join(others)}" if others else "it has none"
        problems.append(Problem(file, key, f"no '{state}' profile in the file ({has})", fix))
        return []
    profile = profiles[state]
    if not isinstance(profile, dict):
        problems.append(Problem(file, key, f"expected an object, got {_json_kind(profile)}", probe))
        return []
    if "samples_ns" not in profile:
        problems.append(Problem(file, f"{key}.samples_ns", "missing samples_ns", probe))
        return []
    samples = profile["samples_ns"]
    key += ".samples_ns"
    if not isinstance(samples, list):
        problems.append(
            Problem(
                file,
                key,
                f"expected an array of waiting times (ns), got {_json_kind(samples)}",
                probe,
            )
        )
        return []
    if not samples:
        problems.append(
            Problem(
                file,
                key,
                "no samples: the profile has no waiting times",
                f"measure longer: {probe}",
            )
        )
        return []
    for i, sample in enumerate(samples):
        if not _whole_ns(sample, 0):
            problems.append(
                Problem(
                    file,
                    f"{key}[{i}]",
                    f"a waiting time must be a whole number of ns >= 0, got {_json_kind(sample)}",
                    f"remove it, or {probe}",
                )
            )
            return []  # one bad sample is enough: the file is not what clock-probe writes
    return samples


# ============================================================================================
# Reading tables

_MISSING = object()  # key absent, no default: the getter returns None
_INVALID = object()  # a value that failed validation (already reported)


class _Table:
    """One table of the scenario (or one link of a topology file) plus where it came from."""

    def __init__(self, res: _Resolver, data: dict, path: str, file: str | None = None):
        self.res = res
        self.data = data
        self.path = path
        self.file = file or res.source
        self.broken = False  # was not a table: its missing keys are not news

    def at(self, name: str) -> str:
        if self.path.startswith("line "):
            return f"{self.path} ({name})"
        return f"{self.path}.{name}" if self.path else name

    def error(self, name: str | None, problem: str, fix: str) -> None:
        self.res.problems.append(
            Problem(self.file, self.at(name) if name else self.path, problem, fix)
        )

    def check_keys(
        self, allowed: Iterable[str], elsewhere: dict[str, tuple[str, str]] | None = None
    ) -> None:
        """Reports unknown keys, with a suggestion; `elsewhere` maps keys that belong to another
        context to a (problem, fix) explanation."""
        allowed = tuple(allowed)
        for key in self.data:
            if key in allowed:
                continue
            if elsewhere and key in elsewhere:
                self.error(key, *elsewhere[key])
                continue
            hint = _KEY_HINTS.get(str(key).lower())
            close = hint if hint in allowed else _did_you_mean(str(key), allowed)
            fix = f"did you mean '{close}'?" if close else f"known keys here: {', '.join(allowed)}"
            self.error(key, f"unknown key '{key}'", fix)

    def get(
        self,
        name: str,
        convert: Callable[[object], Any],
        default: Any = _MISSING,
        required: str | None = None,
    ) -> Any:
        """The converted value of `name`; `default` when absent (None if no default); reports a
        missing required key (with `required` as the fix) or a bad value and returns _INVALID."""
        if name not in self.data:
            if required is not None:
                if not self.broken:
                    self.error(name, f"missing {name}", required)
                return _INVALID
            return None if default is _MISSING else default
        try:
            return convert(self.data[name])
        except _Bad as bad:
            self.error(name, bad.problem, bad.fix)
            return _INVALID


def _invalid(*values: Any) -> bool:
    return any(v is _INVALID for v in values)


@dataclass
class _Link:
    a: int
    b: int
    bandwidth_bps: int
    delay_ns: int
    queue_ab: dict
    queue_ba: dict
    loss: float
    cost: int
    file: str  # where the link was written, for messages
    key: str

    def spec(self) -> dict:
        return {
            "a": self.a, "b": self.b,
            "bandwidth_bps": self.bandwidth_bps, "delay_ns": self.delay_ns,
            "queue_ab": dict(self.queue_ab), "queue_ba": dict(self.queue_ba), "loss": self.loss,
        }  # fmt: skip


@dataclass
class _App:
    index: int
    name: str
    node: int
    kind: str
    prefix: str
    key: str
    spec: dict


# ============================================================================================
# The resolver: raw dict -> resolved spec (or ScenarioError)


class _Resolver:
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
        self.cross_checks(mode, static)
        if self.problems:
            raise ScenarioError(self.problems)
        routes = self.compute_routes(metric) if mode == "shortest" else []
        spec = {
            **scenario,
            "packets": packets,
            "nodes": self.nodes,
            "links": [link.spec() for link in self.links],
            "routes": _merge_routes(routes, static),
            "apps": [app.spec for app in self.apps],
            "trace": trace,
        }
        return spec, options

    def check_top_level(self) -> None:
        for key in self.data:
            if key not in TOP_LEVEL:
                close = _did_you_mean(str(key), TOP_LEVEL)
                fix = (
                    f"did you mean [{close}]?" if close else f"known tables: {', '.join(TOP_LEVEL)}"
                )
                self.error(str(key), f"unknown table [{key}]", fix)

    # ---- [scenario], [packets] -------------------------------------------------------------

    def read_scenario(self) -> dict:
        t = self.table("scenario")
        t.check_keys(_SCENARIO_KEYS)
        name = t.get("name", _scenario_name, default=self.default_name)
        duration = t.get(
            "duration", _POSITIVE_TIME, required='add duration = "10s" under [scenario]'
        )
        seed = t.get("seed", _integer(), default=1)
        run = t.get("run", _integer(), default=0)
        if not _invalid(duration):
            self.duration_ns = duration
        return {"name": name, "duration_ns": duration, "seed": seed, "run": run}

    def read_packets(self) -> dict:
        t = self.table("packets")
        t.check_keys(_PACKET_KEYS)
        return {
            "interest_size": t.get("interest_size", _size(1, U32, "40B"), default=40),
            "data_overhead": t.get("data_overhead", _size(0, U32, "0B"), default=0),
            "nack_overhead": t.get("nack_overhead", _size(0, U32, "4B"), default=4),
        }

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
        return values

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

    def node_attrs(self, t: _Table, base: dict) -> dict:
        strategy = t.get("strategy", _choice("strategy", STRATEGIES), default=base["strategy"])
        cs = t.get("cs", _integer(0, U32), default=base["cs_capacity"])
        schemes = copy.deepcopy(base["schemes"])
        if "schemes" in t.data:
            schemes = self.read_schemes(t, schemes)
        return {"strategy": strategy, "cs_capacity": cs, "schemes": schemes}

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
                f"topology file '{path}' not found",
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

    # ---- [[apps]] --------------------------------------------------------------------------

    def read_apps(self) -> None:
        names: dict[str, str] = {}
        for i, t in enumerate(self.array("apps")):
            app = self.read_app(i, t)
            if app is None:
                continue
            if app.name in names:
                t.error(
                    "name",
                    f"duplicate app name '{app.name}' (also {names[app.name]})",
                    "give every app a distinct name",
                )
                continue
            names[app.name] = t.path
            self.apps.append(app)

    def read_app(self, i: int, t: _Table) -> _App | None:
        kind = t.get(
            "kind",
            _choice("app kind", APP_KINDS),
            required='add kind = "consumer" or kind = "producer"',
        )
        self.check_app_keys(t, kind)
        name = t.get(
            "name", _name("app"), default=f"{kind}{i}" if isinstance(kind, str) else f"app{i}"
        )
        node_name = t.get("node", _name("node"), required='add node = "NAME"')
        node = None if _invalid(node_name) else self.node_ref(t, "node", node_name)
        prefix = t.get("prefix", _prefix, required='add prefix = "/prefix"')
        start = t.get("start", _TIME, default=0)
        stop = t.get("stop", _TIME)
        self.check_app_times(t, start, stop)
        if kind == "producer":
            body = self.read_producer(t)
        elif kind == "consumer":
            body = self.read_consumer(t)
        else:
            body = None
        if body is None or node is None or _invalid(name, prefix, start, stop):
            return None
        spec = {
            "name": name,
            "node": node,
            "start_ns": start,
            "stop_ns": stop,
            "app": {"kind": kind, "prefix": prefix, **body},
        }
        return _App(i, name, node, kind, prefix, t.path, spec)

    def check_app_keys(self, t: _Table, kind: Any) -> None:
        if kind == "producer":
            other = {
                k: (
                    f"'{k}' is a consumer key, this app is a producer",
                    'remove it, or set kind = "consumer"',
                )
                for k in _CONSUMER_KEYS
            }
            t.check_keys(_APP_KEYS + _PRODUCER_KEYS, other)
        elif kind == "consumer":
            other = {
                k: (
                    f"'{k}' is a producer key, this app is a consumer",
                    'remove it, or set kind = "producer"',
                )
                for k in _PRODUCER_KEYS
            }
            t.check_keys(_APP_KEYS + _CONSUMER_KEYS, other)
        else:
            t.check_keys(_APP_KEYS + _PRODUCER_KEYS + _CONSUMER_KEYS)

    def check_app_times(self, t: _Table, start: Any, stop: Any) -> None:
        if _invalid(start, stop):
            return
        if stop is not None and stop <= start:
            t.error(
                "stop",
                f"the app stops ({format_time(stop)}) before it starts ({format_time(start)})",
                "make stop later than start, or remove stop",
            )
        if self.duration_ns is not None and start >= self.duration_ns:
            ends = format_time(self.duration_ns)
            if self.duration_overridden:  # a shortened run: expected, not a mistake
                problem = f"the app starts at {format_time(start)}, after the run ends ({ends})"
                self.warn(t.at("start"), problem, "it will not run", file=t.file)
                return
            t.error(
                "start",
                f"the app starts at {format_time(start)}, after the scenario ends ({ends})",
                "start it earlier, or make [scenario] duration longer",
            )

    def read_producer(self, t: _Table) -> dict | None:
        body = {
            "payload_size": t.get("payload", _size(1, U32, "1024B"), default=1024),
            "freshness_ns": t.get("freshness", _TIME, default=0),
            "content_segments": t.get("content_segments", _integer(1)),
            "processing_delay_ns": t.get("processing_delay", _DELAY, default=0),
        }
        return None if _invalid(*body.values()) else body

    def read_consumer(self, t: _Table) -> dict | None:
        controller = self.read_controller(t)
        engine = self.read_engine(t)
        clock = self.read_clock(t)
        retransmit = t.get("retransmit", _choice("retransmit mode", RETRANSMIT), default="none")
        body = {
            "controller": controller,
            "engine": engine,
            "clock": clock,
            "lifetime_ns": t.get("lifetime", _POSITIVE_TIME, default=4_000_000_000),
            "timeout_ns": t.get("timeout", _POSITIVE_TIME),
            "retx_on_timeout": None if _invalid(retransmit) else RETRANSMIT[retransmit][0],
            "retx_on_nack": None if _invalid(retransmit) else RETRANSMIT[retransmit][1],
            "max_transmissions": t.get("max_transmissions", _integer(1, U32), default=U32),
            "start_seq": t.get("start_seq", _integer(), default=0),
            "max_seq": t.get("max_seq", _integer(1)),
        }
        if "max_transmissions" in t.data and retransmit == "none":
            self.warn(
                t.at("max_transmissions"),
                'max_transmissions has no effect with retransmit = "none"',
                'set retransmit = "timeout", "nack" or "both"',
                file=t.file,
            )
        bad = _invalid(controller, retransmit, *body.values()) or controller is None
        return None if bad else body

    def foreign_keys(self, t: _Table, what: str, chosen: str, owners: dict) -> bool:
        """Reports keys that apply to another `what` (controller, engine, clock) than `chosen`;
        True if there were any."""
        found = False
        for key, applies_to in owners.items():
            if key in t.data and chosen not in applies_to:
                listed = " or ".join(f'"{o}"' for o in applies_to)
                t.error(
                    key,
                    f"'{key}' applies to {what} = {listed}, this consumer uses \"{chosen}\"",
                    f'remove {key}, or set {what} = "{applies_to[0]}"',
                )
                found = True
        return found

    def read_controller(self, t: _Table) -> dict | None:
        controller = t.get(
            "controller", _choice("controller", CONTROLLERS), default="constant-rate"
        )
        if _invalid(controller) or self.foreign_keys(t, "controller", controller, _CONTROLLER_KEYS):
            return None
        if controller == "constant-rate":
            rate = t.get("rate", _positive_number("1000"), default=1000.0)
            return None if _invalid(rate) else {"type": "constant_rate", "rate": rate}
        if controller == "fixed-window":
            window = t.get("window", _integer(1, U32), default=10)
            return None if _invalid(window) else {"type": "fixed_window", "window": window}
        if controller == "sf-aimd":
            return self.read_sf_aimd(t)
        if controller == "mircc":
            return self.read_mircc_consumer(t)
        return None

    def read_sf_aimd(self, t: _Table) -> dict | None:
        """Stateful Forwarding's consumer part. max_rate None (not given) is filled in by
        cross_checks with the consumer node's line rate."""
        rate = t.get(
            "rate",
            _positive_number("100"),
            required="add rate = 100 (the initial rate, in Interests/s)",
        )
        max_rate = t.get("max_rate", _positive_number("1000"))
        suppress = t.get("nack_suppression", _boolean, default=False)
        if _invalid(rate, max_rate, suppress):
            return None
        if max_rate is not None and rate > max_rate:
            t.error(
                "max_rate",
                f"max_rate ({max_rate:g}) is below the initial rate ({rate:g})",
                f"raise max_rate to at least {rate:g}, or lower rate",
            )
            return None
        return {
            "type": "sf_aimd",
            "initial_rate": rate,
            "max_rate": max_rate,
            "nack_suppression": suppress,
        }

    def read_mircc_consumer(self, t: _Table) -> dict | None:
        """MIRCC's consumer part (seed 000's ConsumerLi). initial_rate None (rate not given) is
        filled in by cross_checks with the consumer node's line rate."""
        rate = t.get("rate", _positive_number("1000"))
        min_rate = t.get("min_rate", _positive_number("1"), default=1.0)
        multipath = t.get("multipath", _boolean, default=False)
        if _invalid(rate, min_rate, multipath):
            return None
        if rate is not None and rate < min_rate:
            t.error(
                "min_rate",
                f"min_rate ({min_rate:g}) is above the initial rate ({rate:g})",
                f"lower min_rate to at most {rate:g}, or raise rate",
            )
            return None
        return {"type": "mircc", "initial_rate": rate, "min_rate": min_rate, "multipath": multipath}

    def read_engine(self, t: _Table) -> Any:
        """The resolved engine, or _INVALID (after reporting why)."""
        engine = t.get("engine", _choice("engine", ENGINES), default="ideal")
        if _invalid(engine) or self.foreign_keys(t, "engine", engine, ENGINE_KEYS):
            return _INVALID
        if engine == "ideal":
            randomize = t.get("randomize", _choice("randomize", RANDOMIZE), default="none")
            if _invalid(randomize):
                return _INVALID
            if randomize == "none":
                return {"type": "ideal"}
            return {"type": "randomized", "dist": randomize}
        if ENGINES[engine] == "rfc3448":
            granularity = t.get("granularity", _CLOCK_TIME)  # None: the clock's t_g
            max_owed = t.get("max_owed", _integer(1, U32))  # None: no cap
            if _invalid(granularity, max_owed):
                return _INVALID
            return {
                "type": "rfc3448",
                "burst": engine == "rfc3448-burst",
                "granularity_ns": granularity,
                "max_owed": max_owed,
            }
        if engine == "rmc":
            kr = t.get("kr", _kr, default=1.0)
            period = t.get("period", _PERIOD_TIME, default=DEFAULT_RMC_PERIOD_NS)
            if _invalid(kr, period):
                return _INVALID
            return {"type": "rmc", "kr": kr, "period_ns": period}
        tick = t.get(
            "tick",
            _unit(parse_time, positive="10ms", minimum=1_000, unit_example="ms"),
            required=f'add tick = "10ms" (the clock granularity of engine = "{engine}")',
        )
        smoothing = t.get("smoothing", _boolean, default=engine == "tick+smoothing")
        if engine == "tick+smoothing" and smoothing is False:
            t.error(
                "smoothing",
                'engine = "tick+smoothing" means smoothing = true',
                'remove smoothing = false, or set engine = "tick"',
            )
            return _INVALID
        if _invalid(tick, smoothing):
            return _INVALID
        return {"type": "tick", "tick_ns": tick, "smoothing": smoothing}

    def read_clock(self, t: _Table) -> Any:
        """The resolved clock of the consumer's sending loop, or _INVALID (after reporting)."""
        clock = t.get("clock", _clock, default="ideal")
        if _invalid(clock) or self.foreign_keys(t, "clock", clock, _CLOCK_KEYS):
            return _INVALID
        if clock == "ideal":
            return {"type": "ideal"}
        tg = t.get("clock_granularity", _CLOCK_TIME)
        if clock == "granular":
            if _invalid(tg):
                return _INVALID
            return {"type": "granular", "tg_ns": DEFAULT_CLOCK_GRANULARITY_NS if tg is None else tg}
        wait = self.read_clock_wait(t)
        load = self.read_clock_load(t)
        if _invalid(tg, wait, load):
            return _INVALID
        spec, profile_tg = wait
        return {
            "type": "os",
            "tg_ns": profile_tg if tg is None else tg,
            "wait": spec,
            "load": load,
        }

    def read_clock_load(self, t: _Table) -> Any:
        """`clock_load_window = "START-END"`: wake-ups in that window draw from the profile's
        "load" waiting times (a CPU-load phase). None without it, _INVALID after reporting."""
        if "clock_load_window" not in t.data:
            return None
        text = t.get("clock_load_window", _string)
        if _invalid(text):
            return _INVALID
        file = t.data.get("clock_profile")
        if not isinstance(file, str):
            t.error(
                "clock_load_window",
                "a load window replays the 'load' waiting times of a measured clock profile",
                'add clock_profile = "clock.json" (measured by `ndncc clock-probe`)',
            )
            return _INVALID
        parts = text.split("-")
        try:
            if len(parts) != 2:
                raise UnitError("expected START-END", 'write e.g. "20s-40s"')
            start, end = (parse_time(x.strip()) for x in parts)
        except UnitError as e:
            t.error("clock_load_window", f"{text!r}: {e.problem}", e.fix)
            return _INVALID
        if end <= start:
            t.error(
                "clock_load_window",
                f"{text!r}: the window ends before it starts",
                'write START-END with START < END, e.g. "20s-40s"',
            )
            return _INVALID
        profile = self.clock_profile(t, file, "load")
        if profile is None:
            return _INVALID
        return {
            "start_ns": start,
            "end_ns": end,
            "wait": {"type": "empirical", "samples_ns": sorted(profile[1])},
        }

    def read_clock_wait(self, t: _Table) -> Any:
        """The waiting-time distribution of an OS clock and the granularity it implies (the
        profile file's, else 1 ms), or _INVALID."""
        mean_given, profile_given = "clock_wait_mean" in t.data, "clock_profile" in t.data
        if mean_given and profile_given:
            t.error(
                "clock_profile",
                "clock_wait_mean and clock_profile are both given: an OS clock draws its "
                "waiting times from one distribution",
                "keep clock_wait_mean (exponential waiting times) or clock_profile (measured "
                "ones), not both",
            )
            return _INVALID
        if not (mean_given or profile_given):
            t.error(
                "clock",
                'clock = "os" needs the distribution of its waiting times',
                'add clock_wait_mean = "50us" (exponential), or clock_profile = "clock.json" '
                "(measured by `ndncc clock-probe`)",
            )
            return _INVALID
        if mean_given:
            if "clock_profile_state" in t.data:
                t.error(
                    "clock_profile_state",
                    "clock_profile_state selects a profile of clock_profile, which is not given",
                    "remove it, or use clock_profile instead of clock_wait_mean",
                )
                return _INVALID
            mean = t.get("clock_wait_mean", _WAIT_TIME)
            if _invalid(mean):
                return _INVALID
            return {"type": "exponential", "mean_ns": mean}, DEFAULT_CLOCK_GRANULARITY_NS
        file = t.get("clock_profile", _string)
        state = t.get(
            "clock_profile_state", _choice("clock profile state", CLOCK_PROFILE_STATES), "idle"
        )
        if _invalid(file, state):
            return _INVALID
        profile = self.clock_profile(t, file, state)
        if profile is None:
            return _INVALID
        granularity, samples = profile
        # sorted, as the simulator keeps them: the spec (and its hash) ignores the file's order
        return {"type": "empirical", "samples_ns": sorted(samples)}, granularity

    def clock_profile(self, t: _Table, file: str, state: str) -> tuple[int, list[int]] | None:
        """A clock profile (relative to the scenario file), read once per resolve; None after
        reporting why it cannot be used."""
        path = self.base_dir / file
        if not path.is_file():
            t.error(
                "clock_profile",
                f"clock profile '{path}' not found",
                "check the path; it is relative to the scenario file (measure a profile with "
                "`ndncc clock-probe`)",
            )
            return None
        if (path, state) not in self.clock_profiles:
            try:
                # the file is read and parsed once, whichever states the consumers use
                if path not in self.profile_files:
                    try:
                        self.profile_files[path] = _read_profile_json(path)
                    except ScenarioError as err:
                        self.profile_files[path] = err
                data = self.profile_files[path]
                if isinstance(data, ScenarioError):
                    raise data
                self.clock_profiles[path, state] = _profile_state(data, str(path), state)
            except ScenarioError as err:
                self.problems.extend(err.problems)
                self.clock_profiles[path, state] = None
        return self.clock_profiles[path, state]

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

    # ---- [trace] -----------------------------------------------------------------------------

    def read_trace(self) -> tuple[dict, dict]:
        t = self.table("trace")
        t.check_keys(_TRACE_KEYS)
        bin_ns = t.get(
            "bin", _unit(parse_time, positive="100ms", unit_example="ms"), default=100_000_000
        )
        delays = t.get("delays", _boolean, default=True)
        options = {
            "parquet": t.get("parquet", _boolean, default=True),
            "figures": t.get("figures", _boolean, default=True),
            **{key: self.read_trace_period(t, key, bin_ns) for key in _PERIODIC_TRACES},
            "app_delays_trace": t.get("app_delays_trace", _boolean, default=False),
            "bin_s": None if _invalid(bin_ns) else bin_ns / 1e9,
        }
        if options["app_delays_trace"] is True and delays is False:
            t.error(
                "app_delays_trace",
                "app_delays_trace needs the per-Data delay table",
                "set delays = true, or app_delays_trace = false",
            )
        self.bin_ns = bin_ns
        return {"bin_ns": bin_ns, "delays": delays}, options

    def read_trace_period(self, t: _Table, key: str, bin_ns: Any) -> float | None:
        """The period in seconds of an ndnSIM-style periodic tracer: false (off, the default),
        true (ndnSIM's 0.5 s) or a time that is a multiple of bin; None when off or invalid."""
        value = t.data.get(key, False)
        if value is False:
            return None
        period = (
            DEFAULT_RATE_TRACE_NS
            if value is True
            else t.get(key, _unit(parse_time, positive="0.5s", unit_example="s"))
        )
        if _invalid(period):
            return None
        if not _invalid(bin_ns) and period % bin_ns:
            multiple = max(1, round(period / bin_ns)) * bin_ns
            t.error(
                key,
                f"period {format_time(period)} is not a multiple of bin ({format_time(bin_ns)})",
                f'set {key} = "{format_time(multiple)}", or change bin',
            )
            return None
        return period / 1e9

    # ---- checks across tables --------------------------------------------------------------------

    def cross_checks(self, mode: Any, static: list[dict]) -> None:
        if self.problems:
            return  # later checks would mostly repeat the same mistakes
        producers = [app for app in self.apps if app.kind == "producer"]
        component = self.components()
        for app in self.apps:
            if app.kind == "consumer":
                self.check_consumer(app, producers, component, mode, static)
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
        self, app: _App, producers: list[_App], component: list[int], mode: str, static: list[dict]
    ) -> None:
        serving = [p for p in producers if _covers(p.prefix, app.prefix)]
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
        self.default_max_rate(app, reachable)
        self.default_mircc_rate(app, reachable)
        local = any(p.node == app.node for p in serving)
        routed = any(r["node"] == app.node and _covers(r["prefix"], app.prefix) for r in static)
        if mode == "static" and not local and not routed:
            self.warn(
                f"{app.key}.prefix",
                f"static routing gives {self.nodes[app.node]['name']} no route for '{app.prefix}'",
                "add a [[routes]] entry for it",
            )

    def line_rate(self, app: _App, serving: list[_App], key: str, fix: str) -> tuple | None:
        """(line rate, Data wire size) of a consumer's node: its fastest link's bandwidth in
        Data packets/s of the size its producers send, the default of a rate `key` (sf-aimd's
        max_rate, mircc's rate); None after reporting why there is none."""
        name = self.nodes[app.node]["name"]
        bandwidths = [link.bandwidth_bps for link in self.links if app.node in (link.a, link.b)]
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

    def default_max_rate(self, app: _App, serving: list[_App]) -> None:
        """Fills in an sf-aimd consumer's max_rate when not given: the line rate of its node's
        fastest link, in Data packets/s of the size its producers send."""
        controller = app.spec["app"]["controller"]
        if controller["type"] != "sf_aimd" or controller["max_rate"] is not None:
            return
        name = self.nodes[app.node]["name"]
        fix = "set max_rate = N (Interests/s) on the consumer"
        found = self.line_rate(app, serving, "max_rate", fix)
        if found is None:
            return
        line_rate, size = found
        rate = controller["initial_rate"]
        if rate > line_rate:
            self.error(
                f"{app.key}.rate",
                f"rate ({rate:g}) is above max_rate, which defaults to {name}'s line rate "
                f"({line_rate:g} Data packets/s of {size}B)",
                f"lower rate to at most {line_rate:g}, or set max_rate",
            )
            return
        controller["max_rate"] = line_rate

    def default_mircc_rate(self, app: _App, serving: list[_App]) -> None:
        """Fills in a mircc consumer's initial rate when `rate` is not given: the line rate of
        its node's fastest link (as sf-aimd's max_rate)."""
        controller = app.spec["app"]["controller"]
        if controller["type"] != "mircc" or controller["initial_rate"] is not None:
            return
        name = self.nodes[app.node]["name"]
        fix = "set rate = N (the initial rate, Interests/s) on the consumer"
        found = self.line_rate(app, serving, "rate", fix)
        if found is None:
            return
        line_rate, size = found
        min_rate = controller["min_rate"]
        if min_rate > line_rate:
            self.error(
                f"{app.key}.min_rate",
                f"min_rate ({min_rate:g}) is above the initial rate, which defaults to {name}'s "
                f"line rate ({line_rate:g} Data packets/s of {size}B)",
                f"lower min_rate to at most {line_rate:g}, or set rate",
            )
            return
        controller["initial_rate"] = line_rate

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


_LINK_CONVERT: dict[str, Callable[[object], Any]] = {
    "bandwidth": _POSITIVE_RATE,
    "delay": _DELAY,
    "queue": _POSITIVE_QUEUE,
    "loss": _probability,
    "cost": _integer(0, U32),
}
_LINK_BUILTIN = {"queue": {"packets": 100}, "loss": 0.0, "cost": 1}


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


# ============================================================================================
# TOML reading and writing


def _toml_error_fix(message: str) -> str:
    fixes = {
        "Invalid value": 'put text in double quotes: delay = "50ms", not delay = 50ms',
        "Expected newline or end of document": (
            'one key = value per line; put text in double quotes: delay = "50ms", not delay = 50ms'
        ),
        "Cannot overwrite": "a key or table is defined twice; keep one definition",
        "Cannot declare": "a table is defined twice; keep one definition",
        "Cannot mutate": "a table is defined twice; keep one definition",
        "Expected '=' after a key": "write key = value",
        "Unterminated string": "close the string with a double quote",
        "Unclosed array": "close the array with ]",
        "Expected ']'": "close the table header with ], e.g. [scenario]",
        "Invalid statement": "each line is a [table], a key = value, or a # comment",
    }
    for start, fix in fixes.items():
        if message.startswith(start):
            return fix
    return "see docs/scenario.md for the TOML syntax"


def _parse_toml(text: str, source: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        message = str(err)
        match = _TOML_POSITION.search(message)
        line = match.group(1) if match and match.group(1) else None
        problem = message[: match.start()] if match else message
        key = f"line {line}" if line else "end of file"
        raise ScenarioError(
            [Problem(source, key, f"TOML syntax error: {problem}", _toml_error_fix(problem))]
        ) from None


_TOML_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_TOML_ORDER = {name: i for i, name in enumerate(TOP_LEVEL)}


def _toml_key(key: str) -> str:
    return key if _TOML_BARE_KEY.match(key) else json.dumps(key)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return (
            repr(value)
            if math.isfinite(value)
            else {"inf": "inf", "-inf": "-inf"}.get(repr(value), "nan")
        )
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        return (
            "{"
            + ", ".join(
                f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items() if v is not None
            )
            + "}"
        )
    return "[" + ", ".join(_toml_value(v) for v in value) + "]"


def _is_table_array(value: Any) -> bool:
    return (
        isinstance(value, (list, tuple)) and bool(value) and all(isinstance(v, dict) for v in value)
    )


def _toml_table(
    path: list[str], table: dict, out: list[str], header: str, always: bool = False
) -> None:
    """Appends `table` under `header` (left out when the table has only sub-tables, unless
    `always`: every [[array]] element needs its header)."""
    scalars = [
        (k, v)
        for k, v in table.items()
        if v is not None and not isinstance(v, dict) and not _is_table_array(v)
    ]
    tables = [(k, v) for k, v in table.items() if isinstance(v, dict)]
    arrays = [(k, v) for k, v in table.items() if _is_table_array(v)]
    if always or scalars or not (tables or arrays):
        out.append(header)
    out.extend(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in scalars)
    for key, sub in tables:
        name = ".".join(_toml_key(p) for p in [*path, key])
        _toml_table([*path, key], sub, out, f"\n[{name}]")
    for key, items in arrays:
        name = ".".join(_toml_key(p) for p in [*path, key])
        for item in items:
            _toml_table([*path, key], item, out, f"\n[[{name}]]", always=True)


def _to_toml(data: dict) -> str:
    out: list[str] = []
    for key in sorted(data, key=lambda k: _TOML_ORDER.get(k, len(TOP_LEVEL))):
        value = data[key]
        if isinstance(value, dict):
            _toml_table([key], value, out, f"\n[{_toml_key(key)}]")
        elif _is_table_array(value):
            for item in value:
                _toml_table([key], item, out, f"\n[[{_toml_key(key)}]]", always=True)
        elif value is not None:
            out.insert(0, f"{_toml_key(key)} = {_toml_value(value)}")
    return "\n".join(out).lstrip("\n") + "\n"


# ============================================================================================
# Overrides: dotted paths such as "trace.bin", "links[0].bandwidth", "apps[c1].rate"


def _split_path(path: str) -> list[tuple[str, str | None]]:
    parts, depth, current = [], 0, ""
    for char in path:
        depth += {"[": 1, "]": -1}.get(char, 0)
        if char == "." and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    segments = []
    for part in parts:
        match = _PATH_SEGMENT.match(part)
        if match is None:
            raise _Bad(
                f"cannot read override path '{path}'",
                'write e.g. "trace.bin", "links[0].bandwidth" or "apps[c1].rate"',
            )
        segments.append((match["key"], match["sel"]))
    return segments


def _select(items: Any, selector: str, key: str) -> dict:
    if isinstance(items, dict) and isinstance(items.get(selector), dict):
        return items[selector]
    if not isinstance(items, list):
        raise _Bad(
            f"no '{key}' entry '{selector}' to change",
            f"check the path; {key} has no entry {selector!r}",
        )
    if selector.isdigit():
        if int(selector) < len(items):
            return items[int(selector)]
        raise _Bad(
            f"{key}[{selector}] does not exist (there are {len(items)})",
            f"use an index below {len(items)}",
        )
    for i, item in enumerate(items):
        default = f"{item.get('kind')}{i}" if isinstance(item, dict) else None
        if isinstance(item, dict) and item.get("name", default) == selector:
            return item
    raise _Bad(f"no entry named '{selector}' in {key}", f"use an index, e.g. {key}[0]")


def _set_path(data: dict, path: str, value: Any) -> None:
    segments = _split_path(path)
    if len(segments) == 1 and segments[0][0] in _SCENARIO_KEYS and segments[0][1] is None:
        segments = [("scenario", None), *segments]
    first = segments[0][0]
    if first not in TOP_LEVEL:
        close = _did_you_mean(first, TOP_LEVEL)
        raise _Bad(
            f"unknown table '{first}'",
            f"did you mean '{close}'?" if close else f"known tables: {', '.join(TOP_LEVEL)}",
        )
    node: Any = data
    for i, (key, selector) in enumerate(segments):
        last = i == len(segments) - 1
        if not isinstance(node, dict):
            raise _Bad(f"'{path}' goes through a value that is not a table", "check the path")
        if selector is not None:
            node = _select(node.get(key), selector, key)
            if last:
                raise _Bad(f"'{path}' names a whole table", "add the key to set, e.g. .rate")
        elif last:
            if value is None:
                node.pop(key, None)
            else:
                node[key] = copy.deepcopy(value)
        else:
            node = node.setdefault(key, {})


# ============================================================================================
# The public class


class Scenario:
    """A simulation scenario: the nested dict of a scenario TOML file, plus where it came from.

    Build one with :meth:`load`, :meth:`from_toml_str`, :meth:`from_dict` or the builder::

        s = (Scenario(name="line", duration="10s")
             .link("C", "P", bandwidth="10Mbps", delay="10ms")
             .producer("P", "/p")
             .consumer("C", "/p", rate=500))
        spec = s.resolve()
    """

    def __init__(
        self,
        name: str | None = None,
        duration: str | None = None,
        seed: int | None = None,
        run: int | None = None,
    ):
        self._data: dict = {}
        self._source = "<python>"
        self._base_dir = Path.cwd()
        self._default_name = "scenario"
        self._duration_overridden = False  # apps starting after the end then only warn
        scenario = {
            k: v
            for k, v in (("name", name), ("duration", duration), ("seed", seed), ("run", run))
            if v is not None
        }
        if scenario:
            self._data["scenario"] = scenario

    # ---- constructors --------------------------------------------------------------------

    @classmethod
    def from_dict(
        cls, data: dict, source: str = "<python>", base_dir: str | Path | None = None
    ) -> Scenario:
        """A scenario from the nested dict a TOML file parses to (deep-copied)."""
        if not isinstance(data, dict):
            raise ScenarioError(
                [
                    Problem(
                        source,
                        "",
                        f"a scenario must be a dict, got {_describe(data)}",
                        "pass the parsed TOML tables as a dict",
                    )
                ]
            )
        scenario = cls()
        scenario._data = copy.deepcopy(data)
        scenario._source = source
        scenario._base_dir = Path(base_dir) if base_dir is not None else Path.cwd()
        return scenario

    @classmethod
    def from_toml_str(
        cls, text: str, source: str = "<string>", base_dir: str | Path | None = None
    ) -> Scenario:
        """A scenario from TOML text; relative paths in it start at `base_dir` (default: cwd)."""
        return cls.from_dict(_parse_toml(text, source), source, base_dir)

    @classmethod
    def load(cls, path: str | Path) -> Scenario:
        """Reads a scenario TOML file; its name defaults to the file name without extension."""
        path = Path(path)
        if path.exists() and not path.is_file():
            kind = "a directory" if path.is_dir() else "not a regular file"
            raise ScenarioError(
                [Problem(str(path), "", f"{kind}, not a scenario file", "give a .toml file")]
            )
        if path.is_file() and path.stat().st_size > MAX_SCENARIO_BYTES:
            raise ScenarioError(
                [
                    Problem(
                        str(path),
                        "",
                        f"{path.stat().st_size:,} bytes: far larger than any scenario file",
                        "check the path",
                    )
                ]
            )
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ScenarioError(
                [Problem(str(path), "", "scenario file not found", "check the path")]
            ) from None
        except (OSError, UnicodeDecodeError) as err:
            raise ScenarioError(
                [Problem(str(path), "", f"cannot read the file: {err}", "check the file")]
            ) from None
        scenario = cls.from_toml_str(text, str(path), path.parent)
        scenario._default_name = path.stem
        return scenario

    # ---- builder -------------------------------------------------------------------------

    def node(self, name: str, **opts: Any) -> Scenario:
        """Declares (or updates) node `name`; opts: strategy, cs, schemes (e.g.
        ``schemes={"sf": {"depth": 20}}`` or ``{"mircc": {"interval": "250ms"}}``, or
        ``{"sf": False}`` to drop a default scheme); a node runs at most one scheme."""
        self._data.setdefault("nodes", {}).setdefault(name, {}).update(opts)
        return self

    def link(
        self,
        a: str,
        b: str,
        bandwidth: str | None = None,
        delay: str | None = None,
        queue: str | None = None,
        **opts: Any,
    ) -> Scenario:
        """Adds a link; opts: queue_ab, queue_ba, loss, cost."""
        link = {"between": [a, b], "bandwidth": bandwidth, "delay": delay, "queue": queue, **opts}
        self._data.setdefault("links", []).append(_without_none(link))
        return self

    def producer(
        self,
        node: str,
        prefix: str,
        payload: str | None = None,
        name: str | None = None,
        **opts: Any,
    ) -> Scenario:
        """Adds a producer; opts: freshness, content_segments, processing_delay, start, stop."""
        app = {
            "name": name,
            "node": node,
            "kind": "producer",
            "prefix": prefix,
            "payload": payload,
            **opts,
        }
        self._data.setdefault("apps", []).append(_without_none(app))
        return self

    def consumer(
        self,
        node: str,
        prefix: str,
        controller: str = "constant-rate",
        rate: float | None = None,
        name: str | None = None,
        **opts: Any,
    ) -> Scenario:
        """Adds a consumer; opts: window, max_rate, nack_suppression, min_rate, multipath,
        engine, randomize, tick, smoothing, granularity, max_owed, kr, period, clock,
        clock_granularity, clock_wait_mean, clock_profile, clock_profile_state,
        clock_load_window, lifetime, timeout, retransmit, max_transmissions, start_seq, max_seq,
        start, stop."""
        app = {
            "name": name,
            "node": node,
            "kind": "consumer",
            "prefix": prefix,
            "controller": controller,
            "rate": rate,
            **opts,
        }
        self._data.setdefault("apps", []).append(_without_none(app))
        return self

    def route(self, node: str, prefix: str, next_hop: str | list[str], cost: int = 0) -> Scenario:
        """Adds a static route (a FIB entry at `node` towards neighbour `next_hop`)."""
        self._data.setdefault("routes", []).append(
            {"node": node, "prefix": prefix, "next_hop": next_hop, "cost": cost}
        )
        return self

    def topology(self, file: str | Path, format: str | None = None) -> Scenario:
        """Reads nodes and links from an ndnSIM or Mini-NDN topology file."""
        self._data["topology"] = _without_none({"file": str(file), "format": format})
        return self

    def defaults(self, **link_opts: Any) -> Scenario:
        """Sets [defaults.link] values: bandwidth, delay, queue, loss, cost."""
        self._data.setdefault("defaults", {}).setdefault("link", {}).update(link_opts)
        return self

    def routing(self, mode: str = "shortest", metric: str | None = None) -> Scenario:
        self._data["routing"] = _without_none({"mode": mode, "metric": metric})
        return self

    def packets(self, **opts: Any) -> Scenario:
        """Sets [packets] values: interest_size, data_overhead, nack_overhead."""
        self._data.setdefault("packets", {}).update(opts)
        return self

    def trace(self, **opts: Any) -> Scenario:
        """Sets [trace] values: bin, delays, parquet, figures, rate_trace, app_delays_trace."""
        self._data.setdefault("trace", {}).update(opts)
        return self

    # ---- derived scenarios -----------------------------------------------------------------

    def with_overrides(
        self,
        *,
        seed: int | None = None,
        run: int | None = None,
        duration: str | None = None,
        name: str | None = None,
        overrides: dict[str, Any] | None = None,
    ) -> Scenario:
        """A copy with some values replaced. `overrides` maps dotted paths ("trace.bin",
        "links[0].bandwidth", "apps[c1].rate", "nodes.R1.strategy") to new values; None
        removes a key."""
        new = Scenario.from_dict(self._data, self._source, self._base_dir)
        new._default_name = self._default_name
        new._duration_overridden = self._duration_overridden or bool(
            duration is not None or {"duration", "scenario.duration"} & set(overrides or {})
        )
        changes = {
            k: v
            for k, v in (("seed", seed), ("run", run), ("duration", duration), ("name", name))
            if v is not None
        }
        changes = {f"scenario.{k}": v for k, v in changes.items()} | dict(overrides or {})
        problems = []
        for path, value in changes.items():
            try:
                _set_path(new._data, path, value)
            except _Bad as bad:
                problems.append(Problem("<overrides>", path, bad.problem, bad.fix))
        if problems:
            raise ScenarioError(problems)
        return new

    # ---- results -------------------------------------------------------------------------------

    def _resolve(self) -> tuple[dict, dict, list[Problem]]:
        resolver = _Resolver(
            copy.deepcopy(self._data),
            self._source,
            self._base_dir,
            self._default_name,
            self._duration_overridden,
        )
        spec, options = resolver.run()
        return spec, options, resolver.warnings

    def validate(self) -> None:
        """Raises :class:`ScenarioError` listing every mistake; returns None if there is none."""
        self._resolve()

    def resolve(self) -> dict:
        """The resolved spec (``crates/sim/src/spec.rs``) as a dict ready for ``json.dumps``."""
        return self._resolve()[0]

    def to_json(self) -> str:
        """The resolved spec as canonical JSON (sorted keys, no spaces); :meth:`hash` hashes it."""
        return spec_json(self.resolve())

    def hash(self) -> str:
        """sha256 (hex) of the resolved spec's canonical JSON."""
        return spec_hash(self.resolve())

    def resolved(self) -> tuple[dict, dict, list[Problem]]:
        """Resolves once: (spec, trace_options, warnings) — what :meth:`resolve`,
        :attr:`trace_options` and :attr:`warnings` each resolve again for."""
        return self._resolve()

    @property
    def trace_options(self) -> dict:
        """Python-side output settings: parquet, figures (bool), rate_trace (period in seconds
        or None), app_delays_trace (bool)."""
        return self._resolve()[1]

    @property
    def warnings(self) -> list[Problem]:
        """Things that are allowed but probably unintended (e.g. a node without links)."""
        return self._resolve()[2]

    @property
    def data(self) -> dict:
        """A copy of the scenario's nested dict (the TOML shape)."""
        return copy.deepcopy(self._data)

    @property
    def source(self) -> str:
        return self._source

    @property
    def base_dir(self) -> Path:
        return self._base_dir

    def to_toml(self) -> str:
        """The scenario as TOML text (relative paths still relative to :attr:`base_dir`)."""
        return _to_toml(self._data)

    def __repr__(self) -> str:
        name = (
            self._data.get("scenario", {}).get("name", self._default_name)
            if isinstance(self._data.get("scenario"), dict)
            else self._default_name
        )
        return f"Scenario({name!r}, source={self._source!r})"


def _without_none(d: dict) -> dict:
    return {k: v for k, v in d.items() if v is not None}
