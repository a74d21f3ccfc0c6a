"""Declaring what a paper leaves unknown, and sampling it.

A reproduction declares each input its paper does not give (printed as an image, or never
printed) as an :class:`Unknown`: the scenario keys it sets (override paths, as ``--set`` and
sweeps take them), a plausible range or a finite set of values, the scale it is sampled on, why
it is unknown, and *our default* — the value the reproduction runs today. The paper's own
statements about its setup are :class:`Constraint` s. :func:`design` samples the region: a
Latin hypercube reproducible from a seed (numpy only), or the full grid when every unknown is a
finite set with few enough combinations. ``docs/unknowns.md`` says how to declare them.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "Constraint",
    "Declaration",
    "DeclarationError",
    "MapPoint",
    "Unknown",
    "design",
    "initial_window",
    "latin_hypercube",
    "log_ms",
]

SCALES = ("linear", "log")
#: nanoseconds per time unit: sampled times are whole nanoseconds, as the scenario requires
NS_PER = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}
REASONS = ("image", "not printed", "ambiguous")


class DeclarationError(ValueError):
    """A declaration that cannot be sampled (an empty range, a default outside it …)."""


def _sig(x: float, digits: int = 6) -> float:
    """`x` rounded to `digits` significant digits (sampled values print and hash stably)."""
    if x == 0 or not math.isfinite(x):
        return float(x)
    return float(f"{x:.{digits}g}")


@dataclass(frozen=True)
class Unknown:
    """One input the paper leaves unknown.

    `keys` are the override paths it sets in every job of the reproduction that has them (a job
    whose own overrides remove a key's parent, e.g. a PCON run that drops ndnSieve's router
    table, is left alone); `apply` replaces that rule when the keys depend on the job (per
    consumer names, one topology only). Values are numbers in [`lo`, `hi`] sampled on `scale`,
    or one of `levels`. `unit` labels the axis and, unless `suffix` is False, is appended to the
    override value ("20ms", "100p"); `integer` rounds sampled numbers."""

    name: str
    keys: tuple[str, ...]
    default: Any
    reason: str
    lo: float | None = None
    hi: float | None = None
    levels: tuple[Any, ...] | None = None
    scale: str = "linear"
    unit: str = ""
    suffix: bool = True
    integer: bool = False
    note: str = ""
    apply: Callable[[Any, Any], dict[str, Any]] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        where = f"unknown {self.name!r}"
        if self.scale not in SCALES:
            raise DeclarationError(f"{where}: scale must be one of {SCALES}")
        if self.reason not in REASONS:
            raise DeclarationError(f"{where}: reason must be one of {REASONS}")
        if not self.keys:
            raise DeclarationError(f"{where}: no scenario key")
        if self.levels is not None:
            if self.lo is not None or self.hi is not None:
                raise DeclarationError(f"{where}: give a range or levels, not both")
            if len(self.levels) < 2:
                raise DeclarationError(f"{where}: a finite set needs at least 2 levels")
            if self.default not in self.levels:
                raise DeclarationError(f"{where}: our default {self.default!r} is not a level")
            return
        if self.lo is None or self.hi is None or not self.lo < self.hi:
            raise DeclarationError(f"{where}: needs lo < hi (or levels)")
        if self.scale == "log" and self.lo <= 0:
            raise DeclarationError(f"{where}: a log scale needs lo > 0")
        if not self.lo <= float(self.default) <= self.hi:
            raise DeclarationError(
                f"{where}: our default {self.default} is outside [{self.lo}, {self.hi}]"
            )

    @property
    def finite(self) -> bool:
        return self.levels is not None

    def value(self, u: float) -> Any:
        """The value at unit coordinate `u` in [0, 1) (the design's coordinate)."""
        if self.levels is not None:
            return self.levels[min(int(u * len(self.levels)), len(self.levels) - 1)]
        lo, hi = float(self.lo), float(self.hi)
        if self.scale == "log":
            x = math.exp(math.log(lo) + u * (math.log(hi) - math.log(lo)))
        else:
            x = lo + u * (hi - lo)
        if self.integer:
            return int(round(x))
        x = _sig(x)
        ns = NS_PER.get(self.unit)
        return round(x * ns) / ns if ns else x  # a time: whole nanoseconds

    def coordinate(self, value: Any) -> float:
        """The unit coordinate of `value` (the inverse of :meth:`value`; a level: its middle)."""
        if self.levels is not None:
            return (self.levels.index(value) + 0.5) / len(self.levels)
        lo, hi, x = float(self.lo), float(self.hi), float(value)
        if self.scale == "log":
            return (math.log(x) - math.log(lo)) / (math.log(hi) - math.log(lo))
        return (x - lo) / (hi - lo)

    def literal(self, value: Any) -> Any:
        """The override value: a number with its unit suffix ("20ms"), or the value itself."""
        if self.unit and self.suffix and isinstance(value, int | float):
            return f"{value:g}{self.unit}"
        return value

    def overrides(self, job: Any, value: Any) -> dict[str, Any]:
        """What this unknown at `value` adds to `job`'s overrides."""
        if self.apply is not None:
            return dict(self.apply(job, value))
        own = getattr(job, "overrides", {}) or {}
        removed = [k for k, v in own.items() if v is None]
        return {
            k: self.literal(value)
            for k in self.keys
            if not any(k == r or k.startswith(r + ".") for r in removed)
        }

    def describe_range(self) -> str:
        if self.levels is not None:
            return "{" + ", ".join(str(v) for v in self.levels) + "}"
        u = f" {self.unit}" if self.unit else ""
        return f"[{self.lo:g}, {self.hi:g}]{u}, {self.scale}"


def log_ms(
    name: str,
    keys: tuple[str, ...],
    default: float,
    reason: str,
    lo: float,
    hi: float,
    note: str,
    apply: Callable[[Any, Any], dict[str, Any]] | None = None,
) -> Unknown:
    """An :class:`Unknown` time in milliseconds in [`lo`, `hi`], sampled on a log scale (a
    timer, a link's delay)."""
    return Unknown(
        name, keys, default, reason, lo=lo, hi=hi, scale="log", unit="ms", note=note, apply=apply
    )


def initial_window(
    name: str,
    key: str,
    hi: int,
    unit: str,
    note: str,
    apply: Callable[[Any, Any], dict[str, Any]],
) -> Unknown:
    """An :class:`Unknown` initial window the paper does not print: whole `unit` s in [1, `hi`]
    on a log scale, ours 1, set bare (no unit suffix) at `key`."""
    return Unknown(
        name,
        (key,),
        1,
        "not printed",
        lo=1,
        hi=hi,
        scale="log",
        unit=unit,
        suffix=False,
        integer=True,
        note=note,
        apply=apply,
    )


@dataclass(frozen=True)
class Constraint:
    """Something the paper states about its own setup or outcome. `rows` optionally names the
    comparison rows that check it: (experiment, metric) pairs, a metric given as a prefix."""

    text: str
    source: str
    rows: tuple[tuple[str, str], ...] = ()

    def matches(self, experiment: str, metric: str) -> bool:
        return any(experiment == e and metric.startswith(m) for e, m in self.rows)


@dataclass(frozen=True)
class MapPoint:
    """One point of the design: a value per unknown, and its unit coordinates."""

    values: dict[str, Any]
    coords: dict[str, float]
    default: bool = False

    @property
    def id(self) -> str:
        text = json.dumps(self.values, sort_keys=True, default=str)
        return ("default-" if self.default else "") + hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass
class Declaration:
    """A reproduction's unknowns and the paper's constraints. `notes`: what the map cannot
    vary and why (Markdown). A map runs the paper's ``jobs(quick)`` and ``compare`` unless
    `jobs` / `compare` ("module:function") name others: the same experiments without those
    whose rows are only reported (they cannot fail, so a map has nothing to learn from them)."""

    paper: str
    unknowns: list[Unknown]
    constraints: list[Constraint] = field(default_factory=list)
    notes: str = ""
    jobs: Callable[[bool], list] | None = None
    compare: str | None = None

    def __post_init__(self) -> None:
        names = [u.name for u in self.unknowns]
        if len(set(names)) != len(names):
            raise DeclarationError(f"{self.paper}: two unknowns share a name")
        if not self.unknowns:
            raise DeclarationError(f"{self.paper}: no unknowns declared")

    def default_point(self) -> MapPoint:
        values = {u.name: u.default for u in self.unknowns}
        coords = {u.name: u.coordinate(u.default) for u in self.unknowns}
        return MapPoint(values, coords, default=True)

    def overrides(self, job: Any, point: MapPoint) -> dict[str, Any]:
        """The job's own overrides with every unknown set as at `point`."""
        out = dict(getattr(job, "overrides", {}) or {})
        for u in self.unknowns:
            for k, v in u.overrides(job, point.values[u.name]).items():
                out.pop(k, None)  # applied last, after any table of the job's that holds it
                out[k] = v
        return out

    def by_name(self, name: str) -> Unknown:
        return next(u for u in self.unknowns if u.name == name)


def latin_hypercube(n: int, d: int, seed: int) -> np.ndarray:
    """`n` points in [0, 1)^`d`, one in each of the n strata of every axis (a Latin
    hypercube): per axis a random permutation of the strata and a uniform offset inside each.
    numpy's PCG64 from `seed`: the same (n, d, seed) gives the same points everywhere."""
    if n < 1 or d < 1:
        raise DeclarationError("a design needs at least one point and one unknown")
    rng = np.random.default_rng(seed)
    out = np.empty((n, d))
    for j in range(d):
        out[:, j] = (rng.permutation(n) + rng.random(n)) / n
    return out


def grid_size(unknowns: Sequence[Unknown]) -> int | None:
    """The number of combinations when every unknown is a finite set, else None."""
    if not all(u.finite for u in unknowns):
        return None
    return math.prod(len(u.levels) for u in unknowns)


def design(decl: Declaration, n: int, seed: int = 0) -> list[MapPoint]:
    """The map's points: every combination when all unknowns are finite sets and there are at
    most `n` of them, else `n` Latin-hypercube points (from `seed`). Points equal to another
    (a finite unknown sampled twice at the same level) are kept once."""
    us = decl.unknowns
    size = grid_size(us)
    if size is not None and size <= n:
        pts = []
        for combo in itertools.product(*(u.levels for u in us)):
            values = dict(zip((u.name for u in us), combo, strict=True))
            pts.append(
                MapPoint(values, {u.name: u.coordinate(v) for u, v in zip(us, combo, strict=True)})
            )
        return pts
    lhs = latin_hypercube(n, len(us), seed)
    seen: dict[str, MapPoint] = {}
    for row in lhs:
        values = {u.name: u.value(float(c)) for u, c in zip(us, row, strict=True)}
        coords = {u.name: u.coordinate(values[u.name]) for u in us}
        p = MapPoint(values, coords)
        seen.setdefault(p.id, p)
    return list(seen.values())
