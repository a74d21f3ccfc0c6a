"""Figures of the sf-clock reproduction, drawn like the paper's (seed 002, Fig. 3-11)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from ..sweep import Outcome
from . import sf_clock as X
from .common import save_figure as _save

COLORS = {
    "ideal": "tab:blue",
    "tick 50 ms": "tab:gray",
    "tick 100 ms": "goldenrod",
    "tick 200 ms": "black",
    "tick 1 ms": "tab:green",
    "tick 5 ms": "tab:orange",
    "tick 10 ms": "tab:red",
}


def _linear_labels(smoothing: bool) -> list[str]:
    return ["ideal"] + [X.engine_label(t, smoothing) for t in X.LINEAR_TICKS]


def _color(label: str) -> str:
    return COLORS.get(label.replace(" + smoothing", ""), "tab:purple")


def linear_sequence(res: dict[str, Outcome], path: Path) -> Path:
    """Fig. 3: the sequence number requested vs time (no smoothing)."""
    fig = Figure(figsize=(7, 4))
    ax = fig.add_subplot()
    for label in _linear_labels(False):
        s = res[X.linear_key(label)].frames["series"]
        ax.plot(s["time_s"], s["interests"].cumsum(), label=label, color=_color(label))
    ax.set(
        xlabel="Time (s)",
        ylabel="Sequence number (Interests sent)",
        title="Linear, SF: sequence number vs time (Fig. 3)",
    )
    ax.grid(alpha=0.3)
    ax.legend()
    return _save(fig, path)


def linear_rate(res: dict[str, Outcome], path: Path, smoothing: bool) -> Path:
    """Fig. 4 / Fig. 6: the consumer's Interest sending rate vs time."""
    fig = Figure(figsize=(7, 4))
    ax = fig.add_subplot()
    for label in _linear_labels(smoothing):
        s = res[X.linear_key(label)].frames["series"]
        ax.step(s["time_s"], s["rate"], where="post", label=label, color=_color(label))
    which = "with smoothing (Fig. 6)" if smoothing else "coarse clock (Fig. 4)"
    ax.set(
        xlabel="Time (s)",
        ylabel="Interest sending rate (Interests/s)",
        title=f"Linear, SF: consumer rate vs time, {which}",
    )
    ax.set_ylim(0, 1100)
    ax.grid(alpha=0.3)
    ax.legend()
    return _save(fig, path)


def linear_bucket(res: dict[str, Outcome], path: Path) -> Path:
    """Fig. 5: the consumer node's bucket level vs time, one panel per tick."""
    fig = Figure(figsize=(7, 7))
    for i, tick in enumerate(X.LINEAR_TICKS):
        ax = fig.add_subplot(len(X.LINEAR_TICKS), 1, i + 1)
        label = X.engine_label(tick, False)
        f = res[X.linear_key(label)].frames["face_series"]
        f = f[(f["node_name"] == "C") & (f["kind"] == "net")]
        ax.plot(f["time_s"], f["scheme_bucket"], color=_color(label), lw=0.8)
        ax.axhline(50, color="red", ls=":", lw=1, label="maximum depth D = 50")
        ax.set(ylabel="Bucket (tokens)", title=f"({'abc'[i]}) tick = {tick} ms", ylim=(0, 55))
        ax.grid(alpha=0.3)
        if i == 0:
            ax.legend(loc="lower right")
    ax.set_xlabel("Time (s)")
    fig.suptitle("Linear, SF: token bucket depth at the consumer (Fig. 5)")
    return _save(fig, path)


def dumbbell_bars(
    res: dict[str, Outcome], path: Path, pairs: list[int], smoothing: bool, metric: str
) -> Path:
    """Fig. 8 / 9 / 11: total throughput or Nacks per pairs × engine, one panel per depth."""
    labels = ["ideal"] + [X.engine_label(t, smoothing) for t in X.DUMBBELL_TICKS]
    value = X.throughput if metric == "throughput" else X.nacks
    fig = Figure(figsize=(11, 3.8))
    width = 0.8 / len(labels)
    x = np.arange(len(pairs))
    for i, depth in enumerate(X.DEPTHS):
        ax = fig.add_subplot(1, len(X.DEPTHS), i + 1)
        for k, label in enumerate(labels):
            ys = [value(res[X.dumbbell_key(n, depth, label)]) for n in pairs]
            ax.bar(
                x + (k - (len(labels) - 1) / 2) * width, ys, width, label=label, color=_color(label)
            )
        ax.set_xticks(x, [str(n) for n in pairs])
        unit = "Total Data throughput (Mbps)" if metric == "throughput" else "Total Nacks"
        ax.set(
            xlabel="Consumer/producer pairs",
            ylabel=unit,
            title=f"({'abc'[i]}) max. bucket depth = {depth}",
        )
        if metric == "throughput":
            ax.set_ylim(0, 105)
        ax.grid(axis="y", alpha=0.3)
        if i == 0:
            ax.legend(fontsize=8)
    what = {"throughput": "Data throughput", "nacks": "Nacks"}[metric]
    fig_no = "Fig. 11" if smoothing else ("Fig. 8" if metric == "throughput" else "Fig. 9")
    suffix = " with smoothing" if smoothing else ""
    fig.suptitle(f"Dumbbell, SF: total {what}{suffix} ({fig_no})")
    return _save(fig, path)


def per_flow_bars(res: dict[str, Outcome], path: Path, pairs: list[int]) -> Path:
    """Fig. 10: per-flow throughput at tick 1 ms, depth 50."""
    fig = Figure(figsize=(7, 4))
    ax = fig.add_subplot()
    label = X.engine_label(1, False)
    for j, n in enumerate(pairs):
        flows = X.per_flow(res[X.dumbbell_key(n, 50, label)])
        xs = j + (np.arange(n) - (n - 1) / 2) * (0.8 / max(n, 1))
        ax.bar(xs, flows, 0.8 / max(n, 1), color="tab:green", edgecolor="white")
    ax.set_xticks(range(len(pairs)), [str(n) for n in pairs])
    ax.set(
        xlabel="Consumer/producer pairs (one bar per flow)",
        ylabel="Per-flow Data throughput (Mbps)",
        title="Dumbbell, SF: per-flow throughput, tick 1 ms, depth 50 (Fig. 10)",
    )
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, path)
