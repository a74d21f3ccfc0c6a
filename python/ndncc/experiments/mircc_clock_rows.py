"""mircc-clock rows for the claims seed 000 states about its figures and Table V: the 100 ms
loss bins of Fig. 6 and 8, Table V against Table IV at T = 100 and 250 ms, and how fast the
flows converge once C2 starts (Fig. 5b, 7c, 7d)."""

from __future__ import annotations

import numpy as np

from ..sweep import Outcome
from . import mircc_clock as M
from .common import Row

C2_START = 3.0  # s
C2_STOP = 8.0  # s
#: halfway from the lone rate (1 000/s) to the fair share (600/s): a flow has "shifted" once
#: its rate stays at or below this
HALFWAY = 800.0
#: Table V "similar" to Table IV: our reading, fixed before looking at the runs
SIMILAR_LOSS = 0.05


def full_loss_bins(o: Outcome, app: str, lo: float = 0.0, hi: float = float("inf")) -> int:
    """How many 100 ms bins in (lo, hi] whose Interests were all lost (loss rate 100 %)."""
    x, y = M.loss_per_bin(o, app)
    sel = (x > lo) & (x <= hi) & ~np.isnan(y)
    return int((y[sel] >= 1.0 - 1e-12).sum())


def lossy_bins_outside(o: Outcome, app: str, lo: float, hi: float) -> int:
    """How many 100 ms bins outside [lo, hi] lost any Interest."""
    x, y = M.loss_per_bin(o, app)
    sel = ((x < lo) | (x > hi)) & ~np.isnan(y)
    return int((y[sel] > 0).sum())


def shift_time(o: Outcome, app: str = "c1") -> float:
    """Seconds from C2's start until `app`'s rate stays at or below HALFWAY (until C2 stops);
    NaN if it never does."""
    s = o.frames["series"]
    s = s[(s["app_name"] == app) & (s["time_s"] > C2_START) & (s["time_s"] <= C2_STOP)]
    above = s.loc[s["rate"] > HALFWAY, "time_s"]
    if not len(above):
        return 0.0
    last = float(above.max())
    return float("nan") if last >= float(s["time_s"].max()) else last - C2_START


def figure_rows(res: dict[str, Outcome]) -> list[Row]:
    rows: list[Row] = []
    exp = "dumbbell, Fig. 5-8 and Table V"
    o = res[M.key(100, False)]
    for app in ("c1", "c2"):
        n = lossy_bins_outside(o, app, C2_START, 5.0)
        rows.append(
            Row(
                exp,
                f"{app.upper()} 100 ms bins with losses outside [3, 5] s (Fig. 6a)",
                M.label(100, False),
                "losses only around 4 s",
                n,
                "bins",
                "exactly 0",
                n == 0,
            )
        )
    for t in (500, 750):
        alone = full_loss_bins(res[M.key(t, False)], "c1", 1.0, C2_START)
        rows.append(
            Row(
                exp,
                "C1 100 ms bins at 100 % loss while alone, [1, 3] s (Fig. 6c, d)",
                M.label(t, False),
                "some periods at 100 %",
                alone,
                "bins",
                "≥ 1",
                alone >= 1,
            )
        )
        smoothed = sum(full_loss_bins(res[M.key(t, True)], app) for app in ("c1", "c2"))
        rows.append(
            Row(
                exp,
                "100 ms bins at 100 % loss, C1 and C2 (Fig. 8c, d)",
                M.label(t, True),
                "just one",
                smoothed,
                "bins",
                "≤ 1",
                smoothed <= 1,
            )
        )
    for t in (100, 250):
        off, on = res[M.key(t, False)], res[M.key(t, True)]
        for app in ("c1", "c2"):
            l_off, l_on = M.loss(off, app), M.loss(on, app)
            rows.append(
                Row(
                    exp,
                    f"{app.upper()} loss with smoothing ≤ without (Table V vs IV)",
                    M.label(t, True),
                    "slightly smaller",
                    [l_on, l_off],
                    "ratio",
                    "with ≤ without",
                    l_on <= l_off,
                )
            )
            rows.append(
                Row(
                    exp,
                    f"{app.upper()} loss with smoothing similar to without (Table V vs IV)",
                    M.label(t, True),
                    "similar",
                    [l_on, l_off],
                    "ratio",
                    f"within {SIMILAR_LOSS:g} of each other (our reading)",
                    abs(l_on - l_off) <= SIMILAR_LOSS,
                )
            )
    shift = {t: shift_time(res[M.key(t, True)]) for t in (500, 750)}
    rows.append(
        Row(
            exp,
            f"C1's shift from 1000 to 600/s after C2 starts (rate stays ≤ {HALFWAY:g})",
            "T = 500 → 750 ms + smoothing",
            "slower at 750 ms",
            [shift[500], shift[750]],
            "s",
            "750 ms slower",
            shift[750] > shift[500],
        )
    )
    s250 = shift_time(res[M.key(250, False)])
    rows.append(
        Row(
            exp,
            f"C1's shift from 1000 to 600/s after C2 starts (rate stays ≤ {HALFWAY:g})",
            M.label(250, False),
            "around 2 s",
            s250,
            "s",
            "goal ±50 % (\u201caround\u201d)",
            abs(s250 - 2.0) <= 1.0,
        )
    )
    return rows
