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
    "expected",
    "expected_source",
    "ours",
    "unit",
    "tolerance",
    "within",
]

#: What `within` says in comparison.csv for a row that cannot fail (a reported figure).
NOT_CHECKED = "n/a"


@dataclass
class Row:
    """One line of comparison.csv: the paper's figure beside ours.

    `paper` holds only what the paper prints: a number, or its words for a shape it shows
    without numbers; `None` when the paper says nothing about the row (our own checks, other
    setups). Any other reference value goes in `expected`, with `expected_source` saying where
    it comes from ("theory: …", "our choice: …", "derived: …", "our ideal run", …). `ours` is
    what we measured; `tolerance` says how they are compared; `within` is the verdict — `None`
    for a row that cannot fail (a figure we only report), which is not counted in "N of M
    within". Rows whose tolerance starts with "goal" report a target without requiring it.
    """

    experiment: str
    metric: str
    condition: str
    paper: Any
    ours: Any
    unit: str
    tolerance: str
    within: bool | None
    expected: Any = None
    expected_source: str = ""

    def __post_init__(self) -> None:
        if (self.expected is None) != (not self.expected_source):
            raise ValueError(f"{self.metric}: an expected value needs its source, and only it")

    @property
    def checked(self) -> bool:
        """True if the row can fail (it has a verdict)."""
        return self.within is not None

    def as_csv(self) -> list[str]:
        return [
            self.experiment,
            self.metric,
            self.condition,
            fmt(self.paper),
            fmt(self.expected),
            self.expected_source,
            fmt(self.ours),
            self.unit,
            self.tolerance,
            verdict(self.within),
        ]


def verdict(within: bool | None) -> str:
    """The row's verdict as comparison.csv's `within` writes it."""
    return NOT_CHECKED if within is None else "true" if within else "false"


def parse_verdict(text: str) -> bool | None:
    """comparison.csv's `within` back to the verdict: "true", "false", or "n/a" (None, a row
    that cannot fail); anything else is a ValueError naming it."""
    try:
        return {"true": True, "false": False, NOT_CHECKED: None}[text]
    except KeyError:
        raise ValueError(
            f"within = {text!r}: expected 'true', 'false' or {NOT_CHECKED!r}"
        ) from None


def mark(within: bool | None) -> str:
    """The mark every report (report.md, the docs' tables, the HTML page) shows for a verdict:
    ✅ within, ❌ outside, — a row that cannot fail (neither)."""
    return "—" if within is None else "✅" if within else "❌"


def count(verdicts: list[bool | None]) -> tuple[int, int]:
    """(verdicts within tolerance, verdicts that can fail): the "N of M within" of reports; a
    row only reported (None) is in neither."""
    checked = [v for v in verdicts if v is not None]
    return sum(checked), len(checked)


def count_text(verdicts: list[bool | None]) -> str:
    """ "N of M comparisons within tolerance" (+ how many rows are only reported)."""
    ok, n = count(verdicts)
    reported = len(verdicts) - n
    extra = f" ({reported} more reported without a tolerance)" if reported else ""
    return f"{ok} of {n} comparisons within tolerance{extra}"


def tally(rows: list[Row]) -> tuple[int, int]:
    """(rows within tolerance, rows that can fail): :func:`count` of the rows' verdicts."""
    return count([r.within for r in rows])


def tally_text(rows: list[Row]) -> str:
    """:func:`count_text` of the rows' verdicts."""
    return count_text([r.within for r in rows])


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
    """The rows as a Markdown table (paper and expected beside ours)."""
    head = "| metric | condition | paper | expected (source) | ours | unit | tolerance | within |\n"
    head += "|---|---|---|---|---|---|---|---|\n"

    def expected(r: Row) -> str:
        return "—" if r.expected is None else f"{fmt(r.expected)} ({r.expected_source})"

    body = "".join(
        f"| {r.metric} | {r.condition} | {fmt(r.paper) or '—'} | {expected(r)} | "
        f"{fmt(r.ours)} | {r.unit} | {r.tolerance} | {mark(r.within)} |\n"
        for r in rows
    )
    return head + body


def scenario_root() -> Path:
    """The `scenarios/` folder: $NDNCC_SCENARIOS, else the one of the source tree."""
    env = os.environ.get("NDNCC_SCENARIOS")
    root = Path(env) if env else Path(__file__).resolve().parents[3] / "scenarios"
    if not root.is_dir():
        from ..scenario.errors import Problem, ScenarioError

        raise ScenarioError(
            [
                Problem(
                    str(root),
                    "",
                    "scenario folder not found",
                    "set NDNCC_SCENARIOS to the scenarios/ folder of an ndncc checkout",
                )
            ]
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


def goodput_until(o: Any, until_s: float, seconds: float) -> float:
    """Data received by the run's consumers up to `until_s` (the app series' bins ending by
    then), over `seconds`, in Mbit/s: the other reading of the papers' throughput, "Data counted
    to the end of the evaluation run" (needs the job to keep "series")."""
    s = o.frames["series"]
    return float(s.loc[s["time_s"] <= until_s + 1e-9, "data_bytes"].sum()) * 8 / seconds / 1e6
