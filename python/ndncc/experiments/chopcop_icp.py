"""chopcop: ICP's timer and the cost of its false timeouts (full tier), rows and figure data.

Seed 001 explains ICP's poor baseline result by "a relatively small timeout setting [that]
causes a large number of false timeouts" and gives no τ. These rows show ICP's throughput and
timeouts against a fixed τ, its readings from the single RTT estimator, and where the cost of a
false timeout goes on the baseline (`docs/schemes/icp.md`, "ICP's timer").
"""

from __future__ import annotations

from ..sweep import Outcome
from . import chopcop as C
from .common import Row

EXP = "ICP's timer (τ sweep)"
#: the paper's gain of CHoPCoP over ICP per topology: baseline +85.75 %, multi-source "a factor
#: of 2"; the figure draws our CHoPCoP divided by (1 + gain) as the ICP these gains imply
PAPER_FACTOR = {"baseline": 1.8575, "multi-source": 2.0}


def _end(topo: str, quick: bool) -> float:
    return C.dur(quick)["baseline" if topo == "baseline" else "multi"]


def _thr_timeouts(o: Outcome, end: float) -> tuple[float, int]:
    return C.goodput(o, "receiver", 0, end), C.app_summary(o, "receiver")["timeouts"]


def icp_tau_points(
    res: dict[str, Outcome], topo: str, quick: bool
) -> tuple[list[tuple[int, float, int]], dict[str, tuple[float, int]], float]:
    """[(τ ms, throughput Mbit/s, timeouts)] of the fixed-τ runs present, {reading: (throughput,
    timeouts)} of ICP's other readings, and our CHoPCoP's throughput ÷ the paper's factor."""
    end = _end(topo, quick)
    pts = [
        (tau, *_thr_timeouts(res[k], end))
        for tau in C.ICP_TAUS_MS
        if (k := C.icp_tau_key(topo, tau)) in res
    ]
    readings = {
        name: _thr_timeouts(res[k], end)
        for name in C.ICP_VARIANTS
        if (k := C.icp_variant_key(topo, name)) in res
    }
    chopcop = C.goodput(res[f"{topo}/chopcop"], "receiver", 0, end)
    return pts, readings, chopcop / PAPER_FACTOR[topo]


def _reported(metric: str, cond: str, ours, unit: str) -> Row:
    return Row(EXP, metric, cond, None, ours, unit, "reported", None)


def sweep_rows(res: dict[str, Outcome], quick: bool) -> list[Row]:
    """ICP's throughput and timeouts for every fixed τ and every reading (full tier only)."""
    rows = []
    for topo in ("baseline", "multi-source"):
        pts, readings, _ = icp_tau_points(res, topo, quick)
        if len(pts) < 2:
            continue  # the quick tier runs the default τ only
        cond = f"{topo}, [0, {_end(topo, quick):g}] s"
        for tau, thr, n in pts:
            default = " (the default)" if f"{tau}ms" == C.ICP_TAU else ""
            rows.append(
                _reported(
                    f"ICP throughput (timeouts), τ = {tau} ms{default}",
                    cond,
                    [thr, n],
                    "Mbit/s (count)",
                )
            )
        for name, (thr, n) in readings.items():
            rows.append(
                _reported(f"ICP throughput (timeouts), {name}", cond, [thr, n], "Mbit/s (count)")
            )
    return rows


def cost_rows(res: dict[str, Outcome], quick: bool) -> list[Row]:
    """Where ICP's false timeouts go on the baseline (default τ): re-expressions sent by the
    receiver and forwarded by B (a consumed PIT entry aggregates nothing), and the duplicate Data
    segments they bring across the B→C bottleneck (segments C received that its receiver did not
    keep: C's PIT entry was gone or the offset had passed)."""
    o = res["baseline/icp"]
    a = C.app_summary(o, "receiver")
    cond = f"ICP, τ = {C.ICP_TAU}, baseline, [0, {_end('baseline', quick):g}] s"
    c_in = C.face_summary(o, "C", "B")["in_data"]
    dup = c_in - a["data_received"]
    return [
        _reported(
            "timeouts / re-expressions sent (a chunk completed before its re-ask left none)",
            cond,
            [a["timeouts"], a["retransmissions"]],
            "count",
        ),
        _reported(
            "chunk Interests C sent to B / B forwarded to A",
            cond,
            [
                C.face_summary(o, "C", "B")["out_interests"],
                C.face_summary(o, "B", "A")["out_interests"],
            ],
            "count",
        ),
        _reported(
            "duplicate Data segments across B→C / their share of B→C's Data",
            cond,
            [dup, 100 * dup / c_in if c_in else float("nan")],
            "segments / %",
        ),
    ]


UNIT_EXP = "ICP's unit of request (Table III)"
#: Table III's ICP row (F, G, total; Mbit/s)
ICP_TABLE_3 = (7.85, 5.90, 13.75)


def icp_unit_points(res: dict[str, Outcome], quick: bool) -> list[tuple[str, int, list[float]]]:
    """[(unit, τ ms, [F, G, F + G Mbit/s, F's timeouts, G's timeouts])] of ICP's 7-node runs
    present (the full tier runs every unit of `ICP_UNITS` at every τ of `ICP_UNIT_TAUS_MS`)."""
    from .chopcop_rows import STEADY

    end = C.dur(quick)["seven"]
    out = []
    for unit in C.ICP_UNITS:
        for tau in C.ICP_UNIT_TAUS_MS:
            k = C.icp_unit_key(unit, tau)
            if k not in res:
                continue
            o = res[k]
            f, g = (C.goodput(o, a, STEADY, end) for a in ("f", "g"))
            to = [C.app_summary(o, a)["timeouts"] for a in ("f", "g")]
            out.append((unit, tau, [f, g, f + g, *to]))
    return out


def unit_rows(res: dict[str, Outcome], quick: bool) -> list[Row]:
    """ICP on the 7-node topology under each reading of its unit and two τ, reported beside
    Table III's ICP row (full tier: the quick tier runs the default only)."""
    from .chopcop_rows import STEADY

    pts = icp_unit_points(res, quick)
    if len(pts) < 2:
        return []
    cond = f"F and G together, [{STEADY:g}, {C.dur(quick)['seven']:g}] s"
    return [
        Row(
            UNIT_EXP,
            f"ICP throughput F / G / total (timeouts F / G), {unit}, τ = {tau} ms",
            cond,
            None,
            ours,
            "Mbit/s (count)",
            "reported",
            None,
            expected=list(ICP_TABLE_3),
            expected_source="Table III's ICP row (its verdicts: the Table III rows)",
        )
        for unit, tau, ours in pts
    ]


def icp_rows(res: dict[str, Outcome], quick: bool) -> list[Row]:
    return cost_rows(res, quick) + sweep_rows(res, quick) + unit_rows(res, quick)
