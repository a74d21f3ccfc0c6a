"""Figures from ndnSIM tracer files — ndnSIM's own, or the ones ``ndncc run`` writes.

One set of functions reads ``app-delays-trace.txt`` (AppDelayTracer), ``rate-trace.txt``
(L3RateTracer) and a window trace (``Time Node Window``, every change of ConsumerPcon's window,
as the seed-004 program writes it) and returns, per consumer and per face, the figures the
ndnSIM parity table compares (``docs/ndnsim-parity.md``). The same code reads ndnSIM's reference
runs and our runs, so the two sides of the table are counted the same way.

Per consumer (the ``Node`` of its delay rows; Data counted on ``FullDelay`` rows):

* ``data`` — Data received;
* ``resent`` — Data whose Interest was sent more than once (``RetxCount`` > 1), the "re-sent"
  figure of issue 30 and of the reference README; ``resent_interests`` — Σ (RetxCount − 1),
  the re-sent Interests that brought a Data;
* ``delay_mean_ms``, ``delay_p99_ms`` — of ``FullDelay`` (first send to Data, ms; p99 by linear
  interpolation);
* ``first_data_s`` — arrival of the first Data; ``longest_gap_s`` — the longest time without
  Data between the first Data and the consumer's end (its stop time, else the end of the run):
  between two consecutive Data, or from the last Data to that end, so a consumer that stalls
  for good shows it (s);
* ``per_second`` — Data received in each second [k, k + 1) of the run;
* with a window trace: ``window_decreases`` (changes to a smaller window),
  ``first_decrease_s`` and ``largest_window``.

Per net face (``Node`` + ``FaceDescr``, e.g. ``Rtr1 netdev://[00:00:00:00:00:05]``; ndnSIM and
ndncc number the MAC addresses alike, two per link in link order): the ``PacketRaw`` totals of
``InInterests``, ``OutInterests``, ``InData`` and ``OutData`` over the blocks up to ``until_s``,
and ``in_data_per_second`` (InData in each whole second [k, k + 1) the blocks cover).

Writing the reference file (ndnSIM 2.8's runs, supplied beside the repository as
``../shared/reference/ndnsim/``)::

    python -m ndncc.experiments.ndnsim_reference ../shared/reference/ndnsim \\
        --out scenarios/ndnsim/reference/ndnsim-2.8.json
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

#: The reference runs: id -> (directory, delays file, rate file, window file or None,
#: rate-trace period in s, run length in s). Paths are relative to the reference folder.
REFERENCE_RUNS: dict[str, dict[str, Any]] = {
    "ndn-congestion-topo-plugin": {
        "dir": "examples/ndn-congestion-topo-plugin-traced",
        "delays": "app-delays-trace.txt.gz",
        "rate": "rate-trace.txt.gz",
        "cwnd": None,
        "duration_s": 20,
    },
    "ndn-congestion-topo-plugin-pcon": {
        "dir": "examples/ndn-congestion-topo-plugin-pcon",
        "delays": "app-delays-trace.txt.gz",
        "rate": "rate-trace.txt.gz",
        "cwnd": "cwnd-trace.txt.gz",
        "duration_s": 20,
    },
    "ndn-congestion-alt-topo-plugin": {
        "dir": "examples/ndn-congestion-alt-topo-plugin-traced",
        "delays": "app-delays-trace.txt.gz",
        "rate": "rate-trace.txt.gz",
        "cwnd": None,
        "duration_s": 20,
        # c_i runs from (i − 1) s to (20 − i) s
        "until_s": {"c1": 19, "c2": 18, "c3": 17, "c4": 16},
    },
    **{
        f"seed004-pcon-dumbbell-q{q}p-{s}s": {
            "dir": "seed004-pcon-dumbbell",
            "delays": f"aimd-q{q}p-{s}s-delays.txt.gz",
            "rate": f"aimd-q{q}p-{s}s-rate.txt.gz",
            "cwnd": f"aimd-q{q}p-{s}s-cwnd.txt.gz",
            "duration_s": s,
        }
        for q, s in ((100, 10), (200, 10), (500, 10), (1000, 10), (100, 30))
    },
}

#: L3RateTracer Types totalled per face.
FACE_TOTALS = {
    "in_interests": "InInterests",
    "out_interests": "OutInterests",
    "in_data": "InData",
    "out_data": "OutData",
}


def read_trace(path: str | Path) -> pd.DataFrame:
    """A tracer file (plain or gzip'd) as ndnSIM users read it: tab-separated, header line."""
    return pd.read_csv(path, sep="\t")


def _r(x: float, digits: int = 6) -> float:
    """Rounded for the JSON (the tracers print 6 significant digits)."""
    return float(round(float(x), digits))


def consumer_figures(
    delays: pd.DataFrame,
    duration_s: float,
    cwnd: pd.DataFrame | None = None,
    until_s: dict[str, float] | None = None,
) -> dict[str, dict[str, Any]]:
    """Per consumer node: the figures listed in the module doc, from AppDelayTracer rows
    (``Time Node AppId SeqNo Type DelayS DelayUS RetxCount HopCount``) and, if given, window
    rows (``Time Node Window``). ``until_s`` gives a consumer's stop time (s) where it stops
    before the end of the run."""
    full = delays[delays["Type"] == "FullDelay"]
    out: dict[str, dict[str, Any]] = {}
    seconds = int(np.ceil(duration_s))
    for node, rows in full.groupby("Node", sort=True):
        times = np.sort(rows["Time"].to_numpy(dtype=np.float64))
        delay_ms = rows["DelayS"].to_numpy(dtype=np.float64) * 1e3
        retx = rows["RetxCount"].to_numpy(dtype=np.int64)
        end = max(float((until_s or {}).get(str(node), duration_s)), times[-1])
        per_second = np.bincount(
            np.clip(np.floor(times).astype(np.int64), 0, seconds - 1), minlength=seconds
        )
        out[str(node)] = {
            "data": int(len(rows)),
            "resent": int((retx > 1).sum()),
            "resent_interests": int((retx - 1).sum()),
            "delay_mean_ms": _r(delay_ms.mean(), 4),
            "delay_p99_ms": _r(np.percentile(delay_ms, 99), 4),
            "first_data_s": _r(times[0]),
            "longest_gap_s": _r(np.diff(np.append(times, end)).max()),
            "per_second": per_second.tolist(),
        }
    if cwnd is not None:
        for node, rows in cwnd.groupby("Node", sort=True):
            if str(node) not in out:
                continue
            w = rows["Window"].to_numpy(dtype=np.float64)
            t = rows["Time"].to_numpy(dtype=np.float64)
            down = np.flatnonzero(w[1:] < w[:-1]) + 1
            out[str(node)].update(
                {
                    "window_decreases": int(len(down)),
                    "first_decrease_s": _r(t[down[0]]) if len(down) else None,
                    "largest_window": _r(w.max(), 3),
                }
            )
    return out


def face_figures(rate: pd.DataFrame, until_s: float) -> tuple[float, dict[str, dict[str, Any]]]:
    """(period in s, per net face ``"Node FaceDescr"``: totals of ``FACE_TOTALS`` and InData
    per second per block), over the rate-trace blocks ending at or before ``until_s``."""
    times = np.unique(rate["Time"].to_numpy(dtype=np.float64))
    period = float(times[0]) if len(times) else 0.0
    rows = rate[
        rate["FaceDescr"].astype(str).str.startswith("netdev://") & (rate["Time"] <= until_s + 1e-9)
    ]
    out: dict[str, dict[str, Any]] = {}
    for (node, descr), face in rows.groupby(["Node", "FaceDescr"], sort=True):
        fig: dict[str, Any] = {}
        for key, kind in FACE_TOTALS.items():
            fig[key] = int(round(face.loc[face["Type"] == kind, "PacketRaw"].sum()))
        in_data = face[face["Type"] == "InData"]
        # block ending at t covers (t − period, t]: second k = ⌊(t − period/2)⌋
        second = np.floor(in_data["Time"].to_numpy(dtype=np.float64) - period / 2).astype(int)
        whole = int(np.floor(until_s + 1e-9))
        keep = second < whole
        fig["in_data_per_second"] = (
            np.bincount(
                second[keep], weights=in_data["PacketRaw"].to_numpy()[keep], minlength=whole
            )
            .astype(int)
            .tolist()
        )
        out[f"{node} {descr}"] = fig
    return period, out


def extract_run(root: str | Path, run: str) -> dict[str, Any]:
    """The figures of one reference run (``REFERENCE_RUNS[run]``) under ``root``."""
    spec = REFERENCE_RUNS[run]
    base = Path(root) / spec["dir"]
    delays = read_trace(base / spec["delays"])
    rate = read_trace(base / spec["rate"])
    cwnd = read_trace(base / spec["cwnd"]) if spec["cwnd"] else None
    last_block = float(rate["Time"].max())
    period, faces = face_figures(rate, last_block)
    return {
        "files": [f"{spec['dir']}/{spec[k]}" for k in ("delays", "rate", "cwnd") if spec[k]],
        "duration_s": spec["duration_s"],
        "rate_period_s": period,
        "rate_until_s": last_block,
        "until_s": spec.get("until_s", {}),
        "consumers": consumer_figures(delays, spec["duration_s"], cwnd, spec.get("until_s")),
        "faces": faces,
    }


def extract_all(root: str | Path) -> dict[str, Any]:
    """Every reference run's figures, with where they came from."""
    return {
        "source": (
            "ndnSIM 2.8 (ns-3 fork ndnSIM-ns-3.30.1, tag ndnSIM-2.8, optimized build): the tracer "
            "outputs supplied in ../shared/reference/ndnsim/ (see its README.md); "
            "seed004-pcon-dumbbell runs from its program seed004-pcon-dumbbell.cc"
        ),
        "written_by": "python -m ndncc.experiments.ndnsim_reference",
        "runs": {run: extract_run(root, run) for run in REFERENCE_RUNS},
    }


def dumps(data: Any) -> str:
    """JSON with one key per line but each list of numbers on one line (a small, diffable
    file)."""
    text = json.dumps(data, indent=1, sort_keys=True)
    return (
        re.sub(
            r"\[\s*([-0-9.,\s]+?)\s*\]",
            lambda m: "[" + ", ".join(m.group(1).replace(",", " ").split()) + "]",
            text,
        )
        + "\n"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m ndncc.experiments.ndnsim_reference",
        description="Extract the parity figures from ndnSIM's reference tracer files.",
    )
    p.add_argument("root", help="the reference folder (../shared/reference/ndnsim)")
    p.add_argument("--out", required=True, help="the JSON file to write")
    args = p.parse_args(argv)
    missing = [
        str(Path(args.root) / spec["dir"] / spec[k])
        for spec in REFERENCE_RUNS.values()
        for k in ("delays", "rate", "cwnd")
        if spec[k] and not (Path(args.root) / spec["dir"] / spec[k]).is_file()
    ]
    if missing:
        print(f"error: reference file not found: {missing[0]}", file=sys.stderr)
        return 3
    data = extract_all(args.root)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dumps(data), encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
