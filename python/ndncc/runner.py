"""Running one scenario: resolve it, hand it to the native simulator, wrap the result."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .scenario import Scenario

ProgressFn = Callable[[float, float], Any]


def load_scenario(scenario: str | Path | Scenario, **overrides: Any) -> Scenario:
    """A :class:`Scenario` from a path or a Scenario, with overrides applied."""
    if not isinstance(scenario, (str, os.PathLike, Scenario)):
        raise TypeError(
            "scenario must be a scenario TOML file (str or pathlib.Path) or an ndncc.Scenario, "
            f"got {type(scenario).__name__}"
        )
    sc = scenario if isinstance(scenario, Scenario) else Scenario.load(scenario)
    kw = {k: v for k, v in overrides.items() if v is not None}
    return sc.with_overrides(**kw) if kw else sc


def git_commit() -> str | None:
    """The commit of the source tree ndncc runs from, if it is a git checkout."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "--short=12", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def run(
    scenario: str | Path | Scenario,
    *,
    out: str | Path | None = None,
    force: bool = False,
    progress: ProgressFn | None = None,
    tables: bool = True,
    **overrides: Any,
):
    """See :func:`ndncc.run`."""
    from . import __version__, _core
    from .capacity import bottleneck
    from .results import Result
    from .scenario import spec_hash
    from .scenario.compact import compact_spec

    if progress is not None and not callable(progress):
        raise TypeError(
            f"progress must be a function progress(sim_time_s, duration_s), got "
            f"{type(progress).__name__}"
        )
    if out is not None and not isinstance(out, (str, os.PathLike)):
        raise TypeError(f"out must be a folder (str or pathlib.Path), got {type(out).__name__}")
    sc = load_scenario(scenario, **overrides)
    spec, options, _ = sc.resolved()  # options carry bin_s
    if out is not None:  # a folder that cannot take the result is refused before the run
        from .files import claim

        claim(out, "run", force=force)
    started = time.perf_counter()
    native = _core.run(json.dumps(compact_spec(spec)), progress, tables)
    wall = time.perf_counter() - started
    extra = {
        "wall_time_s": round(wall, 6),
        "ndncc_version": __version__,
        "git_commit": git_commit(),
        "scenario_hash": spec_hash(spec),
        "source": sc.source,
    }
    result = Result.from_native(
        native, scenario_name=spec["name"], trace_options=options, extra_summary=extra
    )
    # the bottleneck the run's Data crossed (the throughput figure's reference line)
    result.summary.update(bottleneck(spec, result.summary, result.meta))
    if out is not None:
        result.save(out, force=force)
    return result
