"""sf-clock rows for the claims seed 002 states about its figures: the rate and bucket traces
of the linear topology (Fig. 4-6), the Nack trend of the dumbbell (Fig. 9) and the tick trends
of the several-pair totals (Fig. 8 and 11) at every bucket depth."""

from __future__ import annotations

from ..sweep import Outcome
from . import sf_clock as X
from .common import Row

#: Fig. 11 "similar with" Fig. 8: our reading of "similar", fixed before looking at our runs.
SIMILAR = 0.10


def first_nack(o: Outcome) -> tuple[float, float, float] | None:
    """(time, rate before, rate after) of the consumer's first Nack; `None` without a Nack.
    Times are the ends of the app series' bins (5 ms in the linear scenario)."""
    s = o.frames["series"]
    hit = s.index[s["nacks"] > 0]
    if not len(hit):
        return None
    i = s.index.get_loc(hit[0])
    before = s["rate"].iloc[i - 1] if i > 0 else float("nan")
    return float(s["time_s"].iloc[i]), float(before), float(s["rate"].iloc[i])


def rate_cap(o: Outcome) -> float:
    """The highest rate the consumer's controller reached (Interests/s)."""
    return float(o.frames["series"]["rate"].max())


def bucket_hold(o: Outcome, until: float) -> float:
    """How long the consumer node's bucket sat at its maximum before `until` (the first Nack):
    from the first bin that sees it full (≥ D − 0.5 tokens) to `until`, in s; 0 if never."""
    f = o.frames["face_series"]
    f = f[(f["node_name"] == "C") & (f["kind"] == "net") & (f["time_s"] <= until + 1e-9)]
    full = f.loc[f["scheme_bucket"] >= X.DEPTH_LINEAR - 0.5, "time_s"]
    return until - float(full.min()) if len(full) else 0.0


def figure_rows(res: dict[str, Outcome]) -> list[Row]:
    """Fig. 4 and 5: the rate caps per tick, the rate at the first overflow, the first Nack at
    tick 50 ms and how long the bucket sat at D before it."""
    rows: list[Row] = []
    exp = "linear, Fig. 4-5"
    for tick, cap in X.PAPER_CAP.items():
        o = res[X.linear_key(X.engine_label(tick, False))]
        ours = rate_cap(o)
        rows.append(
            Row(
                exp,
                "highest consumer rate (the cap)",
                f"tick {tick} ms",
                cap,
                ours,
                "Interests/s",
                "±10 %",
                abs(ours - cap) <= 0.10 * cap,
            )
        )
        first = first_nack(o)
        before = first[1] if first else float("nan")
        paper = X.PAPER_OVERFLOW_RATE[tick]
        rows.append(
            Row(
                exp,
                "rate when the bucket first overflows",
                f"tick {tick} ms",
                paper,
                before,
                "Interests/s",
                "goal ±10 %",
                abs(before - paper) <= 0.10 * paper,
            )
        )
    for tick in X.LINEAR_TICKS:  # Fig. 6: "goes to 1,000 packets/sec straightly, and keeps"
        ours = rate_cap(res[X.linear_key(X.engine_label(tick, True))])
        rows.append(
            Row(
                exp.replace("4-5", "6"),
                "highest consumer rate (the cap)",
                f"tick {tick} ms + smoothing",
                1000,
                ours,
                "Interests/s",
                "±10 %",
                abs(ours - 1000) <= 100,
            )
        )
    o = res[X.linear_key(X.engine_label(50, False))]
    first = first_nack(o)
    t, _, after = first if first else (float("nan"),) * 3
    paper_t, paper_rate = X.PAPER_FIRST_NACK
    rows.append(
        Row(
            exp,
            "time of the first Nack",
            "tick 50 ms",
            paper_t,
            t,
            "s",
            "±0.5 s (about one bucket-hold period)",
            abs(t - paper_t) <= 0.5,
        )
    )
    rows.append(
        Row(
            exp,
            "rate after the first Nack",
            "tick 50 ms",
            paper_rate,
            after,
            "Interests/s",
            "±5 %",
            abs(after - paper_rate) <= 0.05 * paper_rate,
        )
    )
    hold = bucket_hold(o, t) if first else 0.0
    rows.append(
        Row(
            exp,
            "bucket at its maximum D = 50 before the first Nack",
            "tick 50 ms",
            f"around {X.PAPER_HOLD_S} s",
            hold,
            "s",
            "goal ±50 % (\u201caround\u201d)",
            abs(hold - X.PAPER_HOLD_S) <= 0.5 * X.PAPER_HOLD_S,
        )
    )
    return rows


def nack_trend_rows(res: dict[str, Outcome], quick: bool) -> list[Row]:
    """Fig. 9: with several pairs, more Nacks than with one (every depth, the engines whose
    single pair is not clock-limited)."""
    rows: list[Row] = []
    pairs = X.pairs_for(quick)
    for depth in X.DEPTHS:
        for tick in (None, 1):
            label = X.engine_label(tick, False)
            counts = [X.nacks(res[X.dumbbell_key(n, depth, label)]) for n in pairs]
            rows.append(
                Row(
                    "dumbbell, several pairs",
                    "total Nacks rise with more pairs (Fig. 9)",
                    f"depth {depth}, {label}, pairs {'/'.join(map(str, pairs))}",
                    "Nacks increase with multiple flows",
                    counts,
                    "count",
                    "every n > 1 above n = 1",
                    all(c > counts[0] for c in counts[1:]),
                )
            )
    return rows


def tick_trend_rows(res: dict[str, Outcome], quick: bool) -> list[Row]:
    """Fig. 8 (several pairs): at depth 50 the total falls as the tick grows; at depth 100 and
    500 the fine clock beats every coarse tick (except tick 10 ms at depth 100). Fig. 11: the
    smoothed totals are similar to Fig. 8's."""
    rows: list[Row] = []
    exp = "dumbbell, several pairs, tick trends"
    multi = [n for n in X.pairs_for(quick) if n > 1]

    def tp(n: int, depth: int, tick: int | None, smoothing: bool = False) -> float:
        return X.throughput(res[X.dumbbell_key(n, depth, X.engine_label(tick, smoothing))])

    for n in multi:
        ts = [tp(n, 50, t) for t in X.DUMBBELL_TICKS]
        rows.append(
            Row(
                exp,
                "total throughput falls as the tick grows (Fig. 8a)",
                f"{n} pairs, depth 50, tick 1 → 5 → 10 ms",
                "decreasing with the tick",
                ts,
                "Mbps",
                "strictly decreasing",
                all(a > b for a, b in zip(ts, ts[1:], strict=False)),
            )
        )
        for depth in (100, 500):
            ticks = [t for t in X.DUMBBELL_TICKS if (depth, t) != (100, 10)]
            fine = tp(n, depth, None)
            coarse = [tp(n, depth, t) for t in ticks]
            rows.append(
                Row(
                    exp,
                    "fine clock above every coarse tick (Fig. 8b, c)",
                    f"{n} pairs, depth {depth}, ideal vs tick "
                    + " / ".join(f"{t}" for t in ticks)
                    + " ms",
                    "fine-grained higher" + (" (except tick 10 ms)" if depth == 100 else ""),
                    [fine, *coarse],
                    "Mbps",
                    "ideal above each tick",
                    all(fine > c for c in coarse),
                )
            )
    for depth in X.DEPTHS:
        ratios = [tp(n, depth, t, True) / tp(n, depth, t) for n in multi for t in X.DUMBBELL_TICKS]
        rows.append(
            Row(
                exp,
                "smoothed total similar to the unsmoothed (Fig. 11 vs 8)",
                f"depth {depth}, pairs {'/'.join(map(str, multi))}, every tick",
                "similar",
                ratios,
                "ratio",
                f"each within ±{SIMILAR * 100:g} % of 1 (our reading)",
                all(abs(r - 1) <= SIMILAR for r in ratios),
            )
        )
    return rows
