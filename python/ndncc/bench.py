"""``ndncc bench``: simulator speed on fixed workloads.

Each workload runs in a fresh Python process (``python -m ndncc.bench WORKLOAD``) that imports
only the scenario layer and the native module, so peak RSS is the simulator's, not pandas'.
Figures reported (the fastest of ``repeat`` runs; peak RSS the largest):

* ``resolve_s`` — building the scenario (reading its file or generating it) and resolving it
  to the spec the simulator takes, as JSON (long lists in the compact form,
  ``ndncc.scenario.compact``);
* ``wall_s`` — the simulation call (``_core.run`` without tables: parsing the spec, building the
  network, computing routes, the event loop, the summary);
* ``cpu_s`` — the CPU time (user + system, all threads) of that call, including the freeing of
  a large run that goes on after the call returns (``deferred_free_s``): less disturbed than
  ``wall_s`` when other processes share the machine;
* ``deferred_free_s`` — from 1 024 nodes, the network, the parsed spec and the outputs are
  freed on a background thread while the caller goes on (``ndncc_sim::deferred``); the
  seconds that thread took (0 for smaller runs, which are freed inside the call);
* ``events``, ``events_per_s`` (events / ``wall_s``), ``packet_hops``, ``packet_hops_per_s``;
* ``phases`` — ``wall_s`` split into its parts, timed in Rust (seconds): ``parse_s`` (the JSON
  spec), ``routes_s``, ``build_s`` (nodes, faces, links, apps; routes excluded), ``loop_s`` (the
  event loop alone), ``report_s`` (summary and metadata as Rust values), ``tables_s`` (0 here),
  ``teardown_s`` (dropping the network; from 1 024 nodes only handing it over to be freed
  later), ``serialize_s`` (summary and metadata to JSON and Python strings), ``free_s``
  (dropping the parsed spec and the outputs; from 1 024 nodes handing them, with the network,
  to the background thread); what is left of ``wall_s`` is the binding's own (argument and
  dict conversion);
* ``loop_s`` and ``loop_events_per_s`` (events / ``loop_s``) — the event loop alone, beside
  ``events_per_s`` of the whole call;
* ``process_s`` — the whole worker process as a user waits for it: Python start-up, imports,
  resolve, simulation, exit;
* ``peak_rss_mb`` — the worker's peak resident set.

Claim-map workloads ``map-PAPER-N`` (not simulator workloads, so never run by default: ask for
them with ``--workload map-sieve-64``) time ``ndncc reproduce PAPER --unknowns --points N`` —
the map's runs, the evaluation of every point and the figures — in a fresh worker process that
calls the map as the CLI does, into a temporary store removed afterwards (so nothing is
cached: every run is run). Figures: ``wall_s`` (the whole map, figures included), split into
``plan_s`` (design, store, planning), ``runs_s``, ``evaluation_s`` and ``figures_s``; ``runs``
(distinct simulator runs), ``runs_per_s`` (runs / ``wall_s``), ``points``, ``evaluations``,
``claims``, ``failed_runs``, ``process_s``, ``peak_rss_mb`` (the map process) and
``workers_peak_rss_mb`` (the largest of its pool workers; 0 when the runs are inline). PAPER
is one of :func:`map_papers` (``toy`` is the closed-form toy of :mod:`ndncc.claims.toy`).

Timings are measurements, never assertions: tests do not check them.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

WORKLOAD_DIR = Path(__file__).resolve().parent / "workloads"

WORKLOADS: dict[str, str] = {
    "dumbbell-1000": "10 pairs, 100 Mbps / 50 ms links, 1 000 Interests/s each, 10 s",
    "dumbbell-2000": "as dumbbell-1000 at 2 000 Interests/s each (overload, queue drops)",
    "scale-10": "generated dumbbell, 10 pairs, 9 000 Interests/s in all (uniform gaps), 5 s",
    "scale-1000": "the same with 1 000 pairs (9 Interests/s each)",
    "scale-10000": "the same with 10 000 pairs (0.9 Interests/s each)",
    "isp-2000": "generated Rocketfuel-style map (400 routers), 2 000 flows at 5 Interests/s, 5 s",
}
"""The standard workloads (what `ndncc bench` runs by default). Generated names with other
sizes are accepted too (:func:`known`): ``scale-N``, ``scale-N-staggered`` (the consumers start
at random offsets within their first gap instead of all at t = 0: ``workloads.dumbbell(N,
stagger=True)``) and ``isp-N``."""

_GENERATED = re.compile(r"(scale|isp)-([1-9][0-9]*)(-staggered)?")


#: The largest generated size accepted (pairs or flows).
MAX_GENERATED = 100_000


def generated(name: str) -> tuple[str, int, bool] | None:
    """A generated workload's (family, size, staggered): ``("scale", 300, False)`` for
    ``scale-300``; None for any other name (a standard one, a size of 0 or above
    `MAX_GENERATED`, ``-staggered`` on an ``isp`` map)."""
    m = _GENERATED.fullmatch(name)
    if m is None:
        return None
    family, size, staggered = m.group(1), int(m.group(2)), m.group(3) is not None
    if size > MAX_GENERATED or (staggered and family != "scale"):
        return None
    return family, size, staggered


def known(name: str) -> bool:
    """Whether `name` is a workload: a standard one, a generated name (see `WORKLOADS`) of at
    most `MAX_GENERATED` pairs or flows, or a claim map ``map-PAPER-N`` (:func:`map_workload`)."""
    if name in WORKLOADS or generated(name) is not None:
        return True
    try:
        return map_workload(name) is not None
    except ValueError:
        return False


# ---- claim-map workloads ---------------------------------------------------------------------

#: The most design points a map workload takes (as ``ndncc reproduce --points``).
MAX_MAP_POINTS = 100_000

_MAP = re.compile(r"map-(.+)-([^-]*)")


def map_papers() -> list[str]:
    """The papers a ``map-PAPER-N`` workload can name: ``toy`` and those with a claim map."""
    from .claims.declared import papers

    return ["toy", *papers()]


def map_workload(name: str) -> tuple[str, int] | None:
    """A claim-map workload's (paper, points): ``("sieve", 64)`` for ``map-sieve-64``; None for
    a name not starting with ``map-``. A ``map-`` name naming no paper with a claim map, or
    with N not a whole number from 1 to `MAX_MAP_POINTS`, raises ValueError (one line)."""
    if not name.startswith("map-"):
        return None
    m = _MAP.fullmatch(name)
    if m is None:
        raise ValueError(f"{name!r}: a claim-map workload is map-PAPER-N (e.g. map-sieve-64)")
    paper, points = m.group(1), m.group(2)
    if paper not in map_papers():
        raise ValueError(
            f"{name!r}: no claim map for paper {paper!r}; papers: {', '.join(map_papers())}"
        )
    if not re.fullmatch(r"[0-9]+", points) or not 1 <= int(points) <= MAX_MAP_POINTS:
        raise ValueError(
            f"{name!r}: N (design points) must be a whole number from 1 to {MAX_MAP_POINTS}"
        )
    return paper, int(points)


def describe(name: str) -> str:
    """One line on workload `name` (a known one)."""
    if name.startswith("map-"):
        paper, points = map_workload(name)
        return (
            f"claim map: ndncc reproduce {paper} --unknowns --points {points} "
            "(runs, evaluation, figures) into a fresh temporary store"
        )
    if name in WORKLOADS:
        return WORKLOADS[name]
    family, n, staggered = generated(name)
    if family == "isp":
        return f"generated Rocketfuel-style map (400 routers), {n:,} flows at 5 Interests/s, 5 s"
    start = (
        "each consumer starting at a random offset within its first gap"
        if staggered
        else "every consumer starting at t = 0"
    )
    return f"generated dumbbell, {n:,} pairs, 9 000 Interests/s in all (uniform gaps), {start}, 5 s"


def workload_path(name: str) -> Path:
    return WORKLOAD_DIR / f"{name}.toml"


def scenario(name: str, directory: str | Path):
    """The :class:`~ndncc.scenario.Scenario` of workload `name` (generated ones write their
    files, if any, to `directory`)."""
    from .scenario import Scenario

    kind = generated(name)
    if kind is None:
        return Scenario.load(workload_path(name))
    family, size, staggered = kind
    if family == "scale":
        from .workloads import dumbbell

        return dumbbell(size, stagger=staggered)
    from .workloads import isp

    return isp(size, directory=directory)


def spec_json(name: str) -> str:
    """Workload `name` resolved to the compact JSON spec the simulator takes (what the bench
    worker times as `resolve_s`; the `profile` example and `benches/cachesim.py` read it)."""
    import tempfile

    from .scenario.compact import compact_spec

    with tempfile.TemporaryDirectory() as tmp:
        return json.dumps(compact_spec(scenario(name, tmp).resolve()))


def _worker(name: str) -> dict:
    """Runs one workload once in this process and returns its figures."""
    import resource

    from . import _core

    started = time.perf_counter()
    spec = spec_json(name)
    resolve = time.perf_counter() - started
    cpu = _cpu_seconds()
    started = time.perf_counter()
    native = _core.run(spec, None, False)
    wall = time.perf_counter() - started
    # a large run is freed on a background thread after the call returns: wait for it, so
    # that cpu_s holds that work too (wall_s does not: the caller does not wait for it)
    deferred_free = _core.settle() or 0.0
    cpu = _cpu_seconds() - cpu
    summary = json.loads(native["summary"])
    phases = dict(native["phases"])
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "resolve_s": resolve,
        "wall_s": wall,
        "cpu_s": cpu,
        "events": summary["events"],
        "events_per_s": summary["events"] / wall,
        "packet_hops": summary["packet_hops"],
        "packet_hops_per_s": summary["packet_hops"] / wall,
        "loop_s": phases["loop_s"],
        "loop_events_per_s": summary["events"] / phases["loop_s"],
        "phases": phases,
        "deferred_free_s": deferred_free,
        "sim_time_s": summary["sim_time_s"],
        "spec_mb": len(spec) / 1e6,
        "peak_rss_mb": rss_kb / 1024,
    }


def _map_worker(name: str, jobs: int | None) -> dict:
    """Maps claim-map workload `name` once in this process, as ``ndncc reproduce PAPER
    --unknowns --points N --jobs J`` does, into a temporary store removed afterwards; returns
    its figures."""
    import resource
    import tempfile

    from .claims.claimmap import write_claim_map
    from .claims.declared import declaration, paper_module
    from .claims.runmap import run_map

    paper, points = map_workload(name)
    marks: dict[str, float] = {}

    def progress(stage: str, _p) -> None:
        marks.setdefault(stage, time.perf_counter())

    with tempfile.TemporaryDirectory(prefix="ndncc-bench-map-") as tmp:
        started = time.perf_counter()
        m = run_map(
            paper_module(paper),
            declaration(paper),
            Path(tmp) / paper,
            points=points,
            n_jobs=jobs,
            on_progress=progress,
        )
        mapped = time.perf_counter()
        cm = write_claim_map(m, n_jobs=jobs)
        done = time.perf_counter()
    runs_start = marks.get("runs", started)
    evaluation_start = marks.get("evaluation", mapped)
    wall = done - started
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {
        "paper": paper,
        "points": len(m.points) - 1,
        "seeds": m.seeds,
        "jobs": jobs,
        "runs": m.runs,
        "runs_done": m.runs_done_now,
        "failed_runs": m.failed_runs,
        "evaluations": m.evaluated_now,
        "claims": cm.counts["claims"],
        "wall_s": wall,
        "plan_s": runs_start - started,
        "runs_s": evaluation_start - runs_start,
        "evaluation_s": mapped - evaluation_start,
        "figures_s": done - mapped,
        "runs_per_s": m.runs / wall,
        "peak_rss_mb": own / 1024,
        "workers_peak_rss_mb": workers / 1024,
    }


def _cpu_seconds() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(name: str, repeat: int = 3, jobs: int | None = None) -> dict:
    """Runs workload `name` `repeat` times, each in a fresh process; keeps the fastest figures
    (of each timing separately; ``phases`` are those of the fastest ``wall_s``) and the largest
    peak RSS. A claim map (``map-PAPER-N``) runs its simulations on `jobs` local processes
    (default one per core) and keeps the figures of its fastest ``wall_s``."""
    import subprocess  # here, not at the top: the worker process does not need it

    is_map = map_workload(name) is not None
    argv = [sys.executable, "-m", "ndncc.bench", name]
    if is_map and jobs is not None:
        argv.append(str(jobs))
    runs = []
    for _ in range(max(1, repeat)):
        started = time.perf_counter()
        out = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            check=False,
        )
        process = time.perf_counter() - started
        if out.returncode != 0:
            raise RuntimeError(f"benchmark worker for {name} failed:\n{out.stderr.strip()}")
        # the figures are the worker's last line (anything the map code prints comes before)
        figures = json.loads(out.stdout.strip().splitlines()[-1])
        runs.append({**figures, "process_s": process})
    if is_map:
        best = dict(min(runs, key=lambda r: r["wall_s"]))
        best["repeats"] = len(runs)
        best["process_s"] = min(r["process_s"] for r in runs)
        best["peak_rss_mb"] = max(r["peak_rss_mb"] for r in runs)
        best["workers_peak_rss_mb"] = max(r["workers_peak_rss_mb"] for r in runs)
        return best
    best = dict(min(runs, key=lambda r: r["wall_s"]))
    best["runs"] = len(runs)
    best["resolve_s"] = min(r["resolve_s"] for r in runs)
    best["cpu_s"] = min(r["cpu_s"] for r in runs)
    best["process_s"] = min(r["process_s"] for r in runs)
    best["loop_s"] = min(r["loop_s"] for r in runs)
    best["loop_events_per_s"] = best["events"] / best["loop_s"]
    best["peak_rss_mb"] = max(r["peak_rss_mb"] for r in runs)
    return best


def shares(results: dict) -> dict[str, tuple[float, float]]:
    """Each generated ``scale-N`` workload's events/s as a fraction of ``scale-10``'s, for the
    whole simulation call and for the event loop alone: how the cost per event grows with the
    network (issue 12 asks for at least a half at 10 000 pairs). Empty without ``scale-10``."""
    base = results.get("scale-10")
    if not base:
        return {}
    return {
        name: (
            r["events_per_s"] / base["events_per_s"],
            r["loop_events_per_s"] / base["loop_events_per_s"],
        )
        for name, r in results.items()
        if name.startswith("scale-") and name != "scale-10"
    }


def print_table(console, results: dict) -> None:
    """The simulator workloads' table, then the claim maps' (each only when it has rows)."""
    sims = {n: r for n, r in results.items() if not n.startswith("map-")}
    maps = {n: r for n, r in results.items() if n.startswith("map-")}
    if sims:
        _print_sim_table(console, sims)
    if maps:
        _print_map_table(console, maps)


def _print_map_table(console, results: dict) -> None:
    from rich.table import Table

    t = Table(
        title="ndncc bench: claim maps (fastest of the runs; a fresh temporary store each; "
        "peak RSS of the map process and of its largest pool worker)"
    )
    cols = (
        "workload",
        "points",
        "runs",
        "evals",
        "claims",
        "map (s)",
        "plan (s)",
        "runs (s)",
        "eval (s)",
        "figs (s)",
        "runs/s",
        "process (s)",
        "RSS (MB)",
        "worker RSS (MB)",
    )
    for col in cols:
        if col == "workload":  # the name in full, however narrow the terminal
            t.add_column(col, justify="left", no_wrap=True, min_width=len(max(results, key=len)))
        else:
            t.add_column(col, justify="right")
    for name, r in results.items():
        t.add_row(
            name,
            f"{r['points']:,}",
            f"{r['runs']:,}",
            f"{r['evaluations']:,}",
            f"{r['claims']:,}",
            f"{r['wall_s']:.2f}",
            f"{r['plan_s']:.2f}",
            f"{r['runs_s']:.2f}",
            f"{r['evaluation_s']:.2f}",
            f"{r['figures_s']:.2f}",
            f"{r['runs_per_s']:.2f}",
            f"{r['process_s']:.2f}",
            f"{r['peak_rss_mb']:.1f}",
            f"{r['workers_peak_rss_mb']:.1f}",
        )
    console.print(t)
    for name, r in results.items():
        jobs = "one per core" if r["jobs"] is None else r["jobs"]
        console.print(f"  {name}: {describe(name)}; jobs: {jobs}", markup=False)
        if r["failed_runs"]:
            console.print(f"  {name}: {r['failed_runs']} runs FAILED", markup=False)


def _print_sim_table(console, results: dict) -> None:
    from rich.table import Table

    t = Table(title="ndncc bench (fastest of the runs; peak RSS of the worker process)")
    cols = (
        "workload",
        "resolve (s)",
        "sim (s)",
        "events",
        "events/s",
        "loop (s)",
        "loop events/s",
        "packet-hops/s",
        "process (s)",
        "peak RSS (MB)",
    )
    for col in cols:
        t.add_column(col, justify="left" if col == "workload" else "right")
    for name, r in results.items():
        t.add_row(
            name,
            f"{r['resolve_s']:.3f}",
            f"{r['wall_s']:.3f}",
            f"{r['events']:,}",
            f"{r['events_per_s']:,.0f}",
            f"{r['loop_s']:.3f}",
            f"{r['loop_events_per_s']:,.0f}",
            f"{r['packet_hops_per_s']:,.0f}",
            f"{r['process_s']:.3f}",
            f"{r['peak_rss_mb']:.1f}",
        )
    console.print(t)
    for name in results:
        console.print(f"  {name}: {describe(name)}", markup=False)
    for name, (whole, loop) in shares(results).items():
        console.print(
            f"  {name} against scale-10: {whole:.0%} of its events/s"
            f" ({loop:.0%} in the loop alone)",
            markup=False,
        )


if __name__ == "__main__":
    if sys.argv[1].startswith("map-"):
        jobs = int(sys.argv[2]) if len(sys.argv) > 2 else None
        print(json.dumps(_map_worker(sys.argv[1], jobs)))
    else:
        print(json.dumps(_worker(sys.argv[1])))
