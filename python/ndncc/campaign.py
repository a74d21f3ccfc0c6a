"""Running a campaign: many independent runs into a result store (:mod:`ndncc.store`).

Runs go to a ``concurrent.futures`` executor: a local process pool by default, or a
``dask.distributed`` cluster (:mod:`ndncc.backends`). Each worker writes its own run directory
and returns a small record; the driver keeps the index, the progress (done / failed / remaining
and an ETA) and the order: longest first, from the run times the store remembers. A run that
fails is recorded with its error and never stops the sweep. ``ndncc sweep`` and
``ndncc reproduce`` both run here (``docs/sweeps.md``).
"""

from __future__ import annotations

import functools
import json
import math
import shlex
import socket
import time
import traceback
import warnings
from collections import Counter, deque
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .backends import Backend, open_backend
from .files import DamagedFileWarning
from .folders import check_kind
from .scenario import Scenario, ScenarioError
from .store import Store, StoreError, _write_json, damaged_record, run_key, summary_row
from .sweepspec import CiTarget, Point, SweepSpec, SweepSpecError

__all__ = [
    "CampaignError",
    "Progress",
    "RunTask",
    "SweepOutcome",
    "eta_seconds",
    "execute",
    "run_sweep",
    "run_tasks",
]

#: a run whose worker process died this many times is recorded as failed
MAX_ATTEMPTS = 3
INDEX_FLUSH_S = 10.0


class CampaignError(Exception):
    """Runs failed where every run is needed (a reproduction)."""


@dataclass
class RunTask:
    """One run to do: what the worker needs, and what its record says."""

    key: str
    point: str
    label: str | None
    params: dict[str, Any]
    scenario: Scenario  # overrides, seed and run applied
    source: str
    seed: int
    run: int
    outputs: dict[str, Any]
    command: str
    root: str
    expect: tuple[str, str | None] | None = None  # (version, commit) the worker must be
    estimate: float | None = None


@functools.cache
def identity() -> tuple[str, str | None]:
    """(ndncc version, git commit) of this process."""
    from . import __version__
    from .runner import git_commit

    return __version__, git_commit()


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def _base_record(t: RunTask) -> dict[str, Any]:
    return {
        "key": t.key,
        "point": t.point,
        "label": t.label,
        "params": t.params,
        "scenario": t.source,
        "seed": t.seed,
        "run": t.run,
        "command": t.command,
        "host": socket.gethostname(),
    }


def failure_record(t: RunTask, error: BaseException, wall: float, tb: str = "") -> dict:
    version, commit = identity()
    first = str(error).strip().splitlines()
    return {
        **_base_record(t),
        "status": "failed",
        "error": f"{type(error).__name__}: {first[0] if first else ''}".rstrip(": "),
        "traceback": tb,
        "ndncc_version": version,
        "git_commit": commit,
        "wall_time_s": round(wall, 6),
        "finished_at": _now(),
    }


def needs_tables(outputs: dict[str, Any]) -> bool:
    """Whether a run must compute its time series: for Parquet, figures or ndnSIM traces."""
    traces = ("rate_trace", "drop_trace", "cs_trace", "app_delays_trace")
    return bool(outputs.get("parquet") or outputs.get("figures")) or any(
        outputs.get(k) not in (None, False) for k in traces
    )


def execute(task: RunTask) -> dict:
    """The worker's entry point: runs one task into the store and returns its record. A run
    that fails writes failed/<key>.json and returns that record; it does not raise."""
    import shutil

    from .runner import run as run_scenario

    store = Store(task.root)
    started = time.perf_counter()
    stage = None
    try:
        if task.expect is not None and identity() != task.expect:
            v, c = identity()
            raise RuntimeError(
                f"this worker runs ndncc {v} at commit {c}, the sweep {task.expect[0]} at "
                f"{task.expect[1]} (install the same ndncc on every worker, or --mix-commits)"
            )
        result = run_scenario(task.scenario, tables=needs_tables(task.outputs))
        result.trace_options.update(task.outputs)
        stage = store.stage_dir(task.key)
        result.save(stage)
        s = result.summary
        record = {
            **_base_record(task),
            "status": "ok",
            "metrics": summary_row(s),
            "ndncc_version": s.get("ndncc_version"),
            "git_commit": s.get("git_commit"),
            "scenario_hash": s.get("scenario_hash"),
            "wall_time_s": round(time.perf_counter() - started, 6),
            "finished_at": _now(),
        }
        _write_json(stage / "run.json", record)  # the last file: a run is whole once it is there
        if not store.publish(stage, task.key):
            record = store.manifest(task.key) or record
        return json.loads(json.dumps(record, default=str))
    except Exception as e:  # noqa: BLE001 - a failed run is data, never the sweep's end
        if stage is not None:
            shutil.rmtree(stage, ignore_errors=True)
        rec = failure_record(task, e, time.perf_counter() - started, traceback.format_exc())
        store.record_failure(rec)
        return json.loads(json.dumps(rec, default=str))


# ---------------------------------------------------------------------------------------------
# progress and ETA


@dataclass
class Progress:
    """Where a sweep is: runs of this sweep done, failed and remaining, skipped (already in
    the store), and the estimated seconds to the end (None: not known yet)."""

    total: int
    skipped: int = 0
    done: int = 0
    failed: int = 0
    eta_s: float | None = None
    workers: int = 1

    @property
    def remaining(self) -> int:
        return self.total - self.skipped - self.done - self.failed


def eta_seconds(
    remaining_work_s: float | None, done_work_s: float, elapsed_s: float, workers: int
) -> float | None:
    """Seconds to the end: the estimated run time of what is left, divided by the parallelism
    measured so far (run time completed per wall-clock second); before anything completed, by
    the number of workers. None when the work left cannot be estimated."""
    if remaining_work_s is None:
        return None
    if remaining_work_s <= 0:
        return 0.0
    if done_work_s > 0 and elapsed_s > 0:
        return remaining_work_s * elapsed_s / done_work_s
    return remaining_work_s / max(workers, 1)


class _Estimates:
    """Run-time estimates from the store's history: the same run, else the mean of its point,
    of its scenario file, of everything."""

    def __init__(self, timings: dict[str, float], records: dict[str, dict]):
        by_point: dict[str, list[float]] = {}
        by_file: dict[str, list[float]] = {}
        for k, w in timings.items():
            rec = records.get(k) or {}
            by_point.setdefault(str(rec.get("point")), []).append(w)
            by_file.setdefault(str(rec.get("scenario")), []).append(w)
        self.run = timings
        self.point = {k: sum(v) / len(v) for k, v in by_point.items()}
        self.file = {k: sum(v) / len(v) for k, v in by_file.items()}
        self.all = sum(timings.values()) / len(timings) if timings else None

    def __call__(self, t: RunTask) -> float | None:
        for table, k in ((self.run, t.key), (self.point, t.point), (self.file, t.source)):
            if k in table:
                return table[k]
        return self.all


def longest_first(tasks: list[RunTask], estimate: Callable[[RunTask], float | None]) -> list:
    """Tasks by decreasing estimated run time (unknown ones keep their order, last)."""
    for t in tasks:
        t.estimate = estimate(t)
    return sorted(tasks, key=lambda t: -(t.estimate if t.estimate is not None else -1.0))


# ---------------------------------------------------------------------------------------------
# the driver loop


def run_tasks(
    store: Store,
    tasks: list[RunTask],
    backend: Backend,
    records: dict[str, dict],
    on_progress: Callable[[Progress], Any] | None = None,
    tried: set[str] | None = None,
) -> Progress:
    """Runs the tasks whose key has no finished run in `records` (updated in place) and is not
    in `tried` (runs this sweep already tried: a failure is retried by the next sweep, not by
    the next --until-ci round), longest first; writes the index every INDEX_FLUSH_S and at the
    end, even when interrupted."""
    tried = set() if tried is None else tried
    todo = [
        t for t in tasks if (records.get(t.key) or {}).get("status") != "ok" and t.key not in tried
    ]
    tried.update(t.key for t in todo)
    for t in todo:
        if (records.get(t.key) or {}).get("status") == "damaged":
            warnings.warn(
                f"{records[t.key]['damage']}; recomputing the run",
                DamagedFileWarning,
                stacklevel=2,
            )
            store.discard_run(t.key)
    state = Progress(total=len(tasks), skipped=len(tasks) - len(todo), workers=backend.workers)
    est = _Estimates(store.timings(), records)
    pending = deque(longest_first(todo, est))
    known = sum(t.estimate for t in pending if t.estimate is not None)
    unknown = sum(t.estimate is None for t in pending)
    done_work, done_n = 0.0, 0
    inflight: dict[Any, RunTask] = {}
    attempts: Counter[str] = Counter()
    started = last_flush = time.monotonic()

    def finish(t: RunTask, rec: dict) -> None:
        nonlocal known, unknown, done_work, done_n
        records[t.key] = rec
        if rec.get("status") == "ok":
            state.done += 1
        else:
            state.failed += 1
        if t.estimate is not None:
            known -= t.estimate
        else:
            unknown -= 1
        done_work += float(rec.get("wall_time_s") or 0.0)
        done_n += 1

    def report() -> None:
        mean = done_work / done_n if done_n else est.all
        remaining = None if unknown and mean is None else known + unknown * (mean or 0.0)
        state.workers = backend.workers
        state.eta_s = eta_seconds(remaining, done_work, time.monotonic() - started, backend.workers)
        if on_progress is not None:
            on_progress(state)

    report()
    try:
        while pending or inflight:
            broken: list[RunTask] = []
            try:
                while pending and len(inflight) < backend.window:
                    t = pending.popleft()
                    inflight[backend.submit(execute, t)] = t
            except BrokenProcessPool:
                broken.append(t)
            finished, _ = wait(list(inflight), timeout=1.0, return_when=FIRST_COMPLETED)
            for f in finished:
                t = inflight.pop(f)
                try:
                    rec = f.result()
                except BrokenProcessPool:
                    broken.append(t)
                    continue
                except Exception as e:  # noqa: BLE001 - a lost worker, a cancelled task …
                    rec = failure_record(t, e, 0.0)
                    store.record_failure(rec)
                finish(t, rec)
            if broken:
                # the pool is unusable: every run in it is back in the queue, and the runs
                # that were in a pool that broke MAX_ATTEMPTS times are failures
                broken += list(inflight.values())
                inflight.clear()
                backend.restart()
                for t in reversed(broken):
                    attempts[t.key] += 1
                    if attempts[t.key] >= MAX_ATTEMPTS:
                        err = RuntimeError(f"its worker process died {MAX_ATTEMPTS} times")
                        rec = failure_record(t, err, 0.0)
                        store.record_failure(rec)
                        finish(t, rec)
                    else:
                        pending.appendleft(t)
            if time.monotonic() - last_flush > INDEX_FLUSH_S:
                store.write_index(records)
                last_flush = time.monotonic()
            report()
    except KeyboardInterrupt:
        backend.close(now=True)  # the runs under way are stopped, not awaited
        raise
    finally:
        for f in inflight:
            f.cancel()
        store.write_index(records)
    state.eta_s = 0.0
    if on_progress is not None:
        on_progress(state)
    return state


# ---------------------------------------------------------------------------------------------
# planning a sweep


def _toml_literal(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return repr(v) if isinstance(v, int | float) else json.dumps(v)


def command_line(source: str, seed: int, run: int, overrides: dict[str, Any]) -> str:
    """The ``ndncc run`` command that makes the same run (SEM's "command of this row"); an
    override that removes a key (None) has no ``--set`` form and is left out."""
    parts = ["ndncc", "run", source, "--seed", str(seed), "--run", str(run)]
    for k, v in overrides.items():
        if v is not None:
            parts += ["--set", f"{k}={_toml_literal(v)}"]
    return shlex.join(parts)


class Planner:
    """Turns points and repetitions into tasks with keys (each scenario file read once)."""

    def __init__(self, root: Path, figures: bool, expect, where: str):
        self.root = root
        self.figures = figures
        self.expect = expect
        self.where = where
        self._files: dict[Path, Scenario] = {}

    def base(self, path: Path) -> Scenario:
        if path not in self._files:
            self._files[path] = Scenario.load(path)
        return self._files[path]

    def point_scenario(self, point: Point) -> tuple[Scenario, int, int]:
        """The point's scenario and its own seed and run."""
        try:
            sc = self.base(point.scenario).with_overrides(overrides=point.overrides)
            spec = sc.resolve()
        except ScenarioError as e:
            raise SweepSpecError(_in_point(e, point, self.where)) from None
        return sc, int(spec["seed"]), int(spec["run"])

    def task(
        self,
        point: Point,
        sc: Scenario,
        seed: int,
        run: int,
        label: str | None = None,
        parquet: bool | None = None,
    ) -> RunTask:
        one = sc.with_overrides(seed=seed, run=run)
        try:
            spec, options, _ = one.resolved()
        except ScenarioError as e:
            raise SweepSpecError(_in_point(e, point, self.where)) from None
        outputs = {k: v for k, v in options.items() if k != "bin_s"}
        outputs["figures"] = self.figures
        if parquet is not None:
            outputs["parquet"] = parquet
        return RunTask(
            key=run_key(spec, outputs, seed, run),
            point=point.id,
            label=label,
            params=dict(point.params),
            scenario=one,
            source=str(point.scenario),
            seed=seed,
            run=run,
            outputs=outputs,
            command=command_line(str(point.scenario), seed, run, point.overrides),
            root=str(self.root),
            expect=self.expect,
        )


def _in_point(err: ScenarioError, point: Point, where: str):
    from .scenario import Problem

    at = ", ".join(f"{k}={v}" for k, v in point.params.items()) or "the base scenario"
    return [
        Problem(where, f"grid point {at}", f"{p.file}: {p.key}: {p.problem}", p.fix)
        for p in err.problems
    ]


def open_store(
    root: Path, name: str, mix_commits: bool, fresh: bool
) -> tuple[Store, tuple[str, str | None] | None]:
    """Checks and prepares a store (the caller holds its lock); returns it and the identity
    workers must match (None when commits may mix)."""
    store = Store(root)
    version, commit = identity()
    if fresh:
        store.discard()
    elif store.exists():
        store.check_commit(version, commit, mix_commits)
    store.create(name, version, commit)
    store.clean_staging()
    return store, None if mix_commits else (version, commit)


@dataclass
class SweepOutcome:
    root: Path
    progress: Progress
    records: dict[str, dict]
    keys: list[str]
    unmet: list[dict] = field(default_factory=list)

    @property
    def failures(self) -> list[dict]:
        return [self.records[k] for k in self.keys if self.records[k].get("status") != "ok"]


def _seeds_of(points: list[Point], plans) -> dict[str, list[int]]:
    """Every point's seeds: the spec's, or the scenario's own."""
    out = {}
    for p, (_, seed, _) in zip(points, plans, strict=True):
        out[p.id] = list(p.seeds) if p.seeds else [seed]
    return out


def ci_table(
    points: list[Point], records: dict[str, dict], keys: Iterable[str], target: CiTarget
) -> dict[str, tuple[int, float, float]]:
    """(n, mean, half-width) of `target.metric` per point over the finished runs in `keys`."""
    from .stats import mean_ci

    values: dict[str, list[float]] = {p.id: [] for p in points}
    for k in keys:
        r = records.get(k) or {}
        if r.get("status") == "ok" and r.get("point") in values:
            values[r["point"]].append((r.get("metrics") or {}).get(target.metric))
    return {pid: mean_ci(v) for pid, v in values.items()}


def next_seed_count(n: int, mean: float, half: float, target: CiTarget, limit: int) -> int:
    """Repetitions to try next for a point whose interval is too wide: the n that would meet
    the target if the spread stayed (h shrinks as 1/√n: n·(h/W)²), at least n + 1, at most
    2n and `limit`."""
    wanted = target.width * abs(mean) if target.relative else target.width
    if not (half == half) or wanted <= 0:
        guess = 2 * n
    else:
        guess = math.ceil(n * (half / wanted) ** 2)
    return max(n + 1, min(guess, 2 * n, limit)) if n < limit else limit


def run_sweep(
    spec: SweepSpec,
    out: str | Path,
    *,
    jobs: int | None = None,
    dask: str | None = None,
    mix_commits: bool = False,
    fresh: bool = False,
    until_ci: list[CiTarget] | None = None,
    max_seeds: int | None = None,
    on_progress: Callable[[Progress], Any] | None = None,
    on_backend: Callable[[Backend], Any] | None = None,
) -> SweepOutcome:
    """Runs what of a sweep is not in the store at `out` yet (see ``docs/sweeps.md``)."""
    root = Path(out)
    check_kind(root, "sweep", "out")
    targets = list(until_ci if until_ci is not None else spec.until_ci)
    limit = max_seeds or spec.max_seeds
    points = spec.points()
    store = Store(root)
    # every point resolved (and the metrics checked) before the store is made or touched: a
    # mistake in the spec leaves no half-made store
    expect = None if mix_commits else identity()
    planner = Planner(root, spec.figures, expect, spec.source)
    plans = [planner.point_scenario(p) for p in points]
    seeds = _seeds_of(points, plans)
    # blamed where the targets come from: the spec file's [until_ci], or --until-ci
    where = (spec.source, "until_ci.metric") if until_ci is None else None
    if targets:
        _check_metric(targets, {} if fresh else store.records(), where)

    def tasks_now() -> list[RunTask]:
        out_tasks, owner = [], {}
        for p, (sc, _, run0) in zip(points, plans, strict=True):
            for seed in seeds[p.id]:
                for run in p.runs or [run0]:
                    t = planner.task(p, sc, seed, run)
                    if t.key in owner:
                        raise SweepSpecError(_duplicate(spec, owner[t.key], t))
                    owner[t.key] = t
                    out_tasks.append(t)
        return out_tasks

    tasks_now()  # resolves every run: a point that cannot run, or two alike, are refused now

    with store.locked():
        store, expect = open_store(root, spec.name, mix_commits, fresh)
        _write_json(root / "sweep.json", {"source": spec.source, "spec": spec.data})
        records = store.records()
        if targets:
            for p in points:  # seeds an earlier --until-ci sweep added
                seeds[p.id] = sorted(
                    set(seeds[p.id])
                    | {r["seed"] for r in records.values() if r.get("point") == p.id}
                )

        tasks = tasks_now()
        for t in tasks:  # a stored run with a file cut short is recomputed (sizes: cheap)
            if (records.get(t.key) or {}).get("status") == "ok":
                problem = store.check_run(t.key, quick=True)
                if problem:
                    records[t.key] = damaged_record(t.key, problem)
        tried: set[str] = set()
        backend = open_backend(jobs, dask)
        if on_backend is not None:
            on_backend(backend)
        rounds: list[Progress] = []

        def live(p: Progress) -> None:  # one bar over every --until-ci round
            done = sum(r.done for r in rounds) + p.done
            failed = sum(r.failed for r in rounds) + p.failed
            skipped = p.total - done - failed - p.remaining
            if on_progress is not None:
                on_progress(Progress(p.total, skipped, done, failed, p.eta_s, p.workers))

        def one_round() -> Progress:
            p = run_tasks(store, tasks, backend, records, live, tried)
            rounds.append(p)
            return p

        try:
            one_round()
            unmet: list[dict] = []
            while targets:
                grow = {}
                unmet = []
                keys = [t.key for t in tasks]
                for target in targets:
                    table = ci_table(points, records, keys, target)
                    for p in points:
                        n, mean, half = table[p.id]
                        if target.met(mean, half):
                            continue
                        per_seed = len(p.runs or [0])
                        want = next_seed_count(n, mean, half, target, limit * per_seed)
                        count = min(limit, max(len(seeds[p.id]) + 1, -(-want // per_seed)))
                        if len(seeds[p.id]) >= limit:
                            unmet.append(
                                {
                                    "point": p.id,
                                    "params": p.params,
                                    "target": str(target),
                                    "n": n,
                                    "mean": mean,
                                    "half_width": half,
                                }
                            )
                            continue
                        grow[p.id] = max(grow.get(p.id, 0), count)
                if not grow:
                    break
                for pid, count in grow.items():
                    s = seeds[pid]
                    s += list(range(max(s) + 1, max(s) + 1 + count - len(s)))
                tasks = tasks_now()
                one_round()
        finally:
            backend.close()
    done = sum(r.done for r in rounds)
    failed = sum(r.failed for r in rounds)
    progress = Progress(len(tasks), len(tasks) - done - failed, done, failed, 0.0, backend.workers)
    return SweepOutcome(root, progress, records, [t.key for t in tasks], unmet)


def _check_metric(
    targets: list[CiTarget], records: dict[str, dict], where: tuple[str, str] | None = None
) -> None:
    """Refuses a target whose metric no run records; `where` is (file, key) of a spec's
    [until_ci], None for --until-ci on the command line."""
    from .store import APP_FIELDS, TOP_FIELDS

    known = {*TOP_FIELDS, *APP_FIELDS, "drops", "marks", "max_queue_pkts"}
    for r in records.values():
        known |= set((r.get("metrics") or {}).keys())
    for t in targets:
        if t.metric in known or t.metric.startswith("apps."):
            continue
        import difflib

        close = difflib.get_close_matches(t.metric, sorted(known), n=1)
        hint = f"did you mean '{close[0]}'?" if close else "see docs/sweeps.md"
        if where is not None:
            from .scenario import Problem

            raise SweepSpecError([Problem(*where, f"unknown metric {t.metric!r}", hint)])
        raise SweepSpecError(_problem(f"--until-ci {t}", f"unknown metric {t.metric!r}", hint))


def _problem(key: str, problem: str, fix: str):
    from .scenario import Problem

    return [Problem("<command line>", key, problem, fix)]


def _duplicate(spec: SweepSpec, a: RunTask, b: RunTask):
    from .scenario import Problem

    def at(t: RunTask) -> str:
        return ", ".join(f"{k}={v}" for k, v in t.params.items()) or "the base scenario"

    return [
        Problem(
            spec.source,
            "grid",
            f"points {at(a)} and {at(b)} give the same run (seed {a.seed}, run {a.run}): "
            "their overrides make no difference to the scenario",
            "drop one of the levels, or change a value the scenario uses",
        )
    ]


# ---------------------------------------------------------------------------------------------
# paper reproductions: a list of Jobs, every run needed


def load_outcome(
    store: Store,
    key: str,
    keep: Iterable[str],
    label: str,
    overrides: dict[str, Any] | None = None,
):
    """A :class:`ndncc.sweep.Outcome` from a stored run: its summary and the frames `keep`, with
    the `overrides` of the job that asked for it."""
    import pandas as pd

    from .results import PARQUET_FILES
    from .sweep import Outcome

    d = store.runs / key
    path = d / "summary.json"
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
        frames = {}
        for name in keep:
            path = d / PARQUET_FILES[name]
            frames[name] = pd.read_parquet(path)
    except Exception as e:  # noqa: BLE001 - damaged since it was checked (pyarrow: many types)
        raise StoreError(
            f"{path}: unreadable ({type(e).__name__}: {e}); run the same command again to "
            "recompute the run"
        ) from e
    return Outcome(label, summary, frames, dict(overrides or {}))


def _stored_files(keep: Iterable[str]) -> list[str]:
    from .results import PARQUET_FILES

    return ["summary.json", *(PARQUET_FILES[name] for name in keep)]


def run_jobs_stored(
    jobs: list,
    out: str | Path,
    *,
    name: str,
    n_jobs: int | None = None,
    dask: str | None = None,
    mix_commits: bool = False,
    fresh: bool = False,
    on_done: Callable[[Any, int, int], Any] | None = None,
) -> dict:
    """Runs :class:`ndncc.sweep.Job` s through the store at `out` (what is there already is
    not run again) and returns their outcomes by job key, in the jobs' order. Jobs that resolve
    to the same run share it. Raises CampaignError if a run failed."""
    from .sweep import Job

    root = Path(out)
    store = Store(root)
    jobs = list(jobs)
    if len({j.key for j in jobs}) != len(jobs):
        raise ValueError("job keys must be unique")
    # every job resolved before the store is made or touched: an error leaves no half-made store
    planner = Planner(root, False, None if mix_commits else identity(), name)
    tasks: dict[str, RunTask] = {}
    key_of: dict[str, str] = {}
    keeps: dict[str, set[str]] = {}
    for job in jobs:
        assert isinstance(job, Job)
        point = Point(Path(job.scenario), {}, dict(job.overrides), None, None)
        sc, seed, run = planner.point_scenario(point)
        # a job's tables are stored only when it keeps some (the summary always is)
        t = planner.task(point, sc, seed, run, label=job.key, parquet=bool(job.keep))
        key_of[job.key] = t.key
        tasks.setdefault(t.key, t)
        keeps.setdefault(t.key, set()).update(job.keep)
    with store.locked():
        store, _ = open_store(root, name, mix_commits, fresh)
        records = store.records()
        for key in tasks:  # a stored run whose files are damaged is recomputed
            if (records.get(key) or {}).get("status") == "ok":
                problem = store.check_run(key, _stored_files(sorted(keeps[key])))
                if problem:
                    records[key] = damaged_record(key, problem)

        def progress(p: Progress) -> None:
            if on_done is not None:
                on_done(None, p.skipped + p.done + p.failed, p.total)

        backend = open_backend(n_jobs, dask)
        try:
            run_tasks(store, list(tasks.values()), backend, records, progress)
        finally:
            backend.close()
    failed = [records[k] for k in tasks if records[k].get("status") != "ok"]
    if failed:
        first = failed[0]
        raise CampaignError(
            f"{len(failed)} of {len(tasks)} runs failed, e.g. {first.get('label')}: "
            f"{first.get('error')} (every error is in {root / 'failed'}/)"
        )
    return {j.key: load_outcome(store, key_of[j.key], j.keep, j.key, j.overrides) for j in jobs}


__all__ += ["Planner", "StoreError", "open_store", "next_seed_count", "command_line"]
