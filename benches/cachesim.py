"""How the event loop of a bench workload would miss a last-level cache of each size:
valgrind's cache simulation (callgrind) of the `profile` example, the loop alone.

    .venv/bin/python benches/cachesim.py scale-10000 [--ll 16,32,40,48,64,128] [--jobs 2]

For each last-level size (MiB) it runs the workload's loop once under
`valgrind --tool=callgrind --cache-sim=yes --toggle-collect='*World*run'` with a 64 KiB, 8-way
L1 data cache and an LL of that size (16-way, or the next associativity that keeps the number
of sets a power of two, which the simulator needs), and prints one Markdown row per size:
instructions, L1 data read misses, LL read misses and LL write misses, each per event. The
simulated LL is fully shared and strictly LRU, unlike a real one; prefetch instructions are
not simulated (a line a prefetch brings is counted as a miss where it is first read). Where the
count of LL read misses drops sharply between two sizes, the lines the loop keeps touching lie
between them: what a cache of that size would hold.

Needs valgrind (`apt-get install valgrind`) and cargo; each run takes ≈ 30 s at 10 000 pairs.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ndncc import bench

ROOT = Path(__file__).resolve().parent.parent
PROFILE = ROOT / "target" / "release" / "examples" / "profile"
LINE = 64
L1 = "--D1=65536,8,64"


def associativity(size: int) -> int:
    """16, or the next associativity that divides an LL of `size` bytes into a power-of-two
    number of sets."""
    lines = size // LINE
    for ways in range(16, 65):
        sets = lines // ways
        if lines % ways == 0 and sets & (sets - 1) == 0:
            return ways
    raise SystemExit(f"cachesim: no associativity from 16 to 64 fits {size} bytes")


def simulate(spec: Path, mib: int, out_dir: Path) -> dict:
    """One callgrind run with an LL of `mib` MiB: the totals of the loop and its event count."""
    size = mib << 20
    ways = associativity(size)
    out = out_dir / f"callgrind.{mib}"
    cmd = [
        "valgrind",
        "--tool=callgrind",
        "--cache-sim=yes",
        L1,
        f"--LL={size},{ways},{LINE}",
        "--toggle-collect=*World*run",
        f"--callgrind-out-file={out}",
        str(PROFILE),
        str(spec),
        "1",
    ]
    run = subprocess.run(cmd, capture_output=True, text=True, check=False)
    events = re.search(r"events (\d+)", run.stdout)
    text = out.read_text() if out.exists() else ""
    totals = re.search(r"^summary: ([\d ]+)$", text, re.M)
    names = re.search(r"^events: (.+)$", text, re.M)
    if run.returncode != 0 or not (events and totals and names):
        raise SystemExit(f"cachesim: the run with a {mib} MiB LL failed:\n{run.stderr[-2000:]}")
    counts = dict(zip(names.group(1).split(), map(int, totals.group(1).split()), strict=True))
    return {"mib": mib, "ways": ways, "events": int(events.group(1)), **counts}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workload", help="a bench workload: scale-N, isp-N or a standard one")
    parser.add_argument(
        "--ll", default="16,32,40,48,64,128", help="LL sizes in MiB, comma separated"
    )
    parser.add_argument("--jobs", type=int, default=2, help="runs at once (default 2)")
    args = parser.parse_args()
    if not bench.known(args.workload):
        parser.error(f"unknown workload {args.workload!r}")
    try:
        sizes = [int(s) for s in args.ll.split(",")]
    except ValueError:
        parser.error(f"--ll takes whole MiB, comma separated, not {args.ll!r}")
    if not sizes or min(sizes) < 1:
        parser.error("--ll needs sizes of at least 1 MiB")
    if shutil.which("valgrind") is None:
        parser.error("valgrind is not installed (apt-get install valgrind)")
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "ndncc-sim", "--example", "profile"],
        cwd=ROOT,
        check=True,
    )
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "spec.json"
        spec.write_text(bench.spec_json(args.workload))
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            rows = list(pool.map(lambda mib: simulate(spec, mib, Path(tmp)), sizes))
    print("\n".join(table(args.workload, rows)))
    return 0


def table(workload: str, rows: list[dict]) -> list[str]:
    """The Markdown lines for `rows` (what `simulate` returns): each count per event."""
    first = rows[0]
    lines = [
        f"{workload}: the loop, {first['events']:,} events ({first['Ir']:,} instructions)",
        "",
        "| LL (MiB) | ways | instructions / event | L1d read misses / event "
        "| LL read misses / event | LL write misses / event |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        e = r["events"]
        lines.append(
            f"| {r['mib']} | {r['ways']} | {r['Ir'] / e:.0f} | {r['D1mr'] / e:.2f} "
            f"| {r['DLmr'] / e:.3f} | {r['DLmw'] / e:.3f} |"
        )
    return lines


if __name__ == "__main__":
    sys.exit(main())
