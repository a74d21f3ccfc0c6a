"""Regenerates docs/emulate/: one scenario of each seed's experiment set under
``ndncc emulate`` (simulator and real side by side, issue 28 item 5) and seed 002's linear SF
ablation, engines × set-ups (issue 16, item 5). Run as root from the repository root:

    .venv/bin/python docs/emulate/generate.py [--only NAME ...] [--ablation]
        [--before-catchup PATH-TO-OLD-NDNCCD] [--table-only]

Each run's report (sim-vs-real.md / .csv / .json / .png), the real run's summary.json, the
simulator's summary (sim-summary.json) and the command are kept in docs/emulate/<name>/;
README.md is written from them by ``ndncc.emulate.gallery``. A run that fails keeps its
error in <name>/error.txt, which the README shows. ``--ablation`` also reruns the linear SF
ablation; ``--before-catchup``: an ndnccd built before the link emulation became
work-conserving (commit 0336d22), for the ablation rows that show what that rule changed.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from ndncc.emulate.gallery import ABLATION_SCENARIO, CASES, ENGINES, SCENARIOS, readme, slug

HERE = Path(__file__).resolve().parent
REPORT = ("sim-vs-real.md", "sim-vs-real.csv", "sim-vs-real.json", "sim-vs-real.png")


def run_case(name: str, cmd: list[str]) -> bool:
    """Runs ``cmd`` into a temporary folder and keeps its report in docs/emulate/<name>/;
    on failure keeps the error's last lines in <name>/error.txt. True when it ran."""
    tmp = Path("/tmp") / f"ndncc-emulate-doc-{name}"
    shutil.rmtree(tmp, ignore_errors=True)
    print(" ".join(cmd), flush=True)
    p = subprocess.run([*cmd, "--out", str(tmp), "-q"], capture_output=True, text=True)
    dest = HERE / name
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir()
    shown = ["ndncc", *(shlex.quote(c) for c in cmd[3:])]
    (dest / "command.txt").write_text(" ".join(shown) + "\n", encoding="utf-8")
    if p.returncode != 0:
        tail = "\n".join((p.stderr or p.stdout).strip().splitlines()[-20:])
        (dest / "error.txt").write_text(f"exit {p.returncode}\n{tail}\n", encoding="utf-8")
        print(f"{name}: failed (exit {p.returncode})\n{tail}", flush=True)
        return False
    for f in REPORT:
        shutil.copy(tmp / f, dest / f)
    shutil.copy(tmp / "real" / "summary.json", dest / "summary.json")
    if (tmp / "sim" / "summary.json").exists():
        shutil.copy(tmp / "sim" / "summary.json", dest / "sim-summary.json")
    return True


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", metavar="NAME", help="these scenario folders only")
    ap.add_argument("--ablation", action="store_true", help="rerun the linear SF ablation")
    ap.add_argument("--before-catchup", metavar="PATH")
    ap.add_argument("--table-only", action="store_true", help="rewrite README.md only")
    args = ap.parse_args()
    ndncc = [sys.executable, "-m", "ndncc", "emulate"]
    if not args.table_only:
        for name, _seed, _what, path, flags, _node, _short in SCENARIOS:
            if args.only is None or name in args.only:
                run_case(name, [*ndncc, path, *flags, "--mode", "netns"])
        if args.ablation:
            for case, flags, old in CASES:
                if old and not args.before_catchup:
                    continue
                for engine, eflags in ENGINES.items():
                    cmd = [*ndncc, ABLATION_SCENARIO, *eflags, *flags]
                    if old:
                        cmd += ["--ndnccd", args.before_catchup]
                    run_case(f"{slug(engine)}_{slug(case)}", cmd)
    (HERE / "README.md").write_text(readme(HERE), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
