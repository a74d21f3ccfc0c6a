"""Regenerates docs/emulate/: seed 002's linear SF scenario under ``ndncc emulate`` with the
ideal and the tick 100 ms + smoothing engines (the acceptance of issue 16, item 5), and the
ablations that show where the gap was. Run as root from the repository root:

    .venv/bin/python docs/emulate/generate.py [--before-catchup PATH-TO-OLD-NDNCCD]

Each case's report (sim-vs-real.md / .csv / .png) and the real run's summary.json are kept in
docs/emulate/<case>/; README.md (the table docs/realtime.md points to) is written from them.
``--before-catchup``: an ndnccd built before the link emulation became work-conserving (commit
0336d22), for the rows that show what that rule changed; without it those rows are left out.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCENARIO = "scenarios/sf-clock/linear.toml"
ENGINES = {
    "ideal": ["--set", "apps[consumer].engine=ideal"],
    "tick 100 ms + smoothing": [
        "--set",
        "apps[consumer].engine=tick",
        "--set",
        "apps[consumer].tick=100ms",
        "--set",
        "apps[consumer].smoothing=true",
    ],
}
# (case label, flags, needs the old ndnccd)
CASES = [
    ("netns, SCHED_FIFO (default)", ["--mode", "netns"], False),
    ("loopback, SCHED_FIFO", ["--mode", "loopback"], False),
    ("netns, default scheduling", ["--mode", "netns", "--no-realtime"], False),
    (
        "netns, default scheduling, link emulation before the catch-up rule",
        ["--mode", "netns", "--no-realtime"],
        True,
    ),
    (
        "netns, default scheduling, before the catch-up rule, payload as Content",
        ["--mode", "netns", "--no-realtime", "--payload-as-is"],
        True,
    ),
]


def slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-").replace("--", "-")


def run_case(name: str, cmd: list[str]) -> None:
    tmp = Path("/tmp") / f"ndncc-emulate-doc-{name}"
    shutil.rmtree(tmp, ignore_errors=True)
    print(" ".join(cmd), flush=True)
    subprocess.run([*cmd, "--out", str(tmp), "-q"], check=True)
    dest = HERE / name
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir()
    for f in ("sim-vs-real.md", "sim-vs-real.csv", "sim-vs-real.json", "sim-vs-real.png"):
        shutil.copy(tmp / f, dest / f)
    shutil.copy(tmp / "real" / "summary.json", dest / "summary.json")
    shown = ["ndncc", *(shlex.quote(c) for c in cmd[3:])]
    (dest / "command.txt").write_text(" ".join(shown) + "\n", encoding="utf-8")


def table() -> str:
    out = [
        "# `ndncc emulate` on seed 002's linear SF scenario (generated)",
        "",
        "Written by `docs/emulate/generate.py` from the runs kept beside it; each row links its "
        "report. Throughput: Data received × the scenario's Data size (1 250 B) / the 10 s the "
        "consumer sends, Mbit/s, as the simulator's `throughput_mbps`. Relative difference = "
        "(real − sim) / sim. Real Data wire size: the consumer's Data bytes / Data received. "
        "Load: the 1-minute load average before the run (2 CPUs, shared with other builds).",
        "",
        "| engine | case | simulator Mbit/s | real Mbit/s | relative difference | real "
        "timeouts | real Data wire size, B | load | report |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    commands = []
    for case, _, _ in CASES:
        for engine in ENGINES:
            name = f"{slug(engine)}_{slug(case)}"
            d = HERE / name
            if not (d / "sim-vs-real.json").exists():
                continue
            rows = json.loads((d / "sim-vs-real.json").read_text())
            real = json.loads((d / "summary.json").read_text())
            tput = next(r for r in rows if r["metric"].startswith("throughput (Data"))
            tmo = next(r for r in rows if r["metric"] == "timeouts")
            (app,) = real["apps"]
            size = app["data_bytes"] / app["data_received"] if app["data_received"] else 0
            out.append(
                f"| {engine} | {case} | {tput['sim']:.3f} | {tput['real']:.3f} | "
                f"{tput['relative_difference'] * 100:+.1f} % | {tmo['real']} | {size:.1f} | "
                f"{real['load_average_before'][0]:.2f} | [{name}]({name}/sim-vs-real.md) |"
            )
            commands.append((d / "command.txt").read_text().strip())
    out += ["", "Commands (from the repository root, as root; `--out` left out):", "", "```sh"]
    out += commands
    out += ["```", ""]
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before-catchup", metavar="PATH")
    ap.add_argument("--table-only", action="store_true", help="rewrite README.md only")
    args = ap.parse_args()
    if not args.table_only:
        for case, flags, old in CASES:
            if old and not args.before_catchup:
                continue
            for engine, eflags in ENGINES.items():
                cmd = [sys.executable, "-m", "ndncc", "emulate", SCENARIO, *eflags, *flags]
                if old:
                    cmd += ["--ndnccd", args.before_catchup]
                run_case(f"{slug(engine)}_{slug(case)}", cmd)
    (HERE / "README.md").write_text(table(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
