"""Prints the JSON of `ndncc bench --json` as Markdown tables (what `benches/README.md` shows).

    .venv/bin/python benches/markdown.py benches/results-eleventh-sitting-curve.json

One row per workload, a family's sizes in order: resolve, simulation wall time, events, events/s,
the loop alone and its events/s, the process's wall time and peak RSS. Then, when `scale-10`
is there, each other `scale-N` workload's events/s as a share of scale-10's, for the whole
`_core.run` call and for the loop alone (issue 12's criterion: at least half at 10 000 pairs).
"""

from __future__ import annotations

import json
import re
import sys

from ndncc import bench


def thousands(n: int) -> str:
    return f"{n:,}".replace(",", " ")


def order(name: str) -> tuple[str, int]:
    """Workloads of one family together, by size (scale-10 before scale-100)."""
    size = re.search(r"\d+", name)
    return (re.sub(r"\d+", "N", name), int(size.group()) if size else 0)


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: markdown.py BENCH.json", file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1]) as f:
            results = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        print(f"markdown.py: cannot read {sys.argv[1]}: {e}", file=sys.stderr)
        return 2
    print(
        "| workload | resolve (s) | sim wall (s) | events | events/s | loop alone (s) "
        "| loop events/s | process (s) | peak RSS (MB) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    names = sorted(results, key=order)
    for name in names:
        r = results[name]
        print(
            f"| {name} | {r['resolve_s']:.3f} | {r['wall_s']:.3f} | {thousands(r['events'])} "
            f"| {r['events_per_s'] / 1e6:.2f} M | {r['loop_s']:.3f} "
            f"| {r['loop_events_per_s'] / 1e6:.2f} M | {r['process_s']:.2f} "
            f"| {r['peak_rss_mb']:.0f} |"
        )
    share = bench.shares(results)
    if share:
        print()
        print("| workload | whole call: share of scale-10 | loop alone: share of scale-10 |")
        print("|---|---|---|")
        for name in sorted(share, key=order):
            whole, loop = share[name]
            print(f"| {name} | {100 * whole:.0f} % | {100 * loop:.0f} % |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
