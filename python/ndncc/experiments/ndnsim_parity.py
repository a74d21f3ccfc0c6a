"""ndnSIM parity: ndnSIM 2.8's own congestion examples and the seed-004 PCON dumbbell, run through
ndncc and set beside ndnSIM's figures (issue 30 item 2, issue 27 item 2).

    python -m ndncc.experiments.ndnsim_parity --out docs/ndnsim-parity.md

Each run is a scenario file (``scenarios/ndnsim/``, named after ndnSIM's example; the dumbbell
is ``scenarios/pcon/dumbbell.toml`` with overrides). Ours are run, written as ndnSIM's tracer
files (``rate-trace.txt``, ``app-delays-trace.txt``, as ``ndncc run`` writes them) and read
back with the code that read ndnSIM's (:mod:`ndncc.experiments.ndnsim_reference`), so both
sides are counted alike. ndnSIM's figures come from ``scenarios/ndnsim/reference/
ndnsim-2.8.json`` (extracted once from the reference runs; its README says where from).

A row is one figure of one consumer or one face with its tolerance and verdict; rows beyond
tolerance are listed under the table with the reason, as far as it is known.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .common import mark, scenario_root
from .ndnsim_reference import consumer_figures, face_figures, read_trace

REFERENCE_FILE = "ndnsim/reference/ndnsim-2.8.json"


@dataclass(frozen=True)
class Tolerances:
    """What "the same" means for one run. Relative tolerances are fractions of ndnSIM's
    figure; ``resent_abs`` and ``window_abs`` are counts (the larger of the relative and the
    absolute allowance applies to re-sent Interests)."""

    data: float  # Data received per consumer, relative
    resent: float  # re-sent, relative ...
    resent_abs: int  # ... or this many
    delay_mean: float  # relative
    delay_p99: float  # relative
    per_second: float  # RMS of the per-second difference / ndnSIM's mean per-second rate
    window_abs: int  # window decreases, count
    face: float  # a face's Interest and Data totals, relative
    first_data_s: float = 0.05  # the first Data within this many seconds of ndnSIM's
    longer_gap_s: float = 0.1  # the longest gap between Data at most this much longer

    def text(self, metric: str) -> str:
        pct = {
            "data": self.data,
            "delay_mean_ms": self.delay_mean,
            "delay_p99_ms": self.delay_p99,
            "in_data": self.face,
            "out_interests": self.face,
        }
        if metric in pct:
            return f"± {pct[metric]:.0%}"
        if metric == "resent":
            return f"± max({self.resent:.0%}, {self.resent_abs})"
        if metric == "per_second":
            return f"RMS ≤ {self.per_second:.0%}"
        if metric == "window_decreases":
            return f"± {self.window_abs}"
        if metric == "first_data_s":
            return f"± {self.first_data_s:g} s"
        if metric == "longest_gap_s":
            return f"≤ ndnSIM's + {self.longer_gap_s:g} s"
        raise ValueError(f"no tolerance for {metric!r}")


#: issue 30's acceptance for ConsumerCbr under congestion: Data ± 15 %, re-sent ± 25 %
CBR_CONGESTED = Tolerances(0.15, 0.25, 5, 0.15, 0.25, 0.25, 0, 0.15)
#: issue 30's acceptance for the low-load example: Data ± 2 % per consumer; nothing queues,
#: so delays must agree as closely
LOW_LOAD = Tolerances(0.02, 0.25, 1, 0.02, 0.02, 0.05, 0, 0.02)
#: ours for PCON (issue 27 leaves them to us): Data ± 10 % (the 500- and 1 000-packet runs
#: agreed within 5.2 % over [2, 10] s when issue 27 was filed), re-sent ± 25 % or 10, delays
#: ± 15 % / 25 %, window decreases ± 2, per-second Data RMS ≤ 25 %
PCON = Tolerances(0.10, 0.25, 10, 0.15, 0.25, 0.25, 2, 0.10)


@dataclass(frozen=True)
class ParityRun:
    """One reference run and the ndncc scenario that reproduces it."""

    name: str  # the reference run's id (ndnsim_reference.REFERENCE_RUNS)
    scenario: str  # relative to scenarios/
    tolerances: Tolerances
    steady: tuple[int, int]  # seconds [a, b) the per-second comparison covers
    overrides: dict[str, Any] = field(default_factory=dict)
    pcon: bool = False  # a PCON consumer: window decreases compared (10 ms result bins)


def _dumbbell(queue: int, seconds: int) -> ParityRun:
    return ParityRun(
        name=f"seed004-pcon-dumbbell-q{queue}p-{seconds}s",
        scenario="pcon/dumbbell.toml",
        tolerances=PCON,
        steady=(2, seconds),
        pcon=True,
        overrides={
            "scenario.duration": f"{seconds}s",
            "defaults.link.queue": f"{queue}p",
            # seed004-pcon-dumbbell.cc: best-route on "/", CS of 1 Data
            "defaults.node.strategy": "best-route",
            "defaults.node.cs": 1,
            # /prefix/A/seq=N with N ≥ 256 on the wire as ndnSIM 2.8 sends it: the first Data's
            # delay, 62.664 ms = 60 ms + (Interest + Data) × 8 × 3 / 10 Mbit/s, gives 1 110 B at
            # a one-byte sequence number (38 + 1 072 B), one byte more each from seq 256 on
            "packets.interest_size": "39B",
            "packets.data_overhead": "49B",
        },
    )


RUNS: tuple[ParityRun, ...] = (
    ParityRun(
        "ndn-congestion-topo-plugin",
        "ndnsim/ndn-congestion-topo-plugin.toml",
        CBR_CONGESTED,
        (2, 19),
    ),
    ParityRun(
        "ndn-congestion-topo-plugin-pcon",
        "ndnsim/ndn-congestion-topo-plugin-pcon.toml",
        PCON,
        (2, 19),
        pcon=True,
    ),
    ParityRun(
        "ndn-congestion-alt-topo-plugin",
        "ndnsim/ndn-congestion-alt-topo-plugin.toml",
        LOW_LOAD,
        (4, 15),
    ),
    _dumbbell(100, 10),
    _dumbbell(200, 10),
    _dumbbell(500, 10),
    _dumbbell(1000, 10),
    _dumbbell(100, 30),
)

#: What each figure is, for the table.
METRIC_LABELS = {
    "data": "Data received",
    "resent": "re-sent",
    "delay_mean_ms": "mean delay (ms)",
    "delay_p99_ms": "p99 delay (ms)",
    "per_second": "Data/s, mean over the steady seconds",
    "window_decreases": "window decreases",
    "first_data_s": "first Data (s)",
    "longest_gap_s": "longest gap between Data (s)",
    "in_data": "InData (packets)",
    "out_interests": "OutInterests (packets)",
}


@dataclass
class ParityRow:
    run: str
    who: str  # consumer node, or "Node netdev://[..]" for a face
    metric: str
    ndnsim: float | None
    ours: float | None
    difference: str
    tolerance: str
    within: bool | None  # None: shown, not judged

    @property
    def key(self) -> str:
        return f"{self.run} / {self.who} / {self.metric}"


def reference(root: Path | None = None) -> dict[str, Any]:
    """ndnSIM's figures (``scenarios/ndnsim/reference/ndnsim-2.8.json``)."""
    path = (root or scenario_root()) / REFERENCE_FILE
    return json.loads(path.read_text(encoding="utf-8"))


def consumer_controllers(run: ParityRun, root: Path | None = None) -> dict[str, str]:
    """The controller of each consumer of ``run``'s scenario, by app name (read from the
    scenario, so that the parity test follows a change of that one key)."""
    from ..scenario import Scenario

    sc = Scenario.load((root or scenario_root()) / run.scenario)
    return {
        app["name"]: app.get("controller", "constant-rate")
        for app in sc.data.get("apps", [])
        if app.get("kind") == "consumer"
    }


def _window_changes(series: pd.DataFrame, meta: dict[str, Any]) -> pd.DataFrame:
    """Our consumers' windows as a window trace (``Time Node Window``): a row at the end of
    every result bin in which the window changed. ConsumerPcon decreases at most once per
    window of Data (conservative adaptation), so 10 ms bins see every decrease; on these runs
    1 ms and 5 ms bins count the same decreases."""
    rows = []
    for app_index, app in enumerate(meta["apps"]):
        s = series[series["app"] == app_index].sort_values("time_s")
        w = s["window"].to_numpy(dtype=np.float64)
        ok = ~np.isnan(w)
        t, w = s["time_s"].to_numpy()[ok], w[ok]
        if not len(w):
            continue
        changed = np.concatenate(([True], w[1:] != w[:-1]))
        node = meta["nodes"][int(app["node"])]
        rows.append(pd.DataFrame({"Time": t[changed], "Node": node, "Window": w[changed]}))
    return pd.concat(rows) if rows else pd.DataFrame(columns=["Time", "Node", "Window"])


def run_ours(run: ParityRun, ref: dict[str, Any], root: Path | None = None) -> dict[str, Any]:
    """Our figures for ``run``, in the shape of a reference run's."""
    from .. import runner, traces
    from ..scenario import Scenario

    root = root or scenario_root()
    overrides = dict(run.overrides)
    overrides.setdefault("trace.bin", "10ms" if run.pcon else "100ms")
    overrides["trace.delays"] = True
    sc = Scenario.load(root / run.scenario).with_overrides(overrides=overrides)
    result = runner.run(sc)
    period = ref["rate_period_s"]
    with tempfile.TemporaryDirectory(prefix="ndncc-parity-") as tmp:
        rate_path = traces.write_rate_trace(
            Path(tmp) / "rate-trace.txt",
            result.face_series,
            result.meta,
            period,
            result.bin_s,
            node_series=result.node_series,
        )
        delays_path = traces.write_app_delays_trace(
            Path(tmp) / "app-delays-trace.txt", result.delays, result.meta
        )
        rate, delays = read_trace(rate_path), read_trace(delays_path)
    cwnd = _window_changes(result.series, result.meta) if run.pcon else None
    _, faces = face_figures(rate, ref["rate_until_s"])
    return {
        "consumers": consumer_figures(delays, ref["duration_s"], cwnd, ref["until_s"]),
        "faces": faces,
    }


def _rel(ours: float, theirs: float) -> float:
    return math.inf if theirs == 0 and ours != 0 else (0.0 if theirs == 0 else ours / theirs - 1)


def _signed(x: float) -> str:
    return "+∞" if math.isinf(x) else f"{x:+.1%}"


def _per_second(figures: dict[str, Any], length: int) -> np.ndarray:
    sec = np.asarray(figures.get("per_second") or [], dtype=float)[:length]
    return np.pad(sec, (0, length - len(sec)))


def compare(run: ParityRun, ref: dict[str, Any], ours: dict[str, Any]) -> list[ParityRow]:
    """The rows of one run: per consumer, all consumers' Data per second, then per net face
    that carries traffic on either side."""
    tol = run.tolerances
    rows: list[ParityRow] = []

    def add(who: str, metric: str, theirs, mine, diff: str, within: bool | None) -> None:
        rows.append(ParityRow(run.name, who, metric, theirs, mine, diff, tol.text(metric), within))

    def relative(who: str, metric: str, theirs: float, mine: float | None, allowed: float):
        if mine is None:
            add(who, metric, theirs, None, "missing", False)
            return
        r = _rel(mine, theirs)
        add(who, metric, theirs, mine, _signed(r), abs(r) <= allowed + 1e-12)

    def absolute(who: str, metric: str, theirs: float, mine: float | None, allowed: float):
        if mine is None:
            add(who, metric, theirs, None, "missing", False)
            return
        d = mine - theirs
        text = f"{d:+d}" if isinstance(d, int) else f"{d:+.3f}"
        add(who, metric, theirs, mine, text, abs(d) <= allowed + 1e-9)

    a, b = run.steady
    n = len(next(iter(ref["consumers"].values()))["per_second"])

    def per_second(who: str, t_all: np.ndarray, m_all: np.ndarray) -> None:
        t_sec, m_sec = t_all[a:b], m_all[a:b]
        mean = t_sec.mean()
        rms = float(np.sqrt(np.mean((m_sec - t_sec) ** 2)) / mean) if mean else 0.0
        add(
            who,
            "per_second",
            round(float(mean), 1),
            round(float(m_sec.mean()), 1),
            f"RMS {rms:.1%} over [{a}, {b}) s",
            rms <= tol.per_second + 1e-12,
        )

    for who, theirs in sorted(ref["consumers"].items()):
        mine = ours["consumers"].get(who, {})
        relative(who, "data", theirs["data"], mine.get("data", 0), tol.data)
        t = theirs["resent"]
        absolute(who, "resent", t, mine.get("resent"), max(tol.resent * t, tol.resent_abs))
        relative(
            who, "delay_mean_ms", theirs["delay_mean_ms"], mine.get("delay_mean_ms"), tol.delay_mean
        )
        relative(
            who, "delay_p99_ms", theirs["delay_p99_ms"], mine.get("delay_p99_ms"), tol.delay_p99
        )
        per_second(who, _per_second(theirs, n), _per_second(mine, n))
        if "window_decreases" in theirs:
            absolute(
                who,
                "window_decreases",
                theirs["window_decreases"],
                mine.get("window_decreases"),
                tol.window_abs,
            )
        absolute(
            who, "first_data_s", theirs["first_data_s"], mine.get("first_data_s"), tol.first_data_s
        )
        gap = theirs["longest_gap_s"]
        m = mine.get("longest_gap_s")
        add(
            who,
            "longest_gap_s",
            gap,
            m,
            "missing" if m is None else f"{m - gap:+.3f}",
            m is not None and m <= gap + tol.longer_gap_s,
        )
    if len(ref["consumers"]) > 1:
        per_second(
            "all consumers",
            sum((_per_second(f, n) for f in ref["consumers"].values()), np.zeros(n)),
            sum((_per_second(f, n) for f in ours["consumers"].values()), np.zeros(n)),
        )
    for who, theirs in sorted(ref["faces"].items()):
        mine = ours["faces"].get(who, {})
        if not any(theirs[m] or mine.get(m) for m in ("in_data", "out_interests")):
            continue
        for metric in ("in_data", "out_interests"):
            relative(who, metric, theirs[metric], mine.get(metric, 0), tol.face)
    return rows


def run_parity(
    names: list[str] | None = None, root: Path | None = None
) -> dict[str, list[ParityRow]]:
    """The rows of the parity table per run (of the runs named, or all of ``RUNS``)."""
    refs = reference(root)["runs"]
    out: dict[str, list[ParityRow]] = {}
    for run in RUNS:
        if names is None or run.name in names:
            ref = refs[run.name]
            out[run.name] = compare(run, ref, run_ours(run, ref, root))
    return out


# --------------------------------------------------------------------------- explanations

_CBR_OPEN = (
    "open: consumer semantics differ, see issue 30 — `constant-rate` sends new sequence numbers "
    "at 100 Interests/s, times out at the lifetime (2 s) and never re-sends; ndnSIM's "
    "ConsumerCbr times Interests out on its RTO (50 ms checks, doubling back-off) and re-sends "
    "them before new ones (controller `ndnsim-cbr`, pending). The 1 Mbit/s bottleneck carries "
    'the same Data in both (see Rtr1\'s face 00:05 and "all consumers"), split differently '
    "between the two consumers; in ndnSIM Rtr2 forwards fewer Interests to the producers "
    "because re-sent Interests are answered from its Content Store"
)
_PCON_OPEN = (
    "open: the 100-packet queue, see issue 27 — our ConsumerPcon decides as ndnSIM 2.8's (checks "
    "every 50 ms re-reading the RTO, late Data answering, in-flight < W: "
    "docs/schemes/ndnsim-consumers.md), yet here C1 stalls after 0.7 s: every one of the 177 "
    "Data dropped at R2 between 0.5 and 0.7 s is C1's (both flows arrive in lock-step at the "
    "same line rate, and C1's Data always find the queue just filled), 27 timeouts in one "
    "check take its RTO multiplier to 64 and no sample comes back; ndnSIM spreads these "
    "losses over both consumers — what breaks the lock-step there is not found yet (0.3 ms "
    "more delay on R2–P1 moves the stall to C2; ndnSIM's packet sizes, a later start or "
    "longer Data do not remove it)"
)
_CBR_TAIL = (
    "phase, not the consumer: Src2's delays agree per number of sends (mean 574 vs 567 ms for "
    "2 sends, 934 vs 902 for 3, 1 323 vs 1 389 for 4) and so does the wait between two sends "
    "of a number (≈ 360 ms at every RetxCount in both: RTO, 50 ms check, 10 ms sending slot), "
    "but 10 of ndnSIM's 1 045 Data needed 5 to 8 sends and 24 of our 1 029 needed 5 to 9; the "
    "p99 is about the 11th slowest Data, so it lies in ndnSIM's 4-send band and in our 6–7-send "
    "band. How often a re-sent number is lost again at Rtr2's queue follows the two consumers' "
    "sub-millisecond phase: Src2 starting 0.4–0.8 ms later gives 12–20 such Data and a p99 of "
    "1 555–1 737 ms, Data 1 byte shorter or longer 1 803 or 1 848 ms, and 0.9 ms later Src2 "
    "starves (356 Data); ndnSIM's exact phase is not reproduced"
)
_STARTUP = (
    "start-up: in ndnSIM the first Interest a consumer sends at 0 s never leaves its node (its "
    "net face counts one Interest fewer than the consumer sent) and is answered only after it "
    "is re-sent (RetxCount 2: at 0.5 s by ConsumerCbr, at 1 s, the initial RTO, by "
    "ConsumerPcon); ours is answered at once — not modelled, open: issue 30"
)
_STARTUP_SPLIT = (
    "start-up: our consumers start 1 s earlier than ndnSIM's (see first Data), which adds a "
    "second of Data to the totals (R1's face 00:05 carries ≈ 1 165 Data/s) and starts the two "
    "windows in a different phase: over the steady seconds all consumers together agree (the "
    '"all consumers" row) while the split between C1 and C2 differs — not modelled, open: '
    "issue 30"
)
_STOP = (
    "stop: ndnSIM's consumer ignores Data arriving after its stop time, ours counts them: c3 "
    "(252.6 ms delay) misses the answers to its Interests sent at 16.8 and 16.9 s, c1 (152.6 ms) "
    "the one to 18.9 s, and c1's re-send of its first Interest (start-up, above) takes one of "
    "its sending slots — ndnSIM 188 and 148 Data, ours 190 and 150, within the 2 % tolerance"
)


def explain(row: ParityRow, controllers: dict[str, str]) -> str:
    """Why ``row`` is beyond its tolerance, as far as it is known (else "unexplained")."""
    if row.metric == "first_data_s":
        return _STARTUP
    if row.run == "ndn-congestion-topo-plugin":
        if set(controllers.values()) == {"constant-rate"}:
            return _CBR_OPEN
        if (row.who, row.metric) == ("Src2", "delay_p99_ms"):
            return _CBR_TAIL
    if row.run in ("seed004-pcon-dumbbell-q100p-10s", "seed004-pcon-dumbbell-q100p-30s"):
        return _PCON_OPEN
    if row.run in (
        "seed004-pcon-dumbbell-q200p-10s",
        "seed004-pcon-dumbbell-q500p-10s",
        "seed004-pcon-dumbbell-q1000p-10s",
    ):
        return _STARTUP_SPLIT
    return "unexplained: investigate"


# --------------------------------------------------------------------------- the document


def _cell(x: Any) -> str:
    if x is None:
        return "—"
    if isinstance(x, float) and not x.is_integer():
        return f"{x:,.6g}".replace(",", " ")
    return f"{int(x):,}".replace(",", " ")


def markdown(rows_by_run: dict[str, list[ParityRow]], root: Path | None = None) -> str:
    """The parity document: per run its table and the reasons for what is beyond tolerance."""
    runs = {r.name: r for r in RUNS}
    total = sum(len(rows) for rows in rows_by_run.values())
    within = sum(r.within is True for rows in rows_by_run.values() for r in rows)
    parts = [
        "# ndnSIM parity: ndnSIM 2.8's congestion examples and the seed-004 PCON dumbbell\n\n"
        "Generated by `python -m ndncc.experiments.ndnsim_parity --out docs/ndnsim-parity.md` "
        "(do not edit by hand). ndnSIM's figures come from its own runs "
        "(`scenarios/ndnsim/reference/`, README there: ndnSIM 2.8's tracer outputs supplied "
        "in `../shared/reference/ndnsim/`); ours from running the scenarios below through "
        "ndncc, writing ndnSIM's tracer files (`app-delays-trace.txt`, `rate-trace.txt`) and "
        "reading them back with the same code. The test `tests/test_ndnsim_parity.py` runs "
        "the same comparison.\n\n"
        "Figures: per consumer, Data received (`FullDelay` rows), Data whose Interest was sent "
        "more than once (`RetxCount` > 1), mean and p99 of the full delay (first send to Data, "
        "ms), Data per second (mean over the run's steady seconds; the tolerance is on the RMS "
        "of the per-second difference as a share of ndnSIM's mean), window decreases "
        "(ConsumerPcon: every change to a smaller window in ndnSIM's window trace; ours from "
        "the window at the end of every 10 ms result bin), the first Data (s) and the longest "
        "time without Data from the first Data to the consumer's stop or the run's end (s); "
        "per net face (`Node netdev://[MAC]`, numbered alike in both), the InData and "
        "OutInterests packets over the rate-trace blocks ndnSIM "
        "printed. Faces idle on both sides are left out.\n\n"
        "Tolerances: ndn-congestion-topo-plugin (ConsumerCbr, congested) issue 30's "
        "acceptance, Data ± 15 % per consumer and re-sent ± 25 %; ndn-congestion-alt-topo-"
        "plugin (low load) Data ± 2 % per consumer and delays ± 2 %; PCON (ours to choose, "
        "issue 27): Data ± 10 %, re-sent ± max(25 %, 10), mean delay ± 15 %, p99 ± 25 %, "
        "window decreases ± 2, Data per second RMS ≤ 25 %; everywhere the first Data within "
        "0.05 s and the longest gap at most 0.1 s longer than "
        "ndnSIM's.\n\n"
        f"**{within} of {total} rows within tolerance.**\n",
    ]
    for name, rows in rows_by_run.items():
        run = runs[name]
        controllers = consumer_controllers(run, root)
        ctl = ", ".join(sorted(set(controllers.values())))
        over = ", ".join(f"`{k} = {json.dumps(v)}`" for k, v in run.overrides.items())
        parts.append(
            f"\n## {name}\n\n"
            f"Scenario `scenarios/{run.scenario}`"
            + (f" with {over}" if over else "")
            + f"; consumer controller: `{ctl}`. "
            f"{sum(r.within is True for r in rows)} of {len(rows)} rows within.\n\n"
            "| consumer / face | figure | ndnSIM | ours | difference | tolerance | verdict |\n"
            "|---|---|---|---|---|---|---|\n"
        )
        parts.append(
            "".join(
                f"| {r.who} | {METRIC_LABELS[r.metric]} | {_cell(r.ndnsim)} | {_cell(r.ours)} "
                f"| {r.difference} | {r.tolerance} | {mark(r.within)} |\n"
                for r in rows
            )
        )
        reasons: dict[str, dict[str, list[str]]] = {}
        for r in rows:
            if r.within is False:
                who = reasons.setdefault(explain(r, controllers), {})
                who.setdefault(r.who, []).append(METRIC_LABELS[r.metric])
        if reasons:
            parts.append("\nBeyond tolerance, and why:\n\n")
            for reason, which in reasons.items():
                listed = "; ".join(f"{w}: {', '.join(m)}" for w, m in which.items())
                parts.append(f"* {reason}. Rows: {listed}.\n")
        if name == "ndn-congestion-alt-topo-plugin":
            parts.append(f"\nWithin tolerance but not equal: {_STOP}.\n")
    return "".join(parts)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m ndncc.experiments.ndnsim_parity",
        description="Run ndnSIM's congestion examples and the seed-004 PCON dumbbell through "
        "ndncc and write the parity table (ndnSIM's figures beside ours).",
    )
    p.add_argument("--out", required=True, help="the Markdown file to write")
    p.add_argument(
        "--run",
        action="append",
        metavar="NAME",
        choices=[r.name for r in RUNS],
        help="only this run (repeatable; default: all)",
    )
    args = p.parse_args(argv)
    from ..scenario import ScenarioError

    try:
        text = markdown(run_parity(args.run))
    except ScenarioError as e:
        print(str(e), file=sys.stderr)
        return 3
    out = Path(args.out)
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as e:
        print(f"error: cannot write {out} ({e.strerror or e})", file=sys.stderr)
        return 3
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
