"""``ndncc bench``: simulator speed on fixed workloads.

Each workload runs in a fresh Python process (``python -m ndncc.bench WORKLOAD``) that imports
only the scenario layer and the native module, so peak RSS is the simulator's, not pandas'.
Figures reported: wall seconds of the simulation call (the fastest of ``repeat`` runs), events,
events/s, simulated packet-hops/s (packets delivered across links per wall second) and the
worker's peak RSS. Timings are measurements, never assertions: tests do not check them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

WORKLOAD_DIR = Path(__file__).resolve().parent / "workloads"

WORKLOADS: dict[str, str] = {
    "dumbbell-1000": "10 pairs, 100 Mbps / 50 ms links, 1 000 Interests/s each, 10 s",
    "dumbbell-2000": "as dumbbell-1000 at 2 000 Interests/s each (overload, queue drops)",
}


def workload_path(name: str) -> Path:
    return WORKLOAD_DIR / f"{name}.toml"


def _worker(name: str) -> dict:
    """Runs one workload once in this process and returns its figures."""
    import resource
    import time

    from . import _core
    from .scenario import Scenario

    spec = json.dumps(Scenario.load(workload_path(name)).resolve())
    started = time.perf_counter()
    native = _core.run(spec, None, False)
    wall = time.perf_counter() - started
    summary = json.loads(native["summary"])
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "wall_s": wall,
        "events": summary["events"],
        "events_per_s": summary["events"] / wall,
        "packet_hops": summary["packet_hops"],
        "packet_hops_per_s": summary["packet_hops"] / wall,
        "sim_time_s": summary["sim_time_s"],
        "peak_rss_mb": rss_kb / 1024,
    }


def measure(name: str, repeat: int = 3) -> dict:
    """Runs workload `name` `repeat` times, each in a fresh process; keeps the fastest run."""
    runs = []
    for _ in range(max(1, repeat)):
        out = subprocess.run(
            [sys.executable, "-m", "ndncc.bench", name],
            capture_output=True,
            text=True,
            check=False,
        )
        if out.returncode != 0:
            raise RuntimeError(f"benchmark worker for {name} failed:\n{out.stderr.strip()}")
        runs.append(json.loads(out.stdout))
    best = min(runs, key=lambda r: r["wall_s"])
    best["runs"] = len(runs)
    best["peak_rss_mb"] = max(r["peak_rss_mb"] for r in runs)
    return best


def print_table(console, results: dict) -> None:
    from rich.table import Table

    t = Table(title="ndncc bench (fastest of the runs; peak RSS of the worker process)")
    for col in ("workload", "wall (s)", "events", "events/s", "packet-hops/s", "peak RSS (MB)"):
        t.add_column(col, justify="left" if col == "workload" else "right")
    for name, r in results.items():
        t.add_row(
            name,
            f"{r['wall_s']:.3f}",
            f"{r['events']:,}",
            f"{r['events_per_s']:,.0f}",
            f"{r['packet_hops_per_s']:,.0f}",
            f"{r['peak_rss_mb']:.1f}",
        )
    console.print(t)
    for name in results:
        console.print(f"  {name}: {WORKLOADS[name]}", markup=False)


if __name__ == "__main__":
    print(json.dumps(_worker(sys.argv[1])))
