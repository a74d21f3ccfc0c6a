"""Where the CPU goes in `ndncc bench forwarder`: the forwarder process against the load
generator (the producer and consumer threads of this process), per exchange.

    .venv/bin/python benches/fw_cpu.py [--forwarder ndnd --forwarder ndnccd] [--faces unix,udp]
        [--duration 5] [--warmup 1] [--window 64] [--payload 1000] [--repeat 1]

For each forwarder and face kind it runs the same measurement as `ndncc bench forwarder`
(`_core.fw_bench`) and reads, over the whole run (warm-up included), the forwarder's
utime + stime from /proc/PID/stat and this process's from getrusage (the generator's threads;
the main thread sleeps). Prints one JSON object: exchanges/s, CPU seconds of each side, the
share of one core each used, and CPU µs per exchange (total exchanges = the producer's Data).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import threading
import time

from ndncc import _core, interop

TICK = os.sysconf("SC_CLK_TCK")


def proc_cpu_s(pid: int) -> float:
    """utime + stime of process `pid`, s."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def self_cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def measure(fw, kind: str, args) -> dict:
    ep = fw.endpoint(kind)
    box: dict = {}

    def run():
        box["r"] = json.loads(
            _core.fw_bench(
                ep,
                ep,
                f"/ndncc-cpu/{kind}/{os.getpid()}-{time.monotonic_ns()}",
                args.window,
                args.payload,
                args.duration,
                warmup_s=args.warmup,
            )
        )

    f0, g0, t0 = proc_cpu_s(fw.process.pid), self_cpu_s(), time.monotonic()
    t = threading.Thread(target=run)
    t.start()
    t.join()
    f1, g1, t1 = proc_cpu_s(fw.process.pid), self_cpu_s(), time.monotonic()
    r = box["r"]
    wall = t1 - t0
    total = max(r["producer_data"], 1)
    return {
        "exchanges_per_s": round(r["exchanges_per_s"]),
        "exchanges_total": r["producer_data"],
        "wall_s": round(wall, 3),
        "forwarder_cpu_s": round(f1 - f0, 3),
        "generator_cpu_s": round(g1 - g0, 3),
        "forwarder_core_share": round((f1 - f0) / wall, 3),
        "generator_core_share": round((g1 - g0) / wall, 3),
        "forwarder_cpu_us_per_exchange": round((f1 - f0) / total * 1e6, 2),
        "generator_cpu_us_per_exchange": round((g1 - g0) / total * 1e6, 2),
        "load_1min_before": os.getloadavg()[0],
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--forwarder", action="append")
    p.add_argument("--faces", default="unix,udp")
    p.add_argument("--duration", type=float, default=5.0, help="measured s")
    p.add_argument("--warmup", type=float, default=1.0, help="s")
    p.add_argument("--window", type=int, default=64)
    p.add_argument("--payload", type=int, default=1000, help="bytes")
    p.add_argument("--repeat", type=int, default=1)
    args = p.parse_args()
    out: dict = {}
    for _ in range(args.repeat):
        for name in args.forwarder or ["ndnd", "ndnccd"]:
            with interop.start(name) as fw:
                for kind in args.faces.split(","):
                    key = f"{name}/{kind}"
                    out.setdefault(key, []).append(measure(fw, kind, args))
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
