"""ndncc — a laboratory for congestion control in Named Data Networking.

Quick use::

    import ndncc
    result = ndncc.run("scenarios/demo/dumbbell.toml", seed=2)
    result.apps            # one row per consumer (DataFrame)
    result.series          # per-consumer time series
    result.save("out/")    # summary.json, Parquet tables, figures

A scenario can also be built in Python with :class:`ndncc.Scenario`.
"""

from __future__ import annotations

from .scenario import Scenario, ScenarioError

__all__ = ["Result", "Scenario", "ScenarioError", "__version__", "load_sweep", "run"]


def run(scenario, *, out=None, force=False, progress=None, **overrides):
    """Run a scenario and return its :class:`ndncc.results.Result`.

    ``scenario`` is a path to a TOML file or a :class:`Scenario`. ``overrides`` are ``seed``,
    ``run``, ``duration``, ``name`` and ``overrides={"dotted.path": value}`` (see
    :meth:`Scenario.with_overrides`). ``out``, when given, is a directory the result is saved
    into (see :meth:`ndncc.results.Result.save`; ``force`` writes into a folder holding files
    ndncc did not write). ``progress(sim_time_s, duration_s)`` is called from time to time.
    """
    from .runner import run as _run

    return _run(scenario, out=out, force=force, progress=progress, **overrides)


def load_sweep(path):
    """The runs of a sweep's (or a reproduction's) result store as a pandas DataFrame: one row
    per run with its parameters (a column per grid axis, ``seed``, ``run``), its summary
    metrics, ``status`` / ``error``, version, commit and wall time. See ``docs/sweeps.md``."""
    from .store import load_sweep as _load

    return _load(path)


def _version() -> str:
    # importlib.metadata costs ~40 ms of start-up (email, datetime, socket ...): looked up on
    # first use only
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ndncc")
    except PackageNotFoundError:  # running from a source tree without installation
        return "0.0.0+source"


def __getattr__(name):
    if name == "Result":
        from .results import Result

        return Result
    if name == "__version__":
        value = _version()
        globals()["__version__"] = value
        return value
    raise AttributeError(name)
