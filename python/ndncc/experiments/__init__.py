"""Paper reproductions: `ndncc reproduce <paper>`.

Each paper module defines ``PAPER`` (its id), ``TITLE``, ``jobs(quick) -> list[Job]``,
``compare(outcomes, quick) -> list[Row]``, ``figures(outcomes, out, quick) -> list[Path]`` and
``report_sections(outcomes, quick) -> list[(title, markdown)]``. :func:`reproduce` runs the jobs
in parallel and writes ``comparison.csv``, the figures and ``report.md``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from .. import files
from ..campaign import run_jobs_stored
from ..folders import check_kind
from . import chopcop, clock_fixes, mircc_clock, rmc, sf_clock, sieve
from .common import Row, markdown_table, tally_text, write_comparison

PAPERS: dict[str, ModuleType] = {
    m.PAPER: m for m in (sf_clock, mircc_clock, rmc, clock_fixes, chopcop, sieve)
}


@dataclass
class Reproduction:
    paper: str
    rows: list[Row]
    figures: list[Path]
    comparison: Path
    report: Path
    runs: int
    wall_s: float


def reproduce(
    paper: str,
    out: str | Path,
    *,
    quick: bool = False,
    n_jobs: int | None = None,
    on_done: Callable[[Any, int, int], Any] | None = None,
    dask: str | None = None,
    mix_commits: bool = False,
    fresh: bool = False,
) -> Reproduction:
    """Runs a paper's experiment set and writes comparison.csv, figures and report.md.

    The simulator runs go through the result store in `out` (``docs/sweeps.md``): a second
    call runs only what is missing; `dask` sends them to a Dask cluster; `mix_commits` and
    `fresh` say what to do with runs of another commit. Papers with their own ``run_all``
    (``rmc``: real-time loops on this machine's clock) keep their own path."""
    if paper not in PAPERS:
        raise KeyError(paper)
    mod = PAPERS[paper]
    out = Path(out)
    check_kind(out, "reproduction", "out")
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    if hasattr(mod, "run_all"):  # experiments that are not (only) simulator jobs
        outcomes = mod.run_all(out, quick, n_jobs, on_done)
    else:
        outcomes = run_jobs_stored(
            mod.jobs(quick),
            out,
            name=paper,
            n_jobs=n_jobs,
            dask=dask,
            mix_commits=mix_commits,
            fresh=fresh,
            on_done=on_done,
        )
    rows = mod.compare(outcomes, quick)
    comparison = write_comparison(rows, out / "comparison.csv")
    figs = mod.figures(outcomes, out, quick)
    wall = time.perf_counter() - started
    report = write_report(mod, rows, figs, outcomes, out, quick, len(outcomes), wall, n_jobs)
    # what the reproduction wrote, with checksums: `ndncc report` names any of them damaged
    command = f"ndncc reproduce {paper}{' --quick' if quick else ''}"
    files.record(out, "reproduction", [comparison, report, *figs], command=command)
    return Reproduction(paper, rows, figs, comparison, report, len(outcomes), wall)


def _count(n: int, word: str) -> str:
    """ "1 run", "2 runs"."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def write_report(mod, rows, figs, outcomes, out: Path, quick, runs, wall, n_jobs) -> Path:
    from .. import __version__
    from ..runner import git_commit

    seeds = [o.summary.get("seed") for o in outcomes.values() if hasattr(o, "summary")]
    lines = [
        f"# {mod.TITLE}",
        "",
        f"`ndncc reproduce {mod.PAPER}{' --quick' if quick else ''}` — {_count(runs, 'run')} "
        f"in {wall:.1f} s wall ({_count(n_jobs, 'job') if n_jobs else 'all jobs'}); "
        f"ndncc {__version__}, commit "
        f"{git_commit() or 'unknown'}" + (f", seed {seeds[0]}." if seeds else "."),
        "",
        "Every number of the paper beside ours; `paper` holds only what the paper prints, "
        "`expected` any other reference (with its source). `within` applies the tolerance "
        "shown; rows marked — are reported, not checked, and not counted. Rows whose "
        "tolerance says *goal* are targets, not requirements. Where we differ, "
        "`docs/schemes/` explains why. Figures are below the tables.",
        "",
    ]
    lines += [f"**{tally_text(rows)}.**", ""]
    for exp in dict.fromkeys(r.experiment for r in rows):
        lines += [f"## {exp}", "", markdown_table([r for r in rows if r.experiment == exp]), ""]
    for title, body in mod.report_sections(outcomes, quick):
        lines += [f"## {title}", "", body, ""]
    lines += ["## Figures", ""]
    for f in figs:
        lines += [f"![{f.stem}]({f.name})", ""]
    path = out / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
