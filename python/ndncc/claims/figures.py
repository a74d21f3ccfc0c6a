"""A claim's figure over its one or two most influential unknowns.

One unknown: the share of seeds where the claim holds at each design point against the
unknown's value, the binned hold rate as a step curve, and the bins where it holds at least
half the time shaded. Two: the design points in the plane of the two unknowns (filled: holds,
×: fails), the region where the nearest design point holds shaded (a projection: the other
unknowns vary under it). Our default is the dashed line / the star.
"""

from __future__ import annotations

import hashlib
import json
import textwrap
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..backends import default_jobs
from ..experiments.common import save_figure
from .unknowns import MapPoint, Unknown

#: bumped when the drawing changes, so that figures drawn before are drawn again
FIGURE_VERSION = 1

HOLD = "#2ca02c"
FAIL = "#d62728"


def _label(u: Unknown) -> str:
    if u.finite:
        return f"{u.name} ({u.unit + ', ' if u.unit else ''}level)"
    return f"{u.name} ({u.unit or 'dimensionless'}, {u.scale} scale)"


def _ticks(ax_set, u: Unknown) -> None:
    """Ticks in unit coordinates labelled with the unknown's values."""
    if u.finite:
        pos = [(i + 0.5) / len(u.levels) for i in range(len(u.levels))]
        ax_set(pos, [str(v) for v in u.levels])
    else:
        pos = np.linspace(0, 1, 5)
        ax_set(pos, [f"{u.value(float(c)):g}" for c in pos])


@dataclass
class FigureJob:
    """What one figure needs (picklable: the unknowns without their `apply`)."""

    points: list[MapPoint]  # the default first
    unknowns: list[Unknown]
    stats: Any
    path: Path

    def digest(self) -> str:
        c = self.stats.claim
        text = json.dumps(
            [
                c.name,
                [(p.id, p.coords, c.verdicts.get(p.id)) for p in self.points],
                self.stats.influence,
                [repr(u) for u in self.unknowns],
                FIGURE_VERSION,
            ],
            sort_keys=True,
            default=str,
        )
        return hashlib.sha256(text.encode()).hexdigest()[:20]


def figure_jobs(m, stats, folder: Path) -> list[FigureJob]:
    unknowns = [replace(u, apply=None) for u in m.decl.unknowns]
    return [
        FigureJob(m.points, unknowns, s, folder / f"claim-{s.claim.number:03d}.png") for s in stats
    ]


def draw_all(jobs: list[FigureJob], n_jobs: int | None = None) -> list[Path | None]:
    """Draws the figures whose data changed since they were drawn (fig/.digests.json), on
    `n_jobs` local processes; returns each one's path (None: nothing to draw)."""
    if not jobs:
        return []
    folder = jobs[0].path.parent
    folder.mkdir(parents=True, exist_ok=True)
    book = folder / ".digests.json"
    try:
        old = json.loads(book.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        old = {}
    digests = {j.path.name: j.digest() for j in jobs}
    todo = [
        j for j in jobs if not (j.path.is_file() and old.get(j.path.name) == digests[j.path.name])
    ]
    n = max(1, min(n_jobs or default_jobs(), len(todo)))
    if n > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        ctx = multiprocessing.get_context("forkserver")
        with ProcessPoolExecutor(n, mp_context=ctx) as pool:
            drawn = list(pool.map(draw_one, todo, chunksize=4))
    else:
        drawn = [draw_one(j) for j in todo]
    done = {j.path.name: p for j, p in zip(todo, drawn, strict=True)}
    out = []
    for j in jobs:
        p = done.get(j.path.name, j.path if j.path.is_file() else None)
        out.append(p)
        if p is None:
            digests.pop(j.path.name, None)
    book.write_text(json.dumps(digests, sort_keys=True, indent=0) + "\n", encoding="utf-8")
    return out


def draw_one(job: FigureJob) -> Path | None:
    return claim_figure(job.points, job.unknowns, job.stats, job.path)


def claim_figure(points: list[MapPoint], unknowns: list[Unknown], s, path: Path) -> Path | None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    design, default = points[1:], points[0]
    by_name = {u.name: u for u in unknowns}
    c = s.claim
    ranked = [by_name[n] for n, v in s.influence if v == v]
    if not ranked:
        ranked = list(unknowns)
    pts = [(p, r) for p in design if (r := c.rate(p.id)) is not None]
    if not pts:
        return None
    two = len(ranked) >= 2 and abs(s.influence[1][1]) > 0 and s.influence[0][1] != 0
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    title = textwrap.fill(f"claim {c.number}: {c.name}", 70)
    ax.set_title(title, fontsize=7)
    ux = ranked[0]
    x = np.array([p.coords[ux.name] for p, _ in pts])
    h = np.array([r for _, r in pts])
    colors = [HOLD if r >= 0.5 else FAIL for r in h]
    if two:
        uy = ranked[1]
        y = np.array([p.coords[uy.name] for p, _ in pts])
        g = np.linspace(0, 1, 61)
        gx, gy = np.meshgrid(g, g)
        d2 = (gx[..., None] - x) ** 2 + (gy[..., None] - y) ** 2
        near = h[np.argmin(d2, axis=-1)]
        ax.contourf(gx, gy, near, levels=[0.5, 1.01], colors=[HOLD], alpha=0.3)
        for xs, ys, r in zip(x, y, h, strict=True):
            ax.scatter(xs, ys, s=18, c=HOLD if r >= 0.5 else FAIL, marker="o" if r >= 0.5 else "x")
        ax.scatter(
            default.coords[ux.name],
            default.coords[uy.name],
            s=90,
            marker="*",
            c="k",
            label="our default",
        )
        ax.set_ylim(0, 1)
        _ticks(lambda p, lab: (ax.set_yticks(p), ax.set_yticklabels(lab)), uy)
        ax.set_ylabel(_label(uy), fontsize=8)
    else:
        nb = max(1, min(10, len(pts) // 3))
        edges = np.linspace(0, 1, nb + 1)
        idx = np.minimum((x * nb).astype(int), nb - 1)
        rate = np.array([h[idx == i].mean() if (idx == i).any() else np.nan for i in range(nb)])
        for i in range(nb):
            if rate[i] == rate[i] and rate[i] >= 0.5:
                ax.axvspan(edges[i], edges[i + 1], color=HOLD, alpha=0.2, lw=0)
        ax.step(edges, np.append(rate, rate[-1]), where="post", c="k", lw=1, label="binned")
        ax.scatter(x, h, s=14, c=colors)
        ax.axvline(default.coords[ux.name], ls="--", c="k", lw=0.8, label="our default")
        ax.set_ylim(-0.05, 1.05)
        ax.set_ylabel("share of seeds where it holds (1)", fontsize=8)
    ax.set_xlim(0, 1)
    _ticks(lambda p, lab: (ax.set_xticks(p), ax.set_xticklabels(lab)), ux)
    ax.set_xlabel(_label(ux), fontsize=8)
    ax.tick_params(labelsize=7)
    ax.legend(fontsize=6, loc="best")
    save_figure(fig, path)
    plt.close(fig)
    return path
