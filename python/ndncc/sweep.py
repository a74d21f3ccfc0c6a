"""Running many scenarios in parallel.

A sweep is a list of :class:`Job` — a scenario file plus overrides — run on a
``concurrent.futures`` executor (a local process pool by default; any ``Executor``, e.g.
``dask.distributed.Client(...).get_executor()``, can be passed in). Each run is independent and
deterministic, so results do not depend on the number of workers or the order they finish in.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .scenario.errors import missing


@dataclass(frozen=True)
class Job:
    """One run: `scenario` (a TOML path) with `overrides` (dotted path → value)."""

    key: str
    scenario: str
    overrides: dict[str, Any] = field(default_factory=dict)
    #: which time-series frames to bring back: any of "series", "face_series", "delays"
    keep: tuple[str, ...] = ()


@dataclass
class Outcome:
    """What a worker brings back: the summary and the frames the job asked to keep, and the
    job's overrides (what the run set beyond its scenario file: a comparison reads a parameter
    of the run from them, not from a constant)."""

    key: str
    summary: dict
    frames: dict[str, Any]
    overrides: dict[str, Any] = field(default_factory=dict)


def run_job(job: Job) -> Outcome:
    """Runs one job (in a worker process)."""
    from . import runner

    result = runner.run(job.scenario, overrides=job.overrides, tables=bool(job.keep))
    frames = {name: getattr(result, name) for name in job.keep}
    return Outcome(job.key, result.summary, frames, dict(job.overrides))


def default_jobs() -> int:
    return max(1, os.cpu_count() or 1)


def run_jobs(
    jobs: Iterable[Job],
    n_jobs: int | None = None,
    executor: Executor | None = None,
    on_done: Callable[[Outcome, int, int], Any] | None = None,
) -> dict[str, Outcome]:
    """Runs every job and returns the outcomes keyed by job key.

    ``n_jobs`` worker processes (default: one per core) unless an ``executor`` is given;
    ``on_done(outcome, done, total)`` is called as each run finishes.
    """
    jobs = list(jobs)
    keys = [j.key for j in jobs]
    if len(set(keys)) != len(keys):
        raise ValueError("job keys must be unique")
    for j in jobs:
        if not Path(j.scenario).is_file():
            raise FileNotFoundError(f"{j.scenario}: scenario file {missing(j.scenario)}")
    out: dict[str, Outcome] = {}
    n = n_jobs or default_jobs()
    if executor is None and n == 1:
        for i, j in enumerate(jobs, 1):
            out[j.key] = run_job(j)
            if on_done:
                on_done(out[j.key], i, len(jobs))
        return out
    own = executor is None
    ex = executor or ProcessPoolExecutor(max_workers=n)
    try:
        futures = {ex.submit(run_job, j): j for j in jobs}
        for i, fut in enumerate(as_completed(futures), 1):
            o = fut.result()
            out[o.key] = o
            if on_done:
                on_done(o, i, len(jobs))
    finally:
        if own:
            ex.shutdown(cancel_futures=True)
    return {k: out[k] for k in keys}
