"""Seed 004, the fast start's first overshoot: why the per-Data start loses Data, measured
(``docs/schemes/sieve.md``, "Why the fast start loses Data").

The dumbbell runs once per candidate reading with a 1 ms trace. At the bottleneck R2 → R1 it
measures: how long after the link saturated (the queue's last empty 1 ms sample before the
first mark) the first Data is marked, the queue then and its peak in the next
``OVERSHOOT_S``, the Data dropped in that time and in the whole run; and the dumbbell's rows
of the issue (total throughput, its std after the start-up, Jain index, delays per consumer).
Every ndnSieve candidate uses the per-Data start (+1 per Data until the first mark, +1 per
window after it): the whole-run ≥ 9 Mbit/s row needs a start that fills the path within a few
round trips. PCON runs with 1 000-packet queues as well: the queue is a setting of the
scenario, shared by every scheme in it.

Every row here is reported (``within`` is None): they explain the required rows, they are not
required themselves.
"""

from __future__ import annotations

from statistics import mean, pstdev

from ..sweep import Job, Outcome
from .common import Row, scenario_root

EXPERIMENT = "dumbbell start-up (R2 → R1, 1 ms trace)"
TRACE_BIN = "1ms"
TRACE_BIN_S = 0.001
OVERSHOOT_S = 0.3  # s after the first mark in which the queue's peak and the drops are read
STEADY_FROM_S = 3.0  # s, as the main rows
THROUGHPUT_BIN_S = 0.1  # s, the bins of the throughput std (as the main rows)
LONG_QUEUE = "1000p"

FAST = {"per_window": True, "start_per_data": True}


def candidates() -> dict[str, dict]:
    """label -> {"variant": the reproduction's variant dict, "router": extra keys of the
    routers' sieve part, "set": extra scenario overrides}."""
    out: dict[str, dict] = {}

    def add(label: str, th2: float, router: dict | None = None, **sets) -> None:
        out[label] = {"variant": {**FAST, "th2": th2}, "router": router or {}, "set": sets}

    add("th2 = 0.7 (the reproduction's per-Data start)", 0.7)
    add("th2 = 0.3", 0.3)
    add("th2 = 0.3, β counted on arrival", 0.3, {"beta_on_arrival": True})
    add("th2 = 0.3, 10 ms window", 0.3, {"window": "10ms"})
    for th2 in (0.3, 0.4, 0.5, 0.6, 0.7):
        add(f"th2 = {th2}, queue alone", th2, {"queue_alone": True})
    add("th2 = 0.3, queue alone, marked on enqueue", 0.3,
        {"queue_alone": True, "mark_on_enqueue": True})  # fmt: skip
    long = {"defaults.link.queue": LONG_QUEUE}
    add("th2 = 0.3, queue alone, 1000-packet queues", 0.3, {"queue_alone": True}, **long)
    add("th2 = 0.7, 1000-packet queues", 0.7, **long)
    from .sieve import PCON_PORT_THRESHOLD, pcon_parts

    if pcon_parts() is not None:
        out["PCON, 1000-packet queues"] = {"variant": {"pcon": True}, "router": {}, "set": long}
        out["PCON (20 KB), 1000-packet queues"] = {
            "variant": {"pcon": True, "threshold": PCON_PORT_THRESHOLD},
            "router": {},
            "set": long,
        }
    return out


def key(label: str) -> str:
    return f"startup/{label}"


def jobs(quick: bool) -> list[Job]:
    from .sieve import SCENARIOS, overrides

    path = str(scenario_root() / "sieve" / SCENARIOS["dumbbell"])
    out = []
    for label, c in candidates().items():
        ov = overrides("dumbbell", c["variant"], quick)
        if c["router"]:
            ov["defaults.node.schemes.sieve"] = {**ov["defaults.node.schemes.sieve"], **c["router"]}
        ov.update(c["set"])
        ov["trace.bin"] = TRACE_BIN
        out.append(Job(key(label), path, ov, keep=("series", "face_series", "delays")))
    return out


# ---- measures (1 ms bins) ------------------------------------------------------------------


def bottleneck(o: Outcome):
    """R2 → R1's face rows, indexed by bin end (s)."""
    f = o.frames["face_series"]
    return f[(f["node_name"] == "R2") & (f["peer_name"] == "R1")].set_index("time_s")


def overshoot(o: Outcome) -> dict:
    """The first mark at R2 → R1 and the queue around it: `saturated` (s, end of the last 1 ms
    bin with an empty queue before the mark), `mark` (s, end of the bin of the first mark),
    `q_mark`, `q_peak` (packets, in the OVERSHOOT_S after it), `drops` (Data dropped on every
    face in that time). NaN / -1 when nothing was marked."""
    b = bottleneck(o)
    marked = b.index[b["marks"] > 0]
    if not len(marked):
        return {"saturated": float("nan"), "mark": float("nan"), "q_mark": -1, "q_peak": -1,
                "drops": -1}  # fmt: skip
    t = float(marked[0])
    q = b["queue_pkts"]
    empty = q[(q.index < t) & (q == 0)].index
    f = o.frames["face_series"]
    window = f[(f["time_s"] > t - 1e-9) & (f["time_s"] <= t + OVERSHOOT_S + 1e-9)]
    return {
        "saturated": float(empty[-1]) if len(empty) else 0.0,
        "mark": t,
        "q_mark": int(q.loc[t]),
        "q_peak": int(q[(q.index >= t) & (q.index <= t + OVERSHOOT_S + 1e-9)].max()),
        "drops": int(window["drops"].sum()),
    }


def throughput_bins(o: Outcome):
    """Total Data throughput of the consumers per 100 ms (Mbit/s), indexed by bin number."""
    s = o.frames["series"]
    per_ms = s.groupby("time_s")["data_bytes"].sum()
    n = (per_ms.index / THROUGHPUT_BIN_S - 1e-6).astype(int)
    return per_ms.groupby(n).sum() * 8 / THROUGHPUT_BIN_S / 1e6


def throughput(o: Outcome) -> tuple[float, float, float]:
    """(whole-run mean, mean after STEADY_FROM_S, std after it) of the total, Mbit/s."""
    t = throughput_bins(o)
    late = t[t.index >= round(STEADY_FROM_S / THROUGHPUT_BIN_S)]
    return float(t.mean()), float(late.mean()), float(late.std())


def rows(res: dict) -> list[Row]:
    from .sieve import delays_ms, drops, jain_index

    out: list[Row] = []
    for label in candidates():
        o = res[key(label)]
        ov = overshoot(o)
        cond = label if label.startswith("PCON") else f"ndnSieve per-Data start, {label}"

        def rep(metric: str, ours, unit: str, cond: str = cond) -> None:
            out.append(Row(EXPERIMENT, metric, cond, None, ours, unit, "reported", None))

        since = 1e3 * (ov["mark"] - ov["saturated"])
        rep("first mark: ms after the link saturated / queue then / its peak",
            [round(since), ov["q_mark"], ov["q_peak"]], "ms / packets / packets")  # fmt: skip
        rep(f"Data dropped: in the {OVERSHOOT_S:g} s after the first mark / whole run",
            [ov["drops"], drops(o)], "packets")  # fmt: skip
        whole, late, std = throughput(o)
        rep(f"total throughput: whole run / after {STEADY_FROM_S:g} s / std after it",
            [whole, late, std], "Mbit/s")  # fmt: skip
        rep("Jain fairness index", jain_index(o), "")
        d = delays_ms(o)
        rep("mean delay per consumer / delay std per consumer",
            ["/".join(f"{mean(v):.1f}" for v in d.values()),
             "/".join(f"{pstdev(v):.1f}" for v in d.values())], "ms")  # fmt: skip
    return out
