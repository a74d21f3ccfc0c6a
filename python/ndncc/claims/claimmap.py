"""The claim map of a finished map run: per claim where it holds, what it depends on, figures.

A *claim* is a row of the paper's comparison.csv that can fail (its ``within`` is not n/a),
named by (experiment, metric, condition) — and its rank among rows of that name, if several.
Over the design's points (the default point apart):

* ``fraction``: the share of the region where it holds, the mean over points of the share of
  that point's seeds where it holds;
* ``ci_low``/``ci_high``: the 95 % Wilson score interval of that share over the evaluated
  (point, seed) pairs (a binomial interval treating them as independent draws; a Latin
  hypercube stratifies the region, so over points it is conservative; over seeds of one point,
  which share the point, it can be too narrow);
* ``most_influential``/``sensitivity``: per unknown, the hold rate over the points in the upper
  half of its range (on its sampling scale) minus that over the lower half (a finite set: the
  largest minus the smallest hold rate over its levels, unsigned); the unknown with the largest
  absolute value, and that value.

``docs/unknowns.md`` says how to read the map.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .runmap import MapRun
from .unknowns import MapPoint, Unknown

__all__ = ["CLAIM_COLUMNS", "Claim", "claims_of", "summarise", "wilson", "write_claim_map"]

CLAIM_COLUMNS = [
    "claim",
    "experiment",
    "metric",
    "condition",
    "paper",
    "tolerance",
    "holds_at_default",
    "fraction",
    "ci_low",
    "ci_high",
    "evaluated",
    "holds",
    "most_influential",
    "sensitivity",
    "second",
    "second_sensitivity",
    "constraint",
    "figure",
]
Z95 = 1.959963984540054


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion k/n ((nan, nan) when n = 0)."""
    if n == 0:
        return float("nan"), float("nan")
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


@dataclass
class Claim:
    """One claim and its verdicts: per point id, the seeds' verdicts (True / False)."""

    number: int
    experiment: str
    metric: str
    condition: str
    rank: int
    paper: str = ""
    tolerance: str = ""
    verdicts: dict[str, list[bool]] = field(default_factory=dict)
    constraint: str = ""

    @property
    def name(self) -> str:
        r = f" (#{self.rank + 1})" if self.rank else ""
        return f"{self.experiment} / {self.metric} / {self.condition}{r}"

    def rate(self, pid: str) -> float | None:
        v = self.verdicts.get(pid)
        return sum(v) / len(v) if v else None


def _keyed(rows: list[list[str]]):
    """(experiment, metric, condition, rank) → row, rank counting rows of one name."""
    seen: dict[tuple[str, str, str], int] = {}
    for r in rows:
        name = (r[0], r[1], r[2])
        rank = seen.get(name, 0)
        seen[name] = rank + 1
        yield (*name, rank), r


def claims_of(m: MapRun) -> list[Claim]:
    """Every row that can fail somewhere in the map, the default point's rows first."""
    claims: dict[tuple, Claim] = {}
    for p in m.points:  # the default first
        for s in range(m.seeds):
            rows = m.rows.get((p.id, s))
            for k, r in _keyed(rows or []):
                if r[5] not in ("true", "false"):
                    continue
                c = claims.get(k)
                if c is None:
                    c = claims[k] = Claim(len(claims) + 1, k[0], k[1], k[2], k[3], r[3], r[4])
                c.verdicts.setdefault(p.id, []).append(r[5] == "true")
    for c in claims.values():
        for con in m.decl.constraints:
            if con.matches(c.experiment, c.metric):
                c.constraint = con.text
    return list(claims.values())


@dataclass
class Stats:
    claim: Claim
    at_default: str
    fraction: float
    ci: tuple[float, float]
    evaluated: int
    holds: int
    influence: list[tuple[str, float]]  # (unknown, signed index), most influential first


def sensitivity(c: Claim, u: Unknown, points: list[MapPoint]) -> float:
    """Hold rate in the upper half of `u`'s range minus that in the lower half; a finite set:
    the largest minus the smallest hold rate over its levels. nan if a group is empty."""
    groups: dict[Any, list[float]] = {}
    for p in points:
        r = c.rate(p.id)
        if r is None:
            continue
        g = p.values[u.name] if u.finite else p.coords[u.name] >= 0.5
        groups.setdefault(g, []).append(r)
    means = {g: sum(v) / len(v) for g, v in groups.items()}
    if u.finite:
        return max(means.values()) - min(means.values()) if len(means) >= 2 else float("nan")
    if True not in means or False not in means:
        return float("nan")
    return means[True] - means[False]


def summarise(m: MapRun, claims: list[Claim]) -> list[Stats]:
    default, design = m.points[0], m.points[1:]
    out = []
    for c in claims:
        d = c.verdicts.get(default.id)
        if not d:
            at = "n/a"
        elif all(d):
            at = "true"
        elif not any(d):
            at = "false"
        else:
            at = f"{sum(d)}/{len(d)} seeds"
        rates = [r for p in design if (r := c.rate(p.id)) is not None]
        n = sum(len(c.verdicts.get(p.id, [])) for p in design)
        k = sum(sum(c.verdicts.get(p.id, [])) for p in design)
        frac = sum(rates) / len(rates) if rates else float("nan")
        infl = [(u.name, sensitivity(c, u, design)) for u in m.decl.unknowns]
        infl.sort(key=lambda t: -abs(t[1]) if t[1] == t[1] else 1.0)
        out.append(Stats(c, at, frac, wilson(k, n), n, k, infl))
    return out


def _f(x: float) -> str:
    return "" if x != x else f"{x:.4f}"


def _top(s: Stats, i: int) -> tuple[str, str]:
    if len(s.influence) <= i:
        return "", ""
    name, v = s.influence[i]
    if v != v:
        return "", ""
    if i == 0 and v == 0:
        return "none", "0.0000"
    return name, f"{v:+.4f}"


@dataclass
class ClaimMap:
    stats: list[Stats]
    all_hold: list[MapPoint]
    evaluated_points: list[MapPoint]
    csv: Path
    markdown: Path
    figures: list[Path]

    @property
    def counts(self) -> dict[str, int]:
        return {
            "claims": len(self.stats),
            "at_default": sum(s.at_default == "true" for s in self.stats),
            "somewhere": sum(s.holds > 0 or s.at_default == "true" for s in self.stats),
            "nowhere": sum(s.holds == 0 and s.at_default != "true" for s in self.stats),
        }


def write_claim_map(
    m: MapRun, out: Path | None = None, figures: bool = True, n_jobs: int | None = None
) -> ClaimMap:
    """claims.csv, a figure per claim (drawn on `n_jobs` local processes) and claims.md into
    `out` (default <store>/claims)."""
    out = Path(out) if out is not None else m.root / "claims"
    out.mkdir(parents=True, exist_ok=True)
    claims = claims_of(m)
    stats = summarise(m, claims)
    design = m.points[1:]
    evaluated = [p for p in design if any(m.rows.get((p.id, s)) for s in range(m.seeds))]
    all_hold = [
        p
        for p in evaluated
        if all((r := c.rate(p.id)) is None or r == 1.0 for c in claims)
        and any(c.rate(p.id) is not None for c in claims)
    ]
    figs: list[Path] = []
    names: dict[int, str] = {}
    if figures and stats:
        from .figures import draw_all, figure_jobs

        drawn = draw_all(figure_jobs(m, stats, out / "fig"), n_jobs)
        for s, path in zip(stats, drawn, strict=True):
            if path is not None:
                figs.append(path)
                names[s.claim.number] = f"fig/{path.name}"
    path_csv = out / "claims.csv"
    with open(path_csv, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(CLAIM_COLUMNS)
        for s in stats:
            c = s.claim
            first, second = _top(s, 0), _top(s, 1)
            w.writerow(
                [
                    c.number,
                    c.experiment,
                    c.metric,
                    c.condition + (f" (#{c.rank + 1})" if c.rank else ""),
                    c.paper,
                    c.tolerance,
                    s.at_default,
                    _f(s.fraction),
                    _f(s.ci[0]),
                    _f(s.ci[1]),
                    s.evaluated,
                    s.holds,
                    first[0],
                    first[1],
                    second[0] if first[0] != "none" else "",
                    second[1] if first[0] != "none" else "",
                    c.constraint,
                    names.get(c.number, ""),
                ]
            )
    cm = ClaimMap(stats, all_hold, evaluated, path_csv, out / "claims.md", figs)
    from .mdreport import markdown

    cm.markdown.write_text(markdown(m, cm, names), encoding="utf-8")
    return cm
