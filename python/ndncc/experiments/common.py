"""What every paper reproduction shares: comparison rows, the CSV, the report, scenario lookup."""

from __future__ import annotations

import csv
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

COMPARISON_COLUMNS = [
    "experiment",
    "metric",
    "condition",
    "paper",
    "ours",
    "unit",
    "tolerance",
    "within",
]


@dataclass
class Row:
    """One line of comparison.csv: the paper's figure beside ours.

    `paper` is the paper's number (or a description of the shape it shows, for figures without
    numbers); `ours` is what we measured; `tolerance` says how they are compared; `within` is
    the verdict. Rows whose tolerance starts with "goal" report a target the issue sets without
    requiring it.
    """

    experiment: str
    metric: str
    condition: str
    paper: Any
    ours: Any
    unit: str
    tolerance: str
    within: bool

    def as_csv(self) -> list[str]:
        return [
            self.experiment,
            self.metric,
            self.condition,
            fmt(self.paper),
            fmt(self.ours),
            self.unit,
            self.tolerance,
            "true" if self.within else "false",
        ]


def fmt(x: Any) -> str:
    """Numbers with up to 4 significant decimals; everything else as text."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if math.isnan(x):
            return "nan"
        return f"{x:.4g}" if abs(x) < 1e4 else f"{x:.0f}"
    if isinstance(x, list | tuple):
        return " / ".join(fmt(v) for v in x)
    return "" if x is None else str(x)


def relative(paper: float, ours: float, tol: float, *, goal: bool = False, **kw) -> Row:
    """A row comparing `ours` with `paper` within a relative tolerance `tol` (0.05 = ±5 %)."""
    within = paper != 0 and abs(ours - paper) <= tol * abs(paper) or paper == ours == 0
    label = f"±{tol * 100:g} %"
    return Row(
        paper=paper,
        ours=ours,
        tolerance=f"goal {label}" if goal else label,
        within=bool(within),
        **kw,
    )


def write_comparison(rows: list[Row], path: Path) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(COMPARISON_COLUMNS)
        for r in rows:
            w.writerow(r.as_csv())
    return path


def markdown_table(rows: list[Row]) -> str:
    """The rows as a Markdown table (paper beside ours)."""
    head = "| metric | condition | paper | ours | unit | tolerance | within |\n"
    head += "|---|---|---|---|---|---|---|\n"
    body = "".join(
        f"| {r.metric} | {r.condition} | {fmt(r.paper)} | {fmt(r.ours)} | {r.unit} | "
        f"{r.tolerance} | {'✅' if r.within else '❌'} |\n"
        for r in rows
    )
    return head + body


def scenario_root() -> Path:
    """The `scenarios/` folder: $NDNCC_SCENARIOS, else the one of the source tree."""
    env = os.environ.get("NDNCC_SCENARIOS")
    root = Path(env) if env else Path(__file__).resolve().parents[3] / "scenarios"
    if not root.is_dir():
        raise FileNotFoundError(
            f"{root}: scenario folder not found (set NDNCC_SCENARIOS to the scenarios/ folder "
            "of an ndncc checkout)"
        )
    return root


def save_figure(fig: Any, path: Path) -> Path:
    """Writes a matplotlib Figure as PNG without version metadata."""
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})
    return path


def jain(xs: list[float]) -> float:
    s, s2 = sum(xs), sum(x * x for x in xs)
    return (s * s) / (len(xs) * s2) if s2 else float("nan")


def goodput(o: Any, seconds: float) -> float:
    """Data delivered to a run's consumers over `seconds`, in Mbit/s (the papers' throughput);
    `o` is a :class:`ndncc.sweep.Outcome`."""
    return sum(a["data_bytes"] for a in o.summary["apps"]) * 8 / seconds / 1e6
