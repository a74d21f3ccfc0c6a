"""Standard figures of a run, drawn with matplotlib.

Figures are built as plain ``matplotlib.figure.Figure`` objects rendered by the Agg canvas,
so nothing here touches pyplot's global state or needs a display. Each figure has a title,
axis labels with units, a grid, and a legend when it has several lines; a figure whose data
is empty is skipped.

* ``throughput.png``     Data throughput per consumer (Mbit/s) vs time (s), their total when
                         there are several, and the capacity of the bottleneck the Data
                         crossed dotted (``ndncc.capacity``; none when not defined)
* ``interest_rate.png``  Interests sent per consumer (Interests/s) vs time (s), with the
                         controller's target rate dashed while the consumer sends
* ``queues.png``         queue length (packets) of the busiest net faces vs time (s); faces
                         whose queue stayed empty are left out
* ``delay_cdf.png``      CDF of the full delay (ms) per consumer

With many flows every line keeps a colour of its own (tab10, tab20, then a continuous map) and
the legend moves beside the axes instead of over the data.
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


#: Up to this many labelled lines the legend sits inside the axes; beyond, beside them.
LEGEND_INSIDE = 6


def _colors(n: int) -> list:
    """`n` distinct colours: tab10, tab20, then evenly spaced on a continuous map."""
    from matplotlib import colormaps

    if n <= 10:
        return [colormaps["tab10"](i) for i in range(n)]
    if n <= 20:
        return [colormaps["tab20"](i) for i in range(n)]
    return [colormaps["turbo"](i / (n - 1)) for i in range(n)]


def _finish(ax: Axes, title: str, xlabel: str, ylabel: str) -> None:
    """Title, unit-bearing axis labels, grid, and a legend if there are several lines: inside
    the axes for a few, beside them (in columns of 20) for more."""
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.4)
    labelled = [h for h in ax.get_lines() if not h.get_label().startswith("_")]
    if len(labelled) > LEGEND_INSIDE:
        ax.legend(
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            fontsize="x-small",
            ncol=(len(labelled) + 19) // 20,
            borderaxespad=0.0,
        )
    elif len(labelled) > 1:
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
    apps = _per_app(result.series)
    for (name, rows), color in zip(apps, _colors(len(apps)), strict=True):
        ax.plot(rows["time_s"], rows["throughput_mbps"], label=name, color=color)
    if len(apps) > 1:
        total = result.series.groupby("time_s", sort=True)["throughput_mbps"].sum()
        ax.plot(total.index, total.to_numpy(), color="black", lw=1.2, label="total")
    capacity = result.summary.get("capacity_mbps")
    if capacity:
        where = result.summary.get("capacity_link") or "bottleneck"
        ax.axhline(capacity, color="black", ls=":", lw=1.2, label=f"capacity, {where}")
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
    apps = _per_app(result.series)
    for (name, rows), color in zip(apps, _colors(len(apps)), strict=True):
        (line,) = ax.plot(rows["time_s"], rows["interest_rate"], label=f"{name} sent", color=color)
        target = _while_sending(rows)
        target = target[target["rate"].notna()]
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


def _while_sending(rows: pd.DataFrame) -> pd.DataFrame:
    """The bins from the first in which a consumer sent to the last: its active time (a
    controller has a target rate before the consumer starts and after it stops)."""
    sent = rows["interests"].to_numpy() > 0
    if not sent.any():
        return rows.iloc[0:0]
    first, last = sent.argmax(), len(sent) - 1 - sent[::-1].argmax()
    return rows.iloc[first : last + 1]


def _busiest_net_faces(face_series: pd.DataFrame, count: int) -> list[tuple[str, pd.DataFrame]]:
    """The ``count`` net faces with the largest maximum queue (packets), as
    ("node→peer" label, rows sorted by time), ties broken by (node, face); faces whose queue
    stayed empty are left out."""
    net = face_series[face_series["kind"] == "net"]
    if not len(net):
        return []
    peak = net.groupby(["node", "face"], sort=True)["queue_max_pkts"].max()
    peak = peak[peak > 0]
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
    for (label, rows), color in zip(faces, _colors(len(faces)), strict=True):
        ax.plot(rows["time_s"], rows["queue_pkts"], label=label, color=color)
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
    groups = list(delays.groupby("app", sort=True))
    for (_, rows), color in zip(groups, _colors(len(groups)), strict=True):
        ms = np.sort(rows["full_delay_s"].to_numpy(dtype=np.float64)) * 1e3
        frac = np.arange(1, len(ms) + 1) / len(ms)
        ax.step(ms, frac, where="post", label=str(rows["app_name"].iloc[0]), color=color)
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
