"""Sweep specs: a TOML file naming a base scenario, a grid of overrides and the repetitions.

Every key is documented in ``docs/sweeps.md``. A spec expands into *points* (one combination
of the grid's axes: a scenario file plus dotted-path overrides, as
:meth:`ndncc.Scenario.with_overrides` takes them), each repeated for every (seed, run). Mistakes
are reported like the scenario validator's, one line each with the file, the key and a fix
(:class:`SweepSpecError` is a :class:`ndncc.ScenarioError`).
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .scenario import Problem, ScenarioError
from .scenario.errors import missing
from .scenario.toml_io import _check_nesting

__all__ = ["Axis", "CiTarget", "Point", "SweepSpec", "SweepSpecError", "parse_ci_target"]

TABLES = ("sweep", "overrides", "grid", "until_ci", "report")
SWEEP_KEYS = ("name", "description", "scenario", "seeds", "runs", "figures")
UNTIL_CI_KEYS = ("metric", "width", "max_seeds")
REPORT_KEYS = ("metrics", "x")
#: the index's own columns: a grid axis may not take one of these names
RESERVED = ("key", "point", "status", "label", "scenario", "seed", "run", "error", "command")
MAX_SEEDS = 50
MAX_RUNS = 1_000_000


class SweepSpecError(ScenarioError):
    """A sweep spec that cannot be run: one line per problem, ``FILE: KEY: PROBLEM (fix: FIX)``."""


def metric_names() -> tuple[str, ...]:
    """The run-level metric columns of a store's index (``store.summary_row``); a consumer's
    are ``apps.<name>.<field>``, a field of ``store.APP_FIELDS``."""
    from .store import APP_SUMS, TOP_FIELDS

    return (*TOP_FIELDS, *APP_SUMS, "delivery_ratio", "delay_ms_mean", "drops", "marks",
            "max_queue_pkts")  # fmt: skip


def metric_problem(metric: str, extra: tuple[str, ...] = ()) -> tuple[str, str] | None:
    """(problem, fix) when `metric` is no metric column of a store's index (nor one of
    `extra`), else None."""
    known = (*metric_names(), *extra)
    if metric in known:
        return None
    parts = metric.split(".")
    if parts[0] == "apps":
        from .store import APP_FIELDS as fields

        if len(parts) >= 3 and parts[-1] in fields:
            return None  # apps.<name>.<field> (a name may hold dots)
        close = difflib.get_close_matches(parts[-1], list(fields), n=1, cutoff=0.6)
        hint = (
            f"apps.NAME.{close[0]}"
            if close
            else f"apps.NAME.FIELD, FIELD one of {', '.join(fields)}"
        )
        return f"unknown metric {metric!r}", f"a consumer's metric is {hint}"
    close = difflib.get_close_matches(metric, list(known), n=1, cutoff=0.6)
    fix = f"did you mean '{close[0]}'?" if close else f"known metrics: {', '.join(known)}"
    return f"unknown metric {metric!r}", fix + " (or apps.NAME.FIELD for one consumer)"


def _close(word: str, options: tuple[str, ...] | list[str]) -> str:
    match = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f"did you mean '{match[0]}'?" if match else f"known keys: {', '.join(options)}"


@dataclass(frozen=True)
class CiTarget:
    """Run seeds until the 95 % Student-t half-width of `metric` over the repetitions of
    every point is at most `width` (absolute) or `width` × |mean| (`relative`)."""

    metric: str
    width: float
    relative: bool

    def met(self, mean: float, half: float) -> bool:
        if half != half:  # NaN: fewer than two values
            return False
        limit = self.width * abs(mean) if self.relative else self.width
        return half <= limit

    def __str__(self) -> str:
        w = f"{self.width * 100:g}%" if self.relative else f"{self.width:g}"
        return f"{self.metric}={w}"


_CI_RE = re.compile(r"^\s*([A-Za-z_][\w.\[\]/-]*)\s*=\s*([0-9.eE+-]+)\s*(%?)\s*$")


def parse_ci_target(text: str) -> CiTarget:
    """``METRIC=WIDTH`` (absolute half-width) or ``METRIC=WIDTH%`` (relative to the mean)."""
    m = _CI_RE.match(text)
    width = None
    if m:
        try:
            width = float(m.group(2))
        except ValueError:
            width = None
    if m is None or width is None or not (width > 0 and width != float("inf")):
        raise ValueError(
            f"{text!r}: expected METRIC=WIDTH with a positive WIDTH, e.g. throughput_mbps=0.5 "
            "(95 % half-width in the metric's unit) or throughput_mbps=5% (relative to the mean)"
        )
    rel = m.group(3) == "%"
    return CiTarget(m.group(1), width / 100 if rel else width, rel)


@dataclass(frozen=True)
class Axis:
    """One dimension of the grid: a name, and per level a value (the index column's) and the
    overrides it applies."""

    name: str
    values: tuple[Any, ...]
    overrides: tuple[dict[str, Any], ...]


@dataclass
class Point:
    """One combination of the axes: what every repetition of it shares."""

    scenario: Path
    params: dict[str, Any]
    overrides: dict[str, Any]
    seeds: list[int] | None
    runs: list[int] | None

    @property
    def id(self) -> str:
        """A short hash of the scenario file and the overrides (not of the seed or run)."""
        text = json.dumps(
            {"scenario": str(self.scenario), "overrides": self.overrides},
            sort_keys=True,
            separators=(",", ":"),
            default=str,
        )
        return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass
class SweepSpec:
    source: str
    name: str
    scenarios: list[Path]
    description: str = ""
    seeds: list[int] | None = None
    runs: list[int] | None = None
    figures: bool = False
    overrides: dict[str, Any] = field(default_factory=dict)
    axes: list[Axis] = field(default_factory=list)
    until_ci: list[CiTarget] = field(default_factory=list)
    max_seeds: int = MAX_SEEDS
    report_metrics: list[str] = field(default_factory=list)
    report_x: str | None = None
    data: dict = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path) -> SweepSpec:
        path = Path(path)
        src = str(path)
        if path.is_dir():
            problem = Problem(src, "", "a directory, not a sweep spec", "give a .toml file")
            raise SweepSpecError([problem])
        try:
            text = path.read_text(encoding="utf-8-sig")  # a byte order mark is ignored
        except FileNotFoundError:
            raise SweepSpecError(
                [Problem(src, "", "sweep spec not found", "check the path")]
            ) from None
        except (OSError, UnicodeDecodeError) as e:
            raise SweepSpecError(
                [Problem(src, "", f"cannot read the file: {e}", "check the file")]
            ) from None
        try:
            _check_nesting(text, src)
            data = tomllib.loads(text)
        except ScenarioError as e:
            raise SweepSpecError(e.problems) from None
        except tomllib.TOMLDecodeError as e:
            raise SweepSpecError(
                [Problem(src, "", f"not valid TOML: {e}", "fix the TOML syntax")]
            ) from None
        return cls.from_dict(data, src, path.parent, path.stem)

    @classmethod
    def from_dict(
        cls, data: dict, source: str = "<sweep>", base_dir: str | Path = ".", stem: str = "sweep"
    ) -> SweepSpec:
        return _Reader(data, source, Path(base_dir), stem).read()

    def points(self) -> list[Point]:
        """Every combination of the axes, in the spec's order (scenario files first)."""
        axes = list(self.axes)
        if len(self.scenarios) > 1:
            scen = Axis("scenario_file", tuple(p.stem for p in self.scenarios), ())
            axes.insert(0, scen)
        levels = [range(len(a.values)) for a in axes]
        out = []
        for combo in itertools.product(*levels):
            params: dict[str, Any] = {}
            ov = dict(self.overrides)
            scenario = self.scenarios[0]
            for axis, i in zip(axes, combo, strict=True):
                params[axis.name] = axis.values[i]
                if axis.name == "scenario_file" and len(self.scenarios) > 1:
                    scenario = self.scenarios[i]
                else:
                    ov.update(axis.overrides[i])
            out.append(Point(scenario, params, ov, self.seeds, self.runs))
        return out

    def size(self) -> int:
        n = len(self.scenarios)
        for a in self.axes:
            n *= len(a.values)
        return n * len(self.seeds or [0]) * len(self.runs or [0])


class _Reader:
    def __init__(self, data: dict, source: str, base: Path, stem: str):
        self.data = data
        self.src = source
        self.base = base
        self.stem = stem
        self.problems: list[Problem] = []

    def bad(self, key: str, problem: str, fix: str) -> None:
        self.problems.append(Problem(self.src, key, problem, fix))

    def table(self, name: str) -> dict:
        value = self.data.get(name, {})
        if not isinstance(value, dict):
            self.bad(name, "must be a table", f"write [{name}]")
            return {}
        return value

    def keys(self, table: dict, prefix: str, known: tuple[str, ...]) -> None:
        for k in table:
            if k not in known:
                self.bad(f"{prefix}.{k}", "unknown key", _close(k, known))

    def read(self) -> SweepSpec:
        if not isinstance(self.data, dict):
            raise SweepSpecError([Problem(self.src, "", "not a table", "write a TOML file")])
        for k in self.data:
            if k not in TABLES:
                self.bad(k, "unknown table", _close(k, TABLES))
        sweep = self.table("sweep")
        self.keys(sweep, "sweep", SWEEP_KEYS)
        spec = SweepSpec(self.src, self.stem, [], data=self.data)
        spec.name = self.name(sweep.get("name", self.stem))
        spec.description = self.string(sweep, "description", "")
        spec.scenarios = self.scenarios(sweep.get("scenario"))
        spec.seeds = self.ints(sweep, "seeds", first=1)
        spec.runs = self.ints(sweep, "runs", first=0)
        spec.figures = self.boolean(sweep, "figures", False)
        spec.overrides = self.overrides(self.table("overrides"), "overrides")
        spec.axes = self.grid(self.table("grid"))
        self.until_ci(self.table("until_ci"), spec)
        self.report(self.table("report"), spec)
        if not self.problems and spec.size() > MAX_RUNS:
            self.bad("grid", f"{spec.size():,} runs", f"keep a sweep under {MAX_RUNS:,} runs")
        if self.problems:
            raise SweepSpecError(self.problems)
        return spec

    def name(self, value: Any) -> str:
        if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9][\w.+-]{0,99}", value):
            self.bad("sweep.name", f"{value!r} is not a usable name", 'write e.g. "sf-dumbbell"')
            return self.stem
        return value

    def string(self, t: dict, key: str, default: str) -> str:
        v = t.get(key, default)
        if not isinstance(v, str):
            self.bad(f"sweep.{key}", "must be a string", f'write {key} = "..."')
            return default
        return v

    def boolean(self, t: dict, key: str, default: bool) -> bool:
        v = t.get(key, default)
        if not isinstance(v, bool):
            self.bad(f"sweep.{key}", "must be true or false", f"write {key} = true")
            return default
        return v

    def scenarios(self, value: Any) -> list[Path]:
        if value is None:
            self.bad("sweep.scenario", "missing", 'name the base scenario: scenario = "x.toml"')
            return []
        items = value if isinstance(value, list) else [value]
        if not items or not all(isinstance(v, str) and v for v in items):
            self.bad("sweep.scenario", "must be a file name or an array of them", 'e.g. "a.toml"')
            return []
        out = []
        for v in items:
            p = Path(v).expanduser()
            p = p if p.is_absolute() else (self.base / p)
            if not p.is_file():
                why = missing(p)
                self.bad("sweep.scenario", f"scenario file {v!r} {why}", f"looked for {p}")
            out.append(p.resolve())
        if len({str(p) for p in out}) != len(out):
            self.bad("sweep.scenario", "a file is named twice", "name each scenario once")
        return out

    def ints(self, t: dict, key: str, first: int) -> list[int] | None:
        if key not in t:
            return None
        v = t[key]
        if isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 100_000:
            return list(range(first, first + v))
        ok = (
            isinstance(v, list)
            and v
            and all(isinstance(x, int) and not isinstance(x, bool) for x in v)
        )
        if not ok or any(not 0 <= x < 2**63 for x in v):
            self.bad(
                f"sweep.{key}",
                "must be a count (1 to 100000) or an array of non-negative integers",
                f"write e.g. {key} = 5 or {key} = [1, 2, 3]",
            )
            return None
        if len(set(v)) != len(v):
            self.bad(f"sweep.{key}", "a value is repeated", "list each once")
        return list(v)

    def overrides(self, table: dict, where: str) -> dict[str, Any]:
        out = {}
        for k, v in table.items():
            if isinstance(v, dict):
                self.bad(
                    f"{where}.{k}",
                    "a table where a value was expected",
                    f'quote the whole dotted path: "{k}.{next(iter(v), "key")}" = ...',
                )
                continue
            out[k] = v
        return out

    def grid(self, table: dict) -> list[Axis]:
        axes = []
        for name, value in table.items():
            where = f"grid.{name}"
            if name in RESERVED or name == "scenario_file":
                self.bad(where, f"'{name}' is a column of the index", "name the axis otherwise")
                continue
            if isinstance(value, list):
                if not value or any(isinstance(x, dict | list) for x in value):
                    self.bad(where, "must be a non-empty array of values", f'"{name}" = [1, 2]')
                    continue
                if len({json.dumps(x) for x in value}) != len(value):
                    self.bad(where, "a value is repeated", "list each value once")
                axes.append(Axis(name, tuple(value), tuple({name: x} for x in value)))
            elif isinstance(value, dict):
                if not value:
                    self.bad(where, "an axis without levels", "give levels, each a table")
                    continue
                levels = []
                for label, ov in value.items():
                    if not isinstance(ov, dict):
                        self.bad(
                            f"{where}.{label}",
                            "must be a table of overrides",
                            f'write {label} = {{ "apps[c1].rate" = 100 }}',
                        )
                        continue
                    levels.append((label, self.overrides(ov, f"{where}.{label}")))
                axes.append(Axis(name, tuple(lb for lb, _ in levels), tuple(o for _, o in levels)))
            else:
                self.bad(
                    where,
                    "must be an array of values or a table of labelled levels",
                    f'e.g. "{name}" = [1, 2]',
                )
        return axes

    def until_ci(self, t: dict, spec: SweepSpec) -> None:
        if not t:
            return
        self.keys(t, "until_ci", UNTIL_CI_KEYS)
        metric, width = t.get("metric"), t.get("width")
        if not isinstance(metric, str) or width is None:
            self.bad("until_ci", "needs metric and width", 'e.g. metric = "throughput_mbps"')
        else:
            problem = metric_problem(metric)
            if problem is not None:
                self.bad("until_ci.metric", *problem)
            w = f"{width}" if not isinstance(width, bool) else "?"
            try:
                target = parse_ci_target(f"{metric}={w}")
            except ValueError as e:
                self.bad("until_ci.width", str(e), 'write width = 0.5 or width = "5%"')
            else:
                spec.until_ci.append(target)
        m = t.get("max_seeds", MAX_SEEDS)
        if not isinstance(m, int) or isinstance(m, bool) or not 2 <= m <= 100_000:
            self.bad("until_ci.max_seeds", "must be an integer from 2 to 100000", "e.g. 30")
        else:
            spec.max_seeds = m

    def report(self, t: dict, spec: SweepSpec) -> None:
        self.keys(t, "report", REPORT_KEYS)
        m = t.get("metrics", [])
        if not isinstance(m, list) or not all(isinstance(x, str) for x in m):
            self.bad("report.metrics", "must be an array of column names", '["throughput_mbps"]')
        else:
            for i, name in enumerate(m):
                problem = metric_problem(name, ("wall_time_s",))
                if problem is not None:
                    self.bad(f"report.metrics[{i}]", *problem)
            spec.report_metrics = list(m)
        x = t.get("x")
        names = [a.name for a in spec.axes]
        if x is not None and x not in names:
            self.bad("report.x", f"no axis named {x!r}", _close(str(x), names or ["(no axis)"]))
        spec.report_x = x
