"""Standard figures of a run, drawn with matplotlib.

Figures are built as plain ``matplotlib.figure.Figure`` objects rendered by the Agg canvas,
so nothing here touches pyplot's global state or needs a display. Each figure has a title,
axis labels with units, a grid, and a legend when it has several lines; a figure whose data
is empty is skipped.

* ``throughput.png``     Data throughput per consumer (Mbit/s) vs time (s)
* ``interest_rate.png``  Interests sent per consumer (Interests/s) vs time (s), with the
                         controller's target rate dashed where defined
* ``queues.png``         queue length (packets) of the busiest net faces vs time (s)
* ``delay_cdf.png``      CDF of the full delay (ms) per consumer
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

if TYPE_CHECKING:
    from .results import Result

__all__ = ["FIGURES", "QUEUE_FACES", "build_figures", "plot_result", "show_result"]

#: How many net faces ``queues.png`` shows (the ones with the largest maximum queue).
QUEUE_FACES = 6

_FIGSIZE = (8.0, 4.5)  # inches
_DPI = 100


def _new_figure() -> Figure:
    """A Figure on an Agg canvas (no pyplot, no display)."""
    fig = Figure(figsize=_FIGSIZE)
    FigureCanvasAgg(fig)
    return fig


def _finish(ax: Axes, title: str, xlabel: str, ylabel: str) -> None:
    """Title, unit-bearing axis labels, grid, and a legend if there are several lines."""
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.4)
    labelled = [h for h in ax.get_lines() if not h.get_label().startswith("_")]
    if len(labelled) > 1:
        ax.legend(loc="best", fontsize="small")


def _per_app(series: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """(app name, rows sorted by time) for each app, in app index order."""
    return [
        (str(group["app_name"].iloc[0]), group.sort_values("time_s"))
        for _, group in series.groupby("app", sort=True)
    ]


def _throughput(result: Result, fig: Figure) -> bool:
    """Data throughput per consumer, Mbit/s, vs bin end time, s."""
    if not len(result.series):
        return False
    ax = fig.add_subplot()
    for name, rows in _per_app(result.series):
        ax.plot(rows["time_s"], rows["throughput_mbps"], label=name)
    _finish(
        ax,
        f"{_scenario(result)}: Data throughput per consumer",
        "Time (s)",
        "Throughput (Mbit/s)",
    )
    return True


def _interest_rate(result: Result, fig: Figure) -> bool:
    """Interests sent per consumer per second, and the controller's target rate dashed."""
    if not len(result.series):
        return False
    ax = fig.add_subplot()
    for name, rows in _per_app(result.series):
        (line,) = ax.plot(rows["time_s"], rows["interest_rate"], label=f"{name} sent")
        target = rows[rows["rate"].notna()]
        if len(target):
            ax.plot(
                target["time_s"],
                target["rate"],
                linestyle="--",
                color=line.get_color(),
                label=f"{name} target",
            )
    _finish(
        ax,
        f"{_scenario(result)}: Interest sending rate per consumer",
        "Time (s)",
        "Interest rate (Interests/s)",
    )
    return True


def _busiest_net_faces(face_series: pd.DataFrame, count: int) -> list[tuple[str, pd.DataFrame]]:
    """The ``count`` net faces with the largest maximum queue (packets), as
    ("node→peer" label, rows sorted by time), ties broken by (node, face)."""
    net = face_series[face_series["kind"] == "net"]
    if not len(net):
        return []
    peak = net.groupby(["node", "face"], sort=True)["queue_max_pkts"].max()
    top = peak.sort_values(ascending=False, kind="stable").index[:count]
    chosen = []
    for node, face in top:
        rows = net[(net["node"] == node) & (net["face"] == face)].sort_values("time_s")
        label = f"{rows['node_name'].iloc[0]}→{rows['peer_name'].iloc[0]}"
        chosen.append((label, rows, face))
    labels = [label for label, _, _ in chosen]
    return [
        (f"{label} (face {face})" if labels.count(label) > 1 else label, rows)
        for label, rows, face in chosen
    ]


def _queues(result: Result, fig: Figure) -> bool:
    """Queue length at bin end, packets, of the busiest net faces vs time, s."""
    faces = _busiest_net_faces(result.face_series, QUEUE_FACES)
    if not faces:
        return False
    ax = fig.add_subplot()
    for label, rows in faces:
        ax.plot(rows["time_s"], rows["queue_pkts"], label=label)
    _finish(
        ax,
        f"{_scenario(result)}: queue length of the busiest faces",
        "Time (s)",
        "Queue length (packets)",
    )
    return True


def _delay_cdf(result: Result, fig: Figure) -> bool:
    """Empirical CDF of the full delay (first Interest → Data), ms, per consumer."""
    delays = result.delays
    if not len(delays):
        return False
    ax = fig.add_subplot()
    for _, rows in delays.groupby("app", sort=True):
        ms = np.sort(rows["full_delay_s"].to_numpy(dtype=np.float64)) * 1e3
        frac = np.arange(1, len(ms) + 1) / len(ms)
        ax.step(ms, frac, where="post", label=str(rows["app_name"].iloc[0]))
    ax.set_ylim(0.0, 1.02)
    _finish(
        ax,
        f"{_scenario(result)}: full delay CDF per consumer",
        "Full delay (ms)",
        "Fraction of Data received (CDF)",
    )
    return True


def _scenario(result: Result) -> str:
    """Scenario name used in figure titles."""
    return str(result.scenario_name)


#: File name → builder drawing into a Figure; a builder returns False when it has no data.
FIGURES: dict[str, Callable[[Result, Figure], bool]] = {
    "throughput.png": _throughput,
    "interest_rate.png": _interest_rate,
    "queues.png": _queues,
    "delay_cdf.png": _delay_cdf,
}


def build_figures(
    result: Result, new_figure: Callable[[], Figure] = _new_figure
) -> dict[str, Figure]:
    """Draw every standard figure that has data; file name → Figure.

    ``new_figure`` creates an empty Figure (default: off-screen Agg; ``show_result`` passes
    pyplot's so the figures can be displayed).
    """
    figures = {}
    for name, draw in FIGURES.items():
        fig = new_figure()
        if draw(result, fig):
            fig.tight_layout()
            figures[name] = fig
    return figures


def plot_result(result: Result, out_dir: str | Path) -> list[Path]:
    """Write the standard figures of ``result`` as PNGs into ``out_dir`` (created if
    needed); return the paths written (figures without data are skipped)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, fig in build_figures(result).items():
        path = out / name
        fig.savefig(path, dpi=_DPI, metadata={"Software": None})
        paths.append(path)
    return paths


def show_result(result: Result) -> None:
    """Display the standard figures with pyplot (needs an interactive backend)."""
    import matplotlib.pyplot as plt

    created: list[Figure] = []

    def new_figure() -> Figure:
        created.append(plt.figure(figsize=_FIGSIZE))
        return created[-1]

    drawn = build_figures(result, new_figure).values()
    for fig in created:
        if fig not in drawn:
            plt.close(fig)
    plt.show()
