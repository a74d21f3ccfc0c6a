"""Running a claim map: every experiment of a paper at every point of its unknowns' design.

Each (point, seed) is the paper's whole job list with the unknowns set as at that point. The
runs go through the campaign layer (:mod:`ndncc.campaign`): one result store (the
reproduction's own ``--out``, so the default point at the first seed shares the runs of
``ndncc reproduce``), a local pool or Dask, longest first, and nothing that finished is run
again. Runs keep only the tables the paper's comparison reads (no figures). Then every
(point, seed) is *evaluated*: its outcomes loaded and the paper's ``compare`` run on them in a
worker, the rows written to ``claims/rows/<hash>.json`` — named by the runs it read and the
code's commit, so a re-run evaluates only what is new.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import shutil
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from ..backends import open_backend
from ..campaign import Planner, Progress, identity, load_outcome, open_store, run_tasks
from ..store import Store
from ..sweepspec import Point
from .unknowns import Declaration, MapPoint, design

__all__ = ["EvalTask", "MapRun", "evaluate", "plan_map", "run_map"]

ROWS_DIR = "claims/rows"


@dataclass
class EvalTask:
    """What a worker needs to evaluate one (point, seed): the comparison ("module:function",
    called as compare(outcomes, quick)), the tier, the store, each job's run key and kept
    tables, the rows file to write, and each job's overrides at the point (the outcomes carry
    them: a comparison reads the run's parameters from them)."""

    compare: str
    quick: bool
    root: str
    runs: dict[str, tuple[str, tuple[str, ...]]]
    path: str
    overrides: dict[str, dict[str, Any]] = field(default_factory=dict)


def _rows_name(compare: str, quick: bool, runs: dict) -> str:
    text = json.dumps(
        {"compare": compare, "quick": quick, "runs": runs, "code": identity()},
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:20] + ".json"


def _write_atomic(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def evaluate(t: EvalTask) -> dict:
    """The worker's side of an evaluation: the paper's rows on the stored runs, written to
    `t.path` as {"rows": [[experiment, metric, condition, paper, tolerance, within, ours]]} or
    {"error": …} when the comparison itself fails at this point (kept: it would fail again)."""
    from ..experiments.common import fmt, verdict

    try:
        module, _, function = t.compare.partition(":")
        compare = getattr(importlib.import_module(module), function)
        store = Store(t.root)
        outcomes = {
            j: load_outcome(store, rk, keep, j, t.overrides.get(j))
            for j, (rk, keep) in t.runs.items()
        }
        rows = compare(outcomes, t.quick)
        data: dict = {
            "rows": [
                [
                    r.experiment,
                    r.metric,
                    r.condition,
                    fmt(r.paper),
                    r.tolerance,
                    verdict(None if r.within is None else bool(r.within)),
                    fmt(r.ours),
                ]
                for r in rows
            ]
        }
    except Exception as e:  # noqa: BLE001 - a point where the comparison fails is data
        import traceback

        first = str(e).strip().splitlines()
        where = traceback.extract_tb(e.__traceback__)[-1]
        data = {
            "error": f"the comparison raised {type(e).__name__}: {first[0] if first else ''} "
            f"(at {Path(where.filename).name}:{where.lineno})"
        }
    _write_atomic(Path(t.path), data)
    return data


@dataclass
class MapRun:
    """A map's plan and results: its points (the default first), seeds per point, each
    (point id, seed index)'s runs, rows (None: not evaluated, a run failed) or error."""

    paper: str
    decl: Declaration
    points: list[MapPoint]
    seeds: int
    quick: bool
    root: Path
    plan: dict[tuple[str, int], dict[str, tuple[str, tuple[str, ...]]]]
    rows: dict[tuple[str, int], list[list[str]] | None] = field(default_factory=dict)
    errors: dict[tuple[str, int], str] = field(default_factory=dict)
    runs: int = 0
    runs_done_now: int = 0
    failed_runs: int = 0  # runs of (point, seed) pairs that could not be evaluated for them
    evaluated_now: int = 0
    wall_s: float = 0.0
    design_seed: int = 0
    requested_points: int = 0


def plan_map(
    mod: ModuleType,
    decl: Declaration,
    root: Path,
    planner: Planner,
    points: list[MapPoint],
    seeds: int,
    quick: bool,
):
    """The tasks (unique runs) and, per (point id, seed index), job key → (run key, keep)."""
    tasks: dict[str, Any] = {}
    plan: dict[tuple[str, int], dict[str, tuple[str, tuple[str, ...]]]] = {}
    jobs = list(decl.jobs(quick) if decl.jobs is not None else mod.jobs(quick))
    # each job's seed and run, resolved once (no unknown sets them): a point's scenarios are
    # then resolved once each, by the task (64 points of seed 004 are ≈ 2 000 of them)
    first = {}
    for job in jobs:
        own = Point(Path(job.scenario), {}, dict(job.overrides), None, None)
        first[job.key] = planner.point_scenario(own)[1:]
    for p in points:
        for s in range(seeds):
            runs = {}
            for job in jobs:
                point = Point(
                    Path(job.scenario), dict(p.values), decl.overrides(job, p), None, None
                )
                sc = planner.base(point.scenario).with_overrides(overrides=point.overrides)
                seed0, run = first[job.key]
                t = planner.task(point, sc, seed0 + s, run, label=job.key, parquet=bool(job.keep))
                runs[job.key] = (t.key, tuple(job.keep))
                tasks.setdefault(t.key, t)
            plan[(p.id, s)] = runs
    return tasks, plan


def run_map(
    mod: ModuleType,
    decl: Declaration,
    out: str | Path,
    *,
    points: int = 32,
    seeds: int = 1,
    design_seed: int = 0,
    quick: bool = False,
    n_jobs: int | None = None,
    dask: str | None = None,
    mix_commits: bool = False,
    fresh: bool = False,
    on_progress: Callable[[str, Progress], Any] | None = None,
) -> MapRun:
    """Runs what of the map is not in the store at `out` yet and evaluates every (point, seed)
    not evaluated yet; `on_progress(stage, progress)` with stage "runs" or "evaluation"."""
    started = time.perf_counter()
    root = Path(out)
    pts = [decl.default_point(), *design(decl, points, design_seed)]
    store = Store(root)
    with store.locked():
        store, expect = open_store(root, mod.PAPER, mix_commits, fresh)
        if fresh:  # the evaluations go with the runs they read
            shutil.rmtree(root / ROWS_DIR, ignore_errors=True)
        planner = Planner(root, False, expect, f"{mod.PAPER} unknowns")
        tasks, plan = plan_map(mod, decl, root, planner, pts, seeds, quick)
        result = MapRun(
            mod.PAPER,
            decl,
            pts,
            seeds,
            quick,
            root,
            plan,
            runs=len(tasks),
            design_seed=design_seed,
            requested_points=points,
        )
        records = store.records()
        backend = open_backend(n_jobs, dask)
        try:
            prog = run_tasks(
                store,
                list(tasks.values()),
                backend,
                records,
                None if on_progress is None else (lambda p: on_progress("runs", p)),
            )
            result.runs_done_now = prog.done
            _evaluate_all(result, mod, records, backend, on_progress)
        finally:
            backend.close()
    result.wall_s = time.perf_counter() - started
    return result


def compare_ref(mod: ModuleType, decl: Declaration) -> str:
    """The comparison a map evaluates: the declaration's, else the paper module's."""
    return decl.compare or f"{mod.__name__}:compare"


def _evaluate_all(result: MapRun, mod, records, backend, on_progress) -> None:
    ref = compare_ref(mod, result.decl)
    todo: list[tuple[tuple[str, int], EvalTask]] = []
    decl = result.decl
    jobs = list(decl.jobs(result.quick) if decl.jobs is not None else mod.jobs(result.quick))
    points = {p.id: p for p in result.points}
    for ps, runs in result.plan.items():
        bad = [j for j, (rk, _) in runs.items() if (records.get(rk) or {}).get("status") != "ok"]
        if bad:
            result.rows[ps] = None
            result.errors[ps] = f"{len(bad)} runs failed (e.g. {bad[0]})"
            result.failed_runs += len(bad)
            continue
        path = result.root / ROWS_DIR / _rows_name(ref, result.quick, runs)
        if path.is_file():
            _take(result, ps, json.loads(path.read_text(encoding="utf-8")))
            continue
        point = points[ps[0]]
        overrides = {j.key: decl.overrides(j, point) for j in jobs if j.key in runs}
        todo.append((ps, EvalTask(ref, result.quick, str(result.root), runs, str(path), overrides)))
    state = Progress(total=len(result.plan), skipped=len(result.plan) - len(todo))
    if on_progress is not None:
        on_progress("evaluation", state)
    pending = list(reversed(todo))
    inflight: dict[Any, tuple[str, int]] = {}
    started = time.perf_counter()
    try:
        while pending or inflight:
            while pending and len(inflight) < max(1, backend.window):
                ps, t = pending.pop()
                inflight[backend.submit(evaluate, t)] = ps
            finished, _ = wait(list(inflight), timeout=1.0, return_when=FIRST_COMPLETED)
            for f in finished:
                ps = inflight.pop(f)
                try:
                    data = f.result()
                except Exception as e:  # noqa: BLE001 - a lost worker: not evaluated this time
                    data = {"error": f"{type(e).__name__}: {e}", "transient": True}
                _take(result, ps, data)
                state.done += 1
                result.evaluated_now += 1
                spent = time.perf_counter() - started
                state.eta_s = spent / state.done * (state.total - state.skipped - state.done)
                if on_progress is not None:
                    on_progress("evaluation", state)
    finally:
        for f in inflight:
            f.cancel()


def _take(result: MapRun, ps: tuple[str, int], data: dict) -> None:
    if "rows" in data:
        result.rows[ps] = data["rows"]
    else:
        result.rows[ps] = None
        result.errors[ps] = data.get("error", "not evaluated")
